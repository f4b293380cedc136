#include "specular_prefilter.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <future>
#include <stdexcept>
#include <string>

#include "charlie.h"
#include "equirect.h"
#include "ggx.h"
#include "horizon_ring.h"
#include "parallel.h"
#include "specular_source.h"
#include "stage_progress.h"
#include "stopwatch.h"

namespace bake {

namespace {

bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

int next_power_of_two(int n) {
    int p = 1;
    while (p < n) p *= 2;
    return p;
}

// d(Ω)/d(s,t) of a face at face coordinates (s, t): 1 / (1 + s² + t²)^(3/2).
double face_jacobian(double s, double t) {
    const double r2 = 1.0 + s * s + t * t;
    return 1.0 / (r2 * std::sqrt(r2));
}

// Node i (of 2k) of the two-point Gauss-Legendre rule on k equal parts of [0, 1].
double gauss_node(int i, int k) {
    constexpr double kOffset = 0.21132486540518711775;  // (1 - 1/sqrt(3)) / 2
    return (i / 2 + (i % 2 ? 1.0 - kOffset : kOffset)) / k;
}

}  // namespace

const char* specular_lobe_name(SpecularLobe lobe) { return lobe == SpecularLobe::Charlie ? "Charlie" : "GGX"; }

// W(c) = max(0, c)·D(h) for c = n·l: n·h = sqrt((1 + c) / 2) since h bisects n and l.
double specular_lobe_weight(double c, double one_minus_c, double alpha, SpecularLobe lobe) {
    if (lobe == SpecularLobe::Charlie) return charlie_lobe(c, one_minus_c, alpha);
    if (c <= 0) return 0;
    return c * ggx_d(std::sqrt(0.5 * (1.0 + c)), alpha);
}

void sample_cube_bilinear(const CubeMap& m, const Vec3& d, double out[3]) {
    int face;
    double sc, tc;
    cube_face_coords(d, &face, &sc, &tc);
    const int n = m.size;
    const double x = (sc + 1.0) * 0.5 * n - 0.5, y = (tc + 1.0) * 0.5 * n - 0.5;
    const int x0 = static_cast<int>(std::floor(x)), y0 = static_cast<int>(std::floor(y));
    const double fx = x - x0, fy = y - y0;
    double tap[4][3];
    int corner = -1;
    for (int k = 0; k < 4; ++k) {
        const int i = k & 1, j = k >> 1;
        int tface = face, col = x0 + i, row = y0 + j;
        const bool out_x = col < 0 || col >= n, out_y = row < 0 || row >= n;
        if (out_x && out_y) {  // beyond a cube corner: no such texel
            corner = k;
            continue;
        }
        if (out_x || out_y) {
            // Seamless, as GL_TEXTURE_CUBE_MAP_SEAMLESS: a tap beyond an edge is the texel of the
            // neighbouring face its centre's direction falls in.
            double s2, t2;
            cube_face_coords(cube_face_direction(face, 2.0 * (col + 0.5) / n - 1.0, 2.0 * (row + 0.5) / n - 1.0), &tface,
                             &s2, &t2);
            col = std::min(n - 1, std::max(0, static_cast<int>((s2 + 1.0) * 0.5 * n)));
            row = std::min(n - 1, std::max(0, static_cast<int>((t2 + 1.0) * 0.5 * n)));
        }
        const float* t = m.faces[tface].at(row, col);
        for (int ch = 0; ch < 3; ++ch) tap[k][ch] = t[ch];
    }
    // The GL specification's recommended corner texel: the mean of the three that meet there.
    if (corner >= 0)
        for (int ch = 0; ch < 3; ++ch) {
            double sum = 0;
            for (int k = 0; k < 4; ++k)
                if (k != corner) sum += tap[k][ch];
            tap[corner][ch] = sum / 3.0;
        }
    for (int ch = 0; ch < 3; ++ch)
        out[ch] = (1 - fy) * ((1 - fx) * tap[0][ch] + fx * tap[1][ch]) + fy * ((1 - fx) * tap[2][ch] + fx * tap[3][ch]);
}

int default_specular_source_size(const Environment& env, int base_size) {
    if (!env.is_cube()) return default_specular_source_size(env.width(), base_size);
    return std::min(2 * base_size, std::max(base_size, next_power_of_two(env.cube.size)));
}

int default_specular_source_size(int equirect_width, int base_size) {
    const int face = std::max(1, equirect_width / 4);
    return std::min(2 * base_size, std::max(base_size, next_power_of_two(face)));
}

CubeMap make_specular_source(const Environment& env, int size, int threads) {
    CubeMap full, capped;
    area_average_cube(env, size, LuminanceCap{}, &full, &capped, threads);
    return full;
}

// Rows on all cores (at 512² they took 30 ms on one; the values do not depend on the thread count).
std::vector<double> face_solid_angles(int n, int threads) {
    std::vector<double> out(static_cast<std::size_t>(n) * n);
    parallel_for(n, resolve_threads(threads, n), [&](int r) {
        for (int c = 0; c < n; ++c) out[static_cast<std::size_t>(r) * n + c] = cube_texel_solid_angle(r, c, n);
    });
    return out;
}

std::vector<CubeMap> cube_mip_chain(CubeMap base, int threads) {
    if (!is_power_of_two(base.size)) throw std::invalid_argument("cube_mip_chain: face size is not a power of two");
    std::vector<CubeMap> chain;
    chain.push_back(std::move(base));
    while (chain.back().size > 1) {
        const CubeMap& fine = chain.back();
        const std::vector<double> omega = face_solid_angles(fine.size, threads);
        CubeMap coarse(fine.size / 2);
        const int n = coarse.size;
        parallel_for(6 * n, resolve_threads(threads, 6 * n), [&](int task) {
            const int face = task / n, row = task % n;
            for (int col = 0; col < n; ++col) {
                double sum[3] = {0, 0, 0}, weight = 0;
                for (int i = 0; i < 2; ++i)
                    for (int j = 0; j < 2; ++j) {
                        const int r = 2 * row + i, c = 2 * col + j;
                        const double w = omega[static_cast<std::size_t>(r) * fine.size + c];
                        const float* t = fine.faces[face].at(r, c);
                        for (int ch = 0; ch < 3; ++ch) sum[ch] += w * t[ch];
                        weight += w;
                    }
                float* o = coarse.faces[face].at(row, col);
                for (int ch = 0; ch < 3; ++ch) o[ch] = static_cast<float>(sum[ch] / weight);
            }
        });
        chain.push_back(std::move(coarse));
    }
    return chain;
}

CubeMap specular_level_zero(const std::vector<CubeMap>& source_mips, int base_size) {
    for (const CubeMap& m : source_mips)
        if (m.size == base_size) return m;
    const CubeMap& src = source_mips.front();
    if (src.size > base_size) throw std::invalid_argument("specular_level_zero: no mip of the base size");
    CubeMap out(base_size);
    const int f = base_size / src.size;  // both powers of two
    for (int face = 0; face < 6; ++face)
        for (int row = 0; row < base_size; ++row)
            for (int col = 0; col < base_size; ++col)
                std::copy_n(src.faces[face].at(row / f, col / f), 3, out.faces[face].at(row, col));
    return out;
}

int specular_level_samples(int samples, int level) {
    long long n = samples;
    for (int i = 1; i < level && n < kMaxSpecularSamples; ++i) n *= 4;
    return static_cast<int>(std::min<long long>(n, kMaxSpecularSamples));
}

std::vector<SpecularSample> specular_sample_set(double roughness, int samples, int source_size, double lod_bias,
                                                SpecularLobe lobe) {
    const double alpha = roughness * roughness;
    const double texel_solid_angle = 4.0 * kPi / (6.0 * source_size * source_size);
    std::vector<SpecularSample> out;
    if (alpha <= 0 && lobe == SpecularLobe::Charlie) {
        // The horizon circle, evenly: each sample stands for a square of its spacing on a side.
        const double spacing = 2.0 * kPi / samples;
        const float lod = static_cast<float>(std::max(0.0, 0.5 * std::log2(spacing * spacing / texel_solid_angle) + lod_bias));
        for (int j = 0; j < samples; ++j) {
            const double phi = spacing * (j + 0.5);
            out.push_back({static_cast<float>(std::cos(phi)), static_cast<float>(std::sin(phi)), kHorizonSampleZ, lod});
        }
    } else if (alpha <= 0) {
        return {{0.f, 0.f, 1.f, 0.f}};
    }
    for (int i = 0; i < samples && alpha > 0; ++i) {
        double u1, u2;
        hammersley(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(samples), &u1, &u2);
        Vec3 l;
        double pdf;
        if (lobe == SpecularLobe::Charlie) {
            l = sample_charlie_lobe(u1, u2, alpha, &pdf);
        } else {
            const Vec3 h = sample_ggx_ndf(u1, u2, alpha);
            l = reflect_about({0, 0, 1}, h);
            pdf = ggx_d(h.z, alpha) / 4.0;  // D(h)·(n·h) / (4 v·h), v = n
        }
        if (l.z <= 0) continue;
        const double sample_solid_angle = 1.0 / (samples * pdf);
        const double lod = std::max(0.0, 0.5 * std::log2(sample_solid_angle / texel_solid_angle) + lod_bias);
        out.push_back({static_cast<float>(l.x), static_cast<float>(l.y), static_cast<float>(l.z), static_cast<float>(lod)});
    }
    // Along a Morton curve of (x, y) on a 1024 x 1024 grid: the GPU's work group takes consecutive
    // samples at once (shaders/specular_prefilter.comp), which then read nearby texels. In
    // Hammersley order they lie around the lobe, and the levels took 8.6 ms instead of 6.0 for a
    // 4k input on the H200 (bench/NOTES.md). The sums are the same up to their rounding.
    auto morton = [](const SpecularSample& s) {
        auto spread = [](std::uint32_t v) {  // the 10 bits of v to the even bits
            v &= 0x3ffu;
            v = (v | (v << 8)) & 0x00ff00ffu;
            v = (v | (v << 4)) & 0x0f0f0f0fu;
            v = (v | (v << 2)) & 0x33333333u;
            return (v | (v << 1)) & 0x55555555u;
        };
        auto cell = [](float c) { return static_cast<std::uint32_t>(std::min(1023.0f, std::max(0.0f, (c + 1.0f) * 512.0f))); };
        return (spread(cell(s.x)) << 1) | spread(cell(s.y));
    };
    std::stable_sort(out.begin(), out.end(), [&](const SpecularSample& a, const SpecularSample& b) { return morton(a) < morton(b); });
    return out;
}

BrightSplit split_specular_bright(const Environment& env, int threads, double bright_factor, int max_bright) {
    BrightSplit split;
    const Stopwatch watch;
    split.texels = split_bright_texels(env, bright_factor, max_bright, &split.cap, threads);
    split.ms = watch.ms();
    return split;
}

SpecularInput prepare_specular_input(const Environment& env, int source_size, int threads, double bright_factor,
                                     int max_bright, const BrightSplit* split) {
    return prepare_specular_input(
        env, source_size,
        [threads](const Environment& e, int size, const LuminanceCap& cap, CubeMap* full, CubeMap* capped) {
            area_average_cube(e, size, cap, full, capped, threads);
        },
        "cpu", threads, bright_factor, max_bright, {}, split);
}

SpecularInput prepare_specular_input(const Environment& env, int source_size, const SpecularAverage& average,
                                     const std::string& average_by, int threads, double bright_factor, int max_bright,
                                     const std::function<void()>& alongside_split, const BrightSplit* split) {
    SpecularInput in;
    BrightSplit made;
    if (split) {
        if (alongside_split) alongside_split();
        in.split_given = true;
    } else if (alongside_split) {
        auto running = std::async(std::launch::async, [&] { return split_specular_bright(env, threads, bright_factor, max_bright); });
        try {
            alongside_split();
        } catch (...) {
            running.wait();
            throw;
        }
        made = running.get();
        split = &made;
    } else {
        made = split_specular_bright(env, threads, bright_factor, max_bright);
        split = &made;
    }
    in.bright = split->texels;
    in.split_ms = split->ms;
    in.threshold = split->cap.threshold;
    in.bright_equirect = !env.is_cube();
    in.bright_width = env.width();
    in.bright_height = env.height();
    in.size = source_size;
    CubeMap full, capped;
    const Stopwatch average_watch;
    average(env, source_size, split->cap, &full, &capped);
    in.average_ms = average_watch.ms();
    in.average_by = average_by;
    if (full.size == 0) return in;  // kept by `average` (resident)
    const Stopwatch mips_watch;
    in.mips = cube_mip_chain(std::move(full), threads);
    in.capped_mips = capped.size > 0 ? cube_mip_chain(std::move(capped), threads) : in.mips;
    in.mips_ms = mips_watch.ms();
    return in;
}

SpecularInput prepare_specular_input(const CubeMap& source, int threads, double bright_factor, int max_bright) {
    Environment env;
    env.layout = Layout::Faces;
    env.cube = source;
    return prepare_specular_input(env, source.size, threads, bright_factor, max_bright);
}

double specular_lobe_integral(double alpha, SpecularLobe lobe) {
    if (lobe == SpecularLobe::Charlie) return charlie_lobe_integral(alpha);
    // In theta the integrand is smooth at the scale of alpha: steps of alpha/200 at most.
    const int steps = 2 * static_cast<int>(std::ceil(0.5 * std::max(2000.0, 0.5 * kPi / (alpha / 200.0))));
    const double h = 0.5 * kPi / steps;
    double sum = 0;
    for (int i = 0; i <= steps; ++i) {
        const double theta = i * h, c = std::cos(theta);
        const double w = (i == 0 || i == steps) ? 1 : (i % 2 ? 4 : 2);
        sum += w * specular_lobe_weight(c, 1.0 - c, alpha) * std::sin(theta);
    }
    return 2.0 * kPi * sum * h / 3.0;
}

int specular_bright_subdivision(double roughness, double extent, SpecularLobe lobe) {
    const double alpha = roughness * roughness;
    if (!(alpha > 0)) return 8;
    const double part = lobe == SpecularLobe::Charlie ? std::min(kBrightPartExtent, kCharlieBrightPartAlphas * alpha) : kBrightPartExtent;
    const double k = std::max(8.0 * extent / (2.0 * alpha), extent / part);
    return std::min(8, std::max(1, static_cast<int>(std::ceil(k))));
}

namespace {

// A part of a bright texel: direction, solid angle, the texel's excess.
void push_part(std::vector<float>& out, const Vec3& d, double omega, const float* excess) {
    const float part[8] = {static_cast<float>(d.x), static_cast<float>(d.y), static_cast<float>(d.z), static_cast<float>(omega),
                           excess[0], excess[1], excess[2], 0.0f};
    out.insert(out.end(), part, part + 8);
}

// A cube texel of an n-face: two-point Gauss-Legendre nodes on k x k parts (as the reference),
// solid angles from the face Jacobian, rescaled to the texel's exact solid angle.
void cube_texel_parts(const BrightTexel& b, int n, double roughness, SpecularLobe lobe, std::vector<float>& out) {
    const double omega = cube_texel_solid_angle(b.row, b.col, n);
    const int k = specular_bright_subdivision(roughness, std::sqrt(omega), lobe), m = 2 * k;
    double jac[256], jsum = 0;
    Vec3 dirs[256];
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) {
            const double sc = 2.0 * (b.col + gauss_node(j, k)) / n - 1.0, tc = 2.0 * (b.row + gauss_node(i, k)) / n - 1.0;
            jac[i * m + j] = face_jacobian(sc, tc);
            dirs[i * m + j] = normalize(cube_face_direction(b.face, sc, tc));
            jsum += jac[i * m + j];
        }
    for (int p = 0; p < m * m; ++p) push_part(out, dirs[p], omega * jac[p] / jsum, b.excess);
}

// A lat-long texel of a w x h input: k x k equal parts in (φ, h = cos θ), where the area element
// is dφ dh, so every node of the two-point rule weighs the same, the texel's exact solid angle / 4k².
void equirect_texel_parts(const BrightTexel& b, int w, int h, double roughness, SpecularLobe lobe, std::vector<float>& out) {
    const double h0 = std::cos(kPi * b.row / h), h1 = std::cos(kPi * (b.row + 1) / h);
    const double extent = std::max(kPi / h, 2.0 * kPi / w * std::max(std::sin(kPi * b.row / h), std::sin(kPi * (b.row + 1) / h)));
    const int k = specular_bright_subdivision(roughness, extent, lobe), m = 2 * k;
    const double omega = equirect_row_solid_angle(b.row, w, h) / (m * m);
    for (int i = 0; i < m; ++i) {
        const double y = h0 + (h1 - h0) * gauss_node(i, k), r = std::sqrt(std::max(0.0, 1.0 - y * y));
        for (int j = 0; j < m; ++j) {
            const double phi = -kPi + 2.0 * kPi * (b.col + gauss_node(j, k)) / w;
            push_part(out, {r * std::cos(phi), y, r * std::sin(phi)}, omega, b.excess);
        }
    }
}

}  // namespace

std::vector<float> specular_bright_parts(const SpecularInput& input, double roughness, SpecularLobe lobe) {
    std::vector<float> out;
    if (lobe == SpecularLobe::Charlie && !(roughness > 0)) return out;  // HorizonBright's
    for (const BrightTexel& b : input.bright) {
        if (input.bright_equirect) equirect_texel_parts(b, input.bright_width, input.bright_height, roughness, lobe, out);
        else cube_texel_parts(b, input.bright_width, roughness, lobe, out);
    }
    return out;
}

int SpecularSettings::levels() const { return specular_level_count(base_size) - specular_level_count(last_size) + 1; }

void SpecularSettings::set_levels(int count) {
    const int full = specular_level_count(base_size);
    if (count < 1 || count > full)
        throw std::invalid_argument("a chain of base " + std::to_string(base_size) + " has 1 to " + std::to_string(full) +
                                    " levels, not " + std::to_string(count));
    last_size = base_size >> (count - 1);
}

void SpecularSettings::set_min_size(int size) {
    if (!is_power_of_two(size) || size > base_size)
        throw std::invalid_argument("the last level's faces must be a power of two up to the base size " +
                                    std::to_string(base_size) + ", not " + std::to_string(size));
    last_size = size;
}

std::vector<CubeMap> prefilter_specular_sampled(const SpecularInput& input, const SpecularSettings& settings, int threads) {
    const std::vector<CubeMap>& mips = input.capped_mips;
    const int levels = settings.levels();
    const int last_mip = static_cast<int>(mips.size()) - 1;
    const SpecularLobe lobe = settings.lobe;
    // GGX's level 0 is the source's area average; Charlie's the mean on the horizon circle, estimated.
    const bool charlie = lobe == SpecularLobe::Charlie;
    const HorizonBright horizon(charlie ? input.bright : std::vector<BrightTexel>{}, input.bright_equirect, input.bright_width,
                                input.bright_height);
    std::vector<CubeMap> chain;
    if (!charlie) chain.push_back(specular_level_zero(input.mips, settings.base_size));
    for (int level = charlie ? 0 : 1; level < levels; ++level) {
        const int n = settings.base_size >> level;
        const double roughness = specular_level_roughness(level, levels), alpha = roughness * roughness;
        const auto set = specular_sample_set(roughness, specular_level_samples(settings.samples, level), mips[0].size,
                                             settings.lod_bias, lobe);
        double weight = 0;
        for (const SpecularSample& s : set) weight += s.z;
        const std::vector<float> parts = specular_bright_parts(input, roughness, lobe);
        const double inv_lobe = level > 0 ? 1.0 / specular_lobe_integral(alpha, lobe) : 0.0;
        CubeMap m(n);
        const long long row_units = std::max(1LL, kSpecularProgressUnits / (6LL * n));
        parallel_for(6 * n, resolve_threads(threads, 6 * n), [&](int task) {
            stage_progress::advance(row_units);  // a stop asked for ends the level here
            const int face = task / n, row = task % n;
            for (int col = 0; col < n; ++col) {
                const Vec3 nd = cube_texel_direction(face, row, col, n);
                // The shader's frame: t = normalize(cross(up, n)), b = cross(n, t).
                const Vec3 up = std::fabs(nd.y) < 0.999 ? Vec3{0, 1, 0} : Vec3{1, 0, 0};
                const Vec3 t = normalize({up.y * nd.z - up.z * nd.y, up.z * nd.x - up.x * nd.z, up.x * nd.y - up.y * nd.x});
                const Vec3 b = {nd.y * t.z - nd.z * t.y, nd.z * t.x - nd.x * t.z, nd.x * t.y - nd.y * t.x};
                double sum[3] = {0, 0, 0};
                for (const SpecularSample& s : set) {
                    const Vec3 l = {s.x * t.x + s.y * b.x + s.z * nd.x, s.x * t.y + s.y * b.y + s.z * nd.y,
                                    s.x * t.z + s.y * b.z + s.z * nd.z};
                    const double lod = std::min<double>(s.lod, last_mip);
                    const int l0 = static_cast<int>(lod), l1 = std::min(last_mip, l0 + 1);
                    const double f = lod - l0;
                    double a[3], c[3];
                    sample_cube_bilinear(mips[l0], l, a);
                    if (f > 0) sample_cube_bilinear(mips[l1], l, c);
                    for (int ch = 0; ch < 3; ++ch) sum[ch] += s.z * (f > 0 ? (1 - f) * a[ch] + f * c[ch] : a[ch]);
                }
                double bright[3] = {0, 0, 0};
                for (std::size_t p = 0; p < parts.size(); p += 8) {
                    const Vec3 d = {nd.x - parts[p], nd.y - parts[p + 1], nd.z - parts[p + 2]};
                    const double w = parts[p + 3] * specular_lobe_weight(nd.x * parts[p] + nd.y * parts[p + 1] + nd.z * parts[p + 2],
                                                                         0.5 * dot(d, d), alpha, lobe);
                    for (int ch = 0; ch < 3; ++ch) bright[ch] += w * parts[p + 4 + ch];
                }
                double ring[3] = {0, 0, 0};  // Charlie's level 0: the bright texels on the horizon circle
                if (charlie && level == 0) horizon.add(nd, ring);
                float* o = m.faces[face].at(row, col);
                for (int ch = 0; ch < 3; ++ch) {
                    double v = sum[ch] / weight + bright[ch] * inv_lobe;
                    if (charlie && level == 0) v += ring[ch];
                    o[ch] = static_cast<float>(v);
                }
            }
        });
        chain.push_back(std::move(m));
    }
    return chain;
}

namespace {

// Charlie's roughness 0: every texel the circle crosses, weighted by the length inside it.
void horizon_mean_at(const CubeMap& source, const Vec3& n, double out[3]) {
    const int size = source.size;
    double sum[3] = {0, 0, 0}, weight = 0;
    for (int face = 0; face < 6; ++face)
        for (int row = 0; row < size; ++row)
            for (int col = 0; col < size; ++col) {
                // A texel's points lie within about its side of its centre (1.08 sqrt(Ω) on the sphere).
                const double reach = 1.5 * std::sqrt(cube_texel_solid_angle(row, col, size));
                if (std::fabs(dot(n, cube_texel_direction(face, row, col, size))) > reach) continue;
                const double arc = horizon_arc_in_cube_texel(n, face, row, col, size);
                if (arc <= 0) continue;
                const float* t = source.faces[face].at(row, col);
                for (int ch = 0; ch < 3; ++ch) sum[ch] += arc * t[ch];
                weight += arc;
            }
    for (int ch = 0; ch < 3; ++ch) out[ch] = sum[ch] / weight;
}

}  // namespace

void prefilter_specular_at(const CubeMap& source, const Vec3& n, double roughness, double out[3], SpecularLobe lobe) {
    const int size = source.size;
    const bool charlie = lobe == SpecularLobe::Charlie;
    if (roughness <= 0 && charlie) return horizon_mean_at(source, n, out);
    if (roughness <= 0) {
        int face;
        double sc, tc;
        cube_face_coords(n, &face, &sc, &tc);
        const int col = std::min(size - 1, std::max(0, static_cast<int>((sc + 1.0) * 0.5 * size)));
        const int row = std::min(size - 1, std::max(0, static_cast<int>((tc + 1.0) * 0.5 * size)));
        const float* t = source.faces[face].at(row, col);
        for (int ch = 0; ch < 3; ++ch) out[ch] = t[ch];
        return;
    }
    const double alpha = roughness * roughness, horizon_slope = ggx_d(std::sqrt(0.5), alpha);
    // Charlie's kink at the horizon is its ring's foot: parts there of kCharlieHorizonAlphas · alpha at most.
    constexpr double kCharlieHorizonAlphas = 1.0 / 16.0;
    double sum[3] = {0, 0, 0}, weight = 0;
    for (int face = 0; face < 6; ++face)
        for (int row = 0; row < size; ++row)
            for (int col = 0; col < size; ++col) {
                const Vec3 d = cube_texel_direction(face, row, col, size);
                const double omega = cube_texel_solid_angle(row, col, size);
                const double extent = std::sqrt(omega);  // the texel's angular size
                const double c = dot(n, d);
                if (c <= -extent) continue;  // wholly behind n's horizon
                // W varies on the scale of the lobe (~2 alpha in l) near its centre and of theta/4
                // in its power-law tail (D ~ alpha² / theta⁴ there).
                const double theta = std::acos(std::min(1.0, std::max(-1.0, c)));
                // Charlie's lobe falls off from its ring as exp(-(angle above the horizon) / (2 alpha)).
                const double scale = charlie ? 2.0 * alpha : std::max(2.0 * alpha, 0.25 * theta);
                int k = std::min(32, std::max(1, static_cast<int>(std::ceil(8.0 * extent / scale))));
                // W has a kink at the horizon (W = 0 behind it, slope D(h) at 45° in front), which the
                // rule below takes for smooth: a texel across it is cut into parts of at most
                // 0.01 rad scaled by π·D there (1 at roughness 1, 0.2 at 0.5, ~0 below), at most 32
                // (2 x 2 nodes on 0.1 rad texels erred 1e-3 at roughness 1, 0.01 rad parts ~1e-4;
                // texels of 6 x 512² are smaller than that: no cost at the default sizes).
                if (std::fabs(c) < extent && charlie)
                    k = std::max(k, std::min(32, static_cast<int>(std::ceil(extent / std::min(0.01, kCharlieHorizonAlphas * alpha)))));
                else if (std::fabs(c) < extent)
                    k = std::max(k, std::min(32, static_cast<int>(std::ceil(extent / 0.01 * std::min(1.0, kPi * horizon_slope)))));
                // Two-point Gauss-Legendre in s and t over each of k x k parts (fourth order: the
                // midpoint rule's second-order error is a bias of ~(part / scale)² / 24 on the
                // convex tail), point solid angles from the face Jacobian, rescaled to the texel's
                // exact solid angle.
                double wj = 0, wsum = 0;
                for (int i = 0; i < 2 * k; ++i)
                    for (int j = 0; j < 2 * k; ++j) {
                        const double sc = 2.0 * (col + gauss_node(j, k)) / size - 1.0;
                        const double tc = 2.0 * (row + gauss_node(i, k)) / size - 1.0;
                        const double jac = face_jacobian(sc, tc);
                        const Vec3 l = normalize(cube_face_direction(face, sc, tc));
                        const Vec3 nl = {n.x - l.x, n.y - l.y, n.z - l.z};
                        wj += jac;
                        wsum += jac * specular_lobe_weight(dot(n, l), 0.5 * dot(nl, nl), alpha, lobe);
                    }
                const double w_texel = omega * wsum / wj;
                if (w_texel == 0) continue;
                const float* t = source.faces[face].at(row, col);
                for (int ch = 0; ch < 3; ++ch) sum[ch] += w_texel * t[ch];
                weight += w_texel;
            }
    for (int ch = 0; ch < 3; ++ch) out[ch] = sum[ch] / weight;
}

std::vector<CubeMap> prefilter_specular_cpu(const CubeMap& source, int base_size, int threads, SpecularLobe lobe) {
    const int levels = specular_level_count(base_size);
    std::vector<CubeMap> chain;
    const bool charlie = lobe == SpecularLobe::Charlie;
    if (!charlie) chain.push_back(specular_level_zero(cube_mip_chain(source, threads), base_size));
    for (int level = charlie ? 0 : 1; level < levels; ++level) {
        const int n = base_size >> level;
        const double roughness = specular_level_roughness(level, levels);
        CubeMap m(n);
        parallel_for(6 * n * n, resolve_threads(threads, 6 * n * n), [&](int task) {
            const int face = task / (n * n), row = task / n % n, col = task % n;
            double v[3];
            prefilter_specular_at(source, cube_texel_direction(face, row, col, n), roughness, v, lobe);
            float* o = m.faces[face].at(row, col);
            for (int ch = 0; ch < 3; ++ch) o[ch] = static_cast<float>(v[ch]);
        });
        chain.push_back(std::move(m));
    }
    return chain;
}

SpecularLevelDifference compare_specular_values(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) throw std::invalid_argument("compare_specular_values: different sizes");
    double max_ref = 0, max_diff = 0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        max_ref = std::max(max_ref, std::fabs(static_cast<double>(b[i])));
        max_diff = std::max(max_diff, std::fabs(static_cast<double>(a[i]) - b[i]));
    }
    double rel_sum = 0;
    long long counted = 0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        const double ref = std::fabs(static_cast<double>(b[i]));
        if (ref <= 1e-3 * max_ref) continue;
        rel_sum += std::fabs(static_cast<double>(a[i]) - b[i]) / ref;
        ++counted;
    }
    SpecularLevelDifference d;
    d.max_rel_to_max = max_ref > 0 ? max_diff / max_ref : max_diff;
    d.mean_rel = counted ? rel_sum / counted : 0;
    return d;
}

std::vector<SpecularLevelDifference> compare_specular_chains(const std::vector<CubeMap>& a, const std::vector<CubeMap>& b) {
    if (a.size() != b.size()) throw std::invalid_argument("compare_specular_chains: different level counts");
    std::vector<SpecularLevelDifference> out;
    const int levels = static_cast<int>(a.size());
    for (int level = 0; level < levels; ++level) {
        if (a[level].size != b[level].size) throw std::invalid_argument("compare_specular_chains: different level sizes");
        std::vector<float> x, y;
        for (int f = 0; f < 6; ++f) {
            x.insert(x.end(), a[level].faces[f].rgb.begin(), a[level].faces[f].rgb.end());
            y.insert(y.end(), b[level].faces[f].rgb.begin(), b[level].faces[f].rgb.end());
        }
        SpecularLevelDifference d = compare_specular_values(x, y);
        d.level = level;
        d.roughness = specular_level_roughness(level, levels);
        out.push_back(d);
    }
    return out;
}

}  // namespace bake
