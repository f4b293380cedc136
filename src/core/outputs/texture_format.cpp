#include "texture_format.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "cube_map.h"
#include "equirect.h"
#include "gpu_formats.h"
#include "parallel.h"

namespace bake {
namespace {

constexpr TextureFormat kFormats[] = {TextureFormat::Rgba16Float, TextureFormat::Rgba32Float, TextureFormat::B10G11R11UFloat,
                                      TextureFormat::E5B9G9R9UFloat, TextureFormat::Bc6hUFloat};

void put_u16(std::uint8_t* p, std::uint16_t v) {
    p[0] = static_cast<std::uint8_t>(v);
    p[1] = static_cast<std::uint8_t>(v >> 8);
}
void put_u32(std::uint8_t* p, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
std::uint32_t float_as_u32(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

// One image's texels in a per-texel format, rows in order, into `out` (width * height * texel bytes).
void convert_image(const Image& image, TextureFormat format, std::uint8_t* out) {
    const std::size_t n = image.pixel_count();
    const float* in = image.rgb.data();
    switch (format) {
        case TextureFormat::Rgba16Float:
            for (std::size_t i = 0; i < n; ++i, in += 3, out += 8) {
                for (int c = 0; c < 3; ++c) put_u16(out + 2 * c, float_to_half(in[c]));
                put_u16(out + 6, 0x3c00);  // alpha 1
            }
            break;
        case TextureFormat::Rgba32Float:
            for (std::size_t i = 0; i < n; ++i, in += 3, out += 16) {
                for (int c = 0; c < 3; ++c) put_u32(out + 4 * c, float_as_u32(in[c]));
                put_u32(out + 12, float_as_u32(1.0f));
            }
            break;
        case TextureFormat::B10G11R11UFloat:
            for (std::size_t i = 0; i < n; ++i, in += 3, out += 4) put_u32(out, pack_b10g11r11(in[0], in[1], in[2]));
            break;
        case TextureFormat::E5B9G9R9UFloat:
            for (std::size_t i = 0; i < n; ++i, in += 3, out += 4) put_u32(out, pack_e5b9g9r9(in[0], in[1], in[2]));
            break;
        case TextureFormat::Bc6hUFloat: throw std::logic_error("BC6H is encoded by blocks");
    }
}

int level_size(int size, int level) { return std::max(1, size >> level); }

}  // namespace

bool parse_texture_format(const std::string& name, TextureFormat* format) {
    for (TextureFormat f : kFormats) {
        if (name == texture_format_name(f)) {
            *format = f;
            return true;
        }
    }
    return false;
}

const char* texture_format_name(TextureFormat format) {
    switch (format) {
        case TextureFormat::Rgba16Float: return "rgba16f";
        case TextureFormat::Rgba32Float: return "rgba32f";
        case TextureFormat::B10G11R11UFloat: return "b10g11r11";
        case TextureFormat::E5B9G9R9UFloat: return "e5b9g9r9";
        case TextureFormat::Bc6hUFloat: return "bc6h";
    }
    return "?";
}

std::uint32_t texture_vk_format(TextureFormat format) {
    switch (format) {
        case TextureFormat::Rgba16Float: return 97;
        case TextureFormat::Rgba32Float: return 109;
        case TextureFormat::B10G11R11UFloat: return 122;
        case TextureFormat::E5B9G9R9UFloat: return 123;
        case TextureFormat::Bc6hUFloat: return 143;
    }
    return 0;
}

std::uint32_t texture_dxgi_format(TextureFormat format) {
    switch (format) {
        case TextureFormat::Rgba16Float: return 10;
        case TextureFormat::Rgba32Float: return 2;
        case TextureFormat::B10G11R11UFloat: return 26;
        case TextureFormat::E5B9G9R9UFloat: return 67;
        case TextureFormat::Bc6hUFloat: return 95;
    }
    return 0;
}

int texture_block_size(TextureFormat format) { return format == TextureFormat::Bc6hUFloat ? 4 : 1; }

int texture_block_bytes(TextureFormat format) {
    switch (format) {
        case TextureFormat::Rgba16Float: return 8;
        case TextureFormat::Rgba32Float: return 16;
        case TextureFormat::Bc6hUFloat: return kBc6hBlockBytes;
        default: return 4;
    }
}

std::size_t texture_image_bytes(TextureFormat format, int width, int height) {
    const int b = texture_block_size(format);
    return static_cast<std::size_t>((width + b - 1) / b) * static_cast<std::size_t>((height + b - 1) / b) *
           static_cast<std::size_t>(texture_block_bytes(format));
}

double texture_format_max(TextureFormat format, int channel) {
    switch (format) {
        case TextureFormat::Rgba32Float: return std::numeric_limits<float>::max();
        case TextureFormat::B10G11R11UFloat: return channel == 2 ? 64512.0 : 65024.0;  // 2^15 (1 + 31/32), 2^15 (1 + 63/64)
        case TextureFormat::E5B9G9R9UFloat: return 65408.0;                            // 2^16 * 511/512
        default: return 65504.0;  // the largest half (BC6H: 0xffff * 31/64 = 0x7bff)
    }
}

namespace {

void validate_shape(int width, int height, int faces, std::size_t levels) {
    auto fail = [](const std::string& what) { throw std::invalid_argument(what); };
    if (width < 1 || height < 1) fail("texture size must be at least 1x1");
    if (faces != 1 && faces != 6) fail("a texture has 1 face or 6 (a cube map)");
    if (faces == 6 && width != height) fail("cube map faces must be square");
    std::size_t max_levels = 1;
    while ((std::max(width, height) >> max_levels) > 0) ++max_levels;
    if (levels < 1 || levels > max_levels)
        fail("a " + std::to_string(width) + "x" + std::to_string(height) + " texture has 1 to " +
             std::to_string(max_levels) + " levels, not " + std::to_string(levels));
}

}  // namespace

void validate_texture(const TextureImages& images) {
    validate_shape(images.width, images.height, images.faces, images.levels.size());
    for (std::size_t i = 0; i < images.levels.size(); ++i) {
        const int w = level_size(images.width, static_cast<int>(i)), h = level_size(images.height, static_cast<int>(i));
        if (static_cast<int>(images.levels[i].size()) != images.faces)
            throw std::invalid_argument("level " + std::to_string(i) + " has " + std::to_string(images.levels[i].size()) +
                                        " images, not " + std::to_string(images.faces));
        for (const Image* im : images.levels[i])
            if (!im || im->width != w || im->height != h || im->rgb.size() != im->pixel_count() * 3)
                throw std::invalid_argument("level " + std::to_string(i) + " must be " + std::to_string(w) + "x" + std::to_string(h));
    }
}

void validate_texture(const EncodedTexture& texture) {
    validate_shape(texture.width, texture.height, texture.faces, texture.levels.size());
    for (std::size_t i = 0; i < texture.levels.size(); ++i) {
        const std::size_t want = texture_image_bytes(texture.format, level_size(texture.width, static_cast<int>(i)),
                                                     level_size(texture.height, static_cast<int>(i))) *
                                 static_cast<std::size_t>(texture.faces);
        if (texture.levels[i].size() != want)
            throw std::invalid_argument("level " + std::to_string(i) + " holds " + std::to_string(texture.levels[i].size()) +
                                        " bytes, not " + std::to_string(want));
    }
}

EncodedTexture encode_texture(const TextureImages& images, TextureFormat format, Bc6hQuality bc6h_quality, int threads) {
    validate_texture(images);
    EncodedTexture out;
    out.format = format;
    out.width = images.width;
    out.height = images.height;
    out.faces = images.faces;
    for (const std::vector<const Image*>& faces : images.levels) {
        if (format == TextureFormat::Bc6hUFloat) {
            out.levels.push_back(bc6h_encode_images(faces, bc6h_quality, threads));
            continue;
        }
        const std::size_t face_bytes = texture_image_bytes(format, faces[0]->width, faces[0]->height);
        std::vector<std::uint8_t> level(face_bytes * faces.size());
        parallel_for(static_cast<int>(faces.size()), threads,
                     [&](int f) { convert_image(*faces[f], format, level.data() + face_bytes * f); });
        out.levels.push_back(std::move(level));
    }
    return out;
}

ClipReport measure_clipping(TextureFormat format, const TextureImages& images, TextureDomain domain) {
    validate_texture(images);
    const double max[3] = {texture_format_max(format, 0), texture_format_max(format, 1), texture_format_max(format, 2)};
    ClipReport report;
    // The texels' weights (a cube texel's solid angle: 30-40 ms of one H200 machine core for a
    // 6x256^2 chain, most of a batch input's time on the main thread) only where a texel is clipped.
    bool any_clipped = false;
    for (const std::vector<const Image*>& level : images.levels)
        for (const Image* im : level) {
            report.texels += im->pixel_count();
            for (std::size_t i = 0; i < im->rgb.size(); ++i) {
                const float v = im->rgb[i];
                if (!(v > 0)) continue;  // negatives and NaN carry no energy here
                report.brightest = std::max(report.brightest, v);
                if (v > max[i % 3]) any_clipped = true;
            }
        }
    if (!any_clipped) return report;
    for (std::size_t level = 0; level < images.levels.size(); ++level) {
        double lost = 0, total = 0;
        for (const Image* im : images.levels[level])
            for (int row = 0; row < im->height; ++row)
                for (int col = 0; col < im->width; ++col) {
                    const double weight = domain == TextureDomain::Cube       ? cube_texel_solid_angle(row, col, im->width)
                                          : domain == TextureDomain::Equirect ? equirect_row_solid_angle(row, im->width, im->height)
                                                                              : 1.0;
                    const float* p = im->at(row, col);
                    bool clipped = false;
                    for (int c = 0; c < 3; ++c) {
                        const double v = p[c];
                        if (!(v > 0)) continue;  // negatives and NaN carry no energy here
                        total += v * weight;
                        if (v > max[c]) {
                            lost += (v - max[c]) * weight;
                            clipped = true;
                        }
                    }
                    if (clipped) ++report.clipped;
                }
        const double share = total > 0 ? lost / total : 0.0;
        if (share > report.energy_lost) {
            report.energy_lost = share;
            report.worst_level = static_cast<int>(level);
        }
    }
    return report;
}

}  // namespace bake
