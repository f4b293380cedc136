#pragma once
// Level 0 (roughness 0) of the Charlie chain (specular_prefilter.h). As alpha -> 0 the Charlie lobe
// about n (charlie.h) closes onto n's horizon, the great circle n·l = 0, with a uniform weight
// along it: level 0 holds the mean radiance on that circle, P0(n) = (1/2π) ∮ L(l) ds. (The glTF
// sample viewer's filter finds no sample there and writes black.)
//
// The prefilter reads it as it reads the other lobes: directions evenly spaced around the circle
// (specular_sample_set), from the capped source's mip whose texels match their spacing, plus the
// bright texels' excess weighted by the exact length of the circle inside each texel. A cube
// texel is the intersection of five half-spaces through the centre (its face's and its four
// edges'), and a lat-long texel the intersection of a wedge of two with a band of height: each
// half-space holds a half of the circle, the band one arc less another, so every length is a
// sum of arc overlaps in closed form.
#include <vector>

#include "specular_source.h"
#include "vec3.h"

namespace bake {

// Length of the great circle n·l = 0 (n a unit vector) inside texel (row, col) of `face` of a
// size x size cube (docs/CONVENTION.md's faces), and inside texel (row, col) of a width x height
// lat-long image. Over all texels of either they sum to 2π (texels are half-open where the circle
// runs along one of their edges, so that it counts once).
double horizon_arc_in_cube_texel(const Vec3& n, int face, int row, int col, int size);
double horizon_arc_in_equirect_texel(const Vec3& n, int row, int col, int width, int height);

// The bright texels' part of level 0 at a direction n: Σ excess · arc / 2π over the input's bright
// texels (BrightTexel: lat-long when `equirect`, else faces of `width`), those far from the circle
// skipped by a bound on their angular radius.
class HorizonBright {
public:
    HorizonBright(const std::vector<BrightTexel>& bright, bool equirect, int width, int height);
    void add(const Vec3& n, double out[3]) const;

private:
    struct Texel {
        Vec3 centre;
        double reach;  // sin of an upper bound of the angular distance from the centre to the texel's points
        BrightTexel texel;
    };
    std::vector<Texel> texels_;
    bool equirect_;
    int width_, height_;
};

}  // namespace bake
