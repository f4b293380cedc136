#pragma once
#include <string>
#include <utility>
#include <vector>

#include "image.h"

namespace bake {

// Writes `image` as a 16-bit RGB PNG (libpng), atomically (atomic_file.h): each value clamped to
// [0, 1] and rounded to the nearest of the 65535 steps; NaN is written as 0.
// Throws OutputError("<path>: <problem>").
// `text`: tEXt chunks (keyword, text), saying what the file holds. Every value is linear: the file
// says so with a gAMA chunk of 1.0 (without it, readers take 16-bit PNG as sRGB).
using PngText = std::vector<std::pair<std::string, std::string>>;
void write_png16(const std::string& path, const Image& image, const PngText& text = {});

}  // namespace bake
