#pragma once
// The tool's image outputs as KTX2 files (ktx2_writer.h): the specular chain and the irradiance cube
// as cube maps, the equirect irradiance map and the DFG table as 2D textures. Each file states what it
// holds in key/values (beside the writer's KTXorientation and KTXwriter):
//   bakeConvention         the directions, face order and orientation, in words (kKtxConvention)
//   bakeContent            what the texels are (radiance, irradiance not divided by pi, DFG terms)
//   bakeSpecularRoughness  specular chain only: the perceptual roughness of every level, in order
// Every entry point writes atomically and throws OutputError("<path>: <problem>").
#include <string>
#include <vector>

#include "cube_map.h"
#include "image.h"
#include "ktx2_writer.h"

namespace bake {

constexpr const char* kKtxConvention =
    "bake-irradiance docs/CONVENTION.md: right-handed, +Y up; cube faces +X -X +Y -Y +Z -Z in OpenGL's "
    "orientation, what the GL/Vulkan cube sampler expects with no flip (a direction d samples the texel "
    "whose centre direction is d); rows top first (KTXorientation rd); lat-long u = 0.5 + atan2(z, x)/2pi, "
    "v = acos(y)/pi (three.js equirectUv); linear values, no transfer function";

// The specular chain: level i of `chain` is KTX level i (faces N >> i), as many levels as given.
// roughness: one value a level, or empty for i / (levels - 1).
void write_specular_ktx2(const std::string& path, const std::vector<CubeMap>& chain, const KtxWriteOptions& options,
                         const std::vector<double>& roughness = {});

// The irradiance map as a one-level cube map (the tool's default output layout).
void write_irradiance_cube_ktx2(const std::string& path, const CubeMap& irradiance, const KtxWriteOptions& options);

// The irradiance map as a one-level 2D lat-long texture (--output-layout equirect).
void write_irradiance_equirect_ktx2(const std::string& path, const Image& irradiance, const KtxWriteOptions& options);

// The split-sum DFG table (dfg.h) as a one-level 2D texture: u = N·V, v = roughness, R = A, G = B, B = A + B.
void write_dfg_ktx2(const std::string& path, const Image& dfg, const KtxWriteOptions& options);

// The images of a cube chain and of one 2D image, for encode_ktx2 (they point into the arguments).
KtxImages cube_chain_images(const std::vector<CubeMap>& chain);
KtxImages image_2d_images(const Image& image);

}  // namespace bake
