#include "rotate.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "parallel.h"

namespace bake {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Turns a direction by R(θ) given cos θ and sin θ.
Vec3 turn(const Vec3& d, double c, double s) { return {d.x * c + d.z * s, d.y, -d.x * s + d.z * c}; }

// The texel of an n-face a direction falls in.
void texel_of(const Vec3& d, int n, int* face, int* row, int* col) {
    double sc, tc;
    cube_face_coords(d, face, &sc, &tc);
    *col = std::clamp(static_cast<int>(std::floor((sc + 1.0) * 0.5 * n)), 0, n - 1);
    *row = std::clamp(static_cast<int>(std::floor((tc + 1.0) * 0.5 * n)), 0, n - 1);
}

void shift_rows_packed(PackedImage& img, int shift) {
    const std::size_t bpt = bytes_per_texel(img.encoding), row_bytes = bpt * static_cast<std::size_t>(img.width);
    for (int r = 0; r < img.height; ++r) {
        std::uint8_t* row = img.bytes.data() + row_bytes * static_cast<std::size_t>(r);
        std::rotate(row, row + bpt * static_cast<std::size_t>(shift), row + row_bytes);
    }
}

// Texel j of a row becomes (1 - f)·old[j + k] + f·old[j + k + 1] (indices mod width); f = 0: a copy.
Image shift_rows(const Image& in, int k, double f, int threads) {
    Image out(in.width, in.height);
    const int w = in.width;
    parallel_for(in.height, resolve_threads(threads, in.height), [&](int r) {
        for (int j = 0; j < w; ++j) {
            const float* a = in.at(r, (j + k) % w);
            const float* b = in.at(r, (j + k + 1) % w);
            float* o = out.at(r, j);
            for (int c = 0; c < 3; ++c)
                o[c] = f == 0.0 ? a[c] : static_cast<float>((1.0 - f) * static_cast<double>(a[c]) + f * static_cast<double>(b[c]));
        }
    });
    return out;
}

// A cube turned by a multiple of 90° (quarter turns q): every texel centre lands on one.
CubeMap turn_cube_exact(const CubeMap& in, int q, int threads) {
    const double c[4] = {1, 0, -1, 0}, s[4] = {0, 1, 0, -1};
    const int n = in.size;
    CubeMap out(n);
    parallel_for(6 * n, resolve_threads(threads, 6 * n), [&](int task) {
        const int face = task / n, row = task % n;
        for (int col = 0; col < n; ++col) {
            // The texel that lands here came from R⁻¹ = R(-θ) of its centre.
            const Vec3 from = turn(cube_face_direction(face, 2.0 * (col + 0.5) / n - 1.0, 2.0 * (row + 0.5) / n - 1.0), c[q], -s[q]);
            int f, r, k;
            texel_of(from, n, &f, &r, &k);
            std::memcpy(out.faces[static_cast<std::size_t>(face)].at(row, col), in.faces[static_cast<std::size_t>(f)].at(r, k), 3 * sizeof(float));
        }
    });
    return out;
}

CubeMap turn_cube_resampled(const CubeMap& in, double theta, int threads) {
    const double c = std::cos(theta), s = std::sin(theta);
    const int n = in.size, m = kRotateCubeSamples;
    CubeMap out(n);
    parallel_for(6 * n, resolve_threads(threads, 6 * n), [&](int task) {
        const int face = task / n, row = task % n;
        for (int col = 0; col < n; ++col) {
            double sum[3] = {0, 0, 0}, weight = 0;
            for (int i = 0; i < m; ++i)
                for (int j = 0; j < m; ++j) {
                    const double sc = 2.0 * (col + (j + 0.5) / m) / n - 1.0, tc = 2.0 * (row + (i + 0.5) / m) / n - 1.0;
                    const double r2 = 1.0 + sc * sc + tc * tc, w = 1.0 / (r2 * std::sqrt(r2));
                    int f, r, k;
                    texel_of(turn(cube_face_direction(face, sc, tc), c, -s), n, &f, &r, &k);
                    const float* t = in.faces[static_cast<std::size_t>(f)].at(r, k);
                    for (int ch = 0; ch < 3; ++ch) sum[ch] += w * t[ch];
                    weight += w;
                }
            float* o = out.faces[static_cast<std::size_t>(face)].at(row, col);
            for (int ch = 0; ch < 3; ++ch) o[ch] = static_cast<float>(sum[ch] / weight);
        }
    });
    return out;
}

}  // namespace

const char* rotation_kind_name(RotationKind kind) {
    switch (kind) {
        case RotationKind::None: return "none";
        case RotationKind::Shift: return "shift";
        case RotationKind::AreaAverage: return "area average";
        case RotationKind::Resampled: return "resampled";
    }
    return "?";
}

RotationKind rotate_environment(Environment& env, double degrees, int threads) {
    if (!std::isfinite(degrees)) throw std::invalid_argument("rotate_environment: the angle must be finite, got " + std::to_string(degrees));
    double turns = std::fmod(degrees / 360.0, 1.0);
    if (turns < 0) turns += 1.0;  // [0, 1)
    RotationKind kind;
    if (!env.is_cube()) {
        const int w = env.width();
        // Columns to move left, in [0, w); within 1e-9 of a whole number: whole.
        double shift = turns * w;
        const double whole = std::round(shift);
        if (std::fabs(shift - whole) <= 1e-9) shift = whole;
        const int k = static_cast<int>(std::floor(shift)) % w;
        const double f = shift - std::floor(shift);
        if (k == 0 && f == 0.0) return RotationKind::None;
        if (f == 0.0 && env.is_packed()) {
            shift_rows_packed(env.packed, k);
        } else {
            if (env.is_packed()) expand_packed_texels(env, threads);
            env.equirect = shift_rows(env.equirect, k, f, threads);
        }
        kind = f == 0.0 ? RotationKind::Shift : RotationKind::AreaAverage;
    } else {
        const double quarters = turns * 4.0, q = std::round(quarters);
        if (std::fabs(quarters - q) <= 1e-9 * 4.0) {
            const int quarter = static_cast<int>(q) % 4;
            if (quarter == 0) return RotationKind::None;
            env.cube = turn_cube_exact(env.cube, quarter, threads);
            kind = RotationKind::Shift;
        } else {
            env.cube = turn_cube_resampled(env.cube, 2.0 * kPi * turns, threads);
            kind = RotationKind::Resampled;
        }
    }
    if (env.identity != 0) env.identity = next_environment_identity();
    return kind;
}

}  // namespace bake
