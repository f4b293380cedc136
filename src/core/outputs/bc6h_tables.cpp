#include "bc6h_tables.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace bake {

const Bc6hMode kBc6hModes[kBc6hModeCount] = {
    {0, 2, 10, {5, 5, 5}, true},     {1, 2, 7, {6, 6, 6}, true},     {2, 2, 11, {5, 4, 4}, true},
    {6, 2, 11, {4, 5, 4}, true},     {10, 2, 11, {4, 4, 5}, true},   {14, 2, 9, {5, 5, 5}, true},
    {18, 2, 8, {6, 5, 5}, true},     {22, 2, 8, {5, 6, 5}, true},    {26, 2, 8, {5, 5, 6}, true},
    {30, 2, 6, {6, 6, 6}, false},    {3, 1, 10, {10, 10, 10}, false}, {7, 1, 11, {9, 9, 9}, true},
    {11, 1, 12, {8, 8, 8}, true},    {15, 1, 16, {4, 4, 4}, true},
};

namespace {

// Table.P2's first 32 rows, texel 0 first, as the specification prints them.
constexpr const char* kPartitionRows[kBc6hPartitionCount] = {
    "0011001100110011", "0001000100010001", "0111011101110111", "0001001100110111", "0000000100010011",
    "0011011101111111", "0001001101111111", "0000000100110111", "0000000000010011", "0011011111111111",
    "0000000101111111", "0000000000010111", "0001011111111111", "0000000011111111", "0000111111111111",
    "0000000000001111", "0000100011101111", "0111000100000000", "0000000010001110", "0111001100010000",
    "0011000100000000", "0000100011001110", "0000000010001100", "0111001100110001", "0011000100010000",
    "0000100010001100", "0110011001100110", "0011011001101100", "0001011111101000", "0000111111110000",
    "0111000110001110", "0011100110011100",
};

// Table.F, verbatim: fields in block order, LSB first; v[a:b] puts the next bits of the block into
// v[b], then towards v[a] (a < b: reversed). The partition bits d[4:0] follow in two-region modes.
constexpr const char* kLayouts[kBc6hModeCount] = {
    "m[1:0],g2[4],b2[4],b3[4],r0[9:0],g0[9:0],b0[9:0],r1[4:0],g3[4],g2[3:0],g1[4:0],b3[0],g3[3:0],b1[4:0],"
    "b3[1],b2[3:0],r2[4:0],b3[2],r3[4:0],b3[3]",
    "m[1:0],g2[5],g3[4],g3[5],r0[6:0],b3[0],b3[1],b2[4],g0[6:0],b2[5],b3[2],g2[4],b0[6:0],b3[3],b3[5],b3[4],"
    "r1[5:0],g2[3:0],g1[5:0],g3[3:0],b1[5:0],b2[3:0],r2[5:0],r3[5:0]",
    "m[4:0],r0[9:0],g0[9:0],b0[9:0],r1[4:0],r0[10],g2[3:0],g1[3:0],g0[10],b3[0],g3[3:0],b1[3:0],b0[10],b3[1],"
    "b2[3:0],r2[4:0],b3[2],r3[4:0],b3[3]",
    "m[4:0],r0[9:0],g0[9:0],b0[9:0],r1[3:0],r0[10],g3[4],g2[3:0],g1[4:0],g0[10],g3[3:0],b1[3:0],b0[10],b3[1],"
    "b2[3:0],r2[3:0],b3[0],b3[2],r3[3:0],g2[4],b3[3]",
    "m[4:0],r0[9:0],g0[9:0],b0[9:0],r1[3:0],r0[10],b2[4],g2[3:0],g1[3:0],g0[10],b3[0],g3[3:0],b1[4:0],b0[10],"
    "b2[3:0],r2[3:0],b3[1],b3[2],r3[3:0],b3[4],b3[3]",
    "m[4:0],r0[8:0],b2[4],g0[8:0],g2[4],b0[8:0],b3[4],r1[4:0],g3[4],g2[3:0],g1[4:0],b3[0],g3[3:0],b1[4:0],"
    "b3[1],b2[3:0],r2[4:0],b3[2],r3[4:0],b3[3]",
    "m[4:0],r0[7:0],g3[4],b2[4],g0[7:0],b3[2],g2[4],b0[7:0],b3[3],b3[4],r1[5:0],g2[3:0],g1[4:0],b3[0],g3[3:0],"
    "b1[4:0],b3[1],b2[3:0],r2[5:0],r3[5:0]",
    "m[4:0],r0[7:0],b3[0],b2[4],g0[7:0],g2[5],g2[4],b0[7:0],g3[5],b3[4],r1[4:0],g3[4],g2[3:0],g1[5:0],g3[3:0],"
    "b1[4:0],b3[1],b2[3:0],r2[4:0],b3[2],r3[4:0],b3[3]",
    "m[4:0],r0[7:0],b3[1],b2[4],g0[7:0],b2[5],g2[4],b0[7:0],b3[5],b3[4],r1[4:0],g3[4],g2[3:0],g1[4:0],b3[0],"
    "g3[3:0],b1[5:0],b2[3:0],r2[4:0],b3[2],r3[4:0],b3[3]",
    "m[4:0],r0[5:0],g3[4],b3[0],b3[1],b2[4],g0[5:0],g2[5],b2[5],b3[2],g2[4],b0[5:0],g3[5],b3[3],b3[5],b3[4],"
    "r1[5:0],g2[3:0],g1[5:0],g3[3:0],b1[5:0],b2[3:0],r2[5:0],r3[5:0]",
    "m[4:0],r0[9:0],g0[9:0],b0[9:0],r1[9:0],g1[9:0],b1[9:0]",
    "m[4:0],r0[9:0],g0[9:0],b0[9:0],r1[8:0],r0[10],g1[8:0],g0[10],b1[8:0],b0[10]",
    "m[4:0],r0[9:0],g0[9:0],b0[9:0],r1[7:0],r0[10:11],g1[7:0],g0[10:11],b1[7:0],b0[10:11]",
    "m[4:0],r0[9:0],g0[9:0],b0[9:0],r1[3:0],r0[10:15],g1[3:0],g0[10:15],b1[3:0],b0[10:15]",
};

struct BitMaps {
    std::array<std::array<std::uint8_t, 82>, kBc6hModeCount> map{};
    std::array<int, kBc6hModeCount> bits{};
};

// Parses kLayouts into bit maps; a transcription error (a field of the wrong width, a mode number
// that does not read back, a wrong total) throws std::logic_error at first use.
BitMaps parse_layouts() {
    BitMaps out;
    for (int m = 0; m < kBc6hModeCount; ++m) {
        const Bc6hMode& mode = kBc6hModes[m];
        std::string layout = kLayouts[m];
        if (mode.regions == 2) layout += ",d[4:0]";
        int at = 0;
        int width[14] = {};  // highest bit + 1 seen per field
        unsigned mode_bits = 0;
        std::size_t pos = 0;
        while (pos < layout.size()) {
            std::size_t end = layout.find(',', pos);
            if (end == std::string::npos) end = layout.size();
            const std::string token = layout.substr(pos, end - pos);
            pos = end + 1;
            const std::size_t bracket = token.find('[');
            const std::string name = token.substr(0, bracket);
            int field = -1;
            if (name == "m") field = kBc6hFieldMode;
            else if (name == "d") field = kBc6hFieldPartition;
            else if (name.size() == 2 && std::strchr("rgb", name[0]) && name[1] >= '0' && name[1] <= '3')
                field = 3 * (name[1] - '0') + static_cast<int>(std::strchr("rgb", name[0]) - "rgb");
            if (field < 0 || bracket == std::string::npos) throw std::logic_error("BC6H layout: bad field " + token);
            const int a = std::atoi(token.c_str() + bracket + 1);
            const std::size_t colon = token.find(':');
            const int b = colon == std::string::npos ? a : std::atoi(token.c_str() + colon + 1);
            const int step = a >= b ? 1 : -1;
            for (int bit = b;; bit += step) {
                if (at >= 82) throw std::logic_error("BC6H layout: too many bits");
                out.map[m][at] = static_cast<std::uint8_t>(field * 16 + bit);
                if (field == kBc6hFieldMode) mode_bits |= 1u << bit;
                width[field] = std::max(width[field], bit + 1);
                ++at;
                if (bit == a) break;
            }
        }
        out.bits[m] = at;
        const int expected_bits = mode.regions == 2 ? 82 : 65;
        const int expected_mode_bits = mode.code < 2 ? 2 : 5;
        bool ok = at == expected_bits && mode_bits == (1u << expected_mode_bits) - 1u;
        for (int e = 0; e < 2 * mode.regions; ++e)
            for (int c = 0; c < 3; ++c) {
                const int want = (e == 0 || !mode.transformed) ? mode.epb : mode.delta[c];
                ok = ok && width[3 * e + c] == want;
            }
        if (!ok) throw std::logic_error("BC6H layout of mode " + std::to_string(mode.code) + " does not add up");
    }
    return out;
}

const BitMaps& bit_maps() {
    static const BitMaps maps = parse_layouts();
    return maps;
}

std::array<std::uint16_t, kBc6hPartitionCount> partition_masks() {
    std::array<std::uint16_t, kBc6hPartitionCount> masks{};
    for (int p = 0; p < kBc6hPartitionCount; ++p)
        for (int i = 0; i < 16; ++i)
            if (kPartitionRows[p][i] == '1') masks[p] = static_cast<std::uint16_t>(masks[p] | (1u << i));
    return masks;
}

}  // namespace

const std::array<std::uint16_t, kBc6hPartitionCount> kBc6hPartitions = partition_masks();
const std::array<std::uint8_t, kBc6hPartitionCount> kBc6hAnchor2 = {
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    15, 2,  8,  2,  2,  8,  8,  15, 2,  8,  2,  2,  8,  8,  2,  2,
};
const std::array<std::uint8_t, 8> kBc6hWeights3 = {0, 9, 18, 27, 37, 46, 55, 64};
const std::array<std::uint8_t, 16> kBc6hWeights4 = {0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64};

int bc6h_header_bits(int mode_index) { return bit_maps().bits[mode_index]; }
const std::array<std::uint8_t, 82>& bc6h_bit_map(int mode_index) { return bit_maps().map[mode_index]; }

int bc6h_mode_index(const std::uint8_t block[16]) {
    const int code = (block[0] & 3) < 2 ? (block[0] & 3) : (block[0] & 31);
    for (int m = 0; m < kBc6hModeCount; ++m)
        if (kBc6hModes[m].code == code) return m;
    return -1;
}

}  // namespace bake
