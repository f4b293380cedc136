#include "packed_image.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include <Imath/half.h>

#include "parallel.h"


namespace bake {

namespace {

// 2^(e - 136) as stb computes it, (float) ldexp(1.0f, e - 136); index 0 unused (e == 0 is black).
const std::array<float, 256>& rgbe_scales() {
    static const std::array<float, 256> scales = [] {
        std::array<float, 256> s{};
        for (int e = 1; e < 256; ++e) s[static_cast<std::size_t>(e)] = static_cast<float>(std::ldexp(1.0f, e - 136));
        return s;
    }();
    return scales;
}

}  // namespace

void rgbe_to_float(const std::uint8_t* rgbe, float* rgb, std::size_t texels) {
    const std::array<float, 256>& scale = rgbe_scales();
    for (std::size_t i = 0; i < texels; ++i, rgbe += 4, rgb += 3) {
        const std::uint8_t r = rgbe[0], g = rgbe[1], b = rgbe[2], e = rgbe[3];  // read before rgb is written
        if (e == 0) {
            rgb[0] = rgb[1] = rgb[2] = 0.0f;
            continue;
        }
        const float f = scale[e];
        rgb[0] = static_cast<float>(r) * f;
        rgb[1] = static_cast<float>(g) * f;
        rgb[2] = static_cast<float>(b) * f;
    }
}


namespace {

constexpr std::uint16_t kHalfExponent = 0x7c00;
constexpr std::uint16_t kHalfSign = 0x8000;

std::uint16_t half_at(const PackedImage& p, std::size_t value_index) {
    std::uint16_t bits;
    std::memcpy(&bits, p.bytes.data() + 2 * value_index, 2);
    return bits;
}

bool half_nonfinite(std::uint16_t bits) { return (bits & kHalfExponent) == kHalfExponent; }
bool half_nan(std::uint16_t bits) { return half_nonfinite(bits) && (bits & 0x03ff) != 0; }
// As float compares v < 0: -0 is not, -Inf is, NaN is not.
bool half_below_zero(std::uint16_t bits) { return (bits & kHalfSign) && (bits & 0x7fff) != 0 && !half_nan(bits); }

template <typename Pred>
std::size_t zero_halves(PackedImage& p, const Pred& pred) {
    if (p.encoding != TexelEncoding::Half) return 0;
    std::size_t n = 0;
    const std::size_t values = p.pixel_count() * 3;
    for (std::size_t i = 0; i < values; ++i) {
        const std::uint16_t bits = half_at(p, i);
        if (pred(bits)) {
            std::memset(p.bytes.data() + 2 * i, 0, 2);
            ++n;
        }
    }
    return n;
}

}  // namespace

std::size_t bytes_per_texel(TexelEncoding encoding) { return encoding == TexelEncoding::Rgbe8 ? 4 : 6; }

const char* encoding_name(TexelEncoding encoding) { return encoding == TexelEncoding::Rgbe8 ? "rgbe8" : "half"; }

float half_to_float(std::uint16_t bits) {
    Imath::half h;
    h.setBits(bits);
    return static_cast<float>(h);
}

void float_to_rgbe(const float* rgb, std::uint8_t* rgbe) {
    const float m = std::max({rgb[0], rgb[1], rgb[2]});
    if (!(m >= 1e-32f)) {
        std::memset(rgbe, 0, 4);
        return;
    }
    int e;
    const float scale = std::frexp(m, &e) * 256.0f / m;  // 2^(8 - e): each channel to [0, 256)
    for (int c = 0; c < 3; ++c) rgbe[c] = static_cast<std::uint8_t>(std::max(0.0f, rgb[c]) * scale);
    rgbe[3] = static_cast<std::uint8_t>(e + 128);
}

Image expand_packed(const PackedImage& packed, int threads) {
    Image out(packed.width, packed.height);
    const std::size_t texels = packed.pixel_count();
    constexpr std::size_t kChunk = std::size_t{1} << 16;  // texels a task
    const int chunks = static_cast<int>((texels + kChunk - 1) / kChunk);
    parallel_for(chunks, resolve_threads(threads, chunks), [&](int c) {
        const std::size_t begin = static_cast<std::size_t>(c) * kChunk, end = std::min(texels, begin + kChunk);
        if (packed.encoding == TexelEncoding::Rgbe8) {
            rgbe_to_float(packed.bytes.data() + 4 * begin, out.rgb.data() + 3 * begin, end - begin);
        } else {
            for (std::size_t i = 3 * begin; i < 3 * end; ++i) out.rgb[i] = half_to_float(half_at(packed, i));
        }
    });
    return out;
}

void expand_packed_row(const PackedImage& packed, int row, float* out) {
    const std::size_t width = static_cast<std::size_t>(packed.width), first = static_cast<std::size_t>(row) * width;
    if (packed.encoding == TexelEncoding::Rgbe8) {
        rgbe_to_float(packed.bytes.data() + 4 * first, out, width);
    } else {
        for (std::size_t i = 0; i < 3 * width; ++i) out[i] = half_to_float(half_at(packed, 3 * first + i));
    }
}

void expand_packed_texel(const PackedImage& packed, std::size_t index, float* out) {
    if (packed.encoding == TexelEncoding::Rgbe8) {
        rgbe_to_float(packed.bytes.data() + 4 * index, out, 1);
    } else {
        for (std::size_t c = 0; c < 3; ++c) out[c] = half_to_float(half_at(packed, 3 * index + c));
    }
}

PackedTexelStats scan_packed(const PackedImage& p) {
    if (p.encoding != TexelEncoding::Half) return {};  // RGBE: every value is finite and >= 0
    // half -> float is exact, and keeps what is non-finite and what is below zero.
    return scan_channel_values(p.pixel_count() * 3, [&](std::size_t i) { return half_to_float(half_at(p, i)); });
}

std::size_t zero_nonfinite(PackedImage& packed) { return zero_halves(packed, half_nonfinite); }

std::size_t clamp_negative(PackedImage& packed) { return zero_halves(packed, half_below_zero); }

}  // namespace bake
