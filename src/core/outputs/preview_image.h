#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cube_map.h"
#include "layout.h"
#include "sh.h"

namespace bake {

// A picture of a bake for people: 8-bit sRGB, width 2P, height P (P = panel width, even):
//
//   +---------------------------+---------------------------+
//   | input environment         | baked irradiance E(n)/pi  |   top: lat-long, P x P/2 each,
//   | (lat-long, resampled)     | (lat-long)                |   the mapping of docs/CONVENTION.md
//   +-------------+-------------+-------------+-------------+
//   | sphere from | sphere from | sphere from | sphere from |   bottom: a white Lambertian sphere
//   |     +Z      |     +X      |     -Z      |     -X      |   lit by the SH (orthographic, +Y up)
//   +-------------+-------------+-------------+-------------+
//   | chrome      | roughness   | roughness   | roughness   |   with a specular chain only: four
//   | (rough. 0)  |    1/3      |    2/3      |     1       |   mirror-coloured spheres from +Z
//   +-------------+-------------+-------------+-------------+
//
// The specular spheres (F0 = 1, a white metal) show the split sum: the chain read at the
// reflected direction r = 2(n·v)n − v, between the levels around the roughness (bilinear in a
// face, linear across levels), times the DFG table's A + B at (n·v, roughness).
// E/pi is the radiance a white Lambertian surface reflects, so both halves are in the units of
// the input and share one exposure. Irradiance pixels and sphere pixels are the SH evaluated at
// the pixel centre's direction (normal); the input is box-filtered into the preview's pixels
// (nearest texel where the input is coarser than the preview): a picture, not data.
struct PreviewImage {
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgb;  // width * height * 3, rows top to bottom
    double exposure = 1;            // the exposure the tone map used
    int panel_width = 0;            // P
};

struct PreviewOptions {
    int panel_width = 512;  // P, rounded up to even
    double exposure = 0;    // <= 0: automatic, 1 / mean of E/pi over the sphere of directions
    const std::vector<CubeMap>* specular = nullptr;  // a specular chain: adds the row of rough spheres
};

// Tone map of one linear channel value: v = max(0, exposure * x); t = v / (1 + v) (Reinhard);
// sRGB encoding of t; rounded to 0..255.
std::uint8_t preview_tone_map(double linear, double exposure);

PreviewImage make_preview(const Environment& env, const ShCoefficients& irradiance, const PreviewOptions& options);

// The preview's shading of one sphere pixel at unit normal n seen from unit direction v (towards
// the viewer), shared with tests/render_reference_main.cpp (the CPU side of the three.js render test):
//   preview_diffuse:  a white Lambertian surface, E(n)/pi from the SH.
//   preview_specular: a white metal (F0 = 1) of perceptual roughness r, the split sum: the chain
//     read at r = 2(n.v)n - v at level r (levels - 1), bilinear in a face (seamless, as GL's cube
//     sampler) and linear across levels, times the DFG table's A + B (its channel 2) at the table
//     texel holding (n.v, r): col = floor(n.v size), row = floor(r size), clamped; what a GL NEAREST
//     sampler returns at uv = (n.v, r). dfg: compute_dfg_table's size x size table.
Rgb preview_diffuse(const ShCoefficients& irradiance, const Vec3& n);
Rgb preview_specular(const std::vector<CubeMap>& chain, const Image& dfg, double roughness, const Vec3& n, const Vec3& v);

// Writes the preview as PNG (stb_image_write) atomically. Throws OutputError("<path>: <problem>").
void write_preview_png(const std::string& path, const PreviewImage& preview);

}  // namespace bake
