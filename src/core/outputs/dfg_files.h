#pragma once
// The DFG table's files (dfg.h computes it), each saying what it holds: the axes and channels in
// EXR string attributes or PNG tEXt chunks (and, for PNG, gAMA 1.0: the values are linear).
#include <string>

#include "image.h"

namespace bake {

// What the table's axes and channels are, as the files state them.
constexpr const char* kDfgAxes =
    "columns left to right: N.V = (column + 0.5) / width; rows top to bottom: perceptual roughness = "
    "(row + 0.5) / height, GGX alpha = roughness^2";
constexpr const char* kDfgChannels =
    "R = A, the scale of F0; G = B, its bias (specular = F0 * A + B); B = A + B, for multiple-scattering "
    "energy compensation as Filament's";

// Float RGB EXR (ZIP). Throws OutputError("<path>: <problem>").
void write_dfg_exr(const std::string& path, const Image& table);

// 16-bit RGB PNG: each value clamped to [0, 1] and rounded to the nearest of 65535 levels.
// Throws OutputError("<path>: <problem>").
void write_dfg_png16(const std::string& path, const Image& table);

}  // namespace bake
