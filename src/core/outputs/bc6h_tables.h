#pragma once
// The tables of BC6H (BPTC_FLOAT), as the OpenGL extension ARB_texture_compression_bptc gives them
// (its appendix, "COMPRESSED_RGB_BPTC_SIGNED_FLOAT_ARB and COMPRESSED_RGB_BPTC_UNSIGNED_FLOAT_ARB";
// the D3D11 functional specification's BC6H section and the Khronos Data Format Specification's
// "BC6H" section state the same format). Kept apart from the encoder so that the GPU encoder
// (src/gpu/gpu_bc6h.cpp) compiles the very same tables into its shader.
#include <array>
#include <cstdint>

namespace bake {

// One of the 14 modes (Table.MF): the low 2 or 5 bits of a block.
struct Bc6hMode {
    std::uint8_t code;         // the mode number, 0, 1, 2, 6, ... 15
    std::uint8_t regions;      // 1 (4-bit indices) or 2 (3-bit indices and a partition)
    std::uint8_t epb;          // endpoint bits
    std::uint8_t delta[3];     // bits of the other endpoints per channel (R, G, B) when transformed
    bool transformed;          // endpoints other than e0 are signed deltas from it
};

constexpr int kBc6hModeCount = 14;
// Table.MF's order: the ten two-region modes, then the four one-region ones.
extern const Bc6hMode kBc6hModes[kBc6hModeCount];

constexpr int kBc6hPartitionCount = 32;
// The first 32 partitions of Table.P2: bit i of kBc6hPartitions[p] is the region of texel i
// (texel i = 4 * row + column within the block).
extern const std::array<std::uint16_t, kBc6hPartitionCount> kBc6hPartitions;
// Table.A2: the anchor texel of region 1 (region 0's anchor is texel 0).
extern const std::array<std::uint8_t, kBc6hPartitionCount> kBc6hAnchor2;

// Interpolation weights (out of 64) of 3- and 4-bit indices.
extern const std::array<std::uint8_t, 8> kBc6hWeights3;
extern const std::array<std::uint8_t, 16> kBc6hWeights4;

// Where each header bit of a block goes, for mode index m (into kBc6hModes): entry b (bit b of the
// block, b < bc6h_header_bits(m)) is field * 16 + bit, fields 0..11 being endpoint e (0..3) channel
// c (R, G, B) as 3 * e + c, field 12 the mode number and 13 the partition number. Built from the
// specification's Table.F strings (bc6h_tables.cpp) and checked there against the mode numbers and
// the bit counts. The indices follow the header: 65 bits of header for one region, 82 for two.
constexpr int kBc6hFieldMode = 12, kBc6hFieldPartition = 13;
int bc6h_header_bits(int mode_index);
const std::array<std::uint8_t, 82>& bc6h_bit_map(int mode_index);

// The mode index (into kBc6hModes) of a block's mode number, or -1 for the reserved numbers
// (19, 23, 27, 31), which decode to black.
int bc6h_mode_index(const std::uint8_t block[16]);

}  // namespace bake
