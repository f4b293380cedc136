#pragma once
#include "vec3.h"

namespace bake {

// Lat-long mapping of docs/CONVENTION.md (three.js / glTF-IBL-Sampler):
// u = (col + 0.5)/W, v = (row + 0.5)/H, theta = pi v from +Y, phi = 2 pi u - pi,
// d = (sin theta cos phi, cos theta, sin theta sin phi).
Vec3 equirect_direction(double u, double v);
Vec3 equirect_texel_direction(int row, int col, int width, int height);

// Exact solid angle of any pixel of row `row`: (2 pi / W)(cos(pi row/H) - cos(pi (row+1)/H)),
// evaluated as (4 pi / W) sin(pi (row + 0.5)/H) sin(pi / (2H)) to avoid cancellation.
double equirect_row_solid_angle(int row, int width, int height);

// Inverse: (u, v) in [0,1) x [0,1] of a unit direction.
void equirect_uv(const Vec3& d, double* u, double* v);

}  // namespace bake
