#pragma once
#include <cstddef>
#include <vector>

#include "layout.h"
#include "vec3.h"

namespace bake {

// An environment's texels as one sequence over the sphere, for work on regions of it (the sun's
// detection and removal). Texel i is row * W + column of a lat-long image, or
// face * N * N + row * N + column of a cube (faces +X -X +Y -Y +Z -Z); "rows" are the lat-long rows,
// or the cube's face rows stacked (+X rows first). Lat-long inputs may be packed (RGBE, half): values
// are expanded as expand_packed does it, to the same bits.
class SphereTexels {
public:
    explicit SphereTexels(const Environment& env);

    std::size_t count() const { return count_; }
    int rows() const { return cube_ ? 6 * n_ : height_; }
    int row_length() const { return cube_ ? n_ : width_; }

    Vec3 direction(std::size_t i) const;   // unit, through the texel's centre
    double solid_angle(std::size_t i) const;  // exact (docs/CONVENTION.md)
    // The mean over the texel of 1 - d.s exceeds 1 - d_i.s, for a unit s near the centre d_i, by
    // spread(i) * d_i.s, to second order in the texel's size: spread = <|delta|^2> / 2 = (a^2 + b^2) / 24
    // for a texel of angular sides a and b (a uniform rectangle in the tangent plane).
    double spread(std::size_t i) const;
    // Row `row`'s solid angles, row_length() of them: exact for a lat-long row (one value), and for a
    // cube row the solid angle at each texel's centre times its area in face coordinates (the exact
    // one to O(1/N^2), without its arctangents).
    void approx_row_solid_angles(int row, std::vector<double>& out) const;

    void value(std::size_t i, float* rgb) const;
    // Row `row`'s values, row_length() RGB triples: the image's own memory, or `scratch` for packed texels.
    const float* row_values(int row, std::vector<float>& scratch) const;

    // The texel's neighbours on the sphere (up to 8, each once, never i itself): the 8 around it in the
    // image, with the lat-long's columns wrapping (the seam), the row above row 0 being row 0 half a
    // turn away (over the pole; likewise below the last row), and a cube neighbour past a face edge
    // being the texel of the face that the would-be texel centre's direction falls on.
    int neighbours(std::size_t i, std::size_t* out) const;

private:
    const Environment& env_;
    bool cube_;
    int width_ = 0, height_ = 0, n_ = 0;
    std::size_t count_ = 0;
};

}  // namespace bake
