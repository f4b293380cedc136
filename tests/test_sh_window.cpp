// SH deringing windows: factors, the minimum search and the automatic choice, against closed
// forms and brute force that do not use the code under test.
#include <catch2/catch.hpp>

#include "sh_window.h"
#include "test_support.h"

using namespace bake;
using bake::test::legendre_p;
using bake::test::kPi;

namespace {

const ShWindowKind kFixedKinds[] = {ShWindowKind::None, ShWindowKind::Hann, ShWindowKind::Lanczos, ShWindowKind::Gauss};
const ShWindowKind kWindowKinds[] = {ShWindowKind::Hann, ShWindowKind::Lanczos, ShWindowKind::Gauss};

// Irradiance of one delta light of unit power in direction s, as a function of t = n.s, with
// band l scaled by factors[l]: by the addition theorem sum_m Y_lm(s) Y_lm(n) = (2l+1)/(4pi) P_l(t).
double windowed_sun(int order, const std::vector<double>& factors, double t) {
    double e = 0;
    for (int l = 0; l < order; ++l)
        e += clamped_cosine_band_factor(l) * factors[static_cast<size_t>(l)] * (2 * l + 1) / (4 * kPi) * legendre_p(l, t);
    return e;
}

// Its minimum over t in [-1, 1]: a 4001-point scan, then golden sections around the best point.
double windowed_sun_min(int order, const std::vector<double>& factors) {
    const int n = 4000;
    int best = 0;
    for (int i = 1; i <= n; ++i)
        if (windowed_sun(order, factors, -1 + 2.0 * i / n) < windowed_sun(order, factors, -1 + 2.0 * best / n)) best = i;
    double a = std::max(-1.0, -1 + 2.0 * (best - 1) / n), b = std::min(1.0, -1 + 2.0 * (best + 1) / n);
    const double g = (std::sqrt(5.0) - 1) / 2;
    for (int it = 0; it < 200 && b - a > 1e-14; ++it) {
        const double c = b - g * (b - a), d = a + g * (b - a);
        if (windowed_sun(order, factors, c) < windowed_sun(order, factors, d))
            b = d;
        else
            a = c;
    }
    return std::min({windowed_sun(order, factors, (a + b) / 2), windowed_sun(order, factors, -1.0), windowed_sun(order, factors, 1.0)});
}

std::vector<double> ones(int order) { return std::vector<double>(static_cast<size_t>(order), 1.0); }

// E_k = A_l Y_k(s) P: the irradiance coefficients of a delta light of power P per channel.
ShCoefficients sun_irradiance(int order, const Vec3& s, const Rgb& power) {
    ShCoefficients e(order);
    double y[kMaxShCount];
    eval_sh_basis(order, s, y);
    for (int k = 0; k < e.count(); ++k)
        for (int c = 0; c < 3; ++c) e.rgb[static_cast<size_t>(k)][c] = clamped_cosine_band_factor(sh_band(k)) * y[k] * power[c];
    return e;
}

ShCoefficients add(ShCoefficients a, const ShCoefficients& b) {
    for (int k = 0; k < a.count(); ++k)
        for (int c = 0; c < 3; ++c) a.rgb[static_cast<size_t>(k)][c] += b.rgb[static_cast<size_t>(k)][c];
    return a;
}

constexpr double kY00 = 0.282094791773878;
const Vec3 kSunDirection = normalize(Vec3{0.3, 0.8, -0.5});

// Non-negative within the tolerance of sh_window.h: 1e-9 of each channel's mean.
void check_nonnegative(const Rgb& min_value, const ShCoefficients& e) {
    for (int c = 0; c < 3; ++c) CHECK(min_value[c] >= -1e-9 * e.rgb[0][c] * kY00);
}

}  // namespace

TEST_CASE("window names parse and print", "[window]") {
    for (ShWindowKind kind : {ShWindowKind::None, ShWindowKind::Hann, ShWindowKind::Lanczos, ShWindowKind::Gauss, ShWindowKind::Auto})
        CHECK(parse_sh_window(sh_window_name(kind)) == kind);
    CHECK(std::string(sh_window_name(ShWindowKind::Lanczos)) == "lanczos");
    CHECK_FALSE(parse_sh_window("Hann").has_value());
    CHECK_FALSE(parse_sh_window("").has_value());
}

TEST_CASE("window factors at hand-computed points", "[window]") {
    using V = std::vector<double>;
    const double r2 = std::sqrt(2.0) / 2;
    // Hann at l = w/2 is 1/2; it reaches 0 at l = w.
    CHECK_THAT(sh_window_factors(ShWindowKind::Hann, 5, 4), Catch::Matchers::Approx(V{1, (1 + r2) / 2, 0.5, (1 - r2) / 2, 0}).margin(1e-15));
    CHECK_THAT(sh_window_factors(ShWindowKind::Hann, 3, 6), Catch::Matchers::Approx(V{1, (1 + std::sqrt(3.0) / 2) / 2, 0.75}).margin(1e-15));
    // Lanczos: sinc(1/2) = 2/pi, sinc(1/3) = 3 sqrt(3) / (2 pi), sinc(2/3) = 3 sqrt(3) / (4 pi); 0 from l = w on.
    CHECK_THAT(sh_window_factors(ShWindowKind::Lanczos, 5, 2), Catch::Matchers::Approx(V{1, 2 / kPi, 0, 0, 0}).margin(1e-15));
    CHECK_THAT(sh_window_factors(ShWindowKind::Lanczos, 5, 3),
               Catch::Matchers::Approx(V{1, 3 * std::sqrt(3.0) / (2 * kPi), 3 * std::sqrt(3.0) / (4 * kPi), 0, 0}).margin(1e-15));
    // Gauss exp(-(pi l / 2w)^2): w = pi/2 gives exp(-l^2); at l = w it is exp(-pi^2/4) for any w.
    CHECK_THAT(sh_window_factors(ShWindowKind::Gauss, 5, kPi / 2),
               Catch::Matchers::Approx(V{1, std::exp(-1.0), std::exp(-4.0), std::exp(-9.0), std::exp(-16.0)}).margin(1e-15));
    CHECK(sh_window_factors(ShWindowKind::Gauss, 4, 3)[3] == Approx(std::exp(-kPi * kPi / 4)).epsilon(1e-14));
    CHECK(sh_window_factors(ShWindowKind::None, 5, 2) == V{1, 1, 1, 1, 1});
    // A cutoff <= 1 keeps band 0 only (hann, lanczos).
    CHECK(sh_window_factors(ShWindowKind::Hann, 3, 1) == V{1, 0, 0});
    CHECK(sh_window_factors(ShWindowKind::Lanczos, 3, 0.5) == V{1, 0, 0});
}

TEST_CASE("window factors start at 1, stay in [0, 1] and do not increase with l", "[window]") {
    for (ShWindowKind kind : kFixedKinds)
        for (int order = 1; order <= kMaxShOrder; ++order)
            for (double w : {0.5, 1.0, 1.5, 2.0, 2.7, 4.0, 6.0, 10.0, 100.0}) {
                const std::vector<double> f = sh_window_factors(kind, order, w);
                INFO(sh_window_name(kind) << " order " << order << " w " << w);
                REQUIRE(f.size() == static_cast<size_t>(order));
                CHECK(f[0] == 1.0);
                for (size_t l = 1; l < f.size(); ++l) {
                    CHECK(f[l] >= 0.0);
                    CHECK(f[l] <= f[l - 1]);
                }
            }
}

TEST_CASE("gauss agrees with hann to second order in l at the same cutoff", "[window]") {
    const std::vector<double> g = sh_window_factors(ShWindowKind::Gauss, 5, 300);
    const std::vector<double> h = sh_window_factors(ShWindowKind::Hann, 5, 300);
    for (size_t l = 1; l < 5; ++l) CHECK((1 - g[l]) / (1 - h[l]) == Approx(1).epsilon(1e-3));
}

TEST_CASE("window arguments are checked", "[window]") {
    CHECK_THROWS_AS(sh_window_factors(ShWindowKind::Auto, 3, 4), std::invalid_argument);
    CHECK_THROWS_AS(sh_window_factors(ShWindowKind::Hann, 3, 0), std::invalid_argument);
    CHECK_THROWS_AS(sh_window_factors(ShWindowKind::Lanczos, 3, -2), std::invalid_argument);
    CHECK_THROWS_AS(sh_window_factors(ShWindowKind::Gauss, 3, std::nan("")), std::invalid_argument);
    CHECK_THROWS_AS(sh_window_factors(ShWindowKind::Hann, 6, 4), std::invalid_argument);
    CHECK_THROWS_AS(default_sh_window_cutoff(ShWindowKind::Auto, 3), std::invalid_argument);
    CHECK_THROWS_AS(apply_sh_window(ShCoefficients(3), ones(5)), std::invalid_argument);
    CHECK_THROWS_AS(choose_sh_window(ShWindowKind::Hann, ShCoefficients(3), -1), std::invalid_argument);
}

TEST_CASE("default cutoffs are the integer cutoffs with the least worst-case ringing, keeping band 1", "[window]") {
    // The worst case over non-negative environments is a single delta light (sh_window.h).
    for (int order : {3, 5}) {
        const double unwindowed = windowed_sun_min(order, ones(order));
        CHECK(unwindowed < -0.03);
        for (ShWindowKind kind : kWindowKinds) {
            const double w = default_sh_window_cutoff(kind, order);
            INFO(sh_window_name(kind) << " order " << order << " cutoff " << w);
            CHECK(w > order);
            CHECK(w == std::round(w));
            const std::vector<double> f = sh_window_factors(kind, order, w);
            CHECK(f[1] >= 0.85);
            const double ringing = windowed_sun_min(order, f);
            CHECK(ringing > unwindowed / 2);  // at least halved
            CHECK(ringing > windowed_sun_min(order, sh_window_factors(kind, order, w - 1)));
            CHECK(ringing > windowed_sun_min(order, sh_window_factors(kind, order, w + 1)));
        }
    }
    CHECK(default_sh_window_cutoff(ShWindowKind::None, 3) == 0);
}

TEST_CASE("apply_sh_window scales band by band, for radiance and irradiance alike", "[window]") {
    ShCoefficients c(5);
    for (int k = 0; k < 25; ++k) c.rgb[static_cast<size_t>(k)] = {1.0 + k, -0.5 * k, 0.25 * k * k};
    const std::vector<double> f = {1, 0.5, -2, 3, 0.125};
    const ShCoefficients w = apply_sh_window(c, f);
    REQUIRE(w.order == 5);
    for (int k = 0; k < 25; ++k)
        for (int ch = 0; ch < 3; ++ch)
            CHECK(w.rgb[static_cast<size_t>(k)][ch] == c.rgb[static_cast<size_t>(k)][ch] * f[static_cast<size_t>(sh_band(k))]);
    const ShCoefficients a = irradiance_from_radiance(apply_sh_window(c, f));
    const ShCoefficients b = apply_sh_window(irradiance_from_radiance(c), f);
    for (int k = 0; k < 25; ++k)
        for (int ch = 0; ch < 3; ++ch) CHECK(a.rgb[static_cast<size_t>(k)][ch] == Approx(b.rgb[static_cast<size_t>(k)][ch]).epsilon(1e-15));
}

TEST_CASE("min_sh_irradiance of a constant is the constant", "[window]") {
    ShCoefficients e(5);
    e.rgb[0] = {2 / kY00, -0.5 / kY00, 0};
    const Rgb m = min_sh_irradiance(e);
    CHECK(m[0] == Approx(2).epsilon(1e-14));
    CHECK(m[1] == Approx(-0.5).epsilon(1e-14));
    CHECK(m[2] == 0);
}

TEST_CASE("min_sh_irradiance of a single sun matches the zonal minimum", "[window]") {
    // The truncated irradiance of a delta light depends on n.s only; its minimum over t = n.s
    // comes from a 1-D search with Legendre polynomials.
    const Rgb power = {1, 2.5, 0.4};
    for (int order = 2; order <= 5; ++order)
        for (const Vec3& s : {kSunDirection, Vec3{0, 0, 1}, normalize(Vec3{-1, 1, 1})}) {
            const Rgb m = min_sh_irradiance(sun_irradiance(order, s, power));
            const double expected = windowed_sun_min(order, ones(order));
            INFO("order " << order << " s " << s.x << " " << s.y << " " << s.z);
            CHECK(expected < 0);
            for (int c = 0; c < 3; ++c) CHECK(m[c] == Approx(expected * power[c]).margin(1e-12 * power[c]));
        }
}

TEST_CASE("min_sh_irradiance of two suns matches a dense brute-force search", "[window]") {
    // Not zonal: brute force over a 300 x 600 lat-long grid, then a 101 x 101 grid of spacing
    // 1.5e-4 rad around its best node (within 1e-7 of the minimum for these coefficients).
    const ShCoefficients e = add(sun_irradiance(5, kSunDirection, {1, 0.5, 0.2}),
                                 sun_irradiance(5, normalize(Vec3{-0.6, 0.1, 0.7}), {0.3, 0.9, 0.6}));
    const Rgb m = min_sh_irradiance(e);
    auto dir = [](double theta, double phi) {
        return Vec3{std::sin(theta) * std::cos(phi), std::cos(theta), std::sin(theta) * std::sin(phi)};
    };
    const int rows = 300, cols = 600;
    for (int c = 0; c < 3; ++c) {
        double best = 1e300, best_theta = 0, best_phi = 0;
        for (int i = 0; i < rows; ++i)
            for (int j = 0; j < cols; ++j) {
                const double theta = kPi * (i + 0.5) / rows, phi = 2 * kPi * j / cols;
                const double v = eval_sh(e, dir(theta, phi))[c];
                if (v < best) best = v, best_theta = theta, best_phi = phi;
            }
        const double th0 = best_theta, ph0 = best_phi;
        for (int i = -50; i <= 50; ++i)
            for (int j = -50; j <= 50; ++j) {
                const double theta = th0 + i * 1.5e-4, phi = ph0 + j * 1.5e-4 / std::sin(th0);
                best = std::min(best, eval_sh(e, dir(theta, phi))[c]);
            }
        INFO("channel " << c);
        CHECK(m[c] <= best + 1e-12);
        CHECK(m[c] >= best - 1e-7);
    }
}

TEST_CASE("auto windows a single sun to the mildest non-negative lanczos window", "[window]") {
    // With only bands 0 and 1 the sun's irradiance is (1 + 2 w_1 t)/4, non-negative iff w_1 <= 1/2;
    // every cutoff above the one with sinc(1/w) = 1/2 rings (bands 2 and 4 do not help a delta).
    double x_lo = 0.5, x_hi = 0.7;  // sinc(x) = 1/2 at x = 1/w
    for (int i = 0; i < 100; ++i) {
        const double x = (x_lo + x_hi) / 2;
        (std::sin(kPi * x) / (kPi * x) > 0.5 ? x_lo : x_hi) = x;
    }
    const double expected_cutoff = 2 / (x_lo + x_hi);

    const Rgb power = {1, 2, 0.5};
    for (int order : {3, 5}) {
        INFO("order " << order);
        const ShCoefficients e = sun_irradiance(order, kSunDirection, power);
        const ShWindowChoice choice = choose_sh_window(ShWindowKind::Auto, e);
        for (int c = 0; c < 3; ++c) CHECK(choice.min_irradiance_before[c] < -0.03 * power[c]);
        CHECK(choice.kind == ShWindowKind::Lanczos);
        CHECK(choice.nonnegative);
        CHECK(choice.cutoff == Approx(expected_cutoff).epsilon(1e-7));
        CHECK(choice.band_factors == sh_window_factors(ShWindowKind::Lanczos, order, choice.cutoff));
        check_nonnegative(choice.min_irradiance_after, e);
        check_nonnegative(min_sh_irradiance(apply_sh_window(e, choice.band_factors)), e);
        CHECK(windowed_sun_min(order, choice.band_factors) >= -1e-9 * 0.25);
        // Mildest: 2% more cutoff rings again, and so does every cutoff up to 64.
        CHECK(windowed_sun_min(order, sh_window_factors(ShWindowKind::Lanczos, order, 1.02 * choice.cutoff)) < -1e-3);
        for (double w = 1.02 * choice.cutoff; w < 64; w *= 1.01)
            CHECK(windowed_sun_min(order, sh_window_factors(ShWindowKind::Lanczos, order, w)) < 0);
        const ShWindowChoice again = choose_sh_window(ShWindowKind::Auto, e);
        CHECK(again.cutoff == choice.cutoff);
        CHECK(again.min_irradiance_after == choice.min_irradiance_after);
    }
}

TEST_CASE("auto finds the mild window of a sun over a sky, past cutoffs that ring more", "[window]") {
    // Sun plus a uniform sky of mean irradiance 0.02 (the sun's mean is 0.25): non-negative for
    // lanczos cutoffs up to about 9.8 at order 5, but not for 2 < w < ~4, where band 2 is cut.
    const int order = 5;
    const double sky = 0.02;
    ShCoefficients e = sun_irradiance(order, kSunDirection, {1, 1, 1});
    for (double& v : e.rgb[0]) v += sky / kY00;
    const ShWindowChoice choice = choose_sh_window(ShWindowKind::Auto, e);
    CHECK(choice.min_irradiance_before[0] < -0.005);
    CHECK(choice.kind == ShWindowKind::Lanczos);
    CHECK(choice.nonnegative);
    CHECK(choice.cutoff > 9);
    CHECK(choice.cutoff < 11);
    check_nonnegative(choice.min_irradiance_after, e);
    CHECK(windowed_sun_min(order, choice.band_factors) + sky >= -1e-9 * 0.27);
    CHECK(windowed_sun_min(order, sh_window_factors(ShWindowKind::Lanczos, order, 1.02 * choice.cutoff)) + sky < 0);
    for (double w = 1.02 * choice.cutoff; w < 64; w *= 1.01)
        CHECK(windowed_sun_min(order, sh_window_factors(ShWindowKind::Lanczos, order, w)) + sky < 0);
    CHECK(windowed_sun_min(order, sh_window_factors(ShWindowKind::Lanczos, order, 3)) + sky < 0);
}

TEST_CASE("auto leaves a non-negative irradiance alone", "[window]") {
    ShCoefficients e(5);
    e.rgb[0] = {1 / kY00, 2 / kY00, 0.5 / kY00};
    for (int k = 1; k < 4; ++k) e.rgb[static_cast<size_t>(k)] = {0.3, -0.2, 0.1};
    const ShWindowChoice choice = choose_sh_window(ShWindowKind::Auto, e);
    CHECK(choice.kind == ShWindowKind::None);
    CHECK(choice.cutoff == 0);
    CHECK(choice.band_factors == ones(5));
    CHECK(choice.nonnegative);
    CHECK(choice.min_irradiance_after == choice.min_irradiance_before);
    for (int c = 0; c < 3; ++c) CHECK(choice.min_irradiance_before[c] > 0);
}

TEST_CASE("auto keeps band 0 only and reports failure for a negative mean", "[window]") {
    ShCoefficients e = sun_irradiance(3, kSunDirection, {1, 1, 1});
    e.rgb[0][1] = -0.1 / kY00;  // green has a negative mean
    const ShWindowChoice choice = choose_sh_window(ShWindowKind::Auto, e);
    CHECK_FALSE(choice.nonnegative);
    CHECK(choice.kind == ShWindowKind::Lanczos);
    CHECK(choice.cutoff == 1);
    CHECK(choice.band_factors == std::vector<double>{1, 0, 0});
    CHECK(choice.min_irradiance_after[0] == Approx(0.25).epsilon(1e-12));
    CHECK(choice.min_irradiance_after[1] == Approx(-0.1).epsilon(1e-12));
}

TEST_CASE("fixed windows apply the requested or default cutoff", "[window]") {
    const int order = 5;
    const Rgb power = {1, 2, 0.5};
    const ShCoefficients e = sun_irradiance(order, kSunDirection, power);
    for (ShWindowKind kind : kWindowKinds) {
        INFO(sh_window_name(kind));
        const ShWindowChoice choice = choose_sh_window(kind, e);
        CHECK(choice.kind == kind);
        CHECK(choice.cutoff == default_sh_window_cutoff(kind, order));
        CHECK(choice.band_factors == sh_window_factors(kind, order, choice.cutoff));
        CHECK_FALSE(choice.nonnegative);  // no window with band 2 kept makes a lone sun non-negative
        const double ringing = windowed_sun_min(order, choice.band_factors);
        for (int c = 0; c < 3; ++c) {
            CHECK(choice.min_irradiance_after[c] == Approx(ringing * power[c]).margin(1e-12 * power[c]));
            CHECK(choice.min_irradiance_after[c] > choice.min_irradiance_before[c]);
        }
    }
    const ShWindowChoice strong = choose_sh_window(ShWindowKind::Lanczos, e, 1.5);
    CHECK(strong.cutoff == 1.5);
    CHECK(strong.nonnegative);
    const ShWindowChoice none = choose_sh_window(ShWindowKind::None, e, 4);
    CHECK(none.cutoff == 0);
    CHECK(none.band_factors == ones(order));
    CHECK_FALSE(none.nonnegative);
    CHECK(none.min_irradiance_after == none.min_irradiance_before);
}
