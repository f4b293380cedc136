#include "dds_writer.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "atomic_file.h"
#include "errors.h"

namespace bake {
namespace {

// DDS_HEADER flags, caps and the DX10 header's values (Microsoft's dds.h names).
constexpr std::uint32_t kDdsdCaps = 0x1, kDdsdHeight = 0x2, kDdsdWidth = 0x4, kDdsdPitch = 0x8,
                        kDdsdPixelFormat = 0x1000, kDdsdMipMapCount = 0x20000, kDdsdLinearSize = 0x80000;
constexpr std::uint32_t kDdpfFourCc = 0x4;
constexpr std::uint32_t kCapsComplex = 0x8, kCapsTexture = 0x1000, kCapsMipMap = 0x400000;
constexpr std::uint32_t kCaps2CubeAllFaces = 0x200 | 0xfc00;  // CUBEMAP | +X -X +Y -Y +Z -Z
constexpr std::uint32_t kDimensionTexture2d = 3, kMiscTextureCube = 0x4;
constexpr std::size_t kHeaderBytes = 4 + 124 + 20;

void put_u32(std::uint8_t* p, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

}  // namespace

std::vector<std::uint8_t> encode_dds(const EncodedTexture& texture) {
    validate_texture(texture);
    const bool cube = texture.faces == 6;
    const auto levels = static_cast<std::uint32_t>(texture.levels.size());
    const bool blocks = texture_block_size(texture.format) > 1;
    std::size_t data_bytes = 0;
    for (const auto& level : texture.levels) data_bytes += level.size();

    std::vector<std::uint8_t> out(kHeaderBytes + data_bytes, 0);
    std::uint8_t* h = out.data();
    std::memcpy(h, "DDS ", 4);
    std::uint8_t* header = h + 4;
    put_u32(header + 0, 124);  // dwSize
    put_u32(header + 4, kDdsdCaps | kDdsdHeight | kDdsdWidth | kDdsdPixelFormat | kDdsdMipMapCount |
                            (blocks ? kDdsdLinearSize : kDdsdPitch));
    put_u32(header + 8, static_cast<std::uint32_t>(texture.height));
    put_u32(header + 12, static_cast<std::uint32_t>(texture.width));
    const std::size_t pitch_or_size = blocks ? texture_image_bytes(texture.format, texture.width, texture.height)
                                             : texture_image_bytes(texture.format, texture.width, 1);
    put_u32(header + 16, static_cast<std::uint32_t>(pitch_or_size));
    put_u32(header + 20, 0);  // dwDepth
    put_u32(header + 24, levels);
    // dwReserved1[11] stay 0. DDS_PIXELFORMAT at 72:
    put_u32(header + 72, 32);
    put_u32(header + 76, kDdpfFourCc);
    std::memcpy(header + 80, "DX10", 4);
    put_u32(header + 104, kCapsTexture | ((levels > 1 || cube) ? kCapsComplex : 0u) | (levels > 1 ? kCapsMipMap : 0u));
    put_u32(header + 108, cube ? kCaps2CubeAllFaces : 0u);
    std::uint8_t* dx10 = h + 4 + 124;
    put_u32(dx10 + 0, texture_dxgi_format(texture.format));
    put_u32(dx10 + 4, kDimensionTexture2d);
    put_u32(dx10 + 8, cube ? kMiscTextureCube : 0u);
    put_u32(dx10 + 12, 1);  // arraySize: one cube, or one 2D texture
    put_u32(dx10 + 16, 0);  // miscFlags2: alpha mode unknown

    // Face-major: each face's chain, levels from the largest.
    std::uint8_t* at = out.data() + kHeaderBytes;
    for (int face = 0; face < texture.faces; ++face)
        for (const auto& level : texture.levels) {
            const std::size_t face_bytes = level.size() / static_cast<std::size_t>(texture.faces);
            std::memcpy(at, level.data() + face_bytes * static_cast<std::size_t>(face), face_bytes);
            at += face_bytes;
        }
    return out;
}

void write_dds(const std::string& path, const EncodedTexture& texture) {
    std::vector<std::uint8_t> bytes;
    try {
        bytes = encode_dds(texture);
    } catch (const std::exception& e) {
        throw OutputError(path + ": " + one_line(e.what()));
    }
    write_bytes_atomically(path, bytes);
}

}  // namespace bake
