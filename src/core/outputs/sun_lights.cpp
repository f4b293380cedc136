#include "sun_lights.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace bake {

namespace {

using json = nlohmann::json;
constexpr double kDeg = 180.0 / 3.14159265358979323846;

json vec(const Vec3& v) { return {v.x, v.y, v.z}; }
json rgb(const std::array<double, 3>& v) { return {v[0], v[1], v[2]}; }
json rgb(const std::array<float, 3>& v) { return {v[0], v[1], v[2]}; }
Vec3 travel(const Sun& sun) { return {-sun.direction.x, -sun.direction.y, -sun.direction.z}; }

// Linear -> sRGB encoding (IEC 61966-2-1), what three.js's Color decodes (SRGBToLinear).
double srgb_encode(double c) { return c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1.0 / 2.4) - 0.055; }

const char* const kUnits =
    "direction: unit vector from the scene toward the sun (right-handed, +Y up, docs/CONVENTION.md); "
    "illuminance: E = integral of (L - fill) cos(theta) over the sun's texels about that direction, per "
    "channel, in the map's radiance unit times sr (lux when the map is in cd/m^2); color = E / max(E); "
    "angular_radius_deg: the uniform disc of the same second moment; removed_light: integral of (L - fill) "
    "over those texels, exactly what the residual map lacks";

}  // namespace

std::array<double, 4> rotation_from_minus_z(const Vec3& t) {
    // q = (a x t, 1 + a.t) normalised, a = (0, 0, -1): a x t = (t.y, -t.x, 0), and 1 + a.t = 1 - t.z,
    // taken as (t.x^2 + t.y^2) / (1 + t.z) where t.z > 0, which keeps its digits as t nears +Z.
    const double side = t.x * t.x + t.y * t.y;
    if (t.z > 0 && side == 0) return {0.0, 1.0, 0.0, 0.0};
    const double w = t.z > 0 ? side / (1.0 + t.z) : 1.0 - t.z;
    const double inv = 1.0 / std::sqrt(side + w * w);
    return {t.y * inv, -t.x * inv, 0.0, w * inv};
}

json sun_json(const Sun& sun) {
    return {{"direction", vec(sun.direction)},
            {"illuminance", rgb(sun.illuminance)},
            {"illuminance_luminance", sun.luminance()},
            {"color", rgb(sun.colour())},
            {"angular_radius_deg", sun.angular_radius * kDeg},
            {"solid_angle_sr", sun.solid_angle},
            {"texel_radius_deg", sun.texel_radius * kDeg},
            {"removed", true},
            {"removed_light", rgb(sun.removed)},
            {"fill", rgb(sun.fill)},
            {"texels", sun.texels.size()},
            {"share_of_map", sun.energy_share},
            {"share_of_sources", sun.source_share},
            {"units", kUnits}};
}

void add_gltf_sun(json& gltf, const Sun& sun, double scale) {
    if (!gltf.contains("scenes") || gltf["scenes"].empty()) throw std::invalid_argument("add_gltf_sun: a glTF without scenes");
    json& used = gltf["extensionsUsed"];
    if (std::find(used.begin(), used.end(), "KHR_lights_punctual") == used.end()) used.push_back("KHR_lights_punctual");
    json& lights = gltf["extensions"]["KHR_lights_punctual"]["lights"];
    lights.push_back({{"name", "sun"},
                      {"type", "directional"},
                      {"color", rgb(sun.colour())},
                      {"intensity", sun.max_illuminance() * scale},
                      {"extras", {{"angular_radius_deg", sun.angular_radius * kDeg}}}});
    const auto q = rotation_from_minus_z(travel(sun));
    json& nodes = gltf["nodes"];
    nodes.push_back({{"name", "sun"},
                     {"rotation", {q[0], q[1], q[2], q[3]}},
                     {"extensions", {{"KHR_lights_punctual", {{"light", lights.size() - 1}}}}}});
    const std::size_t scene = gltf.contains("scene") ? gltf["scene"].get<std::size_t>() : 0;
    gltf["scenes"].at(scene)["nodes"].push_back(nodes.size() - 1);
}

json threejs_sun_json(const Sun& sun, double scale) {
    const auto c = sun.colour();
    char colour[96];
    std::snprintf(colour, sizeof colour, "rgb(%.6f%%, %.6f%%, %.6f%%)", 100 * srgb_encode(c[0]), 100 * srgb_encode(c[1]),
                  100 * srgb_encode(c[2]));
    const Vec3& d = sun.direction;
    return {{"metadata", {{"version", 4.7}, {"type", "Object"}, {"generator", "bake-irradiance"}}},
            {"object",
             {{"uuid", "5a7e0b1d-3c2f-4d6e-8a9b-0c1d2e3f4a5b"},
              {"type", "DirectionalLight"},
              {"name", "sun"},
              {"layers", 1},
              {"matrix", {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, d.x, d.y, d.z, 1}},
              {"up", {0, 1, 0}},
              {"color", colour},
              {"intensity", sun.max_illuminance() * scale}}},
            {"bakeConvention",
             "three.js DirectionalLight at the sun's unit direction, shining at the origin (move it along that "
             "direction for its shadow camera); color (sRGB-encoded, as three.js reads it) x intensity = the "
             "sun's illuminance E per channel, in the map's units x sr, times the scale given; our axes "
             "(three.js's, for lat-long maps and LightProbe SH)"}};
}

json filament_sun_json(const Sun& sun, double scale, bool mirror_x) {
    Vec3 t = travel(sun);
    if (mirror_x) t.x = -t.x;
    return {{"type", "SUN"},
            {"direction", vec(t)},
            {"color", rgb(sun.colour())},
            {"intensity", sun.max_illuminance() * scale},
            {"sunAngularRadius", std::clamp(sun.angular_radius * kDeg, 0.25, 20.0)},
            {"sunHaloSize", 10.0},
            {"sunHaloFalloff", 80.0},
            {"castShadows", true},
            {"bakeConvention",
             std::string("filament::LightManager::Builder(LightManager::Type::SUN) arguments: direction the light "
                         "travels (unit), color linear, intensity in lux (the map's units x sr x the scale given, "
                         "e.g. the IndirectLight intensity), sunAngularRadius in degrees clamped to Filament's "
                         "[0.25, 20]; ") +
                 (mirror_x ? "X mirrored, as cmgen's IBL and --sh-format filament are" : "our axes, unmirrored")}};
}

json bevy_sun_json(const Sun& sun, double scale) {
    const Vec3 t = travel(sun);
    const auto q = rotation_from_minus_z(t);
    return {{"DirectionalLight",
             {{"color", rgb(sun.colour())}, {"illuminance", sun.max_illuminance() * scale}, {"shadows_enabled", true}}},
            {"Transform", {{"rotation", {q[0], q[1], q[2], q[3]}}, {"looking_to", vec(t)}, {"up", {0, 1, 0}}}},
            {"sun_disk_angular_size", 2.0 * sun.angular_radius},
            {"bakeConvention",
             "Bevy DirectionalLight: color linear RGB (Color::linear_rgb), illuminance in lux (the map's units x sr "
             "x the scale given, e.g. the EnvironmentMapLight intensity), shining along the Transform's forward "
             "(-Z turned by rotation, x y z w; or Transform::looking_to(looking_to, up)); our axes, as Bevy sees "
             "--ktx-convention bevy cubes; sun_disk_angular_size: the disc's diameter in radians"}};
}

}  // namespace bake
