#include "packed_image.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

#include <Imath/half.h>


namespace bake {

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

// TODO(rgbe): radiance_hdr's rgbe_to_float once it lands.
void rgbe_to_float(const std::uint8_t* rgbe, float* rgb, std::size_t texels) {
    for (std::size_t i = 0; i < texels; ++i, rgbe += 4, rgb += 3) {
        if (rgbe[3] == 0) {
            rgb[0] = rgb[1] = rgb[2] = 0.0f;
            continue;
        }
        const float f = static_cast<float>(std::ldexp(1.0f, rgbe[3] - (128 + 8)));
        rgb[0] = rgbe[0] * f;
        rgb[1] = rgbe[1] * f;
        rgb[2] = rgbe[2] * f;
    }
}

}  // namespace

std::size_t bytes_per_texel(TexelEncoding encoding) { return encoding == TexelEncoding::Rgbe8 ? 4 : 6; }

const char* encoding_name(TexelEncoding encoding) { return encoding == TexelEncoding::Rgbe8 ? "rgbe8" : "half"; }

float half_to_float(std::uint16_t bits) {
    Imath::half h;
    h.setBits(bits);
    return static_cast<float>(h);
}

Image expand_packed(const PackedImage& packed, int threads) {
    Image out(packed.width, packed.height);
    const std::size_t texels = packed.pixel_count();
    unsigned n = threads > 0 ? static_cast<unsigned>(threads) : std::max(1u, std::thread::hardware_concurrency());
    if (texels < (std::size_t{1} << 18)) n = 1;
    const std::size_t part = (texels + n - 1) / n;
    auto expand = [&](std::size_t begin, std::size_t end) {
        if (packed.encoding == TexelEncoding::Rgbe8) {
            rgbe_to_float(packed.bytes.data() + 4 * begin, out.rgb.data() + 3 * begin, end - begin);
        } else {
            for (std::size_t i = 3 * begin; i < 3 * end; ++i) out.rgb[i] = half_to_float(half_at(packed, i));
        }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < n && t * part < texels; ++t)
        pool.emplace_back(expand, t * part, std::min(texels, (t + 1) * part));
    expand(0, std::min(texels, part));
    for (std::thread& th : pool) th.join();
    return out;
}

PackedTexelStats scan_packed(const PackedImage& p) {
    PackedTexelStats s;
    if (p.encoding != TexelEncoding::Half) return s;  // RGBE: every value is finite and >= 0
    const std::size_t values = p.pixel_count() * 3;
    for (std::size_t i = 0; i < values; ++i) {
        const std::uint16_t bits = half_at(p, i);
        if (half_nonfinite(bits)) {
            if (s.nonfinite++ == 0) s.first_nonfinite_texel = i / 3;
        } else if (half_below_zero(bits)) {
            ++s.negative;
            s.min_value = std::min(s.min_value, half_to_float(bits));
        }
    }
    return s;
}

std::size_t zero_nonfinite(PackedImage& packed) { return zero_halves(packed, half_nonfinite); }

std::size_t clamp_negative(PackedImage& packed) { return zero_halves(packed, half_below_zero); }

}  // namespace bake
