// Small pieces every bake-bench section uses: wall-clock timing, the median of repeats, the sky
// with a small sun that the exact-irradiance and specular sections measure, and the cube chain the
// KTX2 and BC6H sections encode.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

#include "cube_map.h"
#include "equirect.h"
#include "layout.h"

namespace bench {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// The median (the mean of the two middle values for an even count); 0 for none.
inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n == 0 ? 0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

// A width x height lat-long sky with a small sun (4e4 within 0.8 degrees of (0.3, 0.5, -0.8)):
// what exact-irradiance cells and importance sampling find hardest.
inline bake::Environment sun_sky(int width, int height) {
    bake::Environment env;
    env.equirect = bake::Image(width, height);
    const bake::Vec3 sun = bake::normalize({0.3, 0.5, -0.8});
    for (int r = 0; r < height; ++r)
        for (int c = 0; c < width; ++c) {
            const bake::Vec3 d = bake::equirect_texel_direction(r, c, width, height);
            const double s = bake::dot(d, sun) > 0.9999 ? 4e4 : 0.0;
            float* px = env.equirect.at(r, c);
            px[0] = static_cast<float>(0.4 + 0.6 * std::max(0.0, d.y) + s);
            px[1] = static_cast<float>(0.5 + 0.5 * std::max(0.0, d.y) + 0.9 * s);
            px[2] = static_cast<float>(0.7 + 0.3 * std::max(0.0, d.y) + 0.7 * s);
        }
    return env;
}

// A cube chain base^2 .. 1^2: a smooth sky with noise (reproducible xorshift) and a bright spot of
// 500 on face 2.
inline std::vector<bake::CubeMap> sky_chain(int base) {
    std::vector<bake::CubeMap> levels;
    std::uint32_t state = 12345;
    auto noise = [&] {
        state ^= state << 13, state ^= state >> 17, state ^= state << 5;
        return (state & 0xffff) / 65536.0;
    };
    for (int size = base; size >= 1; size /= 2) {
        bake::CubeMap cube(size);
        for (int f = 0; f < 6; ++f)
            for (int r = 0; r < size; ++r)
                for (int c = 0; c < size; ++c) {
                    const double u = (c + 0.5) / size, v = (r + 0.5) / size;
                    const double spot = (f == 2 && std::hypot(u - 0.5, v - 0.5) < 0.03) ? 500.0 : 0.0;
                    float* px = cube.faces[static_cast<std::size_t>(f)].at(r, c);
                    for (int k = 0; k < 3; ++k) px[k] = static_cast<float>(0.2 + 0.6 * v + 0.1 * k + 0.05 * noise() + spot);
                }
        levels.push_back(std::move(cube));
    }
    return levels;
}

}  // namespace bench
