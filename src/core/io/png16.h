#pragma once
#include <string>

#include "image.h"

namespace bake {

// Writes `image` as a 16-bit RGB PNG (libpng), atomically (atomic_file.h): each value clamped to
// [0, 1] and rounded to the nearest of the 65535 steps; NaN is written as 0.
// Throws OutputError("<path>: <problem>").
void write_png16(const std::string& path, const Image& image);

// The DFG table (dfg.h) as a 16-bit RGB PNG, as write_png16 writes any image.
void write_dfg_png16(const std::string& path, const Image& table);

}  // namespace bake
