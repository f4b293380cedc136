#pragma once
// The split-sum DFG table (Karis 2013, "Real Shading in Unreal Engine 4") for GGX with
// height-correlated Smith visibility (ggx.h), in double; the table is stored as float.
//
// For a view at N·V and perceptual roughness r (alpha = r^2), with Schlick's
// F = F0 + (1 - F0)(1 - V·H)^5 and Fc = (1 - V·H)^5:
//   A = ∫ (1 - Fc) · D·V·(N·L) dl,   B = ∫ Fc · D·V·(N·L) dl   (V = G2 / (4 N·L N·V)),
// so the specular directional albedo is F0·A + B. A, B and A + B are in [0, 1] by construction
// (A + B is the albedo with F = 1, at most 1 because GGX with Smith masking only loses energy).
//
// Quadrature: deterministic Gauss rules in coordinates in which the integrand is analytic (see
// dfg.cpp), about 230 points a value; every value is within kDfgAccuracy of the exact integral.
// tests/test_dfg.cpp checks that against the rule at twice the nodes (on a 64 x 64 grid and down to
// N·V = 1e-5, r = 1e-4), an independent integral over the hemisphere of l, and Filament's cmgen.
#include <string>

#include "image.h"

namespace bake {

constexpr double kDfgAccuracy = 1e-6;

// The table, size x size. Texel (row, col): N·V = (col + 0.5) / size, perceptual roughness
// r = (row + 0.5) / size. Row 0 is the file's first row, which glTexImage2D uploads at v = 0:
// sample at uv = (N·V, r). Channels: R = A (scale of F0), G = B (bias), B = A + B (the albedo with
// F = 1, for multiple-scattering energy compensation 1 + F0·(1/(A+B) - 1), Fdez-Agüera 2019 /
// Filament). threads <= 0: every core.
Image compute_dfg_table(int size, int threads = 0);

// One value at 0 < n_dot_v <= 1 and 0 <= roughness <= 1 (else std::invalid_argument), the function
// the table samples. Roughness 0 is the mirror: (1 - (1 - N·V)^5, (1 - N·V)^5).
struct DfgValue {
    double scale, bias;
};
DfgValue dfg_value(double n_dot_v, double roughness);

// dfg_value with every quadrature node count multiplied by node_scale (1 is dfg_value): comparing
// 1 with 2 bounds the quadrature error.
DfgValue dfg_value_refined(double n_dot_v, double roughness, int node_scale);


}  // namespace bake
