#pragma once
// The order-3 SH of a bake as each engine's API takes them. Every layout is derived from the engine's
// own code (cited below by file and line) and tested against it (tests/test_engine_sh.cpp;
// tests/js/check_sh.mjs runs three.js's and Babylon.js's own classes).
//
// Ours (docs/CONVENTION.md): radiance L_k over Y_k = |c_k| p_k(d) with
//   p = (1, y, z, x, xy, yz, 3z^2 - 1, xz, x^2 - y^2), c = (0.282095, 0.488603 x3, 1.092548 x2,
//   0.315392, 1.092548, 0.546274), no Condon-Shortley phase, right-handed, +Y up; irradiance
//   E_k = A_l L_k, E(n) = sum E_k Y_k(n), not divided by pi.
//
// | engine   | holds                         | /pi | sign of m = +-1 terms | axes          |
// |----------|-------------------------------|-----|-----------------------|---------------|
// | three.js | radiance L_k                  | no  | ours (no phase)       | ours          |
// | Filament | E_k (or E_k c_k / pi, "pre-   | pre-scaled: yes | Condon-Shortley   | x mirrored (cmgen's default) |
// |          | scaled", what IndirectLight takes) |  |                       | unless no_mirror |
// | Unity    | E_k |c_k| / pi                | yes | none left (folded in) | z negated     |
// | Babylon  | harmonics: radiance L_k       | no  | Condon-Shortley       | ours (glTF's) |
// |          | polynomial: E/pi as x..zx     | yes | none left             | ours          |
// | glTF EXT_lights_image_based | E_k  | no  | Condon-Shortley       | z mirrored (the glTF layout) |
#include <array>
#include <string>

#include <nlohmann/json.hpp>

#include "sh.h"

namespace bake {

using Sh9 = std::array<Rgb, 9>;

// three.js LightProbe.sh (SphericalHarmonics3): the radiance L_k as they are. three.js evaluates
// them with the same polynomials and positive constants (three@0.187.0 src/math/SphericalHarmonics3.js:84-116
// getAt; :119-140 getIrradianceAt, E = sum A_l-weighted terms, 0.886227 = pi * 0.282095), in world
// space (src/renderers/shaders/ShaderChunk/lights_pars_begin.glsl.js:13-44), and lights diffuse
// surfaces with irradiance * BRDF_Lambert (E, not E/pi). Its lat-long mapping is ours (common.glsl.js:91-99).
Sh9 threejs_light_probe_sh(const ShCoefficients& radiance);

// LightProbe.toJSON's shape (src/lights/LightProbe.js:65-73 on Object3D.toJSON), loadable with
// ObjectLoader (src/loaders/ObjectLoader.js:966-969): {metadata, object: {type: "LightProbe", sh: [27], ...}}
// plus a "bakeConvention" field saying what the numbers are.
nlohmann::json threejs_light_probe_json(const ShCoefficients& radiance, const std::string& name = "bake-irradiance");

// Filament, as cmgen 1.9 writes --sh-output=sh.txt (tools/cmgen/src/cmgen.cpp, sphericalHarmonics and
// outputSh): cmgen projects with the Condon-Shortley phase (odd m negated against ours) and by default
// mirrors its input in X first (--no-mirror skips that: terms odd in x, k = 3, 4, 7, negated).
// Ours are not mirrored unless mirror_x: Filament evaluates the SH, and samples its reflections cube, at
// the world direction as it is (Irradiance_SphericalHarmonics(n), textureLod(light_iblSpecular, r)), so
// unmirrored SH light a scene as our cube files (GL layout) and our world do, as cmgen --no-mirror's
// cube and SH do together; rendered by Filament 1.9.25 (tests/filament: with our chain, the diffuse
// sphere within 0.01% of E/pi; with x mirrored, 29% off). cmgen's default mirrors its cube and its SH alike.
// Irradiance: cmgen --sh=3 --sh-irradiance: E_k in that basis.
// PreScaled: cmgen --sh=3 --sh-irradiance --sh-shader (what --deploy writes as sh.txt, and what
// filament::IndirectLight::Builder::irradiance(3, sh) takes): E_k times the signed basis constant / pi,
// so that Filament's shader sums sh[k] * p_k(n) to E/pi (shading_lit / light_indirect
// Irradiance_SphericalHarmonics in shaders/src/light_indirect.fs). Against Debian's cmgen
// (libfilament-tools 1.9.25) on a cube cross, which it reads without resampling: every coefficient
// within 4.3e-4 of cmgen's (its float sums; tests/data/reference/filament_sh_*.txt). On a lat-long
// input cmgen first resamples to a cube: 1.3% off on L00 and up to 60% on small band-2 terms of a
// smooth 256x128 map, so compare with cmgen on cube inputs.
enum class FilamentSh { Irradiance, PreScaled };
Sh9 filament_sh(const ShCoefficients& radiance, FilamentSh kind, bool mirror_x = false);
// The text cmgen writes: "(r, g, b); // L00, irradiance[, pre-scaled base]", 15 decimals, a line each.
std::string filament_sh_text(const ShCoefficients& radiance, FilamentSh kind, bool mirror_x = false);

// Unity's SphericalHarmonicsL2 (sh[rgb, k], k = 0..8 in the order above, its indexer's layout):
// Unity stores E_k * |c_k| / pi with the Condon-Shortley signs folded in ("premultiplied by
// kNormalizationConstants": Unity-Technologies/Graphics, com.unity.render-pipelines.high-definition/
// Runtime/Lighting/SphericalHarmonics.cs, UndoCosineRescaling and PackCoefficients), so that ShadeSH9
// sums (sh0 - sh6) + sh3 x + sh1 y + sh2 z + sh4 xy + sh5 yz + 3 sh6 z^2 + sh7 xz + sh8 (x^2 - y^2) =
// E/pi (a constant radiance L gives sh0 = L, as SphericalHarmonicsL2.AddAmbientLight adds). Unity is
// left-handed: z is negated (k = 2, 5, 7), the turn that shows our lat-long maps as Unity's
// Skybox/Panoramic shows them (DefaultResourcesExtra/Skybox-Panoramic.shader ToRadialCoords:
// u = 0.5 - atan2(z, x)/2pi against our 0.5 + atan2(z, x)/2pi). Returned as [channel][k].
std::array<std::array<double, 9>, 3> unity_sh_l2(const ShCoefficients& radiance);

// Babylon.js SphericalHarmonics (l00, l1_1, l10, l11, l2_2, l2_1, l20, l21, l22): the radiance in
// Babylon's basis, which has the Condon-Shortley phase (@babylonjs/core@9.35.0
// Maths/sphericalPolynomial.pure.js:40-50), as SphericalPolynomial.FromHarmonics takes it (:375-408:
// it convolves with the cosine and divides by pi). In glTF's frame (right-handed, +Y up, as ours);
// Babylon's default left-handed scene shows glTF content with x negated.
Sh9 babylon_harmonics(const ShCoefficients& radiance);

// Babylon.js SphericalPolynomial: E/pi = x nx + y ny + z nz + xx nx^2 + yy ny^2 + zz nz^2 + xy nx ny +
// yz ny nz + zx nz nx (Shaders/ShadersInclude/harmonicsFunctions.js:16, computeEnvironmentIrradiance).
struct BabylonPolynomial {
    Rgb x, y, z, xx, yy, zz, xy, yz, zx;
};
BabylonPolynomial babylon_polynomial(const ShCoefficients& radiance);

// {"harmonics": 9 x 3, "polynomial": {x, y, ..., zx}, "bakeConvention": ...}.
nlohmann::json babylon_json(const ShCoefficients& radiance);
nlohmann::json unity_json(const ShCoefficients& radiance);

// glTF EXT_lights_image_based irradianceCoefficients (9 x 3): the irradiance E_k the extension names, in
// Babylon's basis (Condon-Shortley phase), mirrored in z as the glTF layout's faces (gltf_ibl.h). Babylon's
// loader (@babylonjs/loaders@9.28.0 glTF/2.0/Extensions/EXT_lights_image_based.pure.js:99-102) reads them
// with SphericalHarmonics.FromArray, scales by the intensity and divides by pi; SphericalPolynomial.
// FromHarmonics keeps those harmonics, and its preScaledHarmonics are what the PBR shader sums
// (harmonicsFunctions.js, useSphericalHarmonics on by default) at the normal with z negated in right-
// handed scenes: E(n)/pi, the radiance of a white Lambertian surface. (Babylon's polynomial, used only
// with useSphericalHarmonics off, convolves them again: bands 1 and 2 then come out 2/3 and 1/4 as large.)
Sh9 gltf_irradiance_coefficients(const ShCoefficients& radiance);

// Writes each, atomically; OutputError("<path>: <problem>").
void write_threejs_light_probe(const std::string& path, const ShCoefficients& radiance);
void write_filament_sh(const std::string& path, const ShCoefficients& radiance, FilamentSh kind, bool mirror_x = false);
void write_unity_sh(const std::string& path, const ShCoefficients& radiance);
void write_babylon_sh(const std::string& path, const ShCoefficients& radiance);

}  // namespace bake
