#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bulk_allocator.h"
#include "image.h"
#include "parallel.h"

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

// Radiance RGBE -> RGB float, exactly as stb_image does it: byte * (float) 2^(e - 136), all zero
// when e == 0. Every such value is a float, so this is exact, and bit-identical to stb.
void rgbe_to_float(const std::uint8_t* rgbe, float* rgb, std::size_t texels);
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

// The inverse of rgbe_to_float, as Radiance writes RGBE (Ward: the largest channel's exponent, each
// channel truncated to its byte; negative channels as 0; all zero below 1e-32). A value it gives,
// decoded, encodes to the same bytes.
void float_to_rgbe(const float* rgb, std::uint8_t* rgbe);

// The float image the file's texels stand for, bit-identical to decoding the file to float
// directly (threads <= 0: all cores).
Image expand_packed(const PackedImage& packed, int threads = 0);

// Row `row` of the packed image as RGB float (width * 3 values), the same bits as expand_packed.
void expand_packed_row(const PackedImage& packed, int row, float* out);
// Texel `index` (row * width + column) as RGB float, the same bits as expand_packed.
void expand_packed_texel(const PackedImage& packed, std::size_t index, float* out);

// Texel policies on packed texels, the same as on their float expansion (texel_policy.h).
// RGBE has no negative or non-finite values; halves may have both.
struct PackedTexelStats {
    std::size_t nonfinite = 0;
    std::size_t first_nonfinite_texel = 0;  // texel index of the first, when nonfinite > 0
    std::size_t negative = 0;
    float min_value = 0;
};
PackedTexelStats scan_packed(const PackedImage& packed);

// The same counts over `values` channel values value_at(i) (floats; texel = i / 3), on all cores
// in chunks merged in order, so that the first non-finite texel stays the first.
template <typename ValueAt>
PackedTexelStats scan_channel_values(std::size_t values, const ValueAt& value_at) {
    constexpr std::size_t kChunk = std::size_t{1} << 18;  // values a task
    const int chunks = static_cast<int>((values + kChunk - 1) / kChunk);
    std::vector<PackedTexelStats> parts(static_cast<std::size_t>(chunks));
    parallel_for(chunks, resolve_threads(0, chunks), [&](int c) {
        PackedTexelStats& q = parts[static_cast<std::size_t>(c)];
        const std::size_t end = std::min(values, (static_cast<std::size_t>(c) + 1) * kChunk);
        for (std::size_t i = static_cast<std::size_t>(c) * kChunk; i < end; ++i) {
            const float v = value_at(i);
            if (!std::isfinite(v)) {
                if (q.nonfinite++ == 0) q.first_nonfinite_texel = i / 3;
            } else if (v < 0.0f) {
                ++q.negative;
                q.min_value = std::min(q.min_value, v);
            }
        }
    });
    PackedTexelStats s;
    for (const PackedTexelStats& q : parts) {
        if (s.nonfinite == 0 && q.nonfinite > 0) s.first_nonfinite_texel = q.first_nonfinite_texel;
        s.nonfinite += q.nonfinite;
        s.negative += q.negative;
        s.min_value = std::min(s.min_value, q.min_value);
    }
    return s;
}
std::size_t zero_nonfinite(PackedImage& packed);
std::size_t clamp_negative(PackedImage& packed);

}  // namespace bake
