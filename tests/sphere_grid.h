#pragma once
// The sphere grid the engine render tests draw (bake_render_reference for three.js, bake_engine_reference
// for Babylon.js and Filament): row k seen along views[k] by an orthographic camera (+Y up, right =
// (v.z, 0, -v.x)), column j a sphere `cell` pixels across. The image is width x height x 4 floats, rows
// top to bottom: RGB from shade(column, normal, view) at each pixel centre a sphere covers, A = 1
// there; 0 elsewhere.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vec3.h"

// The sun a bake's coefficients JSON states ("sun": direction, illuminance E⊥ per channel), as the
// engine tests light their diffuse spheres with it.
struct SunLight {
    bake::Vec3 direction;
    std::array<double, 3> illuminance;
    // What it adds to a white Lambertian surface at unit normal n: E⊥ max(0, n·s) / π.
    std::array<double, 3> lambert(const bake::Vec3& n) const {
        const double cosine = std::max(0.0, n.x * direction.x + n.y * direction.y + n.z * direction.z);
        return {illuminance[0] * cosine / M_PI, illuminance[1] * cosine / M_PI, illuminance[2] * cosine / M_PI};
    }
};

// Throws where the file has no sun ("sun": null).
inline SunLight read_sun_light(const std::string& coefficients_json) {
    const nlohmann::json sun = nlohmann::json::parse(std::ifstream(coefficients_json)).at("sun");
    if (!sun.is_object()) throw std::runtime_error(coefficients_json + ": no sun (\"sun\": null)");
    const std::vector<double> d = sun.at("direction"), e = sun.at("illuminance");
    return {{d.at(0), d.at(1), d.at(2)}, {e.at(0), e.at(1), e.at(2)}};
}

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
