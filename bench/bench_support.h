// Small pieces every bake-bench section uses: wall-clock timing, the median of repeats, and the
// sky with a small sun that the exact-irradiance and specular sections measure.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

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

}  // namespace bench
