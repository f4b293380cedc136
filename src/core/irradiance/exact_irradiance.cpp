#include "exact_irradiance.h"

#include <algorithm>
#include <cmath>

#include "cube_map.h"
#include "equirect.h"
#include "packed_image.h"
#include "parallel.h"
#include "stage_progress.h"

namespace bake {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr int kV = IrradianceCells::kValuesPerCell;

double angle_between(const Vec3& a, const Vec3& b) {
    const Vec3 c{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
    return std::atan2(length(c), dot(a, b));
}

// Adds L * Omega * d of one texel to its cell's positive or negative moments.
inline void add_texel(const float* texel, double omega, const Vec3& d, double* cell) {
    for (int c = 0; c < 3; ++c) {
        const double w = static_cast<double>(texel[c]) * omega;
        double* m = cell + 6 * c + (w < 0 ? 3 : 0);
        const double a = std::fabs(w);
        m[0] += a * d.x;
        m[1] += a * d.y;
        m[2] += a * d.z;
    }
}

int cells_along(int texels, int block) { return (texels + block - 1) / block; }

// D for lat-long cells: two centres of rows [r0, r1) and columns at most `span` apart are joined
// by a path along a parallel (sin(theta) * dphi, at most the largest sin in the rows) and a
// meridian (dtheta), which is no shorter than the great circle.
double equirect_cell_diameter(int width, int height, int block) {
    const int span = std::min(block, width);
    const double dphi = std::min(kPi, 2.0 * kPi * (span - 1) / width);
    double worst = 0;
    for (int r0 = 0; r0 < height; r0 += block) {
        const int r1 = std::min(height, r0 + block);
        double max_sin = 0;
        for (int r = r0; r < r1; ++r) max_sin = std::max(max_sin, std::sin(kPi * (r + 0.5) / height));
        worst = std::max(worst, kPi * (r1 - r0 - 1) / height + max_sin * dphi);
    }
    return std::min(worst, kPi);
}

// D for cube cells: a face maps straight lines to great circles, so the texel centres of a
// rectangle of texels span a geodesically convex region whose diameter joins two corners.
double cube_cell_diameter(int n, int block) {
    double worst = 0;
    for (int r0 = 0; r0 < n; r0 += block)
        for (int c0 = 0; c0 < n; c0 += block) {
            const int r1 = std::min(n, r0 + block) - 1, c1 = std::min(n, c0 + block) - 1;
            const Vec3 corners[4] = {cube_texel_direction(0, r0, c0, n), cube_texel_direction(0, r0, c1, n),
                                     cube_texel_direction(0, r1, c0, n), cube_texel_direction(0, r1, c1, n)};
            for (int i = 0; i < 4; ++i)
                for (int j = i + 1; j < 4; ++j) worst = std::max(worst, angle_between(corners[i], corners[j]));
        }
    return worst;
}

double cell_diameter(const IrradianceCells& cells) {
    return cells.cube ? cube_cell_diameter(cells.source_width, cells.block)
                      : equirect_cell_diameter(cells.source_width, cells.source_height, cells.block);
}

}  // namespace

std::string IrradianceCells::describe() const {
    const std::string grid = cube ? "6x" + std::to_string(columns) + "^2" : std::to_string(columns) + "x" + std::to_string(rows);
    return grid + " cells of " + std::to_string(block) + "x" + std::to_string(block) + " texels";
}

int irradiance_cell_block(const Environment& env, int max_rows) {
    const int rows = env.is_cube() ? std::max(1, max_rows / 2) : std::max(1, max_rows);
    return std::max(1, cells_along(env.height(), rows));
}

IrradianceCells irradiance_cell_grid(const Environment& env, int block) {
    IrradianceCells cells;
    cells.block = std::max(1, block);
    cells.cube = env.is_cube();
    cells.source_width = env.width();
    cells.source_height = env.height();
    cells.columns = cells_along(env.width(), cells.block);
    const int face_rows = cells_along(env.height(), cells.block);
    cells.rows = cells.cube ? 6 * face_rows : face_rows;
    cells.moments.assign(static_cast<std::size_t>(cells.columns) * cells.rows * kV, 0.0);
    cells.max_diameter = cell_diameter(cells);
    return cells;
}

IrradianceCells build_irradiance_cells(const Environment& env, int block, int threads) {
    IrradianceCells cells = irradiance_cell_grid(env, block);
    const int b = cells.block;
    const int face_rows = cells.cube ? cells.rows / 6 : cells.rows;

    const int width = env.width(), height = env.height();
    std::vector<double> cos_sin_phi;
    if (!cells.cube)
        for (int col = 0; col < width; ++col) {
            const Vec3 d = equirect_direction((col + 0.5) / width, 0.5);
            cos_sin_phi.push_back(d.x);
            cos_sin_phi.push_back(d.z);
        }
    // One task a row of cells: its texels are added in row-major order, whatever the threads.
    parallel_for(cells.rows, resolve_threads(threads, cells.rows), [&](int cell_row) {
        double* out = &cells.moments[static_cast<std::size_t>(cell_row) * cells.columns * kV];
        std::vector<float> row_texels(env.is_packed() ? 3 * static_cast<std::size_t>(width) : 0);
        if (cells.cube) {
            const int face = cell_row / face_rows, r0 = (cell_row % face_rows) * b;
            const Image& img = env.cube.faces[static_cast<std::size_t>(face)];
            for (int r = r0; r < std::min(height, r0 + b); ++r)
                for (int col = 0; col < width; ++col)
                    add_texel(img.at(r, col), cube_texel_solid_angle(r, col, width), cube_texel_direction(face, r, col, width),
                              out + static_cast<std::size_t>(col / b) * kV);
            return;
        }
        for (int r = cell_row * b; r < std::min(height, (cell_row + 1) * b); ++r) {
            const float* texels = env.is_packed() ? row_texels.data() : env.equirect.at(r, 0);
            if (env.is_packed()) expand_packed_row(env.packed, r, row_texels.data());
            // d = (sin t cos phi, cos t, sin t sin phi): per cell, sum |L|, |L| cos phi and
            // |L| sin phi of each sign along the row, then scale by the row's Omega and theta.
            const double omega = equirect_row_solid_angle(r, width, height);
            const Vec3 meridian = equirect_direction(0.5, (r + 0.5) / height);  // (sin theta, cos theta, 0)
            const double sx = omega * meridian.x, sy = omega * meridian.y;
            for (int c0 = 0; c0 < width; c0 += b) {
                double sums[3][2][3] = {};  // channel, sign (positive, negative), (1, cos phi, sin phi)
                for (int col = c0, c1 = std::min(width, c0 + b); col < c1; ++col) {
                    const double cp = cos_sin_phi[2 * static_cast<std::size_t>(col)];
                    const double sp = cos_sin_phi[2 * static_cast<std::size_t>(col) + 1];
                    for (int c = 0; c < 3; ++c) {
                        const double v = texels[3 * static_cast<std::size_t>(col) + c];
                        double* s = sums[c][v < 0 ? 1 : 0];
                        const double a = std::fabs(v);
                        s[0] += a;
                        s[1] += a * cp;
                        s[2] += a * sp;
                    }
                }
                double* cell = out + static_cast<std::size_t>(c0 / b) * kV;
                for (int c = 0; c < 3; ++c)
                    for (int sign = 0; sign < 2; ++sign) {
                        double* m = cell + 6 * c + 3 * sign;
                        m[0] += sx * sums[c][sign][1];
                        m[1] += sy * sums[c][sign][0];
                        m[2] += sx * sums[c][sign][2];
                    }
            }
        }
    });
    return cells;
}

IrradianceCells merge_irradiance_cells(const IrradianceCells& fine, int factor) {
    IrradianceCells cells;
    factor = std::max(1, factor);
    cells.block = fine.block * factor;
    cells.cube = fine.cube;
    cells.source_width = fine.source_width;
    cells.source_height = fine.source_height;
    cells.columns = cells_along(fine.columns, factor);
    const int fine_face_rows = fine.cube ? fine.rows / 6 : fine.rows;
    const int face_rows = cells_along(fine_face_rows, factor);
    cells.rows = fine.cube ? 6 * face_rows : face_rows;
    cells.moments.assign(static_cast<std::size_t>(cells.columns) * cells.rows * kV, 0.0);
    cells.max_diameter = cell_diameter(cells);
    for (int fr = 0; fr < fine.rows; ++fr) {
        const int face = fr / fine_face_rows;
        const int row = face * face_rows + (fr % fine_face_rows) / factor;
        for (int fc = 0; fc < fine.columns; ++fc) {
            const double* in = &fine.moments[(static_cast<std::size_t>(fr) * fine.columns + fc) * kV];
            double* out = &cells.moments[(static_cast<std::size_t>(row) * cells.columns + fc / factor) * kV];
            for (int v = 0; v < kV; ++v) out[v] += in[v];
        }
    }
    return cells;
}

namespace {

// Adds one cell's term, max(0, n.P) - max(0, n.N) per channel, to e.
inline void add_cell_term(const double* m, const Vec3& n, double* e) {
    for (int c = 0; c < 3; ++c) {
        const double* pc = m + 6 * c;
        const double p = n.x * pc[0] + n.y * pc[1] + n.z * pc[2];
        const double q = n.x * pc[3] + n.y * pc[4] + n.z * pc[5];
        e[c] += std::max(0.0, p) - std::max(0.0, q);
    }
}

}  // namespace

Rgb exact_irradiance(const IrradianceCells& cells, const Vec3& n) {
    double e[3] = {0, 0, 0};
    const double* m = cells.moments.data();
    for (std::size_t i = 0, count = cells.count(); i < count; ++i, m += kV) add_cell_term(m, n, e);
    return {e[0], e[1], e[2]};
}

namespace {

// Blocks of up to kGroupSide x kGroupSide cells (of one face), each with a cap that holds every
// texel centre of its cells (centre c, angle rho) and the sum of its cells' P - N. Where every
// texel lies in front of n's horizon (angle(n, c) + rho < pi/2), each cell's P and N are
// non-negative sums of directions d with n.d > 0, so the cells contribute n.(sum P - sum N)
// together; where every texel lies behind it, nothing. Only blocks that straddle the horizon are
// summed cell by cell. Same value as exact_irradiance() up to rounding; 4 x 4 cells balance the
// blocks' own cost against the straddlers' (1536 directions over 128 x 64 cells: 4x faster).
constexpr int kGroupSide = 4;
constexpr double kCapMargin = 1e-9;  // radians, against rounding in the cap tests

struct CellGroup {
    Vec3 centre;
    double sin_rho = 1;  // sin of the cap's angle (1: never culled)
    int row0 = 0, rows = 0, col0 = 0, cols = 0;  // cells
    double sum[9] = {};  // P - N per channel (x, y, z)
};

std::vector<CellGroup> group_cells(const IrradianceCells& cells) {
    std::vector<CellGroup> groups;
    const int b = cells.block, w = cells.source_width, h = cells.source_height;
    const int face_rows = cells.cube ? cells.rows / 6 : cells.rows;
    const int faces = cells.cube ? 6 : 1;
    for (int face = 0; face < faces; ++face)
        for (int face_row0 = 0; face_row0 < face_rows; face_row0 += kGroupSide)
            for (int c0 = 0; c0 < cells.columns; c0 += kGroupSide) {
                CellGroup g;
                g.row0 = face * face_rows + face_row0;
                g.col0 = c0;
                g.rows = std::min(kGroupSide, face_rows - face_row0);
                g.cols = std::min(kGroupSide, cells.columns - c0);
                // Texel centres of the block: rows [r0, r1], columns [t0, t1].
                const int r0 = face_row0 * b, r1 = std::min(h, (face_row0 + g.rows) * b) - 1;
                const int t0 = c0 * b, t1 = std::min(w, (c0 + g.cols) * b) - 1;
                double rho = 0;
                if (cells.cube) {
                    // A rectangle of a face is geodesically convex: its farthest point from any
                    // point is a corner.
                    const Vec3 corners[4] = {cube_texel_direction(face, r0, t0, w), cube_texel_direction(face, r0, t1, w),
                                             cube_texel_direction(face, r1, t0, w), cube_texel_direction(face, r1, t1, w)};
                    Vec3 sum;
                    for (const Vec3& v : corners) sum = {sum.x + v.x, sum.y + v.y, sum.z + v.z};
                    g.centre = normalize(sum);
                    for (const Vec3& v : corners) rho = std::max(rho, angle_between(g.centre, v));
                } else {
                    // From the centre along its meridian, then along the texel's parallel: no shorter
                    // than the great circle.
                    const double th0 = kPi * (r0 + 0.5) / h, th1 = kPi * (r1 + 0.5) / h;
                    const double ph0 = 2 * kPi * (t0 + 0.5) / w, ph1 = 2 * kPi * (t1 + 0.5) / w;
                    const double max_sin = (th0 <= kPi / 2 && th1 >= kPi / 2) ? 1.0 : std::max(std::sin(th0), std::sin(th1));
                    g.centre = equirect_direction(0.5 * (ph0 + ph1) / (2 * kPi), 0.5 * (th0 + th1) / kPi);
                    rho = 0.5 * (th1 - th0) + max_sin * 0.5 * (ph1 - ph0);
                }
                rho += kCapMargin;
                g.sin_rho = rho < kPi / 2 ? std::sin(rho) : 1.0;
                for (int r = g.row0; r < g.row0 + g.rows; ++r)
                    for (int col = g.col0; col < g.col0 + g.cols; ++col) {
                        const double* m = &cells.moments[(static_cast<std::size_t>(r) * cells.columns + col) * kV];
                        for (int c = 0; c < 3; ++c)
                            for (int k = 0; k < 3; ++k) g.sum[3 * c + k] += m[6 * c + k] - m[6 * c + 3 + k];
                    }
                groups.push_back(g);
            }
    return groups;
}

Rgb exact_irradiance_grouped(const IrradianceCells& cells, const std::vector<CellGroup>& groups, const Vec3& n) {
    double e[3] = {0, 0, 0};
    for (const CellGroup& g : groups) {
        const double cos_alpha = dot(n, g.centre);
        if (g.sin_rho < 1 && cos_alpha <= -g.sin_rho) continue;  // behind the horizon
        if (g.sin_rho < 1 && cos_alpha >= g.sin_rho) {            // in front of it
            for (int c = 0; c < 3; ++c) e[c] += n.x * g.sum[3 * c] + n.y * g.sum[3 * c + 1] + n.z * g.sum[3 * c + 2];
            continue;
        }
        for (int r = g.row0; r < g.row0 + g.rows; ++r) {
            const double* m = &cells.moments[(static_cast<std::size_t>(r) * cells.columns + g.col0) * kV];
            for (int i = 0; i < g.cols; ++i, m += kV) add_cell_term(m, n, e);
        }
    }
    return {e[0], e[1], e[2]};
}

}  // namespace

std::vector<Rgb> exact_irradiance_at(const IrradianceCells& cells, const std::vector<Vec3>& directions, int threads) {
    std::vector<Rgb> out(directions.size());
    const std::vector<CellGroup> groups = group_cells(cells);
    constexpr int kChunk = 16;
    const int chunks = static_cast<int>((directions.size() + kChunk - 1) / kChunk);
    parallel_for(chunks, resolve_threads(threads, chunks), [&](int chunk) {
        const std::size_t end = std::min(directions.size(), static_cast<std::size_t>(chunk + 1) * kChunk);
        for (std::size_t i = static_cast<std::size_t>(chunk) * kChunk; i < end; ++i)
            out[i] = exact_irradiance_grouped(cells, groups, directions[i]);
        stage_progress::advance(static_cast<long long>(end - static_cast<std::size_t>(chunk) * kChunk));
    });
    return out;
}

std::vector<Vec3> cube_map_directions(int size) {
    std::vector<Vec3> dirs;
    dirs.reserve(6 * static_cast<std::size_t>(size) * size);
    for (int f = 0; f < 6; ++f)
        for (int r = 0; r < size; ++r)
            for (int c = 0; c < size; ++c) dirs.push_back(cube_texel_direction(f, r, c, size));
    return dirs;
}

std::vector<Vec3> equirect_map_directions(int width, int height) {
    std::vector<Vec3> dirs;
    dirs.reserve(static_cast<std::size_t>(width) * height);
    for (int r = 0; r < height; ++r)
        for (int c = 0; c < width; ++c) dirs.push_back(equirect_texel_direction(r, c, width, height));
    return dirs;
}

CubeMap cube_from_values(const std::vector<Rgb>& values, int size) {
    CubeMap cube(size);
    std::size_t i = 0;
    for (int f = 0; f < 6; ++f)
        for (int r = 0; r < size; ++r)
            for (int c = 0; c < size; ++c, ++i)
                for (int ch = 0; ch < 3; ++ch)
                    cube.faces[static_cast<std::size_t>(f)].at(r, c)[ch] = static_cast<float>(values[i][ch]);
    return cube;
}

Image equirect_from_values(const std::vector<Rgb>& values, int width, int height) {
    Image img(width, height);
    for (std::size_t i = 0; i < values.size(); ++i)
        for (int ch = 0; ch < 3; ++ch) img.rgb[3 * i + ch] = static_cast<float>(values[i][ch]);
    return img;
}

CubeMap render_exact_irradiance_cube(const IrradianceCells& cells, int size, int threads) {
    return cube_from_values(exact_irradiance_at(cells, cube_map_directions(size), threads), size);
}

Image render_exact_irradiance_equirect(const IrradianceCells& cells, int width, int height, int threads) {
    return equirect_from_values(exact_irradiance_at(cells, equirect_map_directions(width, height), threads), width, height);
}

}  // namespace bake
