// The Charlie (sheen) chain: the lobe's maths, the horizon circle's arcs, and every level against a
// brute force over the input's own texels (as tests/test_specular_energy.cpp checks the GGX chain).
// What is integrated: P(n) = ∫ L(l) W(n, l) dl / ∫ W(n, l) dl, W = max(0, n·l)·D(h), h = normalize(n + l),
// D = (2 + 1/alpha) sin(θh)^(1/alpha) / (2π), alpha = roughness²: the lobe about N under N = V = R (the
// glTF sample viewer's). The brute force below evaluates D from the half vector as written (not the
// core's form in n·l), and level 0 (the lobe's limit, the mean on n's horizon circle) by walking the
// circle in 2^20 steps and reading the texel under each (not the core's arc lengths).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include "charlie.h"
#include "gpu_specular.h"
#include "gpu_specular_source.h"
#include "gpu_test_support.h"
#include "horizon_ring.h"
#include "parallel.h"
#include "specular_prefilter.h"
#include "test_support.h"

using namespace bake;
using namespace bake::test;

namespace {

constexpr double kGauss = 0.21132486540518711775;  // (1 - 1/sqrt(3)) / 2

double gauss_node(int i, int k) { return (i / 2 + (i % 2 ? 1 - kGauss : kGauss)) / k; }

// W(n, l) with D from the half vector, as the formula reads.
double charlie_w(const Vec3& n, const Vec3& l, double alpha) {
    const double c = dot(n, l);
    if (c <= 0) return 0;
    const Vec3 h = normalize({n.x + l.x, n.y + l.y, n.z + l.z});
    const double nh = dot(n, h), sin2 = std::max(0.0, 1 - nh * nh);
    return c * (2 + 1 / alpha) * std::pow(sin2, 0.5 / alpha) / (2 * test::kPi);
}

// Calls fn(rgb, node direction, node solid angle) for a texel cut into k x k parts, 2 x 2
// Gauss-Legendre nodes each: lat-long parts equal in (φ, cos θ), where the area element is flat;
// cube parts weighted by the face Jacobian, rescaled to the texel's exact solid angle.
template <typename Fn>
void texel_nodes(const Environment& env, int face, int row, int col, int k, const Fn& fn) {
    const int m = 2 * k;
    if (!env.is_cube()) {
        const int w = env.equirect.width, h = env.equirect.height;
        const double h0 = std::cos(test::kPi * row / h), h1 = std::cos(test::kPi * (row + 1) / h);
        const double omega = equirect_row_solid_angle(row, w, h) / (m * m);
        std::vector<double> cos_phi(static_cast<std::size_t>(m)), sin_phi(cos_phi.size());
        for (int j = 0; j < m; ++j) {
            const double phi = -test::kPi + 2 * test::kPi * (col + gauss_node(j, k)) / w;
            cos_phi[static_cast<std::size_t>(j)] = std::cos(phi);
            sin_phi[static_cast<std::size_t>(j)] = std::sin(phi);
        }
        for (int i = 0; i < m; ++i) {
            const double y = h0 + (h1 - h0) * gauss_node(i, k), r = std::sqrt(std::max(0.0, 1 - y * y));
            for (std::size_t j = 0; j < cos_phi.size(); ++j) fn(env.equirect.at(row, col), Vec3{r * cos_phi[j], y, r * sin_phi[j]}, omega);
        }
        return;
    }
    const int n = env.cube.size;
    std::vector<std::pair<Vec3, double>> nodes;
    double jsum = 0;
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) {
            const double s = 2 * (col + gauss_node(j, k)) / n - 1, t = 2 * (row + gauss_node(i, k)) / n - 1;
            const double r2 = 1 + s * s + t * t, jac = 1 / (r2 * std::sqrt(r2));
            nodes.emplace_back(normalize(cube_face_direction(face, s, t)), jac);
            jsum += jac;
        }
    const double omega = cube_texel_solid_angle(row, col, n);
    for (const auto& [d, jac] : nodes) fn(env.cube.faces[static_cast<std::size_t>(face)].at(row, col), d, omega * jac / jsum);
}

// P(n) over the input's texels. A texel is cut where W varies within it: on the lobe's scale (it
// falls off as exp(-angle above the horizon / (2 alpha))) and, across n's horizon, where W has a
// kink at the foot of its peak, in parts of alpha / 8 or 0.02 rad (parts of alpha / 40 or 0.002 rad
// move no value by 5e-5 of the level's max).
Rgb brute_force(const Environment& env, const Vec3& n, double roughness) {
    const double alpha = roughness * roughness;
    double sum[3] = {0, 0, 0}, weight = 0;
    auto texel = [&](int face, int row, int col, const Vec3& centre, double side) {
        const double c = dot(n, centre);
        if (c < -side) return;
        int k = std::min(48, std::max(1, static_cast<int>(std::ceil(8 * side / (2 * alpha)))));
        if (std::fabs(c) < side) k = std::max(k, std::min(48, static_cast<int>(std::ceil(side / std::min(0.02, alpha / 8)))));
        texel_nodes(env, face, row, col, k, [&](const float* rgb, const Vec3& d, double omega) {
            const double w = omega * charlie_w(n, d, alpha);
            for (int ch = 0; ch < 3; ++ch) sum[ch] += w * rgb[ch];
            weight += w;
        });
    };
    if (env.is_cube()) {
        const int s = env.cube.size;
        for (int f = 0; f < 6; ++f)
            for (int r = 0; r < s; ++r)
                for (int c = 0; c < s; ++c) texel(f, r, c, cube_texel_direction(f, r, c, s), 1.5 * std::sqrt(cube_texel_solid_angle(r, c, s)));
    } else {
        const int w = env.equirect.width, h = env.equirect.height;
        for (int r = 0; r < h; ++r) {
            const double side = std::max(test::kPi / h, 2 * test::kPi / w * std::max(std::sin(test::kPi * r / h), std::sin(test::kPi * (r + 1) / h)));
            for (int c = 0; c < w; ++c) texel(-1, r, c, equirect_texel_direction(r, c, w, h), side);
        }
    }
    return {sum[0] / weight, sum[1] / weight, sum[2] / weight};
}

// The texel of the input a direction falls in.
const float* texel_at(const Environment& env, const Vec3& d) {
    if (env.is_cube()) {
        int face;
        double s, t;
        cube_face_coords(d, &face, &s, &t);
        const int n = env.cube.size;
        const int col = std::clamp(static_cast<int>((s + 1) * 0.5 * n), 0, n - 1), row = std::clamp(static_cast<int>((t + 1) * 0.5 * n), 0, n - 1);
        return env.cube.faces[static_cast<std::size_t>(face)].at(row, col);
    }
    double u, v;
    equirect_uv(d, &u, &v);
    const int w = env.equirect.width, h = env.equirect.height;
    return env.equirect.at(std::clamp(static_cast<int>(v * h), 0, h - 1), std::clamp(static_cast<int>(u * w), 0, w - 1));
}

// Level 0: the mean over n's horizon circle, walked in `steps` equal steps (each reads the texel
// under its midpoint: the error is below a step per texel boundary crossed, 6e-6 rad of each arc).
Rgb brute_force_horizon(const Environment& env, const Vec3& n, int steps = 1 << 20) {
    const Vec3 a = normalize(std::fabs(n.x) < 0.9 ? Vec3{0, -n.z, n.y} : Vec3{-n.z, 0, n.x});  // ⟂ n
    const Vec3 b = {n.y * a.z - n.z * a.y, n.z * a.x - n.x * a.z, n.x * a.y - n.y * a.x};
    double sum[3] = {0, 0, 0};
    for (int i = 0; i < steps; ++i) {
        const double psi = 2 * test::kPi * (i + 0.5) / steps, cp = std::cos(psi), sp = std::sin(psi);
        const float* t = texel_at(env, {cp * a.x + sp * b.x, cp * a.y + sp * b.y, cp * a.z + sp * b.z});
        for (int ch = 0; ch < 3; ++ch) sum[ch] += t[ch];
    }
    return {sum[0] / steps, sum[1] / steps, sum[2] / steps};
}

std::vector<CubeMap> charlie_chain(const Environment& env, int base) {
    SpecularSettings s;
    s.lobe = SpecularLobe::Charlie;
    s.base_size = base;
    return prefilter_specular_sampled(prepare_specular_input(env, default_specular_source_size(env, base)), s);
}

// max |chain - brute force| over the level's max |brute force|: every texel of levels of up to
// 6 x 4² texels; of larger ones an even spread of 24 and the 12 whose lobe is nearest `focus` (the
// sun): for Charlie, those whose horizon passes through it.
std::vector<double> levels_against_input(const Environment& env, const std::vector<CubeMap>& chain, const Vec3& focus) {
    std::vector<double> out(chain.size(), 0.0);
    const int levels = static_cast<int>(chain.size());
    for (int level = 0; level < levels; ++level) {
        const CubeMap& m = chain[static_cast<std::size_t>(level)];
        const int n = m.size, total = 6 * n * n;
        const double roughness = specular_level_roughness(level, levels);
        std::vector<int> texels;
        if (total <= 96) {
            for (int t = 0; t < total; ++t) texels.push_back(t);
        } else {
            for (int k = 0; k < 24; ++k) texels.push_back(static_cast<int>(static_cast<long long>(k) * total / 24));
            std::vector<std::pair<double, int>> near;
            const double peak = 2 * roughness * roughness;  // n·l at the lobe's peak, about
            for (int t = 0; t < total; ++t)
                near.emplace_back(std::fabs(dot(focus, cube_texel_direction(t / (n * n), t / n % n, t % n, n)) - peak), t);
            std::partial_sort(near.begin(), near.begin() + 12, near.end());
            for (int k = 0; k < 12; ++k) texels.push_back(near[static_cast<std::size_t>(k)].second);
        }
        std::vector<Rgb> refs(texels.size());
        parallel_for(static_cast<int>(texels.size()), resolve_threads(0, static_cast<int>(texels.size())), [&](int i) {
            const int t = texels[static_cast<std::size_t>(i)];
            const Vec3 d = cube_texel_direction(t / (n * n), t / n % n, t % n, n);
            refs[static_cast<std::size_t>(i)] = level == 0 ? brute_force_horizon(env, d) : brute_force(env, d, roughness);
        });
        double max_ref = 0, max_diff = 0;
        for (std::size_t i = 0; i < texels.size(); ++i) {
            const int t = texels[i], f = t / (n * n), r = t / n % n, c = t % n;
            const Rgb& ref = refs[i];
            for (int ch = 0; ch < 3; ++ch) {
                max_ref = std::max(max_ref, std::fabs(ref[ch]));
                max_diff = std::max(max_diff, std::fabs(m.faces[static_cast<std::size_t>(f)].at(r, c)[ch] - ref[ch]));
            }
        }
        out[static_cast<std::size_t>(level)] = max_diff / max_ref;
    }
    return out;
}

}  // namespace

TEST_CASE("Charlie lobe: its integral and its sampler against the formula", "[specular][charlie]") {
    for (double alpha : {0.01, 0.04, 0.25, 0.5625, 1.0}) {
        // ∫ W dl = 2π ∫ W(θ) sin θ dθ with W from the half vector (n = +Z), times the 2^(1/(2 alpha))
        // the core's lobe leaves out; fine Simpson.
        const int steps = 200000;
        double integral = 0;
        for (int i = 0; i <= steps; ++i) {
            const double th = 0.5 * test::kPi * i / steps, wgt = (i == 0 || i == steps) ? 1 : (i % 2 ? 4 : 2);
            integral += wgt * charlie_w({0, 0, 1}, {std::sin(th), 0, std::cos(th)}, alpha) * std::sin(th);
        }
        integral *= 2 * test::kPi * (0.5 * test::kPi / steps) / 3 * std::pow(2.0, 0.5 / alpha);
        INFO("alpha " << alpha << ": numeric " << integral << ", closed form " << charlie_lobe_integral(alpha));
        CHECK(std::fabs(integral / charlie_lobe_integral(alpha) - 1) < 1e-6);
        // The sampler: Σ W(l) / pdf(l) over Hammersley points estimates ∫ W (pdf consistent with the
        // directions it draws), and its weight W / pdf is 2 (n·l) times the scaled lobe's constant.
        const int count = 1 << 16;
        double estimate = 0, worst = 0;
        for (int i = 0; i < count; ++i) {
            double u1, u2, pdf;
            hammersley(static_cast<std::uint32_t>(i), count, &u1, &u2);
            const Vec3 l = sample_charlie_lobe(u1, u2, alpha, &pdf);
            REQUIRE(std::fabs(length(l) - 1) < 1e-12);
            const double w = charlie_w({0, 0, 1}, l, alpha) * std::pow(2.0, 0.5 / alpha);
            estimate += w / pdf / count;
            worst = std::max(worst, std::fabs(w / pdf - 2 * l.z));
        }
        INFO("alpha " << alpha << ": sampled " << estimate);
        CHECK(std::fabs(estimate / charlie_lobe_integral(alpha) - 1) < 2e-3);
        CHECK(worst < 1e-9);
    }
}

TEST_CASE("The horizon circle's arcs: 2π over every texel, and each texel's against a walk", "[specular][charlie]") {
    std::mt19937 rng(36);
    std::normal_distribution<double> g;
    for (int trial = 0; trial < 40; ++trial) {
        const Vec3 n = normalize({g(rng), g(rng), g(rng)});
        const int size = 3 + trial % 6, w = 7 + trial % 5 * 4, h = 5 + trial % 3 * 4;
        double cube_total = 0, equirect_total = 0;
        std::vector<double> cube_arcs(6 * static_cast<std::size_t>(size) * size), eq_arcs(static_cast<std::size_t>(w) * h);
        for (int f = 0; f < 6; ++f)
            for (int r = 0; r < size; ++r)
                for (int c = 0; c < size; ++c)
                    cube_total += cube_arcs[(static_cast<std::size_t>(f) * size + r) * size + c] = horizon_arc_in_cube_texel(n, f, r, c, size);
        for (int r = 0; r < h; ++r)
            for (int c = 0; c < w; ++c) equirect_total += eq_arcs[static_cast<std::size_t>(r) * w + c] = horizon_arc_in_equirect_texel(n, r, c, w, h);
        CHECK(std::fabs(cube_total - 2 * test::kPi) < 1e-12);
        CHECK(std::fabs(equirect_total - 2 * test::kPi) < 1e-12);
        // A walk of the circle counting the steps in each texel.
        const int steps = 1 << 20;
        std::vector<double> cube_walk(cube_arcs.size()), eq_walk(eq_arcs.size());
        const Vec3 a = normalize(std::fabs(n.x) < 0.9 ? Vec3{0, -n.z, n.y} : Vec3{-n.z, 0, n.x});
        const Vec3 b = {n.y * a.z - n.z * a.y, n.z * a.x - n.x * a.z, n.x * a.y - n.y * a.x};
        for (int i = 0; i < steps; ++i) {
            const double psi = 2 * test::kPi * (i + 0.5) / steps;
            const Vec3 d = {std::cos(psi) * a.x + std::sin(psi) * b.x, std::cos(psi) * a.y + std::sin(psi) * b.y,
                            std::cos(psi) * a.z + std::sin(psi) * b.z};
            int face;
            double s, t, u, v;
            cube_face_coords(d, &face, &s, &t);
            const int col = std::clamp(static_cast<int>((s + 1) * 0.5 * size), 0, size - 1), row = std::clamp(static_cast<int>((t + 1) * 0.5 * size), 0, size - 1);
            cube_walk[(static_cast<std::size_t>(face) * size + row) * size + col] += 2 * test::kPi / steps;
            equirect_uv(d, &u, &v);
            eq_walk[static_cast<std::size_t>(std::clamp(static_cast<int>(v * h), 0, h - 1)) * w + std::clamp(static_cast<int>(u * w), 0, w - 1)] +=
                2 * test::kPi / steps;
        }
        for (std::size_t i = 0; i < cube_arcs.size(); ++i) CHECK(std::fabs(cube_arcs[i] - cube_walk[i]) < 2e-5);
        for (std::size_t i = 0; i < eq_arcs.size(); ++i) CHECK(std::fabs(eq_arcs[i] - eq_walk[i]) < 2e-5);
    }
}

TEST_CASE("Charlie levels against a brute force over the input's own texels", "[specular][charlie]") {
    // Within 5e-3 of a level's max; level 1 (the narrowest lobe) within 2e-2, as the GGX chain's.
    // Measured: at most 1.6e-3 at any level, 1.5e-3 at level 0.
    for (const SunCase& c : one_texel_sun_cases()) {
        const std::vector<double> d = levels_against_input(c.env, charlie_chain(c.env, c.base), c.sun);
        for (std::size_t level = 0; level < d.size(); ++level) {
            INFO(c.name << " level " << level << ": max |chain - brute force| / max " << d[level]);
            CHECK(d[level] <= (level == 1 ? 2e-2 : 5e-3));
        }
    }
}

TEST_CASE("The core's Charlie reference agrees with the brute force", "[specular][charlie]") {
    // prefilter_specular_at (what --compare checks a chain against) over a cube's texels, against
    // the brute force above over the same cube taken as the input: roughness 0 by its arcs.
    const Environment env = sun_cube(13, 4, 6, 8);
    std::mt19937 rng(7);
    std::normal_distribution<double> g;
    for (double roughness : {0.0, 0.2, 0.5, 1.0}) {
        double worst = 0, max_ref = 0;
        for (int i = 0; i < 16; ++i) {
            // Half of them with the sun on the lobe's peak.
            Vec3 n = normalize({g(rng), g(rng), g(rng)});
            if (i % 2) {
                const Vec3 sun = cube_texel_direction(4, 6, 8, 13);
                const double c = 2 * roughness * roughness / (1 + 2 * roughness * roughness);  // n·sun at the peak
                const Vec3 t = normalize({n.x - dot(n, sun) * sun.x, n.y - dot(n, sun) * sun.y, n.z - dot(n, sun) * sun.z});
                n = normalize({c * sun.x + std::sqrt(1 - c * c) * t.x, c * sun.y + std::sqrt(1 - c * c) * t.y, c * sun.z + std::sqrt(1 - c * c) * t.z});
            }
            double core[3];
            prefilter_specular_at(env.cube, n, roughness, core, SpecularLobe::Charlie);
            const Rgb ref = roughness == 0 ? brute_force_horizon(env, n) : brute_force(env, n, roughness);
            for (int ch = 0; ch < 3; ++ch) {
                worst = std::max(worst, std::fabs(core[ch] - ref[ch]));
                max_ref = std::max(max_ref, std::fabs(ref[ch]));
            }
        }
        INFO("roughness " << roughness << ": max |core - brute force| / max " << worst / max_ref);
        CHECK(worst / max_ref < 1e-4);
    }
}

TEST_CASE("GPU: the Charlie chain against the brute force and the CPU estimator, uploaded or kept on the GPU",
          "[gpu][specular][charlie]") {
    // The shader with CHARLIE_LOBE reads the same SpecularInput as the CPU estimator: the same levels'
    // bounds against the brute force, and within 1e-4 of the estimator's max (float sums; NVIDIA's
    // 8-bit filter weights: see the GGX chain's test). A GGX chain made after it by the same
    // prefilter is the one made fresh, bit for bit (its own program and sample sets).
    auto gpu = open_gpu();
    if (!gpu) return;
    GpuSpecularPrefilter pre(gpu->projector->programs());
    GpuSpecularSource source(*gpu->projector);
    struct Case {
        std::string name;
        Environment env;
        Vec3 sun;
    };
    std::vector<Case> cases;
    const Environment latlong = sun_equirect(97, 49, 13, 71);
    cases.push_back({"lat-long 97x49 sun", latlong, equirect_texel_direction(13, 71, 97, 49)});
    const Environment cube = sun_cube(13, 4, 6, 8);
    cases.push_back({"cube 13 sun", cube, cube_texel_direction(4, 6, 8, 13)});
    Environment random = make_equirect_env(72, 36, dim_sky);
    std::mt19937 rng(3);
    for (float& v : random.equirect.rgb) v = static_cast<float>(std::uniform_real_distribution<double>(0, 2)(rng));
    put(random.equirect.at(10, 50), kSun);
    cases.push_back({"lat-long 72x36 random texels and a sun", random, equirect_texel_direction(10, 50, 72, 36)});
    SpecularSettings s;
    s.lobe = SpecularLobe::Charlie;
    s.base_size = 16;
    for (const Case& c : cases) {
        const int size = default_specular_source_size(c.env, s.base_size);
        const SpecularInput input = prepare_specular_input(c.env, size);
        const std::vector<CubeMap> chain = pre.prefilter(input, s);
        REQUIRE(chain.size() == 5);
        const std::vector<double> d = levels_against_input(c.env, chain, c.sun);
        for (std::size_t level = 0; level < d.size(); ++level) {
            INFO(c.name << " level " << level << ": max |GPU chain - brute force| / max " << d[level]);
            CHECK(d[level] <= (level == 1 ? 2e-2 : 5e-3));
        }
        for (const auto& diff : compare_specular_chains(chain, prefilter_specular_sampled(input, s))) {
            INFO(c.name << " level " << diff.level << ": GPU against the CPU estimator " << diff.max_rel_to_max);
            CHECK(diff.max_rel_to_max <= 1e-4);
        }
        if (!source.supports(c.env, size)) continue;
        // The source kept on the GPU (the CLI's way for lat-long inputs): the same chain, but for the
        // float rounding of the GPU's area averages (1e-6 relative).
        LuminanceCap cap;
        cap.threshold = input.threshold;
        source.average_resident(c.env, size, cap);
        const std::vector<CubeMap> kept = pre.prefilter(source.resident_texture(), source.resident_size(),
                                                        [&] { return source.read_resident_level(s.base_size); }, input, s);
        for (const auto& diff : compare_specular_chains(kept, chain)) {
            INFO(c.name << " level " << diff.level << ": source kept on the GPU against uploaded " << diff.max_rel_to_max);
            CHECK(diff.max_rel_to_max <= 1e-5);
        }
    }
    SpecularSettings ggx;
    ggx.base_size = 16;
    const SpecularInput input = prepare_specular_input(cases[0].env, default_specular_source_size(cases[0].env, 16));
    const std::vector<CubeMap> after = pre.prefilter(input, ggx);
    GpuSpecularPrefilter fresh(gpu->projector->programs());
    const std::vector<CubeMap> made_fresh = fresh.prefilter(input, ggx);
    REQUIRE(after.size() == made_fresh.size());
    for (std::size_t level = 0; level < after.size(); ++level)
        for (int f = 0; f < 6; ++f) CHECK(after[level].faces[static_cast<std::size_t>(f)].rgb == made_fresh[level].faces[static_cast<std::size_t>(f)].rgb);
}

TEST_CASE("A Charlie chain of fewer levels holds the brute force at its own levels' roughness, CPU and GPU",
          "[gpu][specular][charlie]") {
    // Faces 16, 8, 4 at roughness 0, 0.5 and 1 (--specular-levels 3): level 0 the horizon mean, the
    // others against the brute force at roughness i / 2.
    const Environment env = sun_cube(13, 4, 6, 8);
    const Vec3 sun = cube_texel_direction(4, 6, 8, 13);
    SpecularSettings s;
    s.lobe = SpecularLobe::Charlie;
    s.base_size = 16;
    s.set_levels(3);
    const SpecularInput input = prepare_specular_input(env, default_specular_source_size(env, 16));
    std::vector<std::pair<std::string, std::vector<CubeMap>>> chains{{"CPU", prefilter_specular_sampled(input, s)}};
    if (auto gpu = open_gpu()) {
        GpuSpecularPrefilter pre(gpu->projector->programs());
        chains.emplace_back("GPU", pre.prefilter(input, s));
    }
    for (const auto& [device, chain] : chains) {
        REQUIRE(chain.size() == 3);
        const std::vector<double> d = levels_against_input(env, chain, sun);
        for (std::size_t level = 0; level < d.size(); ++level) {
            INFO(device << " level " << level << ": max |chain - brute force| / max " << d[level]);
            CHECK(d[level] <= (level == 1 ? 2e-2 : 5e-3));
        }
    }
}
