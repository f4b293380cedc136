// SphereTexels (src/core/sun/sphere_texels.h): the neighbours of texels on the sphere and each texel's
// spread, against the geometry computed here by brute force.
#include <catch2/catch.hpp>

#include <random>
#include <set>

#include "sphere_texels.h"
#include "sun_sky.h"

using namespace bake;
using namespace bake::test;

namespace {

std::set<std::size_t> neighbour_set(const SphereTexels& t, std::size_t i) {
    std::size_t nb[8];
    const int n = t.neighbours(i, nb);
    return {nb, nb + n};
}

}  // namespace

TEST_CASE("SphereTexels: lat-long neighbours wrap at the seam, cross the poles and are mutual", "[sun]") {
    const int w = 64, h = 32;
    const Environment env = make_equirect_env(w, h, [](const Vec3&) { return Rgb{1, 1, 1}; });
    const SphereTexels t(env);
    const double reach = std::hypot(kPi / h, 2 * kPi / w) * (1 + 1e-9);  // the diagonal at the equator
    for (std::size_t i = 0; i < t.count(); ++i) {
        const std::set<std::size_t> nb = neighbour_set(t, i);
        REQUIRE(nb.size() == 8);
        for (std::size_t j : nb) {
            REQUIRE(angle_between(t.direction(i), t.direction(j)) <= reach);
            REQUIRE(neighbour_set(t, j).count(i) == 1);
        }
    }
    const auto at = [&](int r, int c) { return static_cast<std::size_t>(r) * w + static_cast<std::size_t>(c); };
    CHECK(neighbour_set(t, at(10, 0)).count(at(10, w - 1)) == 1);      // the seam, both ways
    CHECK(neighbour_set(t, at(10, w - 1)).count(at(11, 0)) == 1);
    CHECK(neighbour_set(t, at(0, 5)).count(at(0, 5 + w / 2)) == 1);    // over the north pole
    CHECK(neighbour_set(t, at(h - 1, 40)).count(at(h - 1, 40 - w / 2)) == 1);  // and the south
}

TEST_CASE("SphereTexels: cube neighbours across face edges are the nearest texels of the next face", "[sun]") {
    const int n = 8;
    const Environment env = make_cube_env(n, [](const Vec3&) { return Rgb{1, 1, 1}; });
    const SphereTexels t(env);
    const double reach = 2.0 / n * std::sqrt(2.0) * (1 + 1e-9);  // a texel's diagonal is below h sqrt 2 radians
    const std::size_t face_texels = static_cast<std::size_t>(n) * n;
    for (std::size_t i = 0; i < t.count(); ++i) {
        const std::set<std::size_t> nb = neighbour_set(t, i);
        const std::size_t r = (i % face_texels) / n, c = i % n;
        const bool corner = (r == 0 || r == n - 1u) && (c == 0 || c == n - 1u);
        REQUIRE(nb.size() >= (corner ? 7u : 8u));  // three faces meet at a cube corner
        for (std::size_t j : nb) REQUIRE(angle_between(t.direction(i), t.direction(j)) <= reach);
        if (r != 0 && r != n - 1u && c != 0 && c != n - 1u) continue;
        // An edge texel: the texel of each other face nearest to it (brute force) is a neighbour.
        for (std::size_t face = 0; face < 6; ++face) {
            if (face == i / face_texels) continue;
            std::size_t nearest = 0;
            double best = 10;
            for (std::size_t j = face * face_texels; j < (face + 1) * face_texels; ++j) {
                const double a = angle_between(t.direction(i), t.direction(j));
                if (a < best) best = a, nearest = j;
            }
            // The face across the edge has one within 0.5 h; a third face, seen diagonally past a
            // corner from the texel next to it, none nearer than about h.
            if (best < 0.8 * 2.0 / n) REQUIRE(nb.count(nearest) == 1);
        }
    }
}

TEST_CASE("SphereTexels: spread is half the mean squared distance of the texel's points from its centre", "[sun]") {
    // Brute force: 1 - d.d_i averaged over 128 x 128 points of the texel, weighted by solid angle.
    const auto check = [](const SphereTexels& t, std::size_t i, const std::function<Vec3(double, double)>& point,
                          const std::function<double(double, double)>& density, double tolerance) {
        const Vec3 centre = t.direction(i);
        double sum = 0, weight = 0;
        const int k = 128;
        for (int a = 0; a < k; ++a)
            for (int b = 0; b < k; ++b) {
                const double u = (a + 0.5) / k, v = (b + 0.5) / k, w = density(u, v);
                sum += w * (1 - dot(normalize(point(u, v)), centre));
                weight += w;
            }
        CHECK(t.spread(i) == Approx(sum / weight).epsilon(tolerance));
    };
    const int w = 256, h = 128;
    const Environment latlong = make_equirect_env(w, h, [](const Vec3&) { return Rgb{1, 1, 1}; });
    const SphereTexels lt(latlong);
    for (int row : {1, 7, 40, 64, 127}) {
        const int col = 77;
        check(lt, static_cast<std::size_t>(row) * w + col,
              [&](double u, double v) { return equirect_direction((col + u) / w, (row + v) / h); },
              [&](double, double v) { return std::sin(kPi * (row + v) / h); }, row == 1 || row == 127 ? 0.05 : 0.01);
    }
    const int n = 32;
    const Environment cube = make_cube_env(n, [](const Vec3&) { return Rgb{1, 1, 1}; });
    const SphereTexels ct(cube);
    for (auto [face, row, col] : {std::array<int, 3>{0, 15, 16}, {2, 0, 0}, {3, 31, 5}, {5, 3, 20}}) {
        const double hh = 2.0 / n;
        const auto st = [&](double u, double v) { return std::pair{(col + u) * hh - 1, (row + v) * hh - 1}; };
        check(ct, static_cast<std::size_t>(face) * n * n + static_cast<std::size_t>(row) * n + static_cast<std::size_t>(col),
              [&](double u, double v) { auto [s, tt] = st(u, v); return cube_face_direction(face, s, tt); },
              [&](double u, double v) { auto [s, tt] = st(u, v); return std::pow(1 + s * s + tt * tt, -1.5); }, 0.01);
    }
}

TEST_CASE("SphereTexels: packed texels read as expand_packed gives them", "[sun]") {
    for (TexelEncoding encoding : {TexelEncoding::Rgbe8, TexelEncoding::Half}) {
        const Environment env = random_packed_equirect(32, 16, encoding, 5);
        const Image floats = expand_packed(env.packed, 1);
        const SphereTexels t(env);
        std::vector<float> scratch;
        for (std::size_t i = 0; i < t.count(); ++i) {
            float v[3];
            t.value(i, v);
            const float* row = t.row_values(static_cast<int>(i / 32), scratch) + 3 * (i % 32);
            for (std::size_t c = 0; c < 3; ++c) {
                REQUIRE(std::memcmp(&v[c], &floats.rgb[3 * i + c], sizeof(float)) == 0);
                REQUIRE(std::memcmp(&row[c], &floats.rgb[3 * i + c], sizeof(float)) == 0);
            }
        }
    }
}

TEST_CASE("float_to_rgbe: the nearest RGBE at or below each channel, and decoded RGBE encodes to itself", "[sun]") {
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> u(0, 1);
    for (int k = 0; k < 10000; ++k) {
        const float scale = std::ldexp(1.0f, static_cast<int>(u(rng) * 80) - 40);
        const float rgb[3] = {u(rng) * scale, u(rng) * scale, u(rng) * scale};
        std::uint8_t b[4];
        float back[3];
        float_to_rgbe(rgb, b);
        rgbe_to_float(b, back, 1);
        const float m = std::max({rgb[0], rgb[1], rgb[2]});
        int e;
        std::frexp(m, &e);
        for (int c = 0; c < 3; ++c) {  // truncated to a step of 2^(e - 8) of the largest channel's exponent
            REQUIRE(back[c] <= rgb[c]);
            REQUIRE(rgb[c] - back[c] < std::ldexp(1.0f, e - 8));
        }
        std::uint8_t again[4];
        float_to_rgbe(back, again);
        REQUIRE(std::memcmp(b, again, 4) == 0);
    }
    const float black[3] = {0, 0, 0}, negative[3] = {-1, 2, 0.5f};
    std::uint8_t b[4];
    float_to_rgbe(black, b);
    CHECK((b[0] | b[1] | b[2] | b[3]) == 0);
    float_to_rgbe(negative, b);
    CHECK(b[0] == 0);
}
