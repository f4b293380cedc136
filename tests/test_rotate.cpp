// --rotate (rotate.h): the direction of the turn against docs/CONVENTION.md's mapping, whole columns
// and quarter turns texel for texel, the integral kept, and the SH of a turned map against the
// original's coefficients turned independently: L'_lm = ∫ L(R⁻¹ d) Y_lm(d) dd = ∫ L(d) Y_lm(R d) dd,
// the original's texels projected on the basis evaluated at the turned directions.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>

#include "projection.h"
#include "rotate.h"
#include "sh.h"
#include "test_support.h"

using namespace bake;
using namespace bake::test;

namespace {

Vec3 turned(const Vec3& d, double degrees) {
    const double t = degrees * test::kPi / 180, c = std::cos(t), s = std::sin(t);
    return {c * d.x + s * d.z, d.y, -s * d.x + c * d.z};
}

// Σ Y_lm(R d) L(d) Ω over the original's texels: its coefficients turned by R.
ShCoefficients turned_coefficients(const Environment& env, int order, double degrees) {
    ShCoefficients out(order);
    std::vector<double> y(static_cast<std::size_t>(sh_count(order)));
    for_each_texel(env, [&](const float* rgb, const Vec3& d, double omega) {
        eval_sh_basis(order, turned(d, degrees), y.data());
        for (int k = 0; k < sh_count(order); ++k)
            for (int c = 0; c < 3; ++c) out.rgb[static_cast<std::size_t>(k)][c] += y[static_cast<std::size_t>(k)] * rgb[c] * omega;
    });
    return out;
}

// max |a - b| over the max |b|, all coefficients and channels.
double sh_difference(const ShCoefficients& a, const ShCoefficients& b) {
    double diff = 0, max_b = 0;
    for (std::size_t k = 0; k < b.rgb.size(); ++k)
        for (int c = 0; c < 3; ++c) {
            diff = std::max(diff, std::fabs(a.rgb[k][c] - b.rgb[k][c]));
            max_b = std::max(max_b, std::fabs(b.rgb[k][c]));
        }
    return diff / max_b;
}

std::array<double, 3> integral(const Environment& env) {
    std::array<double, 3> s{0, 0, 0};
    for_each_texel(env, [&](const float* rgb, const Vec3&, double omega) {
        for (int c = 0; c < 3; ++c) s[c] += rgb[c] * omega;
    });
    return s;
}

Environment random_equirect(int w, int h, unsigned seed) {
    Environment env = make_equirect_env(w, h, smooth_radiance);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.5f, 1.5f);
    for (float& v : env.equirect.rgb) v *= u(rng);  // texel-scale detail on a smooth sky
    return env;
}

}  // namespace

TEST_CASE("rotate: positive degrees take +X toward -Z (docs/CONVENTION.md)", "[rotate]") {
    // A lone bright texel at +X (u = 0.5, the image centre) turned by 90° is at -Z (u = 0.25); by
    // -90° at +Z. A cube's +X face centre goes to the -Z face's.
    for (double degrees : {90.0, -90.0}) {
        Environment env = make_equirect_env(64, 32, [](const Vec3&) { return Rgb{0, 0, 0}; });
        double u, v;
        equirect_uv({1, 0, 0}, &u, &v);
        const int row = 15, col = static_cast<int>(u * 64);  // the texel just above +X
        put(env.equirect.at(row, col), Rgb{1, 2, 3});
        const Vec3 from = equirect_texel_direction(row, col, 64, 32);
        REQUIRE(rotate_environment(env, degrees) == RotationKind::Shift);
        const Vec3 to = turned(from, degrees);
        CHECK(std::fabs(to.z - (degrees > 0 ? -from.x : from.x)) < 1e-12);  // toward -Z for positive degrees
        equirect_uv(to, &u, &v);
        CHECK(env.equirect.at(static_cast<int>(v * 32), static_cast<int>(u * 64))[1] == 2.0f);
    }
    Environment cube = make_cube_env(4, [](const Vec3& d) { return Rgb{d.x, d.y, d.z}; });
    const CubeMap before = cube.cube;
    REQUIRE(rotate_environment(cube, 90.0) == RotationKind::Shift);
    CHECK(std::memcmp(cube.cube.faces[5].at(1, 2), before.faces[0].at(1, 2), 3 * sizeof(float)) == 0);  // +X -> -Z
    CHECK(cube.cube.faces[5].at(1, 2)[0] > 0.5f);  // it still holds +X's radiance (x > 0.5 there)
}

TEST_CASE("rotate: whole columns and quarter turns move texels bit for bit, packed texels stay packed", "[rotate]") {
    const Environment env = random_equirect(96, 48, 1);
    for (double degrees : {15.0, 90.0, -45.0, 720.0 + 30.0}) {
        Environment turned_env = env;
        REQUIRE(rotate_environment(turned_env, degrees) == RotationKind::Shift);
        const int k = (static_cast<int>(std::lround(degrees / 360 * 96)) % 96 + 96) % 96;  // columns to the left
        for (int r = 0; r < 48; ++r)
            for (int j = 0; j < 96; ++j)
                REQUIRE(std::memcmp(turned_env.equirect.at(r, j), env.equirect.at(r, (j + k) % 96), 3 * sizeof(float)) == 0);
    }
    Environment same = env;
    CHECK(rotate_environment(same, 360.0) == RotationKind::None);
    CHECK(same.equirect.rgb == env.equirect.rgb);
    // Packed RGBE: the bytes move, and expand to the float image turned.
    Environment packed = random_packed_equirect(40, 20, TexelEncoding::Rgbe8, 9);
    Environment floats = packed;
    expand_packed_texels(floats);
    REQUIRE(rotate_environment(packed, 9.0 * 4) == RotationKind::Shift);  // 4 columns
    REQUIRE(packed.is_packed());
    REQUIRE(rotate_environment(floats, 36.0) == RotationKind::Shift);
    expand_packed_texels(packed);
    CHECK(packed.equirect.rgb == floats.equirect.rgb);
    // Three quarter turns of a cube and one more are the cube again; SH exact.
    Environment cube = make_random_cube_env(6, 4, 0.5f, 2.0f);
    Environment once = cube;
    REQUIRE(rotate_environment(once, 270.0) == RotationKind::Shift);
    CHECK(sh_difference(project_sh_cpu(once, 5).radiance, turned_coefficients(cube, 5, 270.0)) < 1e-12);
    REQUIRE(rotate_environment(once, -270.0) == RotationKind::Shift);
    for (int f = 0; f < 6; ++f) CHECK(once.cube.faces[static_cast<std::size_t>(f)].rgb == cube.cube.faces[static_cast<std::size_t>(f)].rgb);
}

TEST_CASE("rotate: the SH of a turned map are the original's turned, and its integral is kept", "[rotate]") {
    // Whole columns: exact (texel centres land on texel centres). Fractional: the map is the area
    // average of the turned input, whose texel-centre projection differs from the turned
    // coefficients by the box filter's second-order term, ~ (m Δφ)² / 24 in band m (Δφ = 2π / width;
    // 1e-5 for m = 4 at 512 wide; measured 4e-6). Cube: 1.1e-4, the integral within 5e-6.
    const Environment env = random_equirect(512, 256, 2);
    const std::array<double, 3> before = integral(env);
    struct Case {
        double degrees;
        RotationKind kind;
        double bound;
    };
    for (const Case& c : {Case{22.5, RotationKind::Shift, 1e-12}, Case{-67.5, RotationKind::Shift, 1e-12},
                          Case{17.3, RotationKind::AreaAverage, 2e-5}, Case{123.456, RotationKind::AreaAverage, 2e-5}}) {
        Environment turned_env = env;
        REQUIRE(rotate_environment(turned_env, c.degrees) == c.kind);
        const double d = sh_difference(project_sh_cpu(turned_env, 5).radiance, turned_coefficients(env, 5, c.degrees));
        INFO(c.degrees << "°: max |SH - turned SH| / max " << d);
        CHECK(d <= c.bound);
        const std::array<double, 3> after = integral(turned_env);
        for (int ch = 0; ch < 3; ++ch) CHECK(std::fabs(after[ch] / before[ch] - 1) <= 1e-6);  // rows' sums, float rounding
    }
    // A cube by another angle: resampled (rotate.h).
    const Environment cube = make_cube_env(64, [](const Vec3& d) { return smooth_radiance(d); });
    const std::array<double, 3> cube_before = integral(cube);
    Environment turned_cube = cube;
    REQUIRE(rotate_environment(turned_cube, 33.0) == RotationKind::Resampled);
    const double d = sh_difference(project_sh_cpu(turned_cube, 5).radiance, turned_coefficients(cube, 5, 33.0));
    INFO("cube 64, 33°: max |SH - turned SH| / max " << d);
    CHECK(d <= 5e-4);
    const std::array<double, 3> cube_after = integral(turned_cube);
    for (int ch = 0; ch < 3; ++ch) {
        INFO("integral " << cube_after[ch] / cube_before[ch] - 1);
        CHECK(std::fabs(cube_after[ch] / cube_before[ch] - 1) <= 5e-5);
    }
    CHECK_THROWS_AS(rotate_environment(turned_cube, std::nan("")), std::invalid_argument);
}
