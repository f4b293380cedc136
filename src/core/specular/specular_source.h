#pragma once
// The specular prefilter's source cube: the exact area average of the input over each of its
// texels, for any input layout and size (docs/CONVENTION.md's mappings: lat-long rows from +Y,
// cube faces in OpenGL order and orientation, row 0 at the top).
//
// Why exact: the prefiltered chain is a normalised convolution of the input, so level 0 must hold
// the input's integral and the rough levels its low moments (roughness 1 is E/π). A source that
// point-samples the input misses or over-counts small bright texels: issue 19 measured a real
// map's level 0 holding 91% of the input's integral.
//
// The input is constant over each of its texels, so a cube texel C's value is
// Σ L_i·|T_i ∩ C| / |C| over the input texels T_i it overlaps; both inputs are summed exactly:
//  - A cube input: input and cube texels are rectangles in the same face coordinates, so every
//    overlap is a rectangle with a closed-form solid angle (cube_rect_solid_angle).
//  - A lat-long input: in (φ, h = cos θ) the sphere's area element is dφ dh and the input texels are
//    rectangles; C is bounded by four great-circle arcs. By Green's theorem
//        ∫∫_C L dφ dh = ∮_∂C F dφ,   F(φ, h) = ∫_h^h0 L(φ, h') dh'
//    (the input summed down its column from a row boundary h0 above C). F is linear in h inside an
//    input texel, so each piece of an arc that stays inside one input texel contributes in closed
//    form, F(h_top)·Δφ + L·(h_top·Δφ − ∫h dφ), where ∫h dφ along a great-circle arc is the signed
//    area between the arc and the equator, 2 atan(tan(Δφ/2)(τ1 + τ2) / (1 + τ1 τ2)),
//    τ = tan(latitude/2) (Chamberlain & Duquette 2007). Arcs along meridians (dφ = 0) contribute
//    nothing, and F is continuous across rows, so only the crossings of input columns must be found
//    exactly (the intersection of two planes). The arcs are cut at every input row and column they
//    cross: an edge of C costs about as many pieces as input texels along it.
// Both are exact for piecewise-constant input up to double rounding, far below the rounding of the
// stored values to float (2^-24 of each), so Σ value·Ω over the cube equals Σ L·Ω over the input
// to float precision (tests/test_specular_energy.cpp). Every cube texel is a gather over the input
// texels it touches, in a fixed order: no scatter, no atomics, the same bits for any thread count.
#include <cmath>
#include <vector>

#include "cube_map.h"
#include "layout.h"

namespace bake {

// |luminance| of an RGB texel (Rec. 709 weights), the measure of the bright split.
double texel_luminance(const float* rgb);

// The bright split's cap: a texel whose |luminance| exceeds `threshold` is scaled down to it
// (`keep`) and the rest is its excess. One function for the cap and the bright list, so that
// keep + excess is the texel (to float rounding of the excess).
struct LuminanceCap {
    double threshold = INFINITY;  // infinity: nothing capped
    // keep = rgb, or rgb scaled to the threshold (rounded to float); true when scaled. Never
    // inlined: GCC 12's -O3 SLP vectoriser dropped the rounding to float where area_average_cube
    // inlined it for packed texels (the capped source then differed from the float input's by an ulp).
    [[gnu::noinline]] bool apply(const float* rgb, float* keep) const;
};

// A texel of the input that the prefilter's samples would find too bright (specular_prefilter.h):
// its excess over the cap, summed exactly at the input's own resolution. face -1: lat-long texel
// (row, col) of the input; else texel (row, col) of that face of a cube input.
struct BrightTexel {
    int face, row, col;
    float excess[3];  // rgb - keep (LuminanceCap::apply)
};

// The bright split over the input's own texels: the cap is `factor` times the input's mean
// |luminance| (solid-angle weighted), raised to the (max_bright + 1)-th largest |luminance| when
// more texels exceed it, so that at most max_bright are capped; infinite for an input with no
// light. Returns the capped texels in texel order (the same for any thread count).
std::vector<BrightTexel> split_bright_texels(const Environment& env, double factor, int max_bright, LuminanceCap* cap,
                                             int threads = 0);

// The area average of env over every texel of a size x size cube (`full`) and, when the cap is
// finite, of env with its texels capped (`capped`; left empty otherwise). threads <= 0: all cores.
void area_average_cube(const Environment& env, int size, const LuminanceCap& cap, CubeMap* full, CubeMap* capped,
                       int threads = 0);

// The lat-long grid area_average_cube uses for a width x height input, as one list (the GPU
// source's table, shaders/specular_source.comp): top[height + 1] (cos(π k / height), ±1 at the
// poles), row_height[height] (top[i] - top[i + 1]), cos_phi[width], sin_phi[width] (boundary
// meridian j at φ = -π + 2π j / width).
std::vector<double> equirect_source_grid(int width, int height);

}  // namespace bake
