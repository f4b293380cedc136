#include <algorithm>
#include <cmath>
#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "cube_map.h"
#include "equirect.h"
#include "packed_image.h"
#include "parallel.h"
#include "projection.h"

namespace bake {

namespace {

// Texels per work block. Blocks are whole rows, fixed by the input's size alone, so the
// summation order (and the result, bit for bit) does not depend on the thread count.
constexpr int kBlockTexels = 4096;

// The source's texels as rows: cube faces stacked (+X rows first), or the equirect rows.
struct TexelRows {
    const Environment& env;
    int row_count() const { return env.is_cube() ? 6 * env.cube.size : env.height(); }
    int row_length() const { return env.is_cube() ? env.cube.size : env.width(); }
};

// Adds one texel's weighted contribution: acc[3k + c] for coefficient k and channel c, then
// acc[3 * count] for the solid-angle sum.
inline void accumulate_texel(int order, const float* texel, double x, double y, double z, double omega, double* acc) {
    double basis[kMaxShCount];
    eval_sh_basis<double>(order, x, y, z, basis);
    const int count = sh_count(order);
    const double r = texel[0] * omega, g = texel[1] * omega, b = texel[2] * omega;
    for (int k = 0; k < count; ++k) {
        acc[3 * k + 0] += r * basis[k];
        acc[3 * k + 1] += g * basis[k];
        acc[3 * k + 2] += b * basis[k];
    }
    acc[3 * count] += omega;
}

// One row of a cube face. Same values as cube_texel_direction and cube_texel_solid_angle,
// computed with the corner radii shared between neighbouring texels, and the texel's two
// triangles joined into one atan2 (tan addition; each half-angle is below pi/3).
void accumulate_cube_row(const Environment& env, int order, int global_row, double* acc) {
    const int n = env.cube.size;
    const int face = global_row / n, row = global_row % n;
    const Image& img = env.cube.faces[static_cast<size_t>(face)];
    const double h = 2.0 / n, area = h * h;
    const double t0 = row * h - 1, t1 = (row + 1) * h - 1, tc = (row + 0.5) * h - 1;
    double s0 = -1;
    double r00 = std::sqrt(1 + s0 * s0 + t0 * t0), r01 = std::sqrt(1 + s0 * s0 + t1 * t1);
    for (int col = 0; col < n; ++col) {
        const double s1 = (col + 1) * h - 1;
        const double r10 = std::sqrt(1 + s1 * s1 + t0 * t0), r11 = std::sqrt(1 + s1 * s1 + t1 * t1);
        // Triangles (00, 10, 11) and (00, 11, 01) of points (s, t, 1): tan(Omega_i / 2) = area / q_i.
        const double d00_10 = s0 * s1 + t0 * t0 + 1, d10_11 = s1 * s1 + t0 * t1 + 1, d11_00 = s1 * s0 + t1 * t0 + 1;
        const double d11_01 = s1 * s0 + t1 * t1 + 1, d01_00 = s0 * s0 + t1 * t0 + 1;
        const double q1 = r00 * r10 * r11 + d00_10 * r11 + d10_11 * r00 + d11_00 * r10;
        const double q2 = r00 * r11 * r01 + d11_00 * r01 + d11_01 * r00 + d01_00 * r11;
        const double omega = 2.0 * std::atan2(area * (q1 + q2), q1 * q2 - area * area);

        const double sc = s0 + 0.5 * h;
        const Vec3 d = cube_face_direction(face, sc, tc);
        const double inv = 1.0 / std::sqrt(1 + sc * sc + tc * tc);
        accumulate_texel(order, img.at(row, col), d.x * inv, d.y * inv, d.z * inv, omega, acc);
        s0 = s1;
        r00 = r10;
        r01 = r11;
    }
}

// Equirect rows by azimuthal harmonics. Along one row (a fixed angle theta from +Y) every basis
// function of band l is a trigonometric polynomial of degree <= l in the azimuth phi (a spherical
// harmonic turned to the +Y axis), Y_k = sum_j a_kj h_j(phi) with h = (1, cos phi, sin phi,
// cos 2phi, sin 2phi, ...). So a row adds Omega * sum_j a_kj H_j to coefficient k, where
// H_j = sum over the row of L * h_j: 2 order - 1 products a texel and channel, instead of a basis
// evaluation and sh_count(order) products. Both sums are in double; a_kj comes from a DFT of 16
// basis evaluations along the row (exact for degree < 8).
class EquirectHarmonics {
public:
    EquirectHarmonics(int order, int width, int height) : order_(order), width_(width), height_(height) {
        harmonics_ = 2 * order - 1;
        table_.resize(static_cast<size_t>(width) * harmonics_);
        for (int col = 0; col < width; ++col) {
            const double phi = 2.0 * kPi * (col + 0.5) / width - kPi;  // equirect_direction's azimuth
            double* h = &table_[static_cast<size_t>(col) * harmonics_];
            h[0] = 1.0;
            for (int m = 1; m < order; ++m) {
                h[2 * m - 1] = std::cos(m * phi);
                h[2 * m] = std::sin(m * phi);
            }
        }
    }

    // Adds row `row` (`texels`: its RGB floats) to acc (3k + c, then the solid angle).
    void accumulate_row(const float* texels, int row, double* acc) const {
        double sums[3 * (2 * kMaxShOrder - 1)] = {};  // H_j for channel c at 3j + c
        switch (harmonics_) {  // a fixed count unrolls and vectorizes the texel loop
            case 1: row_sums<1>(texels, sums); break;
            case 3: row_sums<3>(texels, sums); break;
            case 5: row_sums<5>(texels, sums); break;
            case 7: row_sums<7>(texels, sums); break;
            default: row_sums<9>(texels, sums); break;
        }
        double a[kMaxShCount][2 * kMaxShOrder - 1];
        row_basis(row, a);
        const double omega = equirect_row_solid_angle(row, width_, height_);
        const int count = sh_count(order_);
        for (int k = 0; k < count; ++k) {
            const int terms = 2 * sh_band(k) + 1;
            for (int c = 0; c < 3; ++c) {
                double v = 0;
                for (int j = 0; j < terms; ++j) v += a[k][j] * sums[3 * j + c];
                acc[3 * k + c] += omega * v;
            }
        }
        acc[3 * count] += omega * width_;
    }

private:
    static constexpr double kPi = 3.14159265358979323846;
    static constexpr int kSamples = 16;

    template <int kHarmonics>
    void row_sums(const float* texels, double* sums) const {
        double h_sums[3][kHarmonics] = {};
        for (int col = 0; col < width_; ++col) {
            const double* h = &table_[static_cast<size_t>(col) * kHarmonics];
            for (int c = 0; c < 3; ++c) {
                const double v = texels[3 * col + c];
                for (int j = 0; j < kHarmonics; ++j) h_sums[c][j] += v * h[j];
            }
        }
        for (int j = 0; j < kHarmonics; ++j)
            for (int c = 0; c < 3; ++c) sums[3 * j + c] = h_sums[c][j];
    }

    // a[k][j] of row `row` (j < 2 band(k) + 1; the rest of the band's harmonics are zero).
    void row_basis(int row, double (*a)[2 * kMaxShOrder - 1]) const {
        const Vec3 meridian = equirect_direction(0.5, (row + 0.5) / height_);  // phi = 0: (sin t, cos t, 0)
        const int count = sh_count(order_);
        double y[kSamples][kMaxShCount];
        double cs[kSamples][2 * kMaxShOrder - 1];
        for (int s = 0; s < kSamples; ++s) {
            const double phi = 2.0 * kPi * s / kSamples;
            eval_sh_basis<double>(order_, meridian.x * std::cos(phi), meridian.y, meridian.x * std::sin(phi), y[s]);
            cs[s][0] = 1.0 / kSamples;
            for (int m = 1; m < order_; ++m) {
                cs[s][2 * m - 1] = 2.0 * std::cos(m * phi) / kSamples;
                cs[s][2 * m] = 2.0 * std::sin(m * phi) / kSamples;
            }
        }
        for (int k = 0; k < count; ++k)
            for (int j = 0, terms = 2 * sh_band(k) + 1; j < terms; ++j) {
                double v = 0;
                for (int s = 0; s < kSamples; ++s) v += y[s][k] * cs[s][j];
                a[k][j] = v;
            }
    }

    int order_, width_, height_, harmonics_;
    std::vector<double> table_;  // h_j of each column, harmonics_ a column
};

}  // namespace

Projection project_sh_cpu(const Environment& env, int order, int threads) {
    if (!is_supported_order(order)) throw std::invalid_argument("project_sh_cpu: SH order " + std::to_string(order));
    const TexelRows rows{env};
    const int row_count = rows.row_count();
    const int rows_per_block = std::max(1, kBlockTexels / std::max(1, rows.row_length()));
    const int blocks = (row_count + rows_per_block - 1) / rows_per_block;
    const int count = sh_count(order);
    const size_t stride = static_cast<size_t>(3 * count + 1);

    std::optional<EquirectHarmonics> harmonics;
    if (!env.is_cube()) harmonics.emplace(order, env.width(), env.height());

    std::vector<double> partial(static_cast<size_t>(blocks) * stride, 0.0);
    parallel_for(blocks, resolve_threads(threads, blocks), [&](int b) {
        // Accumulate on this thread's stack and store once: neighbouring blocks' sums share
        // cache lines in `partial`, and adding into them texel by texel from two threads
        // made two threads slower than one (false sharing).
        double acc[3 * kMaxShCount + 1] = {};
        const int end = std::min(row_count, (b + 1) * rows_per_block);
        // Packed texels (RGBE, half) are expanded a row at a time, to the bits expand_packed
        // gives: the same sums as over the float image, without holding it.
        std::vector<float> row_texels(env.is_packed() ? 3 * static_cast<size_t>(env.width()) : 0);
        for (int r = b * rows_per_block; r < end; ++r) {
            if (env.is_cube()) {
                accumulate_cube_row(env, order, r, acc);
            } else if (env.is_packed()) {
                expand_packed_row(env.packed, r, row_texels.data());
                harmonics->accumulate_row(row_texels.data(), r, acc);
            } else {
                harmonics->accumulate_row(env.equirect.at(r, 0), r, acc);
            }
        }
        std::copy(acc, acc + stride, &partial[static_cast<size_t>(b) * stride]);
    });

    // Pairwise combination in a fixed order: log2(blocks) levels of rounding.
    for (int width = 1; width < blocks; width *= 2)
        for (int i = 0; i + width < blocks; i += 2 * width)
            for (size_t j = 0; j < stride; ++j)
                partial[static_cast<size_t>(i) * stride + j] += partial[static_cast<size_t>(i + width) * stride + j];

    Projection p;
    p.radiance = ShCoefficients(order);
    if (blocks == 0) return p;
    for (int k = 0; k < count; ++k)
        for (int c = 0; c < 3; ++c) p.radiance.rgb[static_cast<size_t>(k)][c] = partial[static_cast<size_t>(3 * k + c)];
    p.solid_angle_sum = partial[static_cast<size_t>(3 * count)];
    return p;
}

CubeMap render_irradiance_cube(const ShCoefficients& irradiance, int size) {
    CubeMap cube(size);
    for (int f = 0; f < 6; ++f)
        for (int r = 0; r < size; ++r)
            for (int c = 0; c < size; ++c) {
                const Rgb e = eval_sh(irradiance, cube_texel_direction(f, r, c, size));
                float* out = cube.faces[static_cast<size_t>(f)].at(r, c);
                for (int ch = 0; ch < 3; ++ch) out[ch] = static_cast<float>(e[ch]);
            }
    return cube;
}

Image render_irradiance_equirect(const ShCoefficients& irradiance, int width, int height) {
    Image img(width, height);
    for (int r = 0; r < height; ++r)
        for (int c = 0; c < width; ++c) {
            const Rgb e = eval_sh(irradiance, equirect_texel_direction(r, c, width, height));
            float* out = img.at(r, c);
            for (int ch = 0; ch < 3; ++ch) out[ch] = static_cast<float>(e[ch]);
        }
    return img;
}

}  // namespace bake
