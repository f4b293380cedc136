#pragma once
// The Charlie sheen distribution (Estevez & Kulla 2017, "Production Friendly Microfacet Sheen BRDF"),
// as KHR_materials_sheen and the glTF sample viewer use it (its brdf.glsl D_Charlie), in double:
//     D(h) = (2 + 1/alpha) sin(θh)^(1/alpha) / (2π),   alpha = sheenRoughness²,
// normalised against cos θh over the hemisphere of h. Unlike GGX its mass sits at grazing half
// vectors (θh near 90°): the shine of a cloth's fibres seen edge on.
// Directions are in a frame whose +Z is the normal N.
#include <algorithm>
#include <cmath>

#include "ggx.h"
#include "vec3.h"

namespace bake {

inline double charlie_d(double n_dot_h, double alpha) {
    const double k = 1.0 / alpha;
    const double sin2 = std::max(0.0, 1.0 - n_dot_h * n_dot_h);
    return (2.0 + k) * std::pow(sin2, 0.5 * k) / (2.0 * kPi);
}

// The prefilter's lobe (specular_prefilter.h) W(n, l) = max(0, n·l)·D(h), h = normalize(n + l), as a
// function of c = n·l: h bisects n and l, so sin²θh = (1 - c)/2 and
//     W = c (2 + k)/(2π) ((1 - c)/2)^(k/2),   k = 1/alpha.
// The constant 2^(-k/2) cancels in the prefilter's ratio ∫ L W / ∫ W and underflows double below
// alpha ≈ 1/2000 (float below 1/250), so the lobe here leaves it out:
//     charlie_lobe(c) = c (2 + k)/(2π) (1 - c)^(k/2)   for c > 0, else 0,
// with `one_minus_c` passed apart (|n - l|²/2 has no cancellation). Its integral over the sphere is
// 2π ∫₀¹ c (2 + k)/(2π) (1 - c)^(k/2) dc = (2 + k)·B(2, k/2 + 1) = 4 / (k + 4).
// Under V = N the lobe is a ring about n's horizon for small alpha: it peaks at c = 2 alpha/(1 + 2 alpha),
// and as alpha -> 0 it tends to the great circle n·l = 0 (horizon_ring.h).
inline double charlie_lobe(double c, double one_minus_c, double alpha) {
    if (c <= 0) return 0;
    const double k = 1.0 / alpha;
    return c * (2.0 + k) / (2.0 * kPi) * std::pow(one_minus_c, 0.5 * k);
}
inline double charlie_lobe_integral(double alpha) { return 4.0 / (1.0 / alpha + 4.0); }

// A direction l (local frame, +Z = n) drawn with density proportional to charlie_lobe(n·l) / (n·l)
// over the hemisphere n·l >= 0, so that Karis' weight n·l makes the estimator converge to the
// lobe's P (specular_prefilter.h): 1 - c = u1^(2 alpha / (2 alpha + 1)), φ = 2π u2, density
//     pdf(l) = (2 alpha + 1)/(4π alpha) · u1^(1 / (2 alpha + 1)).
// This is the half vector drawn from D(h)·(N·h) (the sample viewer's and glTF-IBL-Sampler's sin θh =
// u^(alpha/(2 alpha + 1))) restricted to θh <= 45°, the half vectors whose reflection of N stays above
// N's horizon: they draw from all of it, and for small alpha almost all their samples fall
// beyond 45° and are dropped (glTF-IBL-Sampler issue #24: its sheen map black).
inline Vec3 sample_charlie_lobe(double u1, double u2, double alpha, double* pdf) {
    const double e = 2.0 * alpha / (2.0 * alpha + 1.0);
    const double one_minus_c = std::pow(u1, e), c = 1.0 - one_minus_c;
    const double sin_t = std::sqrt(std::max(0.0, one_minus_c * (2.0 - one_minus_c)));
    const double phi = 2.0 * kPi * u2;
    *pdf = (2.0 * alpha + 1.0) / (4.0 * kPi * alpha) * std::pow(u1, 1.0 / (2.0 * alpha + 1.0));
    return {sin_t * std::cos(phi), sin_t * std::sin(phi), c};
}

// Sheen visibility V = G / (4 N·L N·V) of Neubelt & Pettineo 2013 ("Crafting a Next-Gen Material
// Pipeline for The Order: 1886", after Ashikhmin 2007), Filament's V_Neubelt and the IBL sampler's
// V_Ashikhmin (which clamps it to 1; Filament and we do not).
inline double sheen_visibility_neubelt(double n_dot_v, double n_dot_l) {
    return 1.0 / (4.0 * (n_dot_l + n_dot_v - n_dot_l * n_dot_v));
}

// Estevez & Kulla's fitted Λ of the Charlie distribution (their table, interpolated in (1 - alpha)²
// between its rows for alpha = 0 and alpha = 1), as KHR_materials_sheen and the sample viewer's
// lambdaSheen use it.
inline double charlie_lambda_fit(double x, double alpha) {
    const double t = (1.0 - alpha) * (1.0 - alpha);  // weight of the alpha = 0 row
    const double a = t * 25.3245 + (1.0 - t) * 21.5473, b = t * 3.32435 + (1.0 - t) * 3.82987;
    const double c = t * 0.16801 + (1.0 - t) * 0.19823, d = t * -1.27393 + (1.0 - t) * -1.97760;
    const double e = t * -4.85967 + (1.0 - t) * -4.32054;
    return a / (1.0 + b * std::pow(x, c)) + d * x + e;
}
inline double charlie_lambda(double cos_theta, double alpha) {
    return cos_theta < 0.5 ? std::exp(charlie_lambda_fit(cos_theta, alpha))
                           : std::exp(2.0 * charlie_lambda_fit(0.5, alpha) - charlie_lambda_fit(1.0 - cos_theta, alpha));
}

// The Charlie visibility V = 1 / ((1 + Λ(N·V) + Λ(N·L)) 4 N·L N·V) of KHR_materials_sheen (the sample
// viewer's V_Sheen, which also clamps it to [0, 1]; we do not, as the extension's formula).
inline double sheen_visibility_charlie(double n_dot_v, double n_dot_l, double alpha) {
    return 1.0 / ((1.0 + charlie_lambda(n_dot_v, alpha) + charlie_lambda(n_dot_l, alpha)) * 4.0 * n_dot_v * n_dot_l);
}

}  // namespace bake
