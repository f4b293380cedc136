#pragma once
// The sheen LUT of KHR_materials_sheen: the directional albedo of the sheen BRDF
//     E(N·V, r) = ∫ D(h)·V(N·V, N·L)·(N·L) dl   over the hemisphere of l, h = normalize(v + l),
// D the Charlie distribution for alpha = r² (charlie.h), r the sheen roughness, no Fresnel (the
// sheen colour scales it), for two visibility terms V:
//   - Estevez & Kulla's Charlie visibility (sheen_visibility_charlie): the extension's BRDF; the
//     glTF sample viewer's sheen_E table, which scales the layers below by 1 - max(sheenColor)·E;
//   - Neubelt's (sheen_visibility_neubelt): Filament's DFG table blue channel and glTF-IBL-Sampler's
//     Charlie LUT blue channel, which the sample viewer multiplies its prefiltered Charlie light by
//     (sheen IBL = sheenColor · charlie_chain(R, r) · E_neubelt(N·V, r)).
// (glTF-IBL-Sampler computes the second with Charlie-distributed half vectors but the weights of
// uniform ones, 4·2π·V·D·(N·L)·(V·H) a sample, and clamps V to 1; Filament's cmgen draws them
// uniformly, as those weights assume, and clamps nothing. We integrate the formula, unclamped.)
//
// Quadrature: in (N·L, φ) of l, φ measured from the plane of N and V, the integrand is smooth but
// for a few places: near N·L = 0 it changes on the scale of N·V (Neubelt's V·(N·L) rises from 0 to
// 1/4 there; D, for small alpha a narrow peak at grazing h, falls off from there); near φ = π, v and
// a grazing l opposite, h swings from grazing to N within |π - φ| ~ N·V + N·L; D has a cone point at
// h = N (the mirror direction N·L = N·V, φ = π) where 1/alpha is small; and the Charlie visibility's
// Λ joins its two branches at N·L = 1/2 with a jump in curvature. So N·L is cut at 1/2, into pieces
// halving from there down to N·V/64 and, for alpha > 1/32, halving towards N·V down to 3e-3; φ at
// π/2 and into pieces halving towards π down to min(N·V/16, 3e-3); every piece takes the same
// 6-point Gauss–Legendre rule: a fixed, deterministic set of nodes (about 15000 at most). Against
// the same pieces down to 1e-4 with 8 points each (at 4 times the nodes): 2.4e-7 at most over a
// 24 x 24 grid. tests/test_sheen_lut.cpp checks it against the rule with twice the nodes and against
// an independent adaptive integral over the half vectors.
#include "image.h"

namespace bake {

struct SheenLutValue {
    double charlie;  // E with the Charlie (Estevez & Kulla) visibility
    double neubelt;  // E with Neubelt's visibility
};
// One value at 0 < n_dot_v <= 1 and 0 <= roughness <= 1 (else std::invalid_argument). Roughness 0:
// D is a ray at grazing h, which no l reaches with N·V > 0: E = 0.
SheenLutValue sheen_lut_value(double n_dot_v, double roughness);

// sheen_lut_value with every piece's node count multiplied by node_scale (1 is sheen_lut_value):
// comparing 1 with 2 bounds the quadrature error.
SheenLutValue sheen_lut_value_refined(double n_dot_v, double roughness, int node_scale);

// The table, size x size, laid out as the DFG table (dfg.h): texel (row, col) at N·V = (col + 0.5)/size,
// sheen roughness r = (row + 0.5)/size, row 0 first (sample at uv = (N·V, r)). Channels: R = E with
// the Charlie visibility (the sample viewer's sheen_E, read .r), G = B = E with Neubelt's (its Charlie
// LUT, read .b). threads <= 0: every core.
Image compute_sheen_lut(int size, int threads = 0);

}  // namespace bake
