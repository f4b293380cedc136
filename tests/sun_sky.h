#pragma once
// Synthetic skies with a known disc sun, for the sun's tests; nothing here uses src/core/sun. Each
// texel holds a smooth sky at its centre plus the sun's radiance times the fraction of the texel's
// solid angle that the disc (a spherical cap) covers. That fraction is integrated line by line: along
// a lat-long row's latitude circle, or a cube face's line of constant t, the cap is one interval found
// in closed form (and on the cube its solid angle too, F below); across the lines a 256-point midpoint
// rule, whose error (the integrand is continuous, with square-root kinks where the rim is tangent)
// is far below the tests' 0.5%. The sun's light is then known analytically: a cap of radiance L and
// radius r gives at normal incidence E = integral of L cos theta = L pi sin^2 r.
#include <cmath>
#include <stdexcept>

#include "test_support.h"

namespace bake::test {

struct DiscSun {
    Vec3 direction;  // unit
    double radius;   // radians
    Rgb radiance;
    Rgb illuminance() const {
        const double s = std::sin(radius), k = kPi * s * s;
        return {radiance[0] * k, radiance[1] * k, radiance[2] * k};
    }
};

// A smooth sky, between 0.275 and 1.725 times `base`, bluish.
inline Rgb smooth_sky(const Vec3& d, double base) {
    const double v = base * (1.0 + 0.5 * d.y + 0.25 * d.x * d.z + 0.1 * std::sin(3.0 * d.x));
    return {0.8 * v, 0.9 * v, 1.1 * v};
}

constexpr int kCoverageLines = 256;

// Solid angle of lat-long texel (row, col) of a width x height map inside the cap.
inline double equirect_cap_coverage(int row, int col, int width, int height, const DiscSun& sun) {
    const double theta_s = std::acos(std::fmax(-1.0, std::fmin(1.0, sun.direction.y)));
    const double phi_s = std::atan2(sun.direction.z, sun.direction.x);
    const double mu_s = std::cos(theta_s), sin_s = std::sin(theta_s), cos_r = std::cos(sun.radius);
    const double phi0 = 2 * kPi * col / width - kPi, phi1 = 2 * kPi * (col + 1) / width - kPi;
    const double mu_hi = std::cos(kPi * row / height), mu_lo = std::cos(kPi * (row + 1) / height);
    const double step = (mu_hi - mu_lo) / kCoverageLines;
    double covered = 0;
    for (int k = 0; k < kCoverageLines; ++k) {
        const double mu = mu_lo + (k + 0.5) * step, sin_t = std::sqrt(std::fmax(0.0, 1 - mu * mu));
        // cos(angle to the sun) = mu mu_s + sin_t sin_s cos(phi - phi_s) >= cos r
        double half;  // half-width of the cap's phi interval on this latitude circle
        if (sin_t * sin_s < 1e-300) half = mu * mu_s >= cos_r ? kPi : -1;
        else {
            const double K = (cos_r - mu * mu_s) / (sin_t * sin_s);
            half = K <= -1 ? kPi : K >= 1 ? -1 : std::acos(K);
        }
        if (half < 0) continue;
        double length = 0;
        for (int wrap = -1; wrap <= 1; ++wrap) {
            const double a = std::fmax(phi0, phi_s - half + 2 * kPi * wrap), b = std::fmin(phi1, phi_s + half + 2 * kPi * wrap);
            if (b > a) length += b - a;
        }
        covered += std::fmin(length, phi1 - phi0) * step;
    }
    return covered;
}

// Solid angle of texel (row, col) of cube face `face` (N x N) inside the cap. On the face the
// direction is (C + s A + t B) / rho, rho = sqrt(1 + s^2 + t^2), A, B, C orthonormal; inside the cap
// (a s + m) >= cos r rho with a = A.sun, m = t B.sun + C.sun: between the roots of a quadratic in s.
// The solid angle between s_lo and s_hi on the line is F(s_hi) - F(s_lo), F = s / ((1 + t^2) rho).
inline double cube_cap_coverage(int face, int row, int col, int n, const DiscSun& sun) {
    const Vec3 C = cube_face_direction(face, 0, 0);
    const Vec3 s1 = cube_face_direction(face, 1, 0), t1 = cube_face_direction(face, 0, 1);
    const Vec3 A{s1.x - C.x, s1.y - C.y, s1.z - C.z}, B{t1.x - C.x, t1.y - C.y, t1.z - C.z};
    const double a = dot(A, sun.direction), b = dot(B, sun.direction), k0 = dot(C, sun.direction);
    const double cr2 = std::cos(sun.radius) * std::cos(sun.radius);
    const double alpha = a * a - cr2;
    if (alpha >= 0) throw std::logic_error("cube_cap_coverage: the cap is on another face");
    const double h = 2.0 / n, s_min = col * h - 1, s_max = (col + 1) * h - 1, t_min = row * h - 1;
    const double step = h / kCoverageLines;
    double covered = 0;
    for (int k = 0; k < kCoverageLines; ++k) {
        const double t = t_min + (k + 0.5) * step, m = t * b + k0;
        const double beta = 2 * a * m, gamma = m * m - cr2 * (1 + t * t), disc = beta * beta - 4 * alpha * gamma;
        if (disc < 0) continue;
        const double r1 = (-beta + std::sqrt(disc)) / (2 * alpha), r2 = (-beta - std::sqrt(disc)) / (2 * alpha);
        if (a * 0.5 * (r1 + r2) + m <= 0) continue;  // the antipodal cap's interval
        const double lo = std::fmax(s_min, std::fmin(r1, r2)), hi = std::fmin(s_max, std::fmax(r1, r2));
        if (hi <= lo) continue;
        const auto F = [&](double s) { return s / ((1 + t * t) * std::sqrt(1 + s * s + t * t)); };
        covered += (F(hi) - F(lo)) * step;
    }
    return covered;
}

inline double angle_between(const Vec3& a, const Vec3& b) {
    const Vec3 c{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
    return std::atan2(length(c), dot(a, b));
}

inline void add_rgb(float* px, const Rgb& v, double scale) {
    for (int c = 0; c < 3; ++c) px[c] = static_cast<float>(px[c] + v[c] * scale);
}

// A lat-long sky (smooth_sky at `base`) with the sun added.
inline Environment equirect_sky_with_sun(int width, int height, double base, const DiscSun& sun) {
    Environment env = make_equirect_env(width, height, [&](const Vec3& d) { return smooth_sky(d, base); });
    const double dtheta = kPi / height, dphi = 2 * kPi / width;
    const double half_diag = 0.5 * std::hypot(dtheta, dphi);  // at least any texel's
    for (int r = 0; r < height; ++r) {
        const double theta0 = r * dtheta, theta1 = (r + 1) * dtheta;
        const double omega = dphi * (std::cos(theta0) - std::cos(theta1));
        for (int c = 0; c < width; ++c) {
            if (angle_between(equirect_texel_direction(r, c, width, height), sun.direction) > sun.radius + half_diag) continue;
            add_rgb(env.equirect.at(r, c), sun.radiance, equirect_cap_coverage(r, c, width, height, sun) / omega);
        }
    }
    return env;
}

// A cube sky (N x N faces) with the sun added.
inline Environment cube_sky_with_sun(int n, double base, const DiscSun& sun) {
    Environment env = make_cube_env(n, [&](const Vec3& d) { return smooth_sky(d, base); });
    const double reach = sun.radius + 2.0 / n;  // a texel's half-diagonal is below h / sqrt 2 radians
    for (int f = 0; f < 6; ++f)
        for (int r = 0; r < n; ++r)
            for (int c = 0; c < n; ++c) {
                if (angle_between(cube_texel_direction(f, r, c, n), sun.direction) > reach) continue;
                add_rgb(env.cube.faces[static_cast<size_t>(f)].at(r, c), sun.radiance,
                        cube_cap_coverage(f, r, c, n, sun) / cube_texel_solid_angle(r, c, n));
            }
    return env;
}

// Solid angle of the lat-long texel that direction d falls in.
inline double texel_solid_angle_at(const Environment& env, const Vec3& d) {
    double u, v;
    equirect_uv(d, &u, &v);
    const int row = std::min(env.height() - 1, static_cast<int>(v * env.height()));
    return equirect_row_solid_angle(row, env.width(), env.height());
}

// Sums of L Omega over every texel, per channel, in double.
inline Rgb texel_integral(const Environment& env) {
    Rgb sum{0, 0, 0};
    if (env.is_cube()) {
        const int n = env.cube.size;
        for (int f = 0; f < 6; ++f)
            for (int r = 0; r < n; ++r)
                for (int c = 0; c < n; ++c) {
                    const double omega = cube_texel_solid_angle(r, c, n);
                    const float* p = env.cube.faces[static_cast<size_t>(f)].at(r, c);
                    for (int k = 0; k < 3; ++k) sum[k] += p[k] * omega;
                }
        return sum;
    }
    const Image img = env.is_packed() ? expand_packed(env.packed, 1) : env.equirect;
    for (int r = 0; r < img.height; ++r) {
        const double omega = equirect_row_solid_angle(r, img.width, img.height);
        for (int c = 0; c < img.width; ++c)
            for (int k = 0; k < 3; ++k) sum[k] += img.at(r, c)[k] * omega;
    }
    return sum;
}

}  // namespace bake::test
