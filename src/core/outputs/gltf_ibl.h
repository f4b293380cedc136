#pragma once
// A glTF 2.0 file holding one image-based light of EXT_lights_image_based (KhronosGroup/glTF
// extensions/2.0/Vendor/EXT_lights_image_based/README.md) and a scene that uses it: .glb (binary, the
// images in buffer views) or .gltf (JSON, its PNGs beside it: gltf_output_files names them).
//
// The light: intensity 1 (written out: Babylon.js's loader scales the coefficients by it and would get
// NaN without it, EXT_lights_image_based.pure.js:100), rotation identity, irradianceCoefficients =
// gltf_irradiance_coefficients (engine_sh.h: the irradiance E_lm the extension names, in Babylon's basis,
// mirrored in z as the faces), specularImageSize = the first level's face size, and specularImages: the
// chain it is given, level i x faces +X -X +Y -Y +Z -Z, each face an RGBD PNG (rgbd.h). The README
// wants the levels to map roughness evenly from 0 to 1 and to stop at a size such as 16x16 for
// roughness 1; Babylon samples level roughness * (levels - 1) with linearSpecularLOD (its loader's
// lodGenerationScale, :104): so pass a chain baked for roughness i / (levels - 1) down to the size
// wanted, not --specular's chain to 1x1.
//
// Orientation (docs/CONVENTION.md, "glTF layout"): the cube mirrored in z, as --ktx-convention bevy
// lays it out (mirror_cube_z, ibl_ktx2.h). Babylon.js, the extension's reference implementation, samples
// the cube at (x, y, -z) of a glTF-world direction in its right-handed scenes (REFLECTIONMAP_OPPOSITEZ),
// the SH too; rendered there, the file shows our environment in the glTF world
// (tests/js/render/render_babylon.mjs). In its left-handed scenes Babylon turns loaded glTF content by
// 180 degrees about Y but not the environment, whatever the file holds: environmentTexture.rotationY =
// Math.PI turns it back. Each face is then written with its rows reversed (last row first), the README's
// "flipped about its vertical axis": Babylon's loader uploads these PNGs with invertY
// (environmentTextureTools UploadLevelsAsync: texture.invertY = true; engine._uploadImageToTexture sets
// UNPACK_FLIP_Y), which puts a PNG's last row at t = 0.
#include <string>
#include <vector>

#include "cube_map.h"
#include "sh.h"
#include "sun.h"

namespace bake {

// Writes the glTF (.glb when the path ends in ".glb", else JSON .gltf and its PNGs beside it) as one
// OutputSet (atomic_file.h): inside the caller's OutputSet::Scope every file joins the caller's set;
// outside one, all of them or none. The chain: at least one level, faces of N >> i texels with N a power
// of two. radiance: order 3 or more (the first 9 are used). Throws OutputError("<path>: <problem>").
// sun (--extract-sun): the sun taken out of the map, added as a KHR_lights_punctual directional
// light on a node of the scene (sun_lights.h's add_gltf_sun).
void write_gltf_ibl(const std::string& path, const std::vector<CubeMap>& specular_chain, const ShCoefficients& radiance,
                    const Sun* sun = nullptr);

// Every file write_gltf_ibl writes for `path` and a chain of `levels` levels, the glTF first: a .glb
// alone; a .gltf and, in its folder, <stem>_spec_<level>_<face>.png for each level and face px nx py
// ny pz nz (sky_ibl.gltf: sky_ibl_spec_0_px.png ... ). --gltf's chain has
// SpecularSettings{base_size = --specular-size, last_size = min(16, --specular-size)}.levels() levels.
std::vector<std::string> gltf_output_files(const std::string& path, int levels);

// What RGBD cannot hold of a chain: channels above 255 are clipped (rgbd.h). The light's intensity could
// scale the chain into range, but Babylon.js 9.28 applies the intensity to the SH twice (its loader scales
// the coefficients by it and its shader multiplies the irradiance by the texture's level, which the
// loader sets to it too: rendered, intensity 2 gives 4x the diffuse), so any intensity but 1 puts the
// diffuse off by that factor there or in a reader that follows the extension; and the scale (255 / max,
// ~1e-3 for a sun) costs every other texel RGBD's precision (docs/engines-rendered.md, "A sun in glTF",
// measured with tests/engines/rgbd_tradeoff_main.cpp).
// So the chain is written as it is, intensity 1, and this measures the loss for a warning: texels
// with a channel above 255 over the whole chain, and for the level that loses most, the share of its
// energy (sum over texels and channels of max(value, 0) x the texel's solid angle) cut off.
struct RgbdClipping {
    std::size_t texels = 0;   // texels with a channel above 255, every level
    int worst_level = -1;     // the level losing the largest share; -1 when nothing is clipped
    double energy_share = 0;  // of that level's energy, 0..1
};
RgbdClipping rgbd_clipping(const std::vector<CubeMap>& specular_chain);

}  // namespace bake
