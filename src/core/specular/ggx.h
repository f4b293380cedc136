#pragma once
// The GGX (Trowbridge-Reitz) microfacet maths shared by the specular prefilter and the DFG table,
// in double. alpha = roughness^2 (perceptual roughness, as Filament, glTF and UE4 use it).
// Directions are in a frame whose +Z is the normal N; V·N = cos(theta_v).
//   Walter et al. 2007 (GGX D and its sampling), Heitz 2014 (height-correlated Smith),
//   Heitz 2018 (sampling visible normals), Karis 2013 (split sum, mip-filtered samples).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "vec3.h"

namespace bake {

constexpr double kPi = 3.14159265358979323846;

// Mip levels of a specular chain whose base face is `base_size` (a power of two): down to 1x1.
inline int specular_level_count(int base_size) {
    int levels = 1;
    while ((base_size >> (levels - 1)) > 1) ++levels;
    return levels;
}

// Perceptual roughness of level i of a chain of n levels: i / (n - 1) (0 for a one-level chain).
inline double specular_level_roughness(int level, int levels) {
    return levels > 1 ? static_cast<double>(level) / (levels - 1) : 0.0;
}

// The normal distribution D(h) for cos(theta_h) = n_dot_h; integrates to 1 against cos(theta_h).
inline double ggx_d(double n_dot_h, double alpha) {
    const double a2 = alpha * alpha;
    const double t = n_dot_h * n_dot_h * (a2 - 1.0) + 1.0;
    return a2 / (kPi * t * t);
}

// Height-correlated Smith visibility V = G2 / (4 N·L N·V) (Heitz 2014, eq. 99; Filament's V_SmithGGXCorrelated).
inline double ggx_visibility(double n_dot_v, double n_dot_l, double alpha) {
    const double a2 = alpha * alpha;
    const double gv = n_dot_l * std::sqrt(n_dot_v * n_dot_v * (1.0 - a2) + a2);
    const double gl = n_dot_v * std::sqrt(n_dot_l * n_dot_l * (1.0 - a2) + a2);
    return 0.5 / (gv + gl);
}

// Van der Corput radical inverse in base 2: the second Hammersley coordinate.
inline double radical_inverse_vdc(std::uint32_t bits) {
    bits = (bits << 16u) | (bits >> 16u);
    bits = ((bits & 0x55555555u) << 1u) | ((bits & 0xAAAAAAAAu) >> 1u);
    bits = ((bits & 0x33333333u) << 2u) | ((bits & 0xCCCCCCCCu) >> 2u);
    bits = ((bits & 0x0F0F0F0Fu) << 4u) | ((bits & 0xF0F0F0F0u) >> 4u);
    bits = ((bits & 0x00FF00FFu) << 8u) | ((bits & 0xFF00FF00u) >> 8u);
    return static_cast<double>(bits) * 2.3283064365386963e-10;  // / 2^32
}

// Point i of an n-point Hammersley set in [0,1)^2: ((i + 0.5) / n, vdc(i)).
inline void hammersley(std::uint32_t i, std::uint32_t n, double* u1, double* u2) {
    *u1 = (static_cast<double>(i) + 0.5) / n;
    *u2 = radical_inverse_vdc(i);
}

// A half vector drawn from D(h)·(N·h) (pdf over h's solid angle: D(h)·N·h), local frame (+Z = N).
inline Vec3 sample_ggx_ndf(double u1, double u2, double alpha) {
    const double a2 = alpha * alpha;
    const double cos_t = std::sqrt((1.0 - u1) / (1.0 + (a2 - 1.0) * u1));
    const double sin_t = std::sqrt(std::max(0.0, 1.0 - cos_t * cos_t));
    const double phi = 2.0 * kPi * u2;
    return {sin_t * std::cos(phi), sin_t * std::sin(phi), cos_t};
}

// A half vector drawn from the distribution of normals visible from v (Heitz 2018, "Sampling the
// GGX Distribution of Visible Normals"), local frame, v.z > 0. pdf over h: G1(v)·max(0,v·h)·D(h)/v.z.
inline Vec3 sample_ggx_vndf(const Vec3& v, double u1, double u2, double alpha) {
    const Vec3 vh = normalize({alpha * v.x, alpha * v.y, v.z});  // stretch to the hemisphere configuration
    const double lensq = vh.x * vh.x + vh.y * vh.y;
    const Vec3 t1 = lensq > 0 ? Vec3{-vh.y / std::sqrt(lensq), vh.x / std::sqrt(lensq), 0.0} : Vec3{1.0, 0.0, 0.0};
    const Vec3 t2 = {vh.y * t1.z - vh.z * t1.y, vh.z * t1.x - vh.x * t1.z, vh.x * t1.y - vh.y * t1.x};
    const double r = std::sqrt(u1), phi = 2.0 * kPi * u2;
    const double p1 = r * std::cos(phi);
    const double s = 0.5 * (1.0 + vh.z);
    const double p2 = (1.0 - s) * std::sqrt(std::max(0.0, 1.0 - p1 * p1)) + s * r * std::sin(phi);
    const double p3 = std::sqrt(std::max(0.0, 1.0 - p1 * p1 - p2 * p2));
    const Vec3 nh = {p1 * t1.x + p2 * t2.x + p3 * vh.x, p1 * t1.y + p2 * t2.y + p3 * vh.y,
                     p1 * t1.z + p2 * t2.z + p3 * vh.z};
    return normalize({alpha * nh.x, alpha * nh.y, std::max(0.0, nh.z)});  // unstretch
}

// Smith G1 for GGX (the masking of one direction), cos(theta) = n_dot_x.
inline double ggx_g1(double n_dot_x, double alpha) {
    const double a2 = alpha * alpha;
    return 2.0 * n_dot_x / (n_dot_x + std::sqrt(a2 + (1.0 - a2) * n_dot_x * n_dot_x));
}

// l = reflect(-v, h) = 2 (v·h) h - v.
inline Vec3 reflect_about(const Vec3& v, const Vec3& h) {
    const double k = 2.0 * dot(v, h);
    return {k * h.x - v.x, k * h.y - v.y, k * h.z - v.z};
}

}  // namespace bake
