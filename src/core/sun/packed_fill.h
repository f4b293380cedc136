#pragma once
// The sun's fill as a packed texel (RGBE, half): what remove_sun writes into a packed map, and what
// find_sun reports as the fill, so that the removed light is exact for packed maps too.
#include <array>
#include <cstdint>

#include "packed_image.h"

namespace bake {

struct PackedFill {
    std::array<std::uint8_t, 6> bytes{};  // bytes_per_texel(encoding) of them
    std::array<float, 3> value{};         // what those bytes decode to
};

PackedFill pack_fill(TexelEncoding encoding, const std::array<float, 3>& rgb);

}  // namespace bake
