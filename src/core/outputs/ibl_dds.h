#pragma once
// The tool's image outputs as DDS files (dds_writer.h), as ibl_ktx2.h writes them as KTX2: the
// specular chain and the irradiance cube as cube maps (every level), the lat-long irradiance map and
// the DFG table as 2D textures, with the same texels in the same layout (KtxCubeConvention: the
// GL/Vulkan/Direct3D sampler in our right-handed world, or Bevy's). DDS keeps no key/values, so
// the files do not state what they hold; docs/textures.md does. Every entry point writes atomically
// and throws OutputError("<path>: <problem>").
#include <string>
#include <vector>

#include "cube_map.h"
#include "ibl_ktx2.h"
#include "texture_format.h"

namespace bake {

struct DdsWriteOptions {
    TextureFormat format = TextureFormat::Rgba16Float;
    Bc6hQuality bc6h_quality = Bc6hQuality::Default;  // for format Bc6hUFloat
    int threads = 0;                                   // conversion threads; <= 0: every core
};

// The specular chain: level i of `chain` is DDS level i (faces N >> i).
void write_specular_dds(const std::string& path, const std::vector<CubeMap>& chain, const DdsWriteOptions& options,
                        KtxCubeConvention convention = KtxCubeConvention::Gl);
// The same from a chain already in its texel format (GpuBc6hEncoder's blocks), laid out as wanted.
void write_specular_dds(const std::string& path, const EncodedTexture& chain);

// The irradiance map as a one-level cube map: E, or E/pi mirrored for Bevy (irradiance_cube_for).
void write_irradiance_cube_dds(const std::string& path, const CubeMap& irradiance, const DdsWriteOptions& options,
                               KtxCubeConvention convention = KtxCubeConvention::Gl);

// The irradiance map as a one-level 2D lat-long texture (E, not divided by pi).
void write_irradiance_equirect_dds(const std::string& path, const Image& irradiance, const DdsWriteOptions& options);

// The split-sum DFG table as a one-level 2D texture (R = A, G = B, B = A + B); BC6H is refused
// (OutputError with kDfgNotBc6h), as for KTX2.
void write_dfg_dds(const std::string& path, const Image& dfg, const DdsWriteOptions& options);

}  // namespace bake
