// The sheen LUT (sheen_lut.h) against an independent integral: the same albedo written over the
// half vector h = (θh, φh) about N, l = reflect(-v, h), dl = 4 (v·h) dh, θh up to where l meets the
// horizon (θmax = π/4 + ψ/2, tan ψ = tan θv cos φh), summed by adaptive Simpson (the LUT: adaptive
// Gauss-Kronrod over (N·L, φ) of l). D, Λ and both visibilities are written out here from their
// papers' formulas (Estevez & Kulla 2017's table, Neubelt & Pettineo 2013).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfInputFile.h>
#include <OpenEXR/ImfStringAttribute.h>

#include "image_io.h"
#include "png_reader.h"
#include "sheen_lut.h"
#include "sheen_lut_files.h"
#include "test_support.h"

using namespace bake;
using namespace bake::test;

namespace {

double lambda_l(double x, double r) {  // E&K's L(x), rows r = 0 and r = 1 mixed by (1 - r)²
    const double w = (1 - r) * (1 - r);
    const double p[2][5] = {{25.3245, 3.32435, 0.16801, -1.27393, -4.85967}, {21.5473, 3.82987, 0.19823, -1.97760, -4.32054}};
    double q[5];
    for (int i = 0; i < 5; ++i) q[i] = w * p[0][i] + (1 - w) * p[1][i];
    return q[0] / (1 + q[1] * std::pow(x, q[2])) + q[3] * x + q[4];
}
double lambda(double c, double r) { return c < 0.5 ? std::exp(lambda_l(c, r)) : std::exp(2 * lambda_l(0.5, r) - lambda_l(1 - c, r)); }

// Adaptive Simpson with Richardson's correction: a piece is refined until its two estimates agree to
// `rel` of its size or to its share of `abs` (halved at each split), at most 30 deep. The integrand is
// positive (no cancellation).
double simpson(const std::function<double(double)>& f, double a, double b, double fa, double fm, double fb, double whole, double rel,
               double abs, int depth) {
    const double m = 0.5 * (a + b), lm = 0.5 * (a + m), rm = 0.5 * (m + b);
    const double flm = f(lm), frm = f(rm);
    const double left = (m - a) / 6 * (fa + 4 * flm + fm), right = (b - m) / 6 * (fm + 4 * frm + fb);
    const double diff = left + right - whole;
    if (depth <= 0 || std::fabs(diff) <= 15 * std::max(abs, rel * std::fabs(left + right))) return left + right + diff / 15;
    return simpson(f, a, m, fa, flm, fm, left, rel, 0.5 * abs, depth - 1) + simpson(f, m, b, fm, frm, fb, right, rel, 0.5 * abs, depth - 1);
}
// ∫_a^b f, started on 16 equal pieces and on pieces halving towards b down to 2^-30 (b - a), where
// the integrand's narrow features sit (D's peak at grazing h meets the horizon at θmax), so that
// none hides between the first nodes.
double integrate(const std::function<double(double)>& f, double a, double b, double rel, double abs) {
    std::vector<double> edges;
    for (int i = 0; i < 16; ++i) edges.push_back(a + (b - a) * i / 16);
    for (double d = (b - a) / 32; d > (b - a) * 1e-9; d *= 0.5) edges.push_back(b - d);
    edges.push_back(b);
    double sum = 0;
    for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
        const double x0 = edges[i], x1 = edges[i + 1], xm = 0.5 * (x0 + x1);
        const double f0 = f(x0), fm = f(xm), f1 = f(x1);
        sum += simpson(f, x0, x1, f0, fm, f1, (x1 - x0) / 6 * (f0 + 4 * fm + f1), rel, abs / static_cast<double>(edges.size()), 30);
    }
    return sum;
}

// E over the half vectors: which = 0 the Charlie visibility, 1 Neubelt's.
double albedo(double nv, double roughness, int which) {
    const double alpha = roughness * roughness, sv = std::sqrt(1 - nv * nv);
    auto over_theta = [&](double phi) {
        const double psi = std::atan2(sv * std::cos(phi), nv), theta_max = test::kPi / 4 + psi / 2;
        auto f = [&](double th) {
            const Vec3 h{std::sin(th) * std::cos(phi), std::sin(th) * std::sin(phi), std::cos(th)};
            const double vh = sv * h.x + nv * h.z, nl = 2 * vh * h.z - nv;
            if (nl <= 0) return 0.0;
            const double d = (2 + 1 / alpha) * std::pow(std::sin(th), 1 / alpha) / (2 * test::kPi);
            // V·(N·L), without dividing by N·L (it vanishes at θmax).
            const double v_nl = which == 0 ? 1 / ((1 + lambda(nv, alpha) + lambda(nl, alpha)) * 4 * nv) : nl / (4 * (nl + nv - nl * nv));
            return d * v_nl * 4 * vh * std::sin(th);
        };
        return integrate(f, 0, theta_max, 1e-10, 1e-12);
    };
    return 2 * integrate(over_theta, 0, test::kPi, 1e-8, 1e-8);
}

}  // namespace

TEST_CASE("Sheen LUT values against an independent integral over the half vectors", "[sheen]") {
    // Within 1e-5 (absolute), from grazing views and the smoothest sheen a 128-texel table holds
    // (where E reaches 22: D's grazing peak) to normal incidence and roughness 1. Measured: 2.2e-7.
    for (double nv : {1.0 / 256, 1.0 / 64, 0.05, 0.2, 0.5, 0.8, 1.0})
        for (double r : {1.0 / 256, 1.0 / 64, 0.1, 0.3, 0.6, 1.0}) {
            const SheenLutValue lut = sheen_lut_value(nv, r);
            const double charlie = albedo(nv, r, 0), neubelt = albedo(nv, r, 1);
            INFO("N.V " << nv << " roughness " << r << ": charlie " << lut.charlie << " vs " << charlie << ", neubelt "
                        << lut.neubelt << " vs " << neubelt);
            CHECK(std::fabs(lut.charlie - charlie) <= 1e-5);
            CHECK(std::fabs(lut.neubelt - neubelt) <= 1e-5);
        }
}

TEST_CASE("Sheen LUT values against the rule with twice the nodes, over the whole table", "[sheen]") {
    double worst = 0;
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
            const double nv = (i + 0.5) / 16, r = (j + 0.5) / 16;
            const SheenLutValue a = sheen_lut_value(nv, r), b = sheen_lut_value_refined(nv, r, 2);
            worst = std::max({worst, std::fabs(a.charlie - b.charlie), std::fabs(a.neubelt - b.neubelt)});
        }
    INFO("max |E - E at twice the nodes| " << worst);
    CHECK(worst <= 1e-6);
}

TEST_CASE("Sheen LUT layout: texel centres, channels, and the limits", "[sheen]") {
    const int size = 8;
    const Image t = compute_sheen_lut(size, 2);
    REQUIRE(t.width == size);
    REQUIRE(t.height == size);
    for (int row = 0; row < size; ++row)
        for (int col = 0; col < size; ++col) {
            const SheenLutValue v = sheen_lut_value((col + 0.5) / size, (row + 0.5) / size);
            CHECK(t.at(row, col)[0] == static_cast<float>(v.charlie));
            CHECK(t.at(row, col)[1] == static_cast<float>(v.neubelt));
            CHECK(t.at(row, col)[2] == static_cast<float>(v.neubelt));
        }
    // Roughness 0 reflects nothing to a view above the horizon; bad arguments are refused.
    CHECK(sheen_lut_value(0.5, 0.0).neubelt == 0.0);
    CHECK_THROWS_AS(sheen_lut_value(0.0, 0.5), std::invalid_argument);
    CHECK_THROWS_AS(sheen_lut_value(0.5, 1.5), std::invalid_argument);
    CHECK_THROWS_AS(compute_sheen_lut(0), std::invalid_argument);
}

TEST_CASE("Sheen LUT files: EXR exact with its axes and channels stated, 16-bit PNG clamped", "[sheen]") {
    const std::string dir = scratch("sheen_lut_files");
    const Image table = compute_sheen_lut(16, 0);
    write_sheen_lut_exr(dir + "/sheen.exr", table);
    const LoadedImage exr = load_image(dir + "/sheen.exr");
    REQUIRE((exr.image.width == 16 && exr.image.height == 16));
    CHECK(std::equal(table.rgb.begin(), table.rgb.end(), exr.image.rgb.begin()));
    Imf::InputFile file((dir + "/sheen.exr").c_str());
    const auto* channels = file.header().findTypedAttribute<Imf::StringAttribute>("bakeChannels");
    const auto* axes = file.header().findTypedAttribute<Imf::StringAttribute>("bakeAxes");
    REQUIRE(channels);
    REQUIRE(axes);
    CHECK(channels->value() == kSheenLutChannels);
    CHECK(axes->value() == kSheenLutAxes);

    write_sheen_lut_png16(dir + "/sheen.png", table);
    const std::optional<test::PngPixels> png = test::read_png(dir + "/sheen.png");
    REQUIRE(png.has_value());
    REQUIRE((png->sixteen_bit && png->channels == 3 && png->width == 16 && png->height == 16));
    int above_one = 0;
    for (std::size_t i = 0; i < table.rgb.size(); ++i) {
        const double v = std::min(1.0, std::max(0.0, static_cast<double>(table.rgb[i])));
        above_one += table.rgb[i] > 1.0f;
        CHECK(std::fabs(png->values[i] / 65535.0 - v) <= 0.5 / 65535 + 1e-9);
    }
    CHECK(above_one > 0);  // the grazing, smooth corner: clamped in the PNG
}
