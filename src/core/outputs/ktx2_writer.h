#pragma once
// KTX 2.0 files (Khronos KTX File Format Specification 2.0), written by hand: Debian 12 has no
// libktx. One file holds a 2D texture or a cube map (faceCount 6) with its whole mip chain, in one of
// the texel formats of texture_format.h, optionally supercompressed with Zstandard level by level.
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
// of lcm(texel block size, 4). BC6H (vkFormat 143, typeSize 1) has the Data Format Specification's
// BC6H descriptor: model BC6H, 4x4 texel blocks of 16 bytes, one 128-bit sample of channel
// BC6H_COLOR, float, unsigned (sampleLower 0.0f, sampleUpper 1.0f, as KTX-Software's vk2dfd writes).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "image.h"
#include "texture_format.h"

namespace bake {

// The KTX2 writer's names for the shared texel formats (texture_format.h); rgba16f is the default.
using KtxFormat = TextureFormat;
using KtxImages = TextureImages;

// Names for --ktx-format: those of parse_texture_format. Returns false for others.
bool parse_ktx_format(const std::string& name, KtxFormat* format);
const char* ktx_format_name(KtxFormat format);
std::uint32_t ktx_vk_format(KtxFormat format);
// Bytes of a texel block: a texel's, or a 4x4 block's for BC6H.
int ktx_texel_bytes(KtxFormat format);

constexpr int kMaxZstdLevel = 22;  // ZSTD_maxCLevel() of libzstd 1.5

struct KtxWriteOptions {
    KtxFormat format = KtxFormat::Rgba16Float;
    Bc6hQuality bc6h_quality = Bc6hQuality::Default;  // for format Bc6hUFloat
    int zstd_level = 0;  // 0: no supercompression; 1..kMaxZstdLevel: Zstandard at that level
    // Extra key/values, written as NUL-terminated UTF-8 strings; keys must not start with "KTX"/"ktx"
    // (reserved) and must be unique; they are sorted with the writer's own.
    std::vector<std::pair<std::string, std::string>> key_values;
    int threads = 0;  // conversion and compression threads; <= 0: every core
};

// The file's bytes. Throws std::invalid_argument for images that are no texture (sizes, face
// count, a cube that is not square, more levels than the size allows, bad options).
std::vector<std::uint8_t> encode_ktx2(const KtxImages& images, const KtxWriteOptions& options);
// The same from texels already in their format (a GPU encoder's BC6H blocks, say): texture.format
// is the file's; options.format and bc6h_quality are not read.
std::vector<std::uint8_t> encode_ktx2(const EncodedTexture& texture, const KtxWriteOptions& options);

// encode_ktx2 written to `path` atomically (write_atomically). Throws OutputError("<path>: <problem>")
// for any problem, invalid images and options included.
void write_ktx2(const std::string& path, const KtxImages& images, const KtxWriteOptions& options);
void write_ktx2(const std::string& path, const EncodedTexture& texture, const KtxWriteOptions& options);

// The value of KTXwriter: "bake-irradiance <version>".
std::string ktx_writer_name();

}  // namespace bake
