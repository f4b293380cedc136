// find_sun and remove_sun (src/core/sun/sun.h) on synthetic skies with a known disc sun (sun_sky.h:
// the disc's coverage of each texel integrated independently, its illuminance L pi sin^2 r
// analytic), and on the shared real maps.
#include <catch2/catch.hpp>

#include "sun.h"
#include "sun_removal_check.h"
#include "sun_sky.h"

using namespace bake;
using namespace bake::test;

namespace {

constexpr double kDeg = kPi / 180;

// One synthetic case: direction within 0.05 deg, illuminance within 0.5% a channel, radius within 10%
// once it spans 2.5 texels (smaller suns read larger, by less than 0.75 texel), and the removal.
void check_disc(const Environment& env, const DiscSun& disc, double texel_deg) {
    INFO("sun toward (" << disc.direction.x << ", " << disc.direction.y << ", " << disc.direction.z << "), radius "
                        << disc.radius / kDeg << " deg, radiance " << disc.radiance[0] << ", texel " << texel_deg << " deg");
    const SunSearch found = find_sun(env);
    INFO(found.verdict);
    REQUIRE(found.sun);
    const Sun& sun = *found.sun;
    CHECK(angle_between(sun.direction, disc.direction) <= 0.05 * kDeg);
    const Rgb e = disc.illuminance();
    for (std::size_t c = 0; c < 3; ++c) CHECK(sun.illuminance[c] == Approx(e[c]).epsilon(0.005));
    if (disc.radius >= 2.5 * texel_deg * kDeg) CHECK(sun.angular_radius == Approx(disc.radius).epsilon(0.10));
    else {
        CHECK(sun.angular_radius >= 0.9 * disc.radius);
        CHECK(sun.angular_radius <= disc.radius + 0.75 * texel_deg * kDeg);
    }
    CHECK(sun.solid_angle == Approx(2 * kPi * (1 - std::cos(sun.angular_radius))));
    check_removal(env, sun);
}

Vec3 random_direction(std::mt19937& rng) {
    std::normal_distribution<double> g;
    return normalize(Vec3{g(rng), g(rng), g(rng)});
}

// Radius log-uniform in [0.27, 5] deg, radiance log-uniform in [1e2, 1e6] times the sky's base, tinted.
DiscSun random_disc(std::mt19937& rng, const Vec3& direction) {
    std::uniform_real_distribution<double> u(0, 1);
    const double radius = 0.27 * std::pow(5 / 0.27, u(rng)) * kDeg, ratio = std::pow(10.0, 2 + 4 * u(rng));
    return {direction, radius, {ratio, ratio * (0.8 + 0.2 * u(rng)), ratio * (0.6 + 0.4 * u(rng))}};
}

}  // namespace

TEST_CASE("find_sun: a disc sun on a 1024x512 lat-long sky, anywhere: the poles, the seam", "[sun]") {
    std::mt19937 rng(36);
    std::vector<Vec3> directions = {{0, 1, 0}, {0, -1, 0}, {-1, 0, 0}, normalize(Vec3{-1, 0.3, 1e-4}),
                                    normalize(Vec3{-1, -0.2, -2e-3}), normalize(Vec3{2e-3, 1, 1e-3})};
    for (int k = 0; k < 14; ++k) directions.push_back(random_direction(rng));
    for (const Vec3& d : directions) {
        const DiscSun disc = random_disc(rng, d);
        check_disc(equirect_sky_with_sun(1024, 512, 1.0, disc), disc, 360.0 / 1024);
    }
}

TEST_CASE("find_sun: the smallest and largest suns, weakest and strongest, on 1024x512 and 4096x2048", "[sun]") {
    std::mt19937 rng(7);
    for (double radius : {0.27, 5.0})
        for (double ratio : {1e2, 1e6}) {
            const DiscSun disc{random_direction(rng), radius * kDeg, {ratio, ratio, ratio}};
            check_disc(equirect_sky_with_sun(1024, 512, 1.0, disc), disc, 360.0 / 1024);
        }
    // At 4096 the real sun (0.27 deg) is 6 texels across: resolved. The weakest, the strongest at a
    // pole, and a large one on the seam.
    const DiscSun small{random_direction(rng), 0.27 * kDeg, {100, 90, 70}};
    check_disc(equirect_sky_with_sun(4096, 2048, 1.0, small), small, 360.0 / 4096);
    const DiscSun polar{normalize(Vec3{0.01, -1, 0.02}), 0.27 * kDeg, {1e6, 9e5, 7e5}};
    check_disc(equirect_sky_with_sun(4096, 2048, 1.0, polar), polar, 360.0 / 4096);
    const DiscSun seam{normalize(Vec3{-1, 0.5, 0}), 2.0 * kDeg, {1e3, 1e3, 1e3}};
    check_disc(equirect_sky_with_sun(4096, 2048, 1.0, seam), seam, 360.0 / 4096);
}

TEST_CASE("find_sun: a disc sun on a cube map, across face edges and at corners", "[sun]") {
    std::mt19937 rng(3);
    std::vector<Vec3> directions = {normalize(Vec3{1, 1, 0}),   normalize(Vec3{0, 1, -1}),     normalize(Vec3{-1, 0, 1}),
                                    normalize(Vec3{1, 1, 1}),   normalize(Vec3{-1, -1, 1.02}), normalize(Vec3{1, -0.999, -1}),
                                    {0, 0, 1},                  normalize(Vec3{0.5, -1, 0.999})};
    for (int k = 0; k < 8; ++k) directions.push_back(random_direction(rng));
    for (const Vec3& d : directions) {
        const DiscSun disc = random_disc(rng, d);
        check_disc(cube_sky_with_sun(256, 1.0, disc), disc, 2.0 / 256 / kDeg);  // texels are h = 2/N radians at most
    }
}

TEST_CASE("find_sun: a sun smaller than a texel is found within its texel, its radius the texel's size", "[sun]") {
    // 128x64: texels of 2.8 deg, the sun (0.27 deg) under 1% of one.
    std::mt19937 rng(11);
    for (int k = 0; k < 6; ++k) {
        const DiscSun disc{random_direction(rng), 0.27 * kDeg, {1e5, 1e5, 1e5}};
        const Environment env = equirect_sky_with_sun(128, 64, 1.0, disc);
        const SunSearch found = find_sun(env);
        INFO(found.verdict);
        REQUIRE(found.sun);
        const double texel = 360.0 / 128 * kDeg;
        CHECK(angle_between(found.sun->direction, disc.direction) <= 0.5 * std::sqrt(2.0) * texel);
        for (std::size_t c = 0; c < 3; ++c) CHECK(found.sun->illuminance[c] == Approx(disc.illuminance()[c]).epsilon(0.005));
        // About the size of its texel: at least half the side of a square of its solid angle, at
        // most a texel and a quarter.
        CHECK(found.sun->angular_radius >= 0.5 * std::sqrt(texel_solid_angle_at(env, disc.direction)));
        CHECK(found.sun->angular_radius <= 1.25 * texel);
        check_removal(env, *found.sun);
    }
}
