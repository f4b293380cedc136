#pragma once
// KTX 2.0 files (Khronos KTX File Format Specification 2.0), written by hand: Debian 12 has no
// libktx. One file holds a 2D texture or a cube map (faceCount 6) with its whole mip chain, in one of
// four texel formats (gpu_formats.h), optionally supercompressed with Zstandard level by level.
//
// Layout and orientation. Texel rows are written as the images hold them: row 0 (the top row as
// stored in an image file, docs/CONVENTION.md) first, so row 0 is the row a GL/Vulkan upload puts
// at t = 0, and KTXorientation is "rd" (the KTX default, and the only orientation the KTX
// specification allows for cube maps). Cube faces are written in the order +X -X +Y -Y +Z -Z, each
// in OpenGL's orientation: exactly what the GL/Vulkan cube sampler expects, with no flip; a direction
// d in the convention's right-handed world samples the texel whose centre direction is d (see
// docs/CONVENTION.md, "KTX2 files").
//
// The file: identifier, header, level index, a Basic Data Format Descriptor as the Data Format
// Specification 1.4 gives for the Vulkan format (KTX-Software's vk2dfd produces the same), key/values
// sorted by key (KTXorientation, KTXwriter, KTXwriterScParams with zstd, and the caller's), then the
// levels from the smallest to the largest; without supercompression each level starts at a multiple
// of lcm(texel size, 4). RGB texels get alpha 1 in the four-channel formats.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "image.h"

namespace bake {

enum class KtxFormat {
    Rgba16Float,      // VK_FORMAT_R16G16B16A16_SFLOAT (97), the default
    Rgba32Float,      // VK_FORMAT_R32G32B32A32_SFLOAT (109)
    B10G11R11UFloat,  // VK_FORMAT_B10G11R11_UFLOAT_PACK32 (122)
    E5B9G9R9UFloat,   // VK_FORMAT_E5B9G9R9_UFLOAT_PACK32 (123)
};

// Names for --ktx-format: "rgba16f", "rgba32f", "b10g11r11", "e5b9g9r9". Returns false for others.
bool parse_ktx_format(const std::string& name, KtxFormat* format);
const char* ktx_format_name(KtxFormat format);
std::uint32_t ktx_vk_format(KtxFormat format);
int ktx_texel_bytes(KtxFormat format);

constexpr int kMaxZstdLevel = 22;  // ZSTD_maxCLevel() of libzstd 1.5

struct KtxWriteOptions {
    KtxFormat format = KtxFormat::Rgba16Float;
    int zstd_level = 0;  // 0: no supercompression; 1..kMaxZstdLevel: Zstandard at that level
    // Extra key/values, written as NUL-terminated UTF-8 strings; keys must not start with "KTX"/"ktx"
    // (reserved) and must be unique; they are sorted with the writer's own.
    std::vector<std::pair<std::string, std::string>> key_values;
    int threads = 0;  // conversion and compression threads; <= 0: every core
};

// The images of one texture: levels[i][face], level i of size max(1, width >> i) x
// max(1, height >> i), one image a level for 2D textures and six (+X -X +Y -Y +Z -Z) for cube maps
// (square). Not owned.
struct KtxImages {
    int width = 0;
    int height = 0;
    int faces = 1;  // 1 or 6
    std::vector<std::vector<const Image*>> levels;
};

// The file's bytes. Throws std::invalid_argument for images that are no texture (sizes, face
// count, a cube that is not square, more levels than the size allows, bad options).
std::vector<std::uint8_t> encode_ktx2(const KtxImages& images, const KtxWriteOptions& options);

// encode_ktx2 written to `path` atomically (write_atomically). Throws OutputError("<path>: <problem>")
// for any problem, invalid images and options included.
void write_ktx2(const std::string& path, const KtxImages& images, const KtxWriteOptions& options);

// The value of KTXwriter: "bake-irradiance <version>".
std::string ktx_writer_name();

}  // namespace bake
