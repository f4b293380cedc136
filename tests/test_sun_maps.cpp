// find_sun where there is no sun or more than one, on packed inputs, and on the shared real maps
// (tests/data, tests/data/SOURCES.md).
#include <catch2/catch.hpp>

#include <Imath/half.h>

#include "environment_loader.h"
#include "sphere_texels.h"
#include "sun.h"
#include "sun_removal_check.h"
#include "sun_sky.h"

using namespace bake;
using namespace bake::test;

namespace {

constexpr double kDeg = kPi / 180;

Environment load_shared(const std::string& name, bool packed) {
    LoadOptions options;
    options.packed = packed;
    return load_environment(std::string(BAKE_TEST_DATA_DIR) + "/" + name, options);
}

// The map's texels in `encoding`, as a loader keeps them (Environment::packed).
Environment pack(const Environment& env, TexelEncoding encoding) {
    Environment out = zero_packed_equirect(env.width(), env.height(), encoding);
    for (std::size_t i = 0; i < env.texel_count(); ++i) {
        const float* v = &env.equirect.rgb[3 * i];
        if (encoding == TexelEncoding::Half) {
            for (std::size_t c = 0; c < 3; ++c) {
                const std::uint16_t bits = Imath::half(v[c]).bits();
                std::memcpy(&out.packed.bytes[6 * i + 2 * c], &bits, 2);
            }
            continue;
        }
        // Radiance RGBE (Ward): the largest channel's exponent e, each channel as byte * 2^(e - 8).
        const float m = std::max({v[0], v[1], v[2]});
        std::uint8_t* t = &out.packed.bytes[4 * i];
        if (m < 1e-32f) continue;
        int e;
        const float scale = std::frexp(m, &e) * 256.0f / m;
        for (std::size_t c = 0; c < 3; ++c) t[c] = static_cast<std::uint8_t>(std::max(0.0f, v[c]) * scale);
        t[3] = static_cast<std::uint8_t>(e + 128);
    }
    return out;
}

Environment add_sun(Environment env, const DiscSun& disc) {  // a second disc onto a lat-long map
    const Environment only = equirect_sky_with_sun(env.width(), env.height(), 0.0, disc);
    for (std::size_t k = 0; k < env.equirect.rgb.size(); ++k) env.equirect.rgb[k] += only.equirect.rgb[k];
    return env;
}

}  // namespace

TEST_CASE("find_sun: no sun in a sky without one, nor in a broad glow", "[sun]") {
    const Environment sky = make_equirect_env(512, 256, [](const Vec3& d) { return smooth_sky(d, 1.0); });
    const SunSearch none = find_sun(sky);
    CHECK_FALSE(none.sun);
    CHECK(none.verdict.find("no texel reaches") != std::string::npos);
    // The sunlit haze of an overcast sky: 1000 times the sky at its centre, 15 or 8 deg wide (more
    // than 10 deg above a tenth of its peak, 23 or 12 deg).
    const Vec3 centre = normalize(Vec3{0.3, 0.6, -0.5});
    for (double width : {15.0, 8.0}) {
        const Environment glow = make_equirect_env(512, 256, [&](const Vec3& d) {
            const double a = angle_between(d, centre) / (width * kDeg), g = 1e3 * std::exp(-a * a);
            const Rgb s = smooth_sky(d, 1.0);
            return Rgb{s[0] + g, s[1] + g, s[2] + g};
        });
        const SunSearch haze = find_sun(glow);
        INFO(haze.verdict);
        CHECK_FALSE(haze.sun);
        // The wider is too large to look at (no compact source could dominate it), the other is measured.
        CHECK(haze.verdict.find(width > 10 ? "too much for one compact source" : "a bright area, not a sun") != std::string::npos);
    }
}

TEST_CASE("find_sun: a disc in the glow around it is the sun, the glow outside it stays", "[sun]") {
    const DiscSun disc{normalize(Vec3{0.2, 0.4, 0.9}), 1.0 * kDeg, {3e4, 3e4, 3e4}};
    Environment env = equirect_sky_with_sun(1024, 512, 1.0, disc);
    for (int r = 0; r < env.height(); ++r)
        for (int c = 0; c < env.width(); ++c) {
            const double a = angle_between(equirect_texel_direction(r, c, 1024, 512), disc.direction) / (15 * kDeg);
            for (int k = 0; k < 3; ++k) env.equirect.at(r, c)[k] += static_cast<float>(30 * std::exp(-a * a));
        }
    const SunSearch found = find_sun(env);
    INFO(found.verdict);
    REQUIRE(found.sun);
    CHECK(angle_between(found.sun->direction, disc.direction) <= 0.05 * kDeg);
    for (std::size_t c = 0; c < 3; ++c) CHECK(found.sun->illuminance[c] == Approx(disc.illuminance()[c]).epsilon(0.005));
    CHECK(found.sun->angular_radius == Approx(disc.radius).epsilon(0.10));
    check_removal(env, *found.sun, false);
}

TEST_CASE("find_sun: of several suns, one is taken only when it outshines the others together three times", "[sun]") {
    const DiscSun first{normalize(Vec3{0.5, 0.7, 0.2}), 1.0 * kDeg, {1e4, 1e4, 1e4}};
    const Environment one = equirect_sky_with_sun(1024, 512, 1.0, first);
    const Vec3 there = normalize(Vec3{-0.6, 0.3, -0.4});
    for (double ratio : {1.0, 0.5}) {  // equal lamps; one at half the other
        const SunSearch found = find_sun(add_sun(one, {there, 1.0 * kDeg, {1e4 * ratio, 1e4 * ratio, 1e4 * ratio}}));
        INFO(found.verdict);
        CHECK_FALSE(found.sun);
        CHECK(found.verdict.find("below the 75.0% that makes one dominant") != std::string::npos);
    }
    // A tenth of the first (a reflection of the sun, a far lamp): the first is the sun, the other stays.
    const Environment both = add_sun(one, {there, 1.0 * kDeg, {1e3, 1e3, 1e3}});
    const SunSearch found = find_sun(both);
    INFO(found.verdict);
    REQUIRE(found.sun);
    CHECK(angle_between(found.sun->direction, first.direction) <= 0.05 * kDeg);
    for (std::size_t c = 0; c < 3; ++c) CHECK(found.sun->illuminance[c] == Approx(first.illuminance()[c]).epsilon(0.005));
    check_removal(both, *found.sun, false);
    const Environment residual = remove_sun(both, *found.sun);
    double peak = 0;
    Vec3 brightest;
    for (int r = 0; r < 512; ++r)
        for (int c = 0; c < 1024; ++c)
            if (residual.equirect.at(r, c)[1] > peak) peak = residual.equirect.at(r, c)[1], brightest = equirect_texel_direction(r, c, 1024, 512);
    CHECK(angle_between(brightest, there) < 1.5 * kDeg);
}

TEST_CASE("find_sun: the same sun at any scale of the map's units (the moon of a night map)", "[sun]") {
    const DiscSun disc{normalize(Vec3{-0.3, 0.5, 0.8}), 0.26 * kDeg, {1e4, 1e4, 1e4}};
    const Environment day = equirect_sky_with_sun(2048, 1024, 1.0, disc);
    Environment night = day;
    for (float& v : night.equirect.rgb) v *= 1e-6f;  // a power of ten is not exact in float: close, not equal
    const SunSearch a = find_sun(day), b = find_sun(night);
    REQUIRE(a.sun);
    REQUIRE(b.sun);
    CHECK(a.sun->texels == b.sun->texels);
    CHECK(angle_between(a.sun->direction, b.sun->direction) < 1e-6);
    CHECK(b.sun->angular_radius == Approx(a.sun->angular_radius).epsilon(1e-6));
    for (std::size_t c = 0; c < 3; ++c) CHECK(b.sun->illuminance[c] == Approx(1e-6 * a.sun->illuminance[c]).epsilon(1e-5));
    check_removal(night, *b.sun);
}

TEST_CASE("find_sun and remove_sun on packed texels: the same sun as from their floats, a residual still packed", "[sun]") {
    const DiscSun disc{normalize(Vec3{0.7, 0.1, -0.7}), 1.5 * kDeg, {3e3, 2.5e3, 2e3}};
    const Environment floats = equirect_sky_with_sun(1024, 512, 1.0, disc);
    for (TexelEncoding encoding : {TexelEncoding::Rgbe8, TexelEncoding::Half}) {
        Environment packed = pack(floats, encoding);
        packed.identity = next_environment_identity();
        Environment expanded;
        expanded.equirect = expand_packed(packed.packed, 1);
        const SunSearch a = find_sun(packed), b = find_sun(expanded);
        REQUIRE(a.sun);
        REQUIRE(b.sun);
        CHECK(a.sun->texels == b.sun->texels);
        // The fill is the ring's median made a texel of the encoding (RGBE shares one exponent among
        // the channels, so it moves by up to 1/128); all else is the same.
        const Rgb quantised{a.sun->fill[0], a.sun->fill[1], a.sun->fill[2]};
        for (std::size_t c = 0; c < 3; ++c) CHECK(quantised[c] == Approx(b.sun->fill[c]).epsilon(1.0 / 128));
        CHECK(angle_between(a.sun->direction, b.sun->direction) < 1e-5);
        CHECK(angle_between(a.sun->direction, disc.direction) <= 0.05 * kDeg);
        for (std::size_t c = 0; c < 3; ++c) CHECK(a.sun->illuminance[c] == Approx(disc.illuminance()[c]).epsilon(0.01));
        const Environment residual = remove_sun(packed, *a.sun);
        REQUIRE(residual.is_packed());
        CHECK(residual.packed.encoding == encoding);
        CHECK(residual.identity != 0);
        CHECK(residual.identity != packed.identity);
        const SphereTexels t(residual);
        for (std::size_t i : a.sun->texels) {  // the texels decode to the fill exactly
            float v[3];
            t.value(i, v);
            for (std::size_t c = 0; c < 3; ++c) REQUIRE(v[c] == a.sun->fill[c]);
        }
        // A fill that the encoding cannot hold is refused (a Sun of another map).
        Sun odd = *a.sun;
        odd.fill[0] = std::nextafter(odd.fill[0], 1e30f);
        CHECK_THROWS_AS(remove_sun(packed, odd), std::invalid_argument);
        check_removal(packed, *a.sun);
    }
}

TEST_CASE("remove_sun refuses a sun whose texels are not the map's", "[sun]") {
    const Environment env = make_equirect_env(16, 8, [](const Vec3&) { return Rgb{1, 1, 1}; });
    Sun sun;
    sun.texels = {3, 128};
    CHECK_THROWS_AS(remove_sun(env, sun), std::invalid_argument);
}

TEST_CASE("find_sun: the warehouse's lamps and the esplanade's make no sun", "[sun]") {
    for (const char* name : {"pmndrs_warehouse.exr", "pmndrs_esplanade.exr"}) {
        INFO(name);
        const SunSearch found = find_sun(load_shared(name, true));
        INFO(found.verdict);
        CHECK_FALSE(found.sun);
        CHECK(found.verdict.find("makes one dominant") != std::string::npos);
    }
    // What the warehouse is (brute force here): its brightest 0.1% of texels hold about a quarter of its light.
    const Environment env = load_shared("pmndrs_warehouse.exr", false);
    std::vector<std::pair<double, double>> light;  // (Y, Y Omega)
    double total = 0;
    for_each_texel(env, [&](const float* v, const Vec3&, double omega) {
        const double y = 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
        light.push_back({y, y * omega});
        total += y * omega;
    });
    std::sort(light.rbegin(), light.rend());
    double top = 0;
    for (std::size_t k = 0; k < light.size() / 1000; ++k) top += light[k].second;
    CHECK(top / total > 0.2);
    CHECK(top / total < 0.3);
}

TEST_CASE("find_sun: the sky map's sun, against a window around its brightest texel", "[sun]") {
    const Environment packed = load_shared("pmndrs_sky.exr", true), floats = load_shared("pmndrs_sky.exr", false);
    const SunSearch found = find_sun(packed);
    INFO(found.verdict);
    REQUIRE(found.sun);
    const Sun& sun = *found.sun;
    const SunSearch again = find_sun(floats);
    REQUIRE(again.sun);
    CHECK(again.sun->illuminance == sun.illuminance);
    SunOptions one_thread;  // the sums are merged in an order fixed by the map's size: the same bits
    one_thread.threads = 1;
    const SunSearch serial = find_sun(packed, one_thread);
    REQUIRE(serial.sun);
    CHECK(serial.sun->illuminance == sun.illuminance);
    CHECK(serial.sun->energy_share == sun.energy_share);
    // Independently: the brightest texel, and a 9 x 9 window about it less the median of the window's
    // rim (the lossy codec's ringing, negative texels included, lies within it).
    const int w = floats.width(), h = floats.height();
    int pr = 0, pc = 0;
    for (int r = 0; r < h; ++r)
        for (int c = 0; c < w; ++c)
            if (floats.equirect.at(r, c)[1] > floats.equirect.at(pr, pc)[1]) pr = r, pc = c;
    const double texel = 360.0 / w * kDeg;
    CHECK(angle_between(sun.direction, equirect_texel_direction(pr, pc, w, h)) < texel);
    Rgb window{0, 0, 0};
    for (int k = 0; k < 3; ++k) {
        std::vector<float> rim;
        for (int r = pr - 4; r <= pr + 4; ++r)
            for (int c = pc - 4; c <= pc + 4; ++c)
                if (std::abs(r - pr) == 4 || std::abs(c - pc) == 4) rim.push_back(floats.equirect.at(r, c)[k]);
        std::nth_element(rim.begin(), rim.begin() + rim.size() / 2, rim.end());
        for (int r = pr - 4; r <= pr + 4; ++r)
            for (int c = pc - 4; c <= pc + 4; ++c) {
                const Vec3 d = equirect_texel_direction(r, c, w, h);
                window[k] += (floats.equirect.at(r, c)[k] - rim[rim.size() / 2]) * equirect_row_solid_angle(r, w, h) * dot(d, sun.direction);
            }
        CHECK(sun.illuminance[static_cast<std::size_t>(k)] == Approx(window[k]).epsilon(0.05));
    }
    // Smaller than a texel here (0.7 deg): the radius is the resolution's.
    CHECK(sun.angular_radius < 1.25 * texel);
    check_removal(packed, sun, false);
    const Environment residual = remove_sun(packed, sun);
    // The sun is gone: the residual's brightest texel is the clouds about it, below 1% of the sun's.
    // (Those clouds, 5 deg across, would pass for a hazy sun of their own: find_sun is run once.)
    float peak = 0;
    for (std::size_t k = 1; k < residual.equirect.rgb.size(); k += 3) peak = std::max(peak, residual.equirect.rgb[k]);
    CHECK(peak < 0.01f * floats.equirect.at(pr, pc)[1]);
}

TEST_CASE("find_sun: the bundled sample sky's sun, as make-sample-sky draws it", "[sun]") {
    // src/tools/make_sample_sky.cpp: a disc of radius 1.5 deg and radiance (5000, 4750, 4300) at
    // elevation 35 deg, azimuth 45 deg (its texels' coverage supersampled), over a sky with a halo
    // about it; written as RGBE, 512 x 256 (texels of 0.7 deg: the disc is 2.1 texels in radius).
    const Environment sample = load_environment(std::string(BAKE_ASSETS_DIR) + "/sample_sky.hdr", LoadOptions{});
    const SunSearch found = find_sun(sample);
    INFO(found.verdict);
    REQUIRE(found.sun);
    const double theta = 55 * kDeg, phi = 45 * kDeg;
    const Vec3 expected{std::sin(theta) * std::cos(phi), std::cos(theta), std::sin(theta) * std::sin(phi)};
    CHECK(angle_between(found.sun->direction, expected) <= 0.05 * kDeg);
    const double k = kPi * std::pow(std::sin(1.5 * kDeg), 2);
    const Rgb e{5000 * k, 4750 * k, 4300 * k};
    for (std::size_t c = 0; c < 3; ++c) CHECK(found.sun->illuminance[c] == Approx(e[c]).epsilon(0.005));
    CHECK(found.sun->angular_radius == Approx(1.5 * kDeg).epsilon(0.10));
    check_removal(sample, *found.sun);
}
