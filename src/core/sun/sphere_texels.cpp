#include "sphere_texels.h"

#include <algorithm>
#include <cmath>

#include "cube_map.h"
#include "equirect.h"
#include "packed_image.h"

namespace bake {

namespace {
constexpr double kPi = 3.14159265358979323846;
}

SphereTexels::SphereTexels(const Environment& env) : env_(env), cube_(env.is_cube()) {
    if (cube_) n_ = env.cube.size;
    else {
        width_ = env.width();
        height_ = env.height();
    }
    count_ = env.texel_count();
}

Vec3 SphereTexels::direction(std::size_t i) const {
    if (!cube_) return equirect_texel_direction(static_cast<int>(i / width_), static_cast<int>(i % width_), width_, height_);
    const std::size_t face_texels = static_cast<std::size_t>(n_) * n_, t = i % face_texels;
    return cube_texel_direction(static_cast<int>(i / face_texels), static_cast<int>(t / n_), static_cast<int>(t % n_), n_);
}

double SphereTexels::solid_angle(std::size_t i) const {
    if (!cube_) return equirect_row_solid_angle(static_cast<int>(i / width_), width_, height_);
    const std::size_t t = i % (static_cast<std::size_t>(n_) * n_);
    return cube_texel_solid_angle(static_cast<int>(t / n_), static_cast<int>(t % n_), n_);
}

void SphereTexels::approx_row_solid_angles(int row, std::vector<double>& out) const {
    out.resize(static_cast<std::size_t>(row_length()));
    if (!cube_) {
        std::fill(out.begin(), out.end(), equirect_row_solid_angle(row, width_, height_));
        return;
    }
    const double h = 2.0 / n_, t = ((row % n_) + 0.5) * h - 1;
    for (int c = 0; c < n_; ++c) {
        const double s = (c + 0.5) * h - 1, rho2 = 1 + s * s + t * t;
        out[static_cast<std::size_t>(c)] = h * h / (rho2 * std::sqrt(rho2));  // dOmega = ds dt / rho^3
    }
}

double SphereTexels::spread(std::size_t i) const {
    double a, b;
    if (!cube_) {
        a = kPi / height_;  // the row's height in angle
        b = 2.0 * kPi / width_ * std::sin(kPi * (static_cast<double>(i / width_) + 0.5) / height_);
    } else {
        // Point (s, t, 1) / rho: |d/ds| = sqrt(1 + t^2) / rho^2, |d/dt| = sqrt(1 + s^2) / rho^2.
        const std::size_t t = i % (static_cast<std::size_t>(n_) * n_);
        const double h = 2.0 / n_, s = (static_cast<double>(t % n_) + 0.5) * h - 1, u = (static_cast<double>(t / n_) + 0.5) * h - 1;
        const double rho2 = 1 + s * s + u * u;
        a = h * std::sqrt(1 + u * u) / rho2;
        b = h * std::sqrt(1 + s * s) / rho2;
    }
    return (a * a + b * b) / 24.0;
}

void SphereTexels::value(std::size_t i, float* rgb) const {
    const float* p;
    if (cube_) {
        const std::size_t face_texels = static_cast<std::size_t>(n_) * n_;
        p = &env_.cube.faces[i / face_texels].rgb[3 * (i % face_texels)];
    } else if (env_.is_packed()) {
        expand_packed_texel(env_.packed, i, rgb);
        return;
    } else {
        p = &env_.equirect.rgb[3 * i];
    }
    std::copy(p, p + 3, rgb);
}

const float* SphereTexels::row_values(int row, std::vector<float>& scratch) const {
    if (cube_) return env_.cube.faces[static_cast<std::size_t>(row / n_)].at(row % n_, 0);
    if (!env_.is_packed()) return env_.equirect.at(row, 0);
    scratch.resize(3 * static_cast<std::size_t>(width_));
    expand_packed_row(env_.packed, row, scratch.data());
    return scratch.data();
}

int SphereTexels::neighbours(std::size_t i, std::size_t* out) const {
    int count = 0;
    const auto add = [&](std::size_t j) {
        if (j != i && std::find(out, out + count, j) == out + count) out[count++] = j;
    };
    if (!cube_) {
        const int r = static_cast<int>(i / width_), c = static_cast<int>(i % width_);
        for (int dr = -1; dr <= 1; ++dr)
            for (int dc = -1; dc <= 1; ++dc) {
                int rr = r + dr, cc = c + dc;
                if (rr < 0 || rr >= height_) {  // over the pole: the same row, half a turn away
                    rr = rr < 0 ? 0 : height_ - 1;
                    cc += width_ / 2;
                }
                cc = ((cc % width_) + width_) % width_;
                add(static_cast<std::size_t>(rr) * width_ + static_cast<std::size_t>(cc));
            }
        return count;
    }
    const std::size_t face_texels = static_cast<std::size_t>(n_) * n_, t = i % face_texels;
    const int f = static_cast<int>(i / face_texels), r = static_cast<int>(t / n_), c = static_cast<int>(t % n_);
    for (int dr = -1; dr <= 1; ++dr)
        for (int dc = -1; dc <= 1; ++dc) {
            int ff = f, rr = r + dr, cc = c + dc;
            if (rr < 0 || rr >= n_ || cc < 0 || cc >= n_) {
                const Vec3 d = cube_face_direction(f, 2.0 * (cc + 0.5) / n_ - 1, 2.0 * (rr + 0.5) / n_ - 1);
                double s, u;
                cube_face_coords(d, &ff, &s, &u);
                cc = std::clamp(static_cast<int>(std::floor((s + 1) * 0.5 * n_)), 0, n_ - 1);
                rr = std::clamp(static_cast<int>(std::floor((u + 1) * 0.5 * n_)), 0, n_ - 1);
            }
            add(static_cast<std::size_t>(ff) * face_texels + static_cast<std::size_t>(rr) * n_ + static_cast<std::size_t>(cc));
        }
    return count;
}

}  // namespace bake
