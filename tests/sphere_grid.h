#pragma once
// The sphere grid the engine render tests draw (bake_render_reference for three.js, bake_engine_reference
// for Babylon.js and Filament): row k seen along views[k] by an orthographic camera (+Y up, right =
// (v.z, 0, -v.x)), column j a sphere `cell` pixels across. The image is width x height x 4 floats, rows
// top to bottom: RGB from shade(column, normal, view) at each pixel centre a sphere covers, A = 1
// there; 0 elsewhere.
#include <cmath>
#include <cstddef>
#include <vector>

#include "vec3.h"

template <typename Shade>
std::vector<float> render_sphere_grid(int cols, const std::vector<bake::Vec3>& views, int cell, Shade shade) {
    const int rows = static_cast<int>(views.size()), width = cols * cell, height = rows * cell;
    std::vector<float> image(static_cast<std::size_t>(width) * height * 4, 0.0f);
    for (int row = 0; row < rows; ++row) {
        const bake::Vec3 v = views[static_cast<std::size_t>(row)];
        const bake::Vec3 right{v.z, 0, -v.x};
        for (int col = 0; col < cols; ++col)
            for (int r = 0; r < cell; ++r)
                for (int c = 0; c < cell; ++c) {
                    const double x = 2.0 * (c + 0.5) / cell - 1.0, y = 1.0 - 2.0 * (r + 0.5) / cell;
                    const double r2 = x * x + y * y;
                    if (r2 >= 1.0) continue;
                    const double w = std::sqrt(1.0 - r2);
                    const bake::Vec3 n{x * right.x + w * v.x, y, x * right.z + w * v.z};
                    const auto out = shade(col, n, v);
                    float* px = &image[((static_cast<std::size_t>(row) * cell + r) * width + col * cell + c) * 4];
                    for (int ch = 0; ch < 3; ++ch) px[ch] = static_cast<float>(out[ch]);
                    px[3] = 1.0f;
                }
    }
    return image;
}
