// The sun as each engine takes it (src/core/outputs/sun_lights.h): the rotation math and every
// field, from a Sun made here. tests/js/check_sun.mjs has three.js's own loaders and the glTF
// validator read the files (ctest: sun_files_readers).
#include <catch2/catch.hpp>

#include <random>

#include "sun_lights.h"

using namespace bake;
using json = nlohmann::json;

namespace {

constexpr double kPi = 3.14159265358979323846;

// v turned by the unit quaternion (x, y, z, w): v + 2w (u x v) + 2 u x (u x v).
Vec3 rotate(const std::array<double, 4>& q, const Vec3& v) {
    const Vec3 u{q[0], q[1], q[2]};
    const auto cross = [](const Vec3& a, const Vec3& b) {
        return Vec3{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
    };
    const Vec3 uv = cross(u, v), uuv = cross(u, uv);
    return {v.x + 2 * (q[3] * uv.x + uuv.x), v.y + 2 * (q[3] * uv.y + uuv.y), v.z + 2 * (q[3] * uv.z + uuv.z)};
}

std::array<double, 4> quat(const json& j) { return {j[0].get<double>(), j[1].get<double>(), j[2].get<double>(), j[3].get<double>()}; }
Vec3 vec(const json& j) { return {j[0].get<double>(), j[1].get<double>(), j[2].get<double>()}; }

void check_near(const Vec3& a, const Vec3& b, double eps = 1e-12) {
    CHECK(a.x == Approx(b.x).margin(eps));
    CHECK(a.y == Approx(b.y).margin(eps));
    CHECK(a.z == Approx(b.z).margin(eps));
}

Sun test_sun() {
    Sun s;
    s.direction = normalize(Vec3{0.3, 0.8, -0.52});
    s.illuminance = {5.0e4, 4.6e4, 3.9e4};
    s.angular_radius = 0.27 * kPi / 180;
    s.solid_angle = 2 * kPi * (1 - std::cos(s.angular_radius));
    s.removed = {5.01e4, 4.61e4, 3.91e4};
    s.fill = {1.5f, 1.7f, 2.0f};
    s.texels = {10, 11, 12, 20};
    s.texel_radius = 0.1 * kPi / 180;
    s.energy_share = 0.7;
    s.source_share = 0.99;
    return s;
}

// A glTF document as gltf_ibl.cpp makes it: one scene of one node, EXT_lights_image_based used.
json ibl_document() {
    return {{"asset", {{"version", "2.0"}}},
            {"extensionsUsed", {"EXT_lights_image_based"}},
            {"scene", 0},
            {"scenes", {{{"nodes", {0}}}}},
            {"nodes", {{{"name", "environment"}}}}};
}

}  // namespace

TEST_CASE("rotation_from_minus_z turns -Z onto the direction given, with a unit quaternion", "[sun]") {
    std::mt19937 rng(1);
    std::normal_distribution<double> g;
    std::vector<Vec3> directions = {{0, 0, -1}, {0, 0, 1}, {1, 0, 0}, {0, -1, 0}, normalize(Vec3{1e-9, 0, 1}),
                                    normalize(Vec3{0, -1e-7, 1}), normalize(Vec3{3e-4, 2e-4, 1})};
    for (int k = 0; k < 200; ++k) directions.push_back(normalize(Vec3{g(rng), g(rng), g(rng)}));
    for (const Vec3& t : directions) {
        const auto q = rotation_from_minus_z(t);
        CHECK(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] == Approx(1.0).epsilon(1e-14));
        check_near(rotate(q, {0, 0, -1}), t, 1e-14);
    }
}

TEST_CASE("sun_json: our object says where the sun is, how bright, how large, and what was removed", "[sun]") {
    const Sun s = test_sun();
    const json j = sun_json(s);
    check_near(vec(j["direction"]), s.direction, 0);
    for (std::size_t c = 0; c < 3; ++c) {
        CHECK(j["illuminance"][c].get<double>() == s.illuminance[c]);
        CHECK(j["color"][c].get<double>() == Approx(s.illuminance[c] / 5.0e4));  // E over its largest channel
        CHECK(j["removed_light"][c].get<double>() == s.removed[c]);
    }
    CHECK(j["illuminance_luminance"].get<double>() == Approx(0.2126 * 5.0e4 + 0.7152 * 4.6e4 + 0.0722 * 3.9e4));
    CHECK(j["angular_radius_deg"].get<double>() == Approx(0.27));
    CHECK(j["solid_angle_sr"].get<double>() == s.solid_angle);
    CHECK(j["removed"] == true);
    CHECK(j["texels"] == 4);
    CHECK(j["units"].get<std::string>().find("lux when the map is in cd/m^2") != std::string::npos);
}

TEST_CASE("add_gltf_sun: a KHR_lights_punctual directional light on a node aimed away from the sun", "[sun]") {
    const Sun s = test_sun();
    json doc = ibl_document();
    add_gltf_sun(doc, s, 2.0);
    CHECK(doc["extensionsUsed"] == json({"EXT_lights_image_based", "KHR_lights_punctual"}));
    const json& light = doc["extensions"]["KHR_lights_punctual"]["lights"][0];
    CHECK(light["type"] == "directional");
    for (std::size_t c = 0; c < 3; ++c) {
        const double colour = light["color"][c].get<double>();
        CHECK(colour >= 0);
        CHECK(colour <= 1);  // the schema's range (light.schema.json)
        CHECK(colour * light["intensity"].get<double>() == Approx(2.0 * s.illuminance[c]));
    }
    const json& node = doc["nodes"][1];
    CHECK(node["extensions"]["KHR_lights_punctual"]["light"] == 0);
    check_near(rotate(quat(node["rotation"]), {0, 0, -1}), {-s.direction.x, -s.direction.y, -s.direction.z});
    CHECK(doc["scenes"][0]["nodes"] == json({0, 1}));
    add_gltf_sun(doc, s);  // a second: its own light and node, the extension listed once
    CHECK(doc["extensionsUsed"].size() == 2);
    CHECK(doc["nodes"][2]["extensions"]["KHR_lights_punctual"]["light"] == 1);
    CHECK(doc["scenes"][0]["nodes"] == json({0, 1, 2}));
    json bare = {{"asset", {{"version", "2.0"}}}};
    CHECK_THROWS_AS(add_gltf_sun(bare, s), std::invalid_argument);
}

TEST_CASE("threejs_sun_json: a DirectionalLight at the sun, its colour in sRGB percentages", "[sun]") {
    const Sun s = test_sun();
    const json j = threejs_sun_json(s, 3.0);
    CHECK(j["object"]["type"] == "DirectionalLight");
    const json& m = j["object"]["matrix"];
    check_near({m[12].get<double>(), m[13].get<double>(), m[14].get<double>()}, s.direction);
    double srgb[3];
    REQUIRE(std::sscanf(j["object"]["color"].get<std::string>().c_str(), "rgb(%lf%%, %lf%%, %lf%%)", &srgb[0], &srgb[1], &srgb[2]) == 3);
    for (std::size_t c = 0; c < 3; ++c) {
        const double v = srgb[c] / 100, linear = v < 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
        CHECK(linear * j["object"]["intensity"].get<double>() == Approx(3.0 * s.illuminance[c]).epsilon(1e-6));
    }
}

TEST_CASE("filament_sun_json: Type SUN, the direction light travels, mirrored in X as cmgen's IBL", "[sun]") {
    Sun s = test_sun();
    const json mirrored = filament_sun_json(s, 3e4), plain = filament_sun_json(s, 3e4, false);
    CHECK(mirrored["type"] == "SUN");
    check_near(vec(plain["direction"]), {-s.direction.x, -s.direction.y, -s.direction.z});
    check_near(vec(mirrored["direction"]), {s.direction.x, -s.direction.y, -s.direction.z});
    for (std::size_t c = 0; c < 3; ++c)
        CHECK(plain["color"][c].get<double>() * plain["intensity"].get<double>() == Approx(3e4 * s.illuminance[c]));
    CHECK(plain["sunAngularRadius"].get<double>() == Approx(0.27));
    CHECK(plain["sunHaloSize"] == 10.0);
    CHECK(plain["sunHaloFalloff"] == 80.0);
    s.angular_radius = 0.1 * kPi / 180;  // below Filament's range: its least
    CHECK(filament_sun_json(s)["sunAngularRadius"].get<double>() == 0.25);
}

TEST_CASE("bevy_sun_json: illuminance in lux and a Transform whose forward is the light's travel", "[sun]") {
    const Sun s = test_sun();
    const json j = bevy_sun_json(s, 1.5);
    const Vec3 travel{-s.direction.x, -s.direction.y, -s.direction.z};
    check_near(rotate(quat(j["Transform"]["rotation"]), {0, 0, -1}), travel);
    check_near(vec(j["Transform"]["looking_to"]), travel);
    const json& light = j["DirectionalLight"];
    for (std::size_t c = 0; c < 3; ++c)
        CHECK(light["color"][c].get<double>() * light["illuminance"].get<double>() == Approx(1.5 * s.illuminance[c]));
    CHECK(j["sun_disk_angular_size"].get<double>() == Approx(2 * s.angular_radius));
}
