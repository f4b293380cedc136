#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bulk_allocator.h"
#include "image.h"

namespace bake {

// How a packed image stores a texel: as the file does. A Radiance .hdr's RGBE is 4 bytes a
// texel and a half-float EXR's RGB 6, against the 12 of RGB float: the GPU path uploads these
// bytes as they are and expands them in the shader (3x / 2x less to copy and to move over the
// bus), and the host never holds a float copy.
enum class TexelEncoding {
    Rgbe8,  // bytes r, g, b, e: value = byte * 2^(e - 136), all zero when e == 0 (Radiance, stb_image)
    Half,   // three IEEE binary16 values r, g, b, little-endian
};

std::size_t bytes_per_texel(TexelEncoding encoding);
const char* encoding_name(TexelEncoding encoding);  // "rgbe8", "half"

// An RGB image in a packed encoding, rows top to bottom, texels interleaved.
struct PackedImage {
    TexelEncoding encoding = TexelEncoding::Rgbe8;
    int width = 0;
    int height = 0;
    std::vector<std::uint8_t, BulkAllocator<std::uint8_t>> bytes;  // width * height * bytes_per_texel(encoding)

    std::size_t pixel_count() const { return static_cast<std::size_t>(width) * static_cast<std::size_t>(height); }
};

// half -> float (exact: every half is a float).
float half_to_float(std::uint16_t bits);

// The float image the file's texels stand for, bit-identical to decoding the file to float
// directly (threads <= 0: all cores).
Image expand_packed(const PackedImage& packed, int threads = 0);

// Row `row` of the packed image as RGB float (width * 3 values), the same bits as expand_packed.
void expand_packed_row(const PackedImage& packed, int row, float* out);

// Texel policies on packed texels, the same as on their float expansion (texel_policy.h).
// RGBE has no negative or non-finite values; halves may have both.
struct PackedTexelStats {
    std::size_t nonfinite = 0;
    std::size_t first_nonfinite_texel = 0;  // texel index of the first, when nonfinite > 0
    std::size_t negative = 0;
    float min_value = 0;
};
PackedTexelStats scan_packed(const PackedImage& packed);
std::size_t zero_nonfinite(PackedImage& packed);
std::size_t clamp_negative(PackedImage& packed);

}  // namespace bake
