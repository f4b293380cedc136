#pragma once
// BC6H_UF16 (DXGI_FORMAT_BC6H_UF16, VK_FORMAT_BC6H_UFLOAT_BLOCK, GL_COMPRESSED_RGB_BPTC_UNSIGNED_FLOAT):
// 4x4 texels of unsigned half-float RGB in 16 bytes, encoded and decoded here from the format's
// specification (bc6h_tables.h).
//
// What the encoder keeps. Texels become half floats first: negatives, -0 and NaN become 0 (the
// unsigned format has no sign: signed BC6H_SF16 is not written), values above 65504 and +infinity
// 65504, the largest half and the largest value a block decodes to. The search works in integers
// only (no floating point after that conversion), so that the GPU encoder
// (shaders/bc6h_encode.comp) writes the same bytes: the block's texels as half-float bit patterns h,
// interpolated as the decoder does (endpoints unquantized to 16 bits, then h = x * 31 / 64). The
// error of a candidate is the sum over texels of w * sum over channels of min(|decoded h - h|,
// 8191)^2. Half bits are close to a logarithm of the value (1024 steps an octave), so the error is
// a relative one; w = 1 + the whole octaves a texel lies above the block's dimmest (at most 16), so
// that a sun, which carries the light, is not traded for the dim sky around it (texels that only
// pad a block weigh 0). An error of 8191 steps (8 octaves) is as bad as it gets: a texel's term
// stays within 32 bits, the sum within 64.
//
// Default: endpoints from each region's bounding box (the diagonal the channels' covariance picks),
// the four one-region modes, the two partitions whose unquantized fits are best with the ten
// two-region modes on each, then the best candidate's endpoints refined by a steepest descent (of
// the moves of one quantized endpoint value by ±1, the one that lowers the error most, at most 8
// times: bench/NOTES.md). Thorough: every mode with every partition, the best partition of each
// mode refined by a local search (each endpoint value moved by ±step while the error falls, steps
// from 2^(endpoint bits - 8) down to 1). Indices are the nearest decoded value of each texel (the
// anchor texels restricted to the lower half), so the error is the decoded block's.
#include <array>
#include <cstdint>
#include <vector>

#include "image.h"

namespace bake {

enum class Bc6hQuality { Default, Thorough };

constexpr int kBc6hBlockBytes = 16;
using Bc6hBlock = std::array<std::uint8_t, kBc6hBlockBytes>;

// One block from 16 texels (texel i = 4 * row + column, RGB interleaved). counted: bit i set for the
// texels whose error counts; the others only pad a block past an image's edge (0: all count).
Bc6hBlock bc6h_encode_block(const float rgb[48], Bc6hQuality quality, std::uint16_t counted = 0xffff);
// A block's 16 texels as half-float bit patterns (RGB interleaved), as the specification decodes
// them: reserved modes decode to 0.
void bc6h_decode_block(const std::uint8_t block[kBc6hBlockBytes], std::uint16_t half_rgb[48]);

// Blocks of a width x height image: ceil(width / 4) x ceil(height / 4), rows of blocks top first.
inline std::size_t bc6h_block_count(int width, int height) {
    return static_cast<std::size_t>((width + 3) / 4) * static_cast<std::size_t>((height + 3) / 4);
}

// Images (a level's faces) encoded one after another, in parallel over all their blocks (threads <=
// 0: every core). Blocks reaching past an edge (levels smaller than 4x4 among them) repeat the
// last row and column there, texels whose error does not count.
std::vector<std::uint8_t> bc6h_encode_images(const std::vector<const Image*>& images, Bc6hQuality quality,
                                             int threads = 0);
// The width x height image that `blocks` (bc6h_block_count(width, height) of them) decode to.
Image bc6h_decode_image(const std::uint8_t* blocks, int width, int height);

}  // namespace bake
