#include "preview_image.h"

#include <algorithm>
#include <cmath>
#include <fstream>

#include <zlib.h>

#include "atomic_file.h"
#include "cube_map.h"
#include "dfg.h"
#include "equirect.h"
#include "errors.h"
#include "packed_image.h"
#include "specular_prefilter.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC  // private copy: other translation units may embed stb too
#define STBI_WRITE_NO_STDIO     // PNG to memory only; the file is written atomically below
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <stb_image_write.h>
#pragma GCC diagnostic pop

namespace bake {

namespace {

constexpr double kPi = 3.14159265358979323846;

void put_pixel(PreviewImage& p, int row, int col, const Rgb& linear) {
    std::uint8_t* px = &p.rgb[(static_cast<size_t>(row) * p.width + col) * 3];
    for (int c = 0; c < 3; ++c) px[c] = preview_tone_map(linear[c], p.exposure);
}

// The source texel nearest to a direction (packed texels expanded one at a time).
Rgb sample_nearest(const Environment& env, const Vec3& d) {
    const float* px;
    float expanded[3];
    if (env.is_cube()) {
        int face;
        double sc, tc;
        cube_face_coords(d, &face, &sc, &tc);
        const int n = env.cube.size;
        const int col = std::clamp(static_cast<int>((sc + 1) * 0.5 * n), 0, n - 1);
        const int row = std::clamp(static_cast<int>((tc + 1) * 0.5 * n), 0, n - 1);
        px = env.cube.faces[static_cast<size_t>(face)].at(row, col);
    } else {
        double u, v;
        equirect_uv(d, &u, &v);
        const int w = env.width(), h = env.height();
        const int col = std::clamp(static_cast<int>(u * w), 0, w - 1);
        const int row = std::clamp(static_cast<int>(v * h), 0, h - 1);
        if (env.is_packed()) {
            expand_packed_texel(env.packed, static_cast<size_t>(row) * w + col, expanded);
            px = expanded;
        } else {
            px = env.equirect.at(row, col);
        }
    }
    return {px[0], px[1], px[2]};
}

// A row of four spheres, ph pixels each, from panel row `row0`: sphere s seen along view(s) (the
// direction towards the viewer; right = (-v) x Y), each pixel shade(s, n, v) at its normal n, a
// dark grey background around them.
template <typename View, typename Shade>
void draw_spheres(PreviewImage& p, int row0, const View& view, const Shade& shade) {
    const int ph = p.panel_width / 2;
    const double background = 0.02 / p.exposure;
    for (int s = 0; s < 4; ++s) {
        const Vec3 v = view(s);
        const Vec3 right{v.z, 0, -v.x};
        for (int r = 0; r < ph; ++r)
            for (int c = 0; c < ph; ++c) {
                const double x = 2.0 * (c + 0.5) / ph - 1.0, y = 1.0 - 2.0 * (r + 0.5) / ph;
                const double r2 = x * x + y * y;
                Rgb out{background, background, background};
                if (r2 < 1.0) {
                    const double w = std::sqrt(1.0 - r2);
                    out = shade(s, Vec3{x * right.x + w * v.x, y, x * right.z + w * v.z}, v);
                }
                put_pixel(p, row0 + r, s * ph + c, out);
            }
    }
}

// The input resampled to a pw x ph lat-long: each source texel adds its value, weighted by its
// solid angle, to the preview pixel its centre falls in; empty pixels take the nearest texel.
std::vector<Rgb> resample_input(const Environment& env, int pw, int ph) {
    std::vector<Rgb> sum(static_cast<size_t>(pw) * ph, Rgb{0, 0, 0});
    std::vector<double> weight(sum.size(), 0.0);
    auto add = [&](int prow, int pcol, const float* v, double w) {
        const size_t i = static_cast<size_t>(prow) * pw + pcol;
        for (int c = 0; c < 3; ++c) sum[i][c] += w * v[c];
        weight[i] += w;
    };
    if (env.is_cube()) {
        const int n = env.cube.size;
        for (int f = 0; f < kCubeFaceCount; ++f)
            for (int r = 0; r < n; ++r)
                for (int c = 0; c < n; ++c) {
                    double u, v;
                    equirect_uv(cube_texel_direction(f, r, c, n), &u, &v);
                    add(std::min(static_cast<int>(v * ph), ph - 1), std::min(static_cast<int>(u * pw), pw - 1),
                        env.cube.faces[static_cast<size_t>(f)].at(r, c), cube_texel_solid_angle(r, c, n));
                }
    } else {
        // Same mapping: the texel centre's u, v are (col + 0.5)/W, (row + 0.5)/H. Packed texels
        // are expanded a row at a time.
        const int width = env.width(), height = env.height();
        std::vector<float> row_texels(env.is_packed() ? 3 * static_cast<size_t>(width) : 0);
        for (int r = 0; r < height; ++r) {
            const int prow = std::min(static_cast<int>((r + 0.5) / height * ph), ph - 1);
            const double w = equirect_row_solid_angle(r, width, height);
            if (env.is_packed()) expand_packed_row(env.packed, r, row_texels.data());
            const float* texels = env.is_packed() ? row_texels.data() : env.equirect.at(r, 0);
            for (int c = 0; c < width; ++c)
                add(prow, std::min(static_cast<int>((c + 0.5) / width * pw), pw - 1), texels + 3 * static_cast<size_t>(c), w);
        }
    }
    for (int r = 0; r < ph; ++r)
        for (int c = 0; c < pw; ++c) {
            const size_t i = static_cast<size_t>(r) * pw + c;
            if (weight[i] > 0) {
                for (double& v : sum[i]) v /= weight[i];
            } else {
                sum[i] = sample_nearest(env, equirect_texel_direction(r, c, pw, ph));
            }
        }
    return sum;
}

}  // namespace

std::uint8_t preview_tone_map(double linear, double exposure) {
    const double v = std::max(0.0, exposure * linear);
    if (!(v < INFINITY)) return 255;  // +inf; NaN was turned into 0 by max
    const double t = v / (1.0 + v);
    const double s = t <= 0.0031308 ? 12.92 * t : 1.055 * std::pow(t, 1.0 / 2.4) - 0.055;
    return static_cast<std::uint8_t>(std::clamp(std::lround(s * 255.0), 0L, 255L));
}

Rgb preview_diffuse(const ShCoefficients& irradiance, const Vec3& n) {
    Rgb out = eval_sh(irradiance, n);
    for (double& e : out) e /= kPi;
    return out;
}

Rgb preview_specular(const std::vector<CubeMap>& chain, const Image& dfg, double roughness, const Vec3& n, const Vec3& v) {
    const int levels = static_cast<int>(chain.size());
    const double level = roughness * (levels - 1);
    const int l0 = std::clamp(static_cast<int>(std::floor(level)), 0, levels - 1), l1 = std::min(levels - 1, l0 + 1);
    const double f = level - l0;
    const double nv = dot(n, v);
    const Vec3 refl{2 * nv * n.x - v.x, 2 * nv * n.y - v.y, 2 * nv * n.z - v.z};
    double a[3], b[3];
    sample_cube_bilinear(chain[l0], refl, a);
    sample_cube_bilinear(chain[l1], refl, b);
    const int trow = std::clamp(static_cast<int>(roughness * dfg.height), 0, dfg.height - 1);
    const int tcol = std::clamp(static_cast<int>(nv * dfg.width), 0, dfg.width - 1);
    const float* t = dfg.at(trow, tcol);
    Rgb out;
    for (int ch = 0; ch < 3; ++ch) out[ch] = ((1 - f) * a[ch] + f * b[ch]) * t[2];
    return out;
}

PreviewImage make_preview(const Environment& env, const ShCoefficients& irradiance, const PreviewOptions& options) {
    PreviewImage p;
    p.panel_width = std::max(2, options.panel_width + (options.panel_width & 1));
    const int pw = p.panel_width, ph = pw / 2;
    p.width = 2 * pw;
    p.height = (options.specular ? 3 : 2) * ph;
    p.rgb.assign(static_cast<size_t>(p.width) * p.height * 3, 0);

    p.exposure = options.exposure;
    if (!(p.exposure > 0)) {
        // Mean of E over the sphere is E_00 Y_00; the luminance of its E/pi sets the exposure.
        const Rgb& e0 = irradiance.rgb.at(0);
        const double mean = (0.2126 * e0[0] + 0.7152 * e0[1] + 0.0722 * e0[2]) * 0.282094791773878 / kPi;
        p.exposure = mean > 0 && std::isfinite(mean) ? 1.0 / mean : 1.0;
    }

    const std::vector<Rgb> input = resample_input(env, pw, ph);
    for (int r = 0; r < ph; ++r)
        for (int c = 0; c < pw; ++c) {
            put_pixel(p, r, c, input[static_cast<size_t>(r) * pw + c]);
            Rgb e = eval_sh(irradiance, equirect_texel_direction(r, c, pw, ph));
            for (double& v : e) v /= kPi;
            put_pixel(p, r, pw + c, e);
        }

    // Four spheres, seen from +Z, +X, -Z, -X: view direction v (towards the viewer), right = (-v) x Y.
    const Vec3 views[4] = {{0, 0, 1}, {1, 0, 0}, {0, 0, -1}, {-1, 0, 0}};
    draw_spheres(p, ph, [&](int s) { return views[s]; },
                 [&](int, const Vec3& n, const Vec3&) { return preview_diffuse(irradiance, n); });
    if (options.specular) {
        // Split-sum spheres from +Z at roughness 0, 1/3, 2/3, 1: the chain between its two
        // nearest levels in the mirror direction, times the DFG table's A + B.
        const std::vector<CubeMap>& chain = *options.specular;
        const Image dfg = compute_dfg_table(32, 1);
        draw_spheres(p, 2 * ph, [](int) { return Vec3{0, 0, 1}; },
                     [&](int s, const Vec3& n, const Vec3& v) { return preview_specular(chain, dfg, s / 3.0, n, v); });
    }
    return p;
}

namespace {

// An sRGB chunk (rendering intent 0, perceptual) after the IHDR chunk, which stb_image_write
// does not write: the preview is display-referred sRGB, and says so (issue 18 #16).
void insert_srgb_chunk(std::vector<unsigned char>& png) {
    constexpr std::size_t kAfterIhdr = 8 + 4 + 4 + 13 + 4;  // signature, then IHDR: length, type, data, CRC
    const unsigned char type_and_data[5] = {'s', 'R', 'G', 'B', 0};
    const uLong crc = crc32(crc32(0L, Z_NULL, 0), type_and_data, sizeof type_and_data);
    const unsigned char chunk[13] = {0, 0, 0, 1, 's', 'R', 'G', 'B', 0,
                                     static_cast<unsigned char>(crc >> 24), static_cast<unsigned char>(crc >> 16),
                                     static_cast<unsigned char>(crc >> 8), static_cast<unsigned char>(crc)};
    png.insert(png.begin() + static_cast<std::ptrdiff_t>(kAfterIhdr), chunk, chunk + sizeof chunk);
}

}  // namespace

void write_preview_png(const std::string& path, const PreviewImage& preview) {
    std::vector<unsigned char> png;
    auto sink = [](void* context, void* data, int size) {
        auto* out = static_cast<std::vector<unsigned char>*>(context);
        out->insert(out->end(), static_cast<unsigned char*>(data), static_cast<unsigned char*>(data) + size);
    };
    if (!stbi_write_png_to_func(sink, &png, preview.width, preview.height, 3, preview.rgb.data(), preview.width * 3))
        throw OutputError(path + ": PNG encoding failed");
    insert_srgb_chunk(png);
    write_atomically(path, [&](const std::string& tmp) {
        std::ofstream out(tmp, std::ios::binary);
        out.write(reinterpret_cast<const char*>(png.data()), static_cast<std::streamsize>(png.size()));
        out.close();  // errors can surface only when the file is closed
        if (out.fail()) throw OutputError(path + ": cannot write");
    });
}

}  // namespace bake
