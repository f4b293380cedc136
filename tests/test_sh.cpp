// The SH basis and the clamped-cosine factors, against quadrature and closed forms.
#include <catch2/catch.hpp>

#include "test_support.h"

using namespace bake;
using bake::test::kPi;

namespace {

// Gauss-Legendre nodes on [-1, 1] by Newton iteration (exact for polynomials of degree 2n-1).
void gauss_legendre(int n, std::vector<double>& x, std::vector<double>& w) {
    x.resize(static_cast<size_t>(n));
    w.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        double z = std::cos(kPi * (i + 0.75) / (n + 0.5)), pp = 0;
        for (int it = 0; it < 100; ++it) {
            double p1 = 1, p2 = 0;
            for (int j = 1; j <= n; ++j) {
                const double p3 = p2;
                p2 = p1;
                p1 = ((2.0 * j - 1) * z * p2 - (j - 1.0) * p3) / j;
            }
            pp = n * (z * p1 - p2) / (z * z - 1);
            const double dz = p1 / pp;
            z -= dz;
            if (std::fabs(dz) < 1e-16) break;
        }
        x[static_cast<size_t>(i)] = z;
        w[static_cast<size_t>(i)] = 2 / ((1 - z * z) * pp * pp);
    }
}

}  // namespace

TEST_CASE("SH basis is orthonormal (Gauss-Legendre x uniform-azimuth quadrature, exact for degree <= 8)", "[sh]") {
    // Products of two band-4 functions are polynomials of degree 8 in (x, y, z); 16 Gauss nodes in
    // cos(theta) and 32 azimuths integrate them exactly, so the Gram matrix must be the identity
    // to rounding.
    std::vector<double> gx, gw;
    gauss_legendre(16, gx, gw);
    const int n_phi = 32;
    double gram[25][25] = {};
    double y[25];
    for (size_t i = 0; i < gx.size(); ++i) {
        const double ct = gx[i], st = std::sqrt(1 - ct * ct);
        for (int j = 0; j < n_phi; ++j) {
            const double phi = 2 * kPi * j / n_phi;
            // Polar axis along y and along z give the same integral; take z here.
            eval_sh_basis(5, Vec3{st * std::cos(phi), st * std::sin(phi), ct}, y);
            const double w = gw[i] * 2 * kPi / n_phi;
            for (int a = 0; a < 25; ++a)
                for (int b = 0; b < 25; ++b) gram[a][b] += w * y[a] * y[b];
        }
    }
    for (int a = 0; a < 25; ++a)
        for (int b = 0; b < 25; ++b) {
            INFO("k=" << a << " j=" << b);
            CHECK(gram[a][b] == Approx(a == b ? 1.0 : 0.0).margin(1e-12));
        }
}

TEST_CASE("SH basis matches the associated-Legendre definition without Condon-Shortley phase", "[sh]") {
    // Independent construction: Y_lm = K_lm P_l^|m|(z) {cos, sin}(|m| phi) with the z polar axis
    // of CONVENTION.md, P without the (-1)^m phase, K = sqrt(2) sqrt((2l+1)/4pi (l-m)!/(l+m)!) for m != 0.
    auto factorial = [](int n) { double f = 1; for (int i = 2; i <= n; ++i) f *= i; return f; };
    auto legendre = [](int l, int m, double x) {  // P_l^m without the Condon-Shortley phase
        double pmm = 1, somx2 = std::sqrt(std::max(0.0, 1 - x * x));
        for (int i = 1; i <= m; ++i) pmm *= (2 * i - 1) * somx2;
        if (l == m) return pmm;
        double pmmp1 = x * (2 * m + 1) * pmm;
        if (l == m + 1) return pmmp1;
        double pll = 0;
        for (int ll = m + 2; ll <= l; ++ll) {
            pll = ((2 * ll - 1) * x * pmmp1 - (ll + m - 1) * pmm) / (ll - m);
            pmm = pmmp1;
            pmmp1 = pll;
        }
        return pll;
    };
    std::mt19937 rng(7);
    std::normal_distribution<double> g;
    for (int trial = 0; trial < 200; ++trial) {
        const Vec3 d = normalize(Vec3{g(rng), g(rng), g(rng)});
        double y[25];
        eval_sh_basis(5, d, y);
        const double phi = std::atan2(d.y, d.x);
        for (int l = 0; l <= 4; ++l)
            for (int m = -l; m <= l; ++m) {
                const int am = std::abs(m);
                const double k = std::sqrt((2 * l + 1) / (4 * kPi) * factorial(l - am) / factorial(l + am));
                double expected = k * legendre(l, am, d.z);
                if (m > 0) expected *= std::sqrt(2.0) * std::cos(am * phi);
                if (m < 0) expected *= std::sqrt(2.0) * std::sin(am * phi);
                INFO("l=" << l << " m=" << m);
                CHECK(y[l * l + l + m] == Approx(expected).margin(1e-13));
            }
    }
}

TEST_CASE("float and double basis agree", "[sh]") {
    float yf[25];
    double yd[25];
    const Vec3 d = normalize(Vec3{0.3, -0.7, 0.2});
    eval_sh_basis<float>(5, static_cast<float>(d.x), static_cast<float>(d.y), static_cast<float>(d.z), yf);
    eval_sh_basis(5, d, yd);
    for (int k = 0; k < 25; ++k) CHECK(yf[k] == Approx(yd[k]).margin(2e-6));
}

TEST_CASE("clamped-cosine factors A_l equal the integral of max(0, cos) against Legendre polynomials", "[sh]") {
    // A_l = 2 pi * integral_0^1 t P_l(t) dt (Funk-Hecke), by composite Simpson with 20000 steps.
    for (int l = 0; l <= 4; ++l) {
        const int steps = 20000;
        const double h = 1.0 / steps;
        double s = 0;
        for (int i = 0; i <= steps; ++i) {
            const double t = i * h;
            const double wgt = (i == 0 || i == steps) ? 1 : (i % 2 ? 4 : 2);
            s += wgt * t * bake::test::legendre_p(l, t);
        }
        const double a_l = 2 * kPi * s * h / 3;
        INFO("l=" << l);
        CHECK(clamped_cosine_band_factor(l) == Approx(a_l).margin(1e-12));
    }
}

TEST_CASE("irradiance coefficients scale each band by A_l", "[sh]") {
    ShCoefficients l(5);
    for (int k = 0; k < 25; ++k) l.rgb[static_cast<size_t>(k)] = {1.0 + k, 2.0 * k, -0.5 * k};
    const ShCoefficients e = irradiance_from_radiance(l);
    for (int k = 0; k < 25; ++k)
        for (int c = 0; c < 3; ++c)
            CHECK(e.rgb[static_cast<size_t>(k)][c] == l.rgb[static_cast<size_t>(k)][c] * clamped_cosine_band_factor(sh_band(k)));
    CHECK(sh_band(0) == 0);
    CHECK(sh_band(3) == 1);
    CHECK(sh_band(8) == 2);
    CHECK(sh_band(24) == 4);
    CHECK(sh_m(4) == -2);
    CHECK(sh_m(24) == 4);
}
