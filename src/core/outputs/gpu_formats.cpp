#include "gpu_formats.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace bake {
namespace {

std::uint32_t float_bits(float x) {
    std::uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}

// A non-negative finite float (its bits, sign clear) rounded to nearest-even in a float format with
// a 5-bit exponent of bias 15 and `mbits` mantissa bits (half: 10, 11-bit: 6, 10-bit: 5); returns
// exponent << mbits | mantissa, saturated at the largest finite value (exponent 30, mantissa all 1).
// Works on the float's significand directly, so that nothing is rounded twice.
std::uint32_t round_to_e5(std::uint32_t abs_bits, int mbits) {
    const std::uint32_t max_finite = (30u << mbits) | ((1u << mbits) - 1u);
    if (abs_bits >= 0x7f800000u) return max_finite;  // +infinity (NaN is the callers')
    if ((abs_bits >> 23) == 0) return 0;                 // float zero or subnormal: below 2^-126
    const int e = static_cast<int>(abs_bits >> 23) - 127;
    const std::uint32_t m = (abs_bits & 0x7fffffu) | 0x800000u;  // 24-bit significand, value m * 2^(e-23)
    const bool normal = e >= -14;
    // Target units: 2^(e - mbits) for normals, 2^(-14 - mbits) for subnormals.
    const int shift = (23 - mbits) + (normal ? 0 : (-14 - e));
    if (shift > 24) return 0;  // below half the smallest subnormal
    std::uint32_t q = m >> shift;
    const std::uint32_t rem = m & ((1u << shift) - 1u);
    const std::uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1u))) ++q;
    if (!normal) return q;  // q == 1 << mbits is the smallest normal, whose encoding it already is
    std::uint32_t exponent = static_cast<std::uint32_t>(e + 15);
    if (q == (2u << mbits)) {  // rounded up to the next power of two
        q >>= 1;
        ++exponent;
    }
    if (exponent >= 31) return max_finite;
    return (exponent << mbits) | (q & ((1u << mbits) - 1u));
}

// Value of a 5-bit-exponent float of `mbits` mantissa bits (Data Format Specification § 10.1-10.3).
float decode_e5(std::uint32_t exponent, std::uint32_t mantissa, int mbits) {
    const double frac = std::ldexp(static_cast<double>(mantissa), -mbits);
    if (exponent == 0) return static_cast<float>(std::ldexp(frac, -14));
    if (exponent == 31) return mantissa == 0 ? INFINITY : NAN;
    return static_cast<float>(std::ldexp(1.0 + frac, static_cast<int>(exponent) - 15));
}

std::uint32_t float_to_unsigned_e5(float x, int mbits) {
    const std::uint32_t u = float_bits(x);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (31u << mbits) | (1u << (mbits - 1));  // NaN
    if (u >> 31) return 0;  // negative, -0, -infinity
    return round_to_e5(u, mbits);
}

}  // namespace

// The same rounding as round_to_e5(abs_bits, 10), without its loop-free but branchy general case:
// a KTX2 chain converts millions of texels (F. Giesen's float_to_half_fast3_rtne, with saturation).
std::uint16_t float_to_half(float x) {
    const std::uint32_t u = float_bits(x);
    const std::uint32_t sign = (u >> 16) & 0x8000u;
    std::uint32_t abs_bits = u & 0x7fffffffu;
    if (abs_bits > 0x7f800000u) return 0x7e00;                                    // NaN
    if (abs_bits >= 0x477fe000u) return static_cast<std::uint16_t>(sign | 0x7bffu);  // >= 65504: the largest finite
    if (abs_bits < 0x38800000u) {
        // Below 2^-14 (half subnormals): adding 0.5 puts the value's bits at 2^-24 units in the float's
        // mantissa, rounded to nearest even by the FPU; 0.5's own bits taken away leave the code.
        float magic;
        const std::uint32_t half_bits = 0x3f000000u;
        std::memcpy(&magic, &half_bits, sizeof magic);
        float a;
        std::memcpy(&a, &abs_bits, sizeof a);
        return static_cast<std::uint16_t>(sign | (float_bits(a + magic) - half_bits));
    }
    // Normal: rebias the exponent and round the 13 dropped bits to nearest, ties to even (a carry
    // into the exponent is the right result, 65504 being excluded above).
    const std::uint32_t odd = (abs_bits >> 13) & 1u;
    abs_bits += (static_cast<std::uint32_t>(15 - 127) << 23) + 0xfffu + odd;
    return static_cast<std::uint16_t>(sign | (abs_bits >> 13));
}

std::uint32_t float_to_ufloat11(float x) { return float_to_unsigned_e5(x, 6); }
std::uint32_t float_to_ufloat10(float x) { return float_to_unsigned_e5(x, 5); }
float ufloat11_to_float(std::uint32_t v) { return decode_e5((v >> 6) & 31u, v & 63u, 6); }
float ufloat10_to_float(std::uint32_t v) { return decode_e5((v >> 5) & 31u, v & 31u, 5); }

std::uint32_t pack_b10g11r11(float r, float g, float b) {
    return float_to_ufloat11(r) | (float_to_ufloat11(g) << 11) | (float_to_ufloat10(b) << 22);
}

void unpack_b10g11r11(std::uint32_t v, float rgb[3]) {
    rgb[0] = ufloat11_to_float(v & 0x7ffu);
    rgb[1] = ufloat11_to_float((v >> 11) & 0x7ffu);
    rgb[2] = ufloat10_to_float(v >> 22);
}

std::uint32_t pack_e5b9g9r9(float r, float g, float b) {
    // The Vulkan specification's "Shared Exponent" conversion, N = 9 mantissa bits, B = 15, Emax = 31.
    constexpr int kN = 9, kB = 15;
    const double sharedexp_max = std::ldexp(511.0 / 512.0, 31 - kB);  // 65408
    auto clamp = [&](float c) { return (c > 0.0f) ? std::min(static_cast<double>(c), sharedexp_max) : 0.0; };  // NaN: 0
    const double rc = clamp(r), gc = clamp(g), bc = clamp(b);
    const double maxc = std::max(rc, std::max(gc, bc));
    int floor_log2 = -kB - 1;  // max(-B - 1, floor(log2(maxc))), exactly (frexp: maxc = f 2^k, f in [0.5, 1))
    if (maxc > 0) {
        int k = 0;
        std::frexp(maxc, &k);
        floor_log2 = std::max(floor_log2, k - 1);
    }
    int exp_shared = floor_log2 + 1 + kB;
    const double max_s = std::floor(std::ldexp(maxc, -(exp_shared - kB - kN)) + 0.5);
    if (max_s == 512.0) ++exp_shared;
    auto mantissa = [&](double c) {
        return static_cast<std::uint32_t>(std::floor(std::ldexp(c, -(exp_shared - kB - kN)) + 0.5));
    };
    return mantissa(rc) | (mantissa(gc) << 9) | (mantissa(bc) << 18) |
           (static_cast<std::uint32_t>(exp_shared) << 27);
}

void unpack_e5b9g9r9(std::uint32_t v, float rgb[3]) {
    const int scale = static_cast<int>(v >> 27) - 15 - 9;
    for (int c = 0; c < 3; ++c)
        rgb[c] = static_cast<float>(std::ldexp(static_cast<double>((v >> (9 * c)) & 511u), scale));
}

}  // namespace bake
