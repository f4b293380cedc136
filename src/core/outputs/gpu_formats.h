#pragma once
// Float texels as GPU texel formats: IEEE half (R16G16B16A16_SFLOAT), the unsigned 11- and 10-bit
// floats of B10G11R11_UFLOAT_PACK32 and the shared-exponent E5B9G9R9_UFLOAT_PACK32, each exactly as
// the Khronos Data Format Specification 1.4 defines its values (§ 10.1 16-bit, § 10.2 unsigned
// 11-bit, § 10.3 unsigned 10-bit floating-point numbers; the E5B9G9R9 example descriptor).
//
// Rounding. The half and the 11/10-bit floats round to nearest, ties to even (IEEE 754's default;
// the Vulkan specification leaves the mode to the implementation, "Floating Point Format
// Conversions"), directly from the float (no double rounding through half). E5B9G9R9 follows the
// conversion the Vulkan specification ("Shared Exponent") and OpenGL 4.6 § 8.5.2 give, which rounds
// the shared exponent's mantissas half up: floor(c / 2^(exp_s - B - N) + 1/2).
//
// Out of range. Finite values beyond a format's largest finite value saturate to it (Vulkan allows
// that or infinity; lighting data must not turn into infinity), as do +infinity. Negative values
// (and -0, -infinity) become 0 in the unsigned formats, as Vulkan specifies. NaN stays NaN in the
// half and 11/10-bit floats (a canonical quiet NaN); E5B9G9R9 has none and writes 0.
#include <cstdint>

#include "packed_image.h"  // half_to_float, the inverse of float_to_half

namespace bake {

std::uint16_t float_to_half(float x);

// Unsigned 11-bit (5-bit exponent, 6-bit mantissa) and 10-bit (5, 5) floats, in the low bits.
std::uint32_t float_to_ufloat11(float x);
std::uint32_t float_to_ufloat10(float x);
float ufloat11_to_float(std::uint32_t v);
float ufloat10_to_float(std::uint32_t v);

// VK_FORMAT_B10G11R11_UFLOAT_PACK32: R in bits 0..10, G in 11..21, B in 22..31.
std::uint32_t pack_b10g11r11(float r, float g, float b);
void unpack_b10g11r11(std::uint32_t v, float rgb[3]);

// VK_FORMAT_E5B9G9R9_UFLOAT_PACK32: mantissas R in bits 0..8, G in 9..17, B in 18..26, the shared
// exponent (bias 15) in 27..31; a channel's value is mantissa * 2^(exponent - 15 - 9).
std::uint32_t pack_e5b9g9r9(float r, float g, float b);
void unpack_e5b9g9r9(std::uint32_t v, float rgb[3]);

}  // namespace bake
