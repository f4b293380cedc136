#pragma once
#include "layout.h"
#include "sh.h"

namespace bake {

// Result of projecting an environment on the SH basis.
struct Projection {
    ShCoefficients radiance;     // L_lm = sum over source texels of L * Y_lm(centre) * Omega
    double solid_angle_sum = 0;  // sum of Omega over the texels; 4 pi up to rounding
};

// The first sh_count(order) coefficients (the solid angle sum unchanged).
inline Projection truncate_order(const Projection& p, int order) {
    Projection out = p;
    out.radiance = truncate_order(p.radiance, order);
    return out;
}

// Double-precision projection over the source's own texels with exact solid angles.
// Work is split into fixed row blocks whose partial sums are combined pairwise in a fixed
// order, so the result is bit-identical whatever the thread count (threads <= 0: all cores).
// Error bound: each block sums at most one row (<= 16384 terms) sequentially in double, then
// log2(rows) pairwise levels. Cube rows: |error| <= (n_row + log2 rows) * 2^-53 * sum |terms|,
// terms L * Y * Omega. Lat-long rows go through the row's azimuthal harmonics (projection_cpu.cpp):
// each row's sums of L * Omega * h_j (|h_j| <= 1) carry n_row * 2^-53 * sum |L| Omega of the row,
// and the row's matrix weighs at most 9 of them by |a_kj| <= 2 max |Y_k| <= 1.7 (|Y_lm| <=
// sqrt((2l+1)/(4 pi))), so |error| <= (16 n_row + log2 rows) * 2^-53 * sum |L| Omega over the
// source: bounded by the texels' magnitudes, not by their terms' sum, which is smaller where Y is.
Projection project_sh_cpu(const Environment& env, int order, int threads = 0);

// Irradiance maps evaluated from SH at each output texel's centre direction (no resampling).
CubeMap render_irradiance_cube(const ShCoefficients& irradiance, int size);
Image render_irradiance_equirect(const ShCoefficients& irradiance, int width, int height);

}  // namespace bake
