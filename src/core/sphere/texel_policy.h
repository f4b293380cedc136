#pragma once
#include <cstddef>
#include <string>

#include "layout.h"

namespace bake {

// What is in an environment's texel values that the projection would not like.
struct TexelStats {
    std::size_t nonfinite = 0;  // NaN or +-Inf channel values
    std::string first_nonfinite;  // where the first one is, e.g. "row 3, column 7" or "face -Z, row 0, column 1"
    std::size_t negative = 0;   // finite channel values < 0 (lossy-codec ringing, typically)
    float min_value = 0;        // smallest finite channel value (0 if none is negative)
};

TexelStats scan_texels(const Environment& env);

// Replaces NaN/Inf channel values by 0; returns how many.
std::size_t zero_nonfinite(Environment& env);

// Replaces negative channel values by 0; returns how many.
std::size_t clamp_negative(Environment& env);

}  // namespace bake
