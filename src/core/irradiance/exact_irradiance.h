#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "layout.h"
#include "sh.h"
#include "vec3.h"

namespace bake {

// Irradiance by direct convolution with the clamped cosine, no SH:
//
//     E(n) = sum over source texels of  L * Omega * max(0, n . d)
//
// (d the texel centre, Omega its exact solid angle: the definition of docs/CONVENTION.md, summed
// like the projection). Done texel by texel it costs source texels x output texels, so the
// source is first grouped into cells of b x b texels (b = 1 keeps every texel). A cell keeps, per
// channel, the first moments of its positive and of its negative radiance,
//
//     P = sum_{L > 0} L Omega d,   N = sum_{L < 0} |L| Omega d,
//
// and contributes max(0, n . P) - max(0, n . N). With b = 1 that is exactly the texel's term
// (any sign); a cell entirely in front of or behind n's horizon contributes exactly its
// texels' terms (a sum of linear terms); only cells straddling the horizon differ. A straddling
// cell's texels all lie within its angular diameter D of the horizon, hence
//
//     |E_cells(n) - E(n)| <= sum over texels with |n . d| <= sin D of |L| Omega |n . d|
//                         <= sin D * (|L| Omega over the band |n . d| <= sin D).
//
// A point light (a sun inside one cell) is exact; a smooth sky errs to second order in D.
// tests/test_exact_irradiance.cpp checks the bound against the full-resolution sum.
struct IrradianceCells {
    static constexpr int kValuesPerCell = 18;  // R, G, B: P (x, y, z) then N (x, y, z)
    std::vector<double> moments;               // kValuesPerCell per cell
    int block = 1;                             // b: source texels per cell side
    int columns = 0, rows = 0;                 // cell grid (a cube: 6 faces stacked, rows = 6 x columns)
    int source_width = 0, source_height = 0;   // texels (a cube: the face size, twice)
    bool cube = false;
    double max_diameter = 0;                   // D: largest angle between two texel centres of one cell (radians)

    std::size_t count() const { return moments.size() / kValuesPerCell; }
    std::string describe() const;  // e.g. "512x256 cells of 16x16 texels"
};

// Cell side that keeps at most `max_rows` rows of cells for a lat-long source (cube faces:
// max_rows / 2 cells a side, the same angular size); 1 for sources at most that large.
int irradiance_cell_block(const Environment& env, int max_rows);

// The grid of b x b cells of env (everything but the moments, which are zero).
IrradianceCells irradiance_cell_grid(const Environment& env, int block);

// Cells of b x b texels (partial cells at the right and bottom edges), summed in double in a
// fixed order (the result does not depend on `threads`; <= 0: all cores).
IrradianceCells build_irradiance_cells(const Environment& env, int block, int threads = 0);

// The cells of block `factor` x fine.block from fine cells (sums of theirs, same as building them
// from the texels up to rounding).
IrradianceCells merge_irradiance_cells(const IrradianceCells& fine, int factor);

// Rows of cells of the exact irradiance map: 512 x 256 cells for a lat-long source, 6 x 128^2
// for a cube, whatever the source's size (larger sources are grouped into cells).
constexpr int kExactIrradianceCellRows = 256;

// E at unit direction n (double, cells summed in order: |rounding| <= cells * 2^-53 * sum |terms|).
Rgb exact_irradiance(const IrradianceCells& cells, const Vec3& n);

// E at many directions, on `threads` threads (the same bits whatever their number). Blocks of
// cells wholly in front of or behind a direction's horizon are summed together or skipped, so the
// values equal exact_irradiance()'s up to rounding, not bit for bit.
std::vector<Rgb> exact_irradiance_at(const IrradianceCells& cells, const std::vector<Vec3>& directions,
                                     int threads = 0);

// Output texel centre directions, in the order of the irradiance maps (cube: faces +X..-Z, rows
// top to bottom; lat-long: rows top to bottom).
std::vector<Vec3> cube_map_directions(int size);
std::vector<Vec3> equirect_map_directions(int width, int height);

// Irradiance maps of E at the output texels (the exact counterparts of render_irradiance_*).
CubeMap render_exact_irradiance_cube(const IrradianceCells& cells, int size, int threads = 0);
Image render_exact_irradiance_equirect(const IrradianceCells& cells, int width, int height, int threads = 0);

// Maps from values in the order of *_map_directions.
CubeMap cube_from_values(const std::vector<Rgb>& values, int size);
Image equirect_from_values(const std::vector<Rgb>& values, int width, int height);

}  // namespace bake
