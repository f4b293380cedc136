#pragma once
#include <cstddef>
#include <vector>

namespace bake {

// An RGB float image, rows top to bottom as stored in the file, pixels interleaved (r, g, b).
struct Image {
    int width = 0;
    int height = 0;
    std::vector<float> rgb;  // width * height * 3

    Image() = default;
    Image(int w, int h) : width(w), height(h), rgb(static_cast<std::size_t>(w) * h * 3, 0.0f) {}

    std::size_t pixel_count() const { return static_cast<std::size_t>(width) * height; }
    float* at(int row, int col) { return &rgb[(static_cast<std::size_t>(row) * width + col) * 3]; }
    const float* at(int row, int col) const {
        return &rgb[(static_cast<std::size_t>(row) * width + col) * 3];
    }
};

}  // namespace bake
