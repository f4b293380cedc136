#pragma once
// The sun of find_sun (src/core/sun/sun.h) as JSON: our own object, and a directional light in each
// engine's terms (docs/sun.md says how each engine takes it).
//
// Units. The map's texels are radiance in whatever unit the map has; the sun's illuminance E (per
// channel, at normal incidence) is in that unit times steradians: lux when the map is in cd/m^2 (and
// E's Rec. 709 luminance then is the photometric illuminance). Engines take a light as a colour in
// [0, 1] times an intensity: colour = E / max(E), intensity = max(E) * scale, so that colour x
// intensity = E * scale per channel. `scale` is what the engine multiplies the map by (Filament's
// IndirectLight intensity, Bevy's EnvironmentMapLight intensity; 1 where the IBL is used as the map
// holds it, as three.js's LightProbe and glTF's EXT_lights_image_based of intensity 1 are): the light
// and the IBL then keep the ratio they have in the map, and IBL of the residual + the light = the map.
//
// Directions. Engines aim a directional light along the direction the light travels, -sun.direction.
// glTF, three.js and Bevy (with --ktx-convention bevy) see the IBL in our axes (docs/CONVENTION.md),
// so the light is aimed in our axes. Filament's cmgen mirrors X by default, and so does
// filament_sh (engine_sh.h): filament_sun_json mirrors the light likewise unless told not to.
#include <array>

#include <nlohmann/json.hpp>

#include "sun.h"

namespace bake {

// The unit quaternion (x, y, z, w) of the shortest rotation taking -Z onto `travel` (unit): the node
// rotation of a glTF directional light (lights shine along their local -Z, KHR_lights_punctual
// README, "Directional") and Bevy's Transform rotation (DirectionalLight shines along the
// transform's forward, -Z: crates/bevy_light/src/directional_light.rs, the type's documentation).
// travel = +Z (the half turn): the half turn about +Y.
std::array<double, 4> rotation_from_minus_z(const Vec3& travel);

// Ours, for the coefficients JSON and the run report: {"direction", "illuminance",
// "illuminance_luminance", "color", "angular_radius_deg", "solid_angle_sr", "texel_radius_deg",
// "removed": true, "removed_light", "fill", "texels", "share_of_map", "share_of_sources", "units"}.
// Where there is no sun the caller writes "sun": null.
nlohmann::json sun_json(const Sun& sun);

// Adds the sun to a glTF 2.0 document as a KHR_lights_punctual directional light (color, intensity in
// lux = max(E) * scale) on a new node turned by rotation_from_minus_z(-direction), put in the default
// scene ("scene", else scene 0); adds the extension to extensionsUsed. Throws std::invalid_argument if
// the document has no scenes.
void add_gltf_sun(nlohmann::json& gltf, const Sun& sun, double scale = 1.0);

// A three.js DirectionalLight as Object3D.toJSON writes it (metadata + object), for ObjectLoader.parse:
// placed at the sun's direction, no target (ObjectLoader then aims it at the origin:
// src/loaders/ObjectLoader.js, bindLightTargets), intensity max(E) * scale. The colour is written as
// "rgb(r%, g%, b%)" of its sRGB encoding, which Color.setStyle decodes back to linear
// (src/math/Color.js setStyle); three.js's own toJSON writes an 8-bit hex number, too coarse for it.
nlohmann::json threejs_sun_json(const Sun& sun, double scale = 1.0);

// Filament's LightManager::Builder(Type::SUN) arguments (LightManager.h of Filament 1.9, Debian's
// libfilament-dev: direction :445, color :455, intensity in lux :472, sunAngularRadius in degrees
// within [0.25, 20] :566, sunHaloSize :576 and sunHaloFalloff :586 at their defaults 10 and 80), with
// X mirrored as cmgen's IBL is unless mirror_x is false.
nlohmann::json filament_sun_json(const Sun& sun, double scale = 1.0, bool mirror_x = true);

// Bevy's DirectionalLight (color as linear RGB, illuminance in lux, shadows on) and its Transform
// (rotation; equivalently Transform::looking_to(travel, Vec3::Y)), with the sun disc's angular size
// (its diameter in radians, as Bevy's sun-disc component takes it).
nlohmann::json bevy_sun_json(const Sun& sun, double scale = 1.0);

}  // namespace bake
