// GPU texel formats (src/core/outputs/gpu_formats.h) against the formats' definitions: every code
// decoded by the Khronos Data Format Specification's formulas (written out here again), each
// encoding checked to be the nearest code by a search over all codes (ties to the even mantissa),
// the half also against the CPU's own F16C conversion, and E5B9G9R9 against the definition of its
// shared exponent (the smallest that holds the largest channel after rounding).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "gpu_formats.h"

using namespace bake;

namespace {

float from_bits(std::uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

// Data Format Specification 1.4 § 10.1-10.3: exponent E (5 bits, bias 15) and mantissa M of `mbits`.
double spec_value(std::uint32_t code, int mbits) {
    const std::uint32_t E = code >> mbits, M = code & ((1u << mbits) - 1u);
    if (E == 0) return std::ldexp(static_cast<double>(M) / std::ldexp(1.0, mbits), -14);
    return std::ldexp(1.0 + static_cast<double>(M) / std::ldexp(1.0, mbits), static_cast<int>(E) - 15);
}

// The nearest finite code to x >= 0 among codes 0 .. (31 << mbits) - 1 (sorted by value), ties to
// the even code (the even mantissa), saturated at the largest.
std::uint32_t nearest_code(double x, int mbits) {
    const std::uint32_t count = 31u << mbits;
    std::uint32_t lo = 0, hi = count - 1;
    if (x >= spec_value(hi, mbits)) return hi;
    while (hi - lo > 1) {  // invariant: value(lo) <= x < value(hi)
        const std::uint32_t mid = (lo + hi) / 2;
        (spec_value(mid, mbits) <= x ? lo : hi) = mid;
    }
    const double dlo = x - spec_value(lo, mbits), dhi = spec_value(hi, mbits) - x;
    if (dlo < dhi) return lo;
    if (dhi < dlo) return hi;
    return (lo & 1u) ? hi : lo;
}

// Probes for a format: every code's value, the midpoints between neighbours and the floats next to
// them, and random floats over the whole range and beyond.
std::vector<float> probes(int mbits) {
    std::vector<float> xs;
    const std::uint32_t count = 31u << mbits;
    for (std::uint32_t c = 0; c + 1 < count; ++c) {
        const float v = static_cast<float>(spec_value(c, mbits));
        const float mid = static_cast<float>((spec_value(c, mbits) + spec_value(c + 1, mbits)) / 2);
        xs.insert(xs.end(), {v, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f)});
    }
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> exponent(-30.0f, 17.0f);
    for (int i = 0; i < 200000; ++i) xs.push_back(std::exp2(exponent(rng)));
    xs.insert(xs.end(), {0.0f, 1e-30f, 5.9604645e-8f, 2.9802322e-8f, 65504.0f, 65520.0f, 1e10f,
                         std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min()});
    return xs;
}

void check_unsigned_format(int mbits, std::uint32_t (*encode)(float), float (*decode)(std::uint32_t)) {
    const std::uint32_t finite_codes = 31u << mbits;
    for (std::uint32_t c = 0; c < finite_codes; ++c) {
        INFO("code " << c);
        REQUIRE(static_cast<double>(decode(c)) == spec_value(c, mbits));
        REQUIRE(encode(decode(c)) == c);
    }
    for (float x : probes(mbits)) {
        INFO("x = " << x);
        REQUIRE(encode(x) == nearest_code(x, mbits));
    }
    const std::uint32_t max_code = finite_codes - 1;
    CHECK(encode(INFINITY) == max_code);
    CHECK(encode(-1.0f) == 0);
    CHECK(encode(-0.0f) == 0);
    CHECK(encode(-INFINITY) == 0);
    CHECK(std::isnan(decode(encode(NAN))));
    CHECK(std::isinf(decode(31u << mbits)));
}

}  // namespace

TEST_CASE("gpu formats: unsigned 11-bit float is the nearest code, ties to even", "[gpu_formats]") {
    check_unsigned_format(6, float_to_ufloat11, ufloat11_to_float);
    CHECK(ufloat11_to_float(float_to_ufloat11(65024.0f)) == 65024.0f);  // the largest finite value
}

TEST_CASE("gpu formats: unsigned 10-bit float is the nearest code, ties to even", "[gpu_formats]") {
    check_unsigned_format(5, float_to_ufloat10, ufloat10_to_float);
    CHECK(ufloat10_to_float(float_to_ufloat10(64512.0f)) == 64512.0f);
}

TEST_CASE("gpu formats: half is the nearest code, ties to even, signed", "[gpu_formats]") {
    for (std::uint32_t c = 0; c < (31u << 10); ++c) {
        for (std::uint32_t sign : {0u, 0x8000u}) {
            const auto h = static_cast<std::uint16_t>(c | sign);
            const double expected = (sign ? -1 : 1) * spec_value(c, 10);
            REQUIRE(static_cast<double>(half_to_float(h)) == expected);
            if (c != 0) REQUIRE(float_to_half(half_to_float(h)) == h);
        }
    }
    for (float x : probes(10)) {
        INFO("x = " << x);
        REQUIRE(float_to_half(x) == nearest_code(x, 10));
        REQUIRE(float_to_half(-x) == (nearest_code(x, 10) | 0x8000u));
    }
    CHECK(float_to_half(INFINITY) == 0x7bff);  // saturated, not infinity
    CHECK(std::isnan(half_to_float(float_to_half(NAN))));
}

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("f16c"))) static std::uint16_t hardware_half(float x) {
    return static_cast<std::uint16_t>(_cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT));
}

TEST_CASE("gpu formats: half equals the CPU's F16C conversion (round to nearest even)", "[gpu_formats]") {
    if (!__builtin_cpu_supports("f16c")) {
        WARN("this CPU has no F16C: the hardware comparison is skipped");
        return;
    }
    // Every 251st float, both signs: finite ones below the saturation threshold must agree bit for bit.
    long compared = 0;
    for (std::uint64_t u = 0; u < 0x7f800000u; u += 251) {
        for (std::uint32_t sign : {0u, 0x80000000u}) {
            const float x = from_bits(static_cast<std::uint32_t>(u) | sign);
            if (std::fabs(x) >= 65520.0f) continue;  // F16C rounds these to infinity, we saturate
            REQUIRE(float_to_half(x) == hardware_half(x));
            ++compared;
        }
    }
    CHECK(compared > 8000000);
}
#endif

TEST_CASE("gpu formats: B10G11R11 packs R, G, B in bits 0, 11 and 22", "[gpu_formats]") {
    const std::uint32_t v = pack_b10g11r11(1.0f, 2.0f, 0.5f);
    CHECK((v & 0x7ffu) == float_to_ufloat11(1.0f));
    CHECK(((v >> 11) & 0x7ffu) == float_to_ufloat11(2.0f));
    CHECK((v >> 22) == float_to_ufloat10(0.5f));
    float rgb[3];
    unpack_b10g11r11(v, rgb);
    CHECK(rgb[0] == 1.0f);
    CHECK(rgb[1] == 2.0f);
    CHECK(rgb[2] == 0.5f);
}

TEST_CASE("gpu formats: E5B9G9R9 uses the smallest shared exponent and rounds each channel half up", "[gpu_formats]") {
    // The definition: the shared exponent e is the smallest in [0, 31] at which the largest channel
    // (clamped to [0, 65408]) rounds, half up, to at most 511 units of 2^(e - 24); every channel is
    // then rounded half up in those units.
    auto expected = [](float r, float g, float b) {
        const double cs[3] = {std::clamp<double>(r, 0, 65408), std::clamp<double>(g, 0, 65408),
                              std::clamp<double>(b, 0, 65408)};
        const double m = std::max({cs[0], cs[1], cs[2]});
        int e = 0;
        while (e < 31 && std::floor(std::ldexp(m, 24 - e) + 0.5) > 511) ++e;
        std::uint32_t v = static_cast<std::uint32_t>(e) << 27;
        for (int c = 0; c < 3; ++c) v |= static_cast<std::uint32_t>(std::floor(std::ldexp(cs[c], 24 - e) + 0.5)) << (9 * c);
        return v;
    };
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> exponent(-26.0f, 17.0f);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    for (int i = 0; i < 300000; ++i) {
        const float big = std::exp2(exponent(rng));
        const float r = big, g = big * unit(rng), b = big * unit(rng) * unit(rng);
        const std::uint32_t v = pack_e5b9g9r9(r, g, b);
        INFO(r << " " << g << " " << b);
        REQUIRE(v == expected(r, g, b));
        float back[3];
        unpack_e5b9g9r9(v, back);
        const double unit_size = std::ldexp(1.0, static_cast<int>(v >> 27) - 24);
        if (r <= 65408.0f) REQUIRE(std::fabs(back[0] - r) <= unit_size / 2);
        if (b <= 65408.0f) REQUIRE(std::fabs(back[2] - b) <= unit_size / 2);
    }
    // Values at the rounding boundary of the largest channel: 511.5 units rounds up to the next exponent.
    for (int e = 1; e < 31; ++e) {
        const float x = static_cast<float>(std::ldexp(511.5, e - 24));
        REQUIRE(pack_e5b9g9r9(x, 0, 0) == expected(x, 0, 0));
        REQUIRE((pack_e5b9g9r9(x, 0, 0) >> 27) == static_cast<std::uint32_t>(e + 1));
    }
    // 1.0 is mantissa 256 with exponent 16: the Data Format Specification's E5B9G9R9 descriptor
    // states exactly this encoding of 1.0 (sampleUpper 8448 = 16 << 9 | 256).
    CHECK(pack_e5b9g9r9(1.0f, 0, 0) == ((16u << 27) | 256u));
    CHECK(pack_e5b9g9r9(0, 0, 0) == 0);
    CHECK(pack_e5b9g9r9(-5.0f, NAN, 0) == 0);
    float back[3];
    unpack_e5b9g9r9(pack_e5b9g9r9(1e9f, 2.0f, INFINITY), back);
    CHECK(back[0] == 65408.0f);
    CHECK(back[2] == 65408.0f);
}
