#include <algorithm>
#include <atomic>
#include <thread>

#include "cube_map.h"
#include "equirect.h"
#include "projection.h"

namespace bake {

namespace {

// Texels per work block. Blocks are whole rows, fixed by the input's size alone, so the
// summation order (and the result, bit for bit) does not depend on the thread count.
constexpr int kBlockTexels = 4096;

// The source's texels as rows: cube faces stacked (+X rows first), or the equirect rows.
struct TexelRows {
    const Environment& env;
    int row_count() const { return env.is_cube() ? 6 * env.cube.size : env.equirect.height; }
    int row_length() const { return env.is_cube() ? env.cube.size : env.equirect.width; }
};

// Adds the weighted contributions of one row into acc: acc[3k + c] for coefficient k and
// channel c, then acc[3 * count] for the solid-angle sum.
void accumulate_row(const Environment& env, int order, int global_row, double* acc) {
    const int count = sh_count(order);
    double y[kMaxShCount];
    auto add = [&](const float* texel, const Vec3& d, double omega) {
        eval_sh_basis(order, d, y);
        const double r = texel[0] * omega, g = texel[1] * omega, b = texel[2] * omega;
        for (int k = 0; k < count; ++k) {
            acc[3 * k + 0] += r * y[k];
            acc[3 * k + 1] += g * y[k];
            acc[3 * k + 2] += b * y[k];
        }
        acc[3 * count] += omega;
    };
    if (env.is_cube()) {
        const int n = env.cube.size;
        const int face = global_row / n, row = global_row % n;
        const Image& img = env.cube.faces[static_cast<size_t>(face)];
        for (int col = 0; col < n; ++col)
            add(img.at(row, col), cube_texel_direction(face, row, col, n), cube_texel_solid_angle(row, col, n));
    } else {
        const Image& img = env.equirect;
        const double omega = equirect_row_solid_angle(global_row, img.width, img.height);
        for (int col = 0; col < img.width; ++col)
            add(img.at(global_row, col), equirect_texel_direction(global_row, col, img.width, img.height), omega);
    }
}

int resolve_threads(int threads, int blocks) {
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return std::max(1, std::min(threads, blocks));
}

template <typename Fn>
void parallel_for(int count, int threads, const Fn& fn) {
    std::atomic<int> next{0};
    auto worker = [&] {
        for (int i = next++; i < count; i = next++) fn(i);
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (auto& th : pool) th.join();
}

}  // namespace

Projection project_sh_cpu(const Environment& env, int order, int threads) {
    const TexelRows rows{env};
    const int row_count = rows.row_count();
    const int rows_per_block = std::max(1, kBlockTexels / std::max(1, rows.row_length()));
    const int blocks = (row_count + rows_per_block - 1) / rows_per_block;
    const int count = sh_count(order);
    const size_t stride = static_cast<size_t>(3 * count + 1);

    std::vector<double> partial(static_cast<size_t>(blocks) * stride, 0.0);
    parallel_for(blocks, resolve_threads(threads, blocks), [&](int b) {
        double* acc = &partial[static_cast<size_t>(b) * stride];
        const int end = std::min(row_count, (b + 1) * rows_per_block);
        for (int r = b * rows_per_block; r < end; ++r) accumulate_row(env, order, r, acc);
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
