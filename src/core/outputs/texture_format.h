#pragma once
// The texel formats of the texture containers (KTX2: ktx2_writer.h, DDS: dds_writer.h), one notion
// for both: what a texture's images become before a container wraps them.
//
//   name       Vulkan (KTX2)                   DXGI (DDS)               bytes        largest value
//   rgba16f    R16G16B16A16_SFLOAT (97)        R16G16B16A16_FLOAT (10)  8 a texel    65504
//   rgba32f    R32G32B32A32_SFLOAT (109)       R32G32B32A32_FLOAT (2)   16 a texel   3.4e38
//   b10g11r11  B10G11R11_UFLOAT_PACK32 (122)   R11G11B10_FLOAT (26)     4 a texel    65024 (blue 64512)
//   e5b9g9r9   E5B9G9R9_UFLOAT_PACK32 (123)    R9G9B9E5_SHAREDEXP (67)  4 a texel    65408
//   bc6h       BC6H_UFLOAT_BLOCK (143)         BC6H_UF16 (95)           16 a 4x4 block  65504
//
// The packed formats' bits are the same in both APIs (Vulkan names them from the top bit, DXGI from
// the bottom). Conversions: gpu_formats.h (rounding, saturation, negatives to 0 in the unsigned
// ones) and bc6h.h; RGB texels get alpha 1 in the four-channel formats.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bc6h.h"
#include "image.h"

namespace bake {

enum class TextureFormat {
    Rgba16Float,
    Rgba32Float,
    B10G11R11UFloat,
    E5B9G9R9UFloat,
    Bc6hUFloat,
};

// Names (--texture-format, and --ktx-format before it): "rgba16f", "rgba32f", "b10g11r11",
// "e5b9g9r9", "bc6h". Returns false for others.
bool parse_texture_format(const std::string& name, TextureFormat* format);
const char* texture_format_name(TextureFormat format);
std::uint32_t texture_vk_format(TextureFormat format);
std::uint32_t texture_dxgi_format(TextureFormat format);
// Texels a side of the format's blocks (4 for BC6H, else 1) and bytes a block (a texel).
int texture_block_size(TextureFormat format);
int texture_block_bytes(TextureFormat format);
// Bytes of one width x height image in the format.
std::size_t texture_image_bytes(TextureFormat format, int width, int height);
// The largest finite value the format keeps in channel 0, 1 or 2 (R, G, B); larger values become it.
double texture_format_max(TextureFormat format, int channel = 0);

// The images of one texture: levels[i][face], level i of size max(1, width >> i) x
// max(1, height >> i), one image a level for 2D textures and six (+X -X +Y -Y +Z -Z) for cube maps
// (square). Not owned.
struct TextureImages {
    int width = 0;
    int height = 0;
    int faces = 1;  // 1 or 6
    std::vector<std::vector<const Image*>> levels;
};

// A texture in a texel format: levels[i] holds level i's faces one after another, each
// texture_image_bytes(format, level width, level height) long, rows (of blocks) top first.
struct EncodedTexture {
    TextureFormat format = TextureFormat::Rgba16Float;
    int width = 0;
    int height = 0;
    int faces = 1;
    std::vector<std::vector<std::uint8_t>> levels;
};

// Throws std::invalid_argument for images that are no texture (sizes, face count, a cube that is
// not square, more levels than the size allows) or an encoded texture whose levels have the wrong
// sizes.
void validate_texture(const TextureImages& images);
void validate_texture(const EncodedTexture& texture);

// The images in `format`, converted level by level (faces, or BC6H blocks, in parallel on `threads`,
// <= 0: every core). Validates first.
EncodedTexture encode_texture(const TextureImages& images, TextureFormat format,
                              Bc6hQuality bc6h_quality = Bc6hQuality::Default, int threads = 0);

// What storing images in a format clips: texels with a channel above its texture_format_max, and
// the share of the radiant energy lost, sum over texels and channels of (value - max)+ * weight /
// sum of value+ * weight, weight each texel's solid angle (cube faces, lat-long rows) or 1 (any
// other 2D table). Levels count apart: the share is the worst level's.
enum class TextureDomain { Cube, Equirect, Plain };
struct ClipReport {
    std::size_t texels = 0;   // texels measured, every level
    std::size_t clipped = 0;  // of those, texels with a channel above the format's largest value
    double energy_lost = 0;   // the worst level's share, in [0, 1]
    int worst_level = 0;
    float brightest = 0;      // the largest channel value seen
};
ClipReport measure_clipping(TextureFormat format, const TextureImages& images, TextureDomain domain);

}  // namespace bake
