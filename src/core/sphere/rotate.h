#pragma once
// --rotate DEG: the environment turned about +Y, right-handed (docs/CONVENTION.md): positive degrees
// take +X toward -Z, so the radiance seen at direction d afterwards is the radiance that was at
// R⁻¹·d, R(θ) = [[cos θ, 0, sin θ], [0, 1, 0], [-sin θ, 0, cos θ]]. In the lat-long mapping
// (u = 0.5 + atan2(z, x)/2π) R lowers every azimuth by θ: the image moves θ/360 of its width to
// the left, cyclically.
//
// How exactly, by layout:
//   - lat-long, θ a whole number of columns (θ·width/360 an integer): a cyclic shift of every row,
//     texel for texel (packed texels stay packed, byte for byte);
//   - lat-long, any other θ: each texel is the exact area average of the turned input over it. The
//     input is constant over each texel and a row's texels are equal in solid angle, so a shift by
//     k + f columns (0 < f < 1) makes texel j (1 - f)·L[j + k] + f·L[j + k + 1]: linear weights,
//     the row's sum kept (in double, then rounded to float); packed inputs are expanded to float;
//   - cube, θ a multiple of 90°: a permutation of the texels (the side faces trade places, ±Y turn
//     in place), exact;
//   - cube, any other θ: resampled. Each texel is the average over it of the turned input, read at
//     kRotateCubeSamples² points of the texel (midpoints of equal parts in face coordinates,
//     weighted by the face's Jacobian and scaled to the texel's exact solid angle), each taking
//     the input texel it falls in: the area average up to the parts cut by input texel edges (an
//     error below 1/kRotateCubeSamples of a texel's contrast at those edges; the integral moves by
//     ~1e-5 relative, tests/test_rotate.cpp).
#include "layout.h"

namespace bake {

constexpr int kRotateCubeSamples = 4;

enum class RotationKind {
    None,         // 0 (mod 360): untouched
    Shift,        // lat-long whole columns, or a cube by a multiple of 90°: texels moved, exact
    AreaAverage,  // lat-long fractional columns: exact area average of the turned input
    Resampled,    // cube by another angle (see above)
};
const char* rotation_kind_name(RotationKind kind);  // "none", "shift", "area average", "resampled"

// Turns env by `degrees` about +Y (any finite value; taken mod 360). A nonzero identity is replaced
// by a fresh one (these are other texels). threads <= 0: every core. Returns what was done.
RotationKind rotate_environment(Environment& env, double degrees, int threads = 0);

}  // namespace bake
