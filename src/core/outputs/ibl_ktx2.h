#pragma once
// The tool's image outputs as KTX2 files (ktx2_writer.h): the specular chain and the irradiance cube
// as cube maps, the equirect irradiance map and the DFG table as 2D textures. Each file states what it
// holds in key/values (beside the writer's KTXorientation and KTXwriter):
//   bakeConvention         the directions, face order and orientation, in words (kKtxConvention)
//   bakeContent            what the texels are (radiance, irradiance not divided by pi, DFG terms)
//   bakeSpecularRoughness  specular chain only: the perceptual roughness of every level, in order
// Cube files are laid out for one engine's lookup (KtxCubeConvention): the GL/Vulkan sampler in our
// right-handed world (the default), or Bevy's.
// Every entry point writes atomically and throws OutputError("<path>: <problem>").
#include <string>
#include <vector>

#include "cube_map.h"
#include "image.h"
#include "ktx2_writer.h"
#include "specular_prefilter.h"

namespace bake {

constexpr const char* kKtxConvention =
    "bake-irradiance docs/CONVENTION.md: right-handed, +Y up; cube faces +X -X +Y -Y +Z -Z in OpenGL's "
    "orientation, what the GL/Vulkan cube sampler expects with no flip (a direction d samples the texel "
    "whose centre direction is d); rows top first (KTXorientation rd); lat-long u = 0.5 + atan2(z, x)/2pi, "
    "v = acos(y)/pi (three.js equirectUv); linear values, no transfer function";

// Whose cube lookup a cube file is laid out for (--ktx-convention).
enum class KtxCubeConvention {
    // The GL/Vulkan cube sampler at a direction d of our world returns the value at d (kKtxConvention);
    // the irradiance cube holds E.
    Gl,
    // Bevy 0.19's EnvironmentMapLight: it samples both cubes at vec3(N.xy, -N.z)
    // (crates/bevy_pbr/src/light_probe/environment_map.wgsl:262 and :275, also :93 for light probes;
    // the skybox too, bevy_core_pipeline/src/skybox/skybox.wgsl:79), so the texel the sampler returns
    // for d = (x, y, z) holds our value at (x, y, -z); and it multiplies the diffuse cube by the albedo
    // with no 1/pi (environment_map.wgsl:387 and :390), as its own filter writes the cosine-weighted
    // mean radiance (environment_filter.wgsl:171-181), so the irradiance cube holds E/pi.
    Bevy,
};

// Names for --ktx-convention: "gl", "bevy". Returns false for others.
bool parse_ktx_cube_convention(const std::string& name, KtxCubeConvention* convention);

constexpr const char* kKtxConventionBevy =
    "bake-irradiance docs/CONVENTION.md, Bevy layout: faces +X -X +Y -Y +Z -Z in OpenGL's orientation, rows "
    "top first (KTXorientation rd); the texel the GL/Vulkan cube sampler returns for a direction (x, y, z) "
    "holds the value of the right-handed, +Y up world's direction (x, y, -z), because Bevy samples its "
    "environment cubes at vec3(N.xy, -N.z) (bevy_pbr light_probe/environment_map.wgsl); linear values, no "
    "transfer function";

// The cube mirrored in z: texel d of the result holds `cube` at (d.x, d.y, -d.z). A permutation of
// the texels (every texel centre mirrors onto one): ±X and ±Z faces reversed left to right, ±Y faces
// top to bottom, +Z and -Z swapped.
CubeMap mirror_cube_z(const CubeMap& cube);

// The specular chain: level i of `chain` is KTX level i (faces N >> i), as many levels as given (a
// chain may stop above 1x1). roughness: one value a level, or empty for i / (levels - 1). lobe: what
// bakeContent says the chain is prefiltered with (the Charlie chain of KHR_materials_sheen, or GGX).
void write_specular_ktx2(const std::string& path, const std::vector<CubeMap>& chain, const KtxWriteOptions& options,
                         KtxCubeConvention convention = KtxCubeConvention::Gl, const std::vector<double>& roughness = {},
                         SpecularLobe lobe = SpecularLobe::Ggx);
// The same from a chain already in its texel format (GpuBc6hEncoder's blocks), laid out for
// `convention` by whoever encoded it; options.format and bc6h_quality are not read.
void write_specular_ktx2(const std::string& path, const EncodedTexture& chain, const KtxWriteOptions& options,
                         KtxCubeConvention convention = KtxCubeConvention::Gl, const std::vector<double>& roughness = {},
                         SpecularLobe lobe = SpecularLobe::Ggx);

// The irradiance map as a one-level cube map (the tool's default output layout): E, or E/pi for Bevy.
void write_irradiance_cube_ktx2(const std::string& path, const CubeMap& irradiance, const KtxWriteOptions& options,
                                KtxCubeConvention convention = KtxCubeConvention::Gl);

// The irradiance map as a one-level 2D lat-long texture (--output-layout equirect).
void write_irradiance_equirect_ktx2(const std::string& path, const Image& irradiance, const KtxWriteOptions& options);

// The split-sum DFG table (dfg.h) as a one-level 2D texture: u = N·V, v = roughness, R = A, G = B, B = A + B.
// BC6H is refused (OutputError, kDfgNotBc6h): two terms in [0, 1] and their sum are no HDR colour, and
// BC6H's shared endpoints would tie the two terms a block shares together.
void write_dfg_ktx2(const std::string& path, const Image& dfg, const KtxWriteOptions& options);
constexpr const char* kDfgNotBc6h =
    "the DFG table is not written as bc6h (two terms in [0, 1], no HDR colour): use rgba16f or rgba32f";

// What the cube files hold for `convention`: the irradiance cube as E (Gl) or mirrored in z and
// divided by pi (Bevy); a chain level as is (Gl) or mirrored.
CubeMap irradiance_cube_for(const CubeMap& irradiance, KtxCubeConvention convention);
std::vector<CubeMap> specular_chain_for(const std::vector<CubeMap>& chain, KtxCubeConvention convention);

// The sheen LUT (sheen_lut.h) as a one-level 2D texture, bakeContent stating its axes and channels
// (sheen_lut_files.h).
void write_sheen_lut_ktx2(const std::string& path, const Image& table, const KtxWriteOptions& options);

// The images of a cube chain and of one 2D image, for encode_ktx2 (they point into the arguments).
KtxImages cube_chain_images(const std::vector<CubeMap>& chain);
KtxImages image_2d_images(const Image& image);

}  // namespace bake
