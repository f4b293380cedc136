#pragma once
#include <cstddef>
#include <vector>

#include "bulk_allocator.h"

namespace bake {

// Texel storage: zeroed, huge-page backed when large (bulk_allocator.h).
using FloatTexels = std::vector<float, BulkAllocator<float>>;

// An RGB float image, rows top to bottom as stored in the file, pixels interleaved (r, g, b).
struct Image {
    int width = 0;
    int height = 0;
    FloatTexels rgb;  // width * height * 3

    Image() = default;
    Image(int w, int h) : width(w), height(h), rgb(static_cast<std::size_t>(w) * h * 3)  /* zeros */ {}

    std::size_t pixel_count() const { return static_cast<std::size_t>(width) * height; }
    float* at(int row, int col) { return &rgb[(static_cast<std::size_t>(row) * width + col) * 3]; }
    const float* at(int row, int col) const {
        return &rgb[(static_cast<std::size_t>(row) * width + col) * 3];
    }
};

}  // namespace bake
