// Issue 19: the specular chain conserves the input's energy. Level 0's integral against the
// input's own (Σ L·Ω over its texels), the roughness-1 level against the tool's exact irradiance / π
// (its definition), and the other levels against a brute force that integrates the GGX lobe over
// the original input texels, never over the resampled source cube (the older tests did, and shared
// its errors). Directions, texels and solid angles as docs/CONVENTION.md defines them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include "environment_loader.h"
#include "exact_irradiance.h"
#include "ggx.h"
#include "gpu_specular.h"
#include "gpu_test_support.h"
#include "specular_prefilter.h"
#include "test_support.h"

using namespace bake;
using namespace bake::test;

namespace {

using Sums = std::array<double, 3>;

// Σ L·Ω over the input's own texels, per channel.
Sums input_integral(const Environment& env) {
    Sums s{0, 0, 0};
    for_each_texel(env, [&](const float* rgb, const Vec3&, double omega) {
        for (int c = 0; c < 3; ++c) s[c] += rgb[c] * omega;
    });
    return s;
}

Sums cube_integral(const CubeMap& m) {
    Sums s{0, 0, 0};
    for (int f = 0; f < 6; ++f)
        for (int r = 0; r < m.size; ++r)
            for (int c = 0; c < m.size; ++c)
                for (int ch = 0; ch < 3; ++ch) s[ch] += m.faces[f].at(r, c)[ch] * cube_texel_solid_angle(r, c, m.size);
    return s;
}

// The chain the tool bakes on the CPU path (bake_specular): source at the default size, the
// bright split, the estimator.
std::vector<CubeMap> tool_chain(const Environment& env, int base, int samples = 1024) {
    SpecularSettings s;
    s.base_size = base;
    s.samples = samples;
    return prefilter_specular_sampled(prepare_specular_input(env, default_specular_source_size(env, base)), s);
}

CubeMap tool_level_zero(const Environment& env, int base) {
    return specular_level_zero(cube_mip_chain(make_specular_source(env, default_specular_source_size(env, base))), base);
}

// The lobe W(n, l) = max(0, n·l)·D(h), h = normalize(n + l), for c = n·l.
double lobe(double c, double alpha) { return c <= 0 ? 0.0 : c * ggx_d(std::sqrt(0.5 * (1.0 + c)), alpha); }

// P(n) = ∫ L W / ∫ W over a lat-long input's own texels. In (φ, h = cos θ) the area element is
// dφ dh, so each texel is cut into k x k equal parts summed at 2 x 2 Gauss-Legendre nodes of equal
// weight; k from the texel's angular size against the lobe's scale near n (2·alpha at its centre,
// a quarter of the angle from n in its tail), so that the lobe varies little inside a part.
Rgb brute_force_equirect(const Environment& env, const Vec3& n, double roughness) {
    const double alpha = roughness * roughness, g = 0.21132486540518711775;  // (1 - 1/sqrt(3)) / 2
    const double kink = ggx_d(std::sqrt(0.5), alpha);
    const int w = env.equirect.width, h = env.equirect.height;
    double sum[3] = {0, 0, 0}, weight = 0;
    for (int r = 0; r < h; ++r) {
        const double h0 = std::cos(test::kPi * r / h), h1 = std::cos(test::kPi * (r + 1) / h);
        const double side = std::max(test::kPi / h, 2 * test::kPi / w * std::max(std::sin(test::kPi * r / h), std::sin(test::kPi * (r + 1) / h)));
        for (int c = 0; c < w; ++c) {
            const double cn = dot(n, equirect_texel_direction(r, c, w, h));
            if (cn < -side) continue;  // wholly behind n's horizon
            const double theta = std::acos(std::max(-1.0, std::min(1.0, cn)));
            const double scale = std::max(2 * alpha, 0.25 * theta);
            int k = std::min(48, std::max(1, static_cast<int>(std::ceil(8 * side / scale))));
            // W's kink at the horizon (slope D at 45°): parts of 0.004 rad at roughness 1.
            if (std::fabs(cn) < side) k = std::max(k, std::min(48, static_cast<int>(std::ceil(side / 0.004 * std::min(1.0, test::kPi * kink)))));
            double wt = 0, nx[96], nz[96];
            for (int j = 0; j < 2 * k; ++j) {
                const double phi = -test::kPi + 2 * test::kPi * (c + (j / 2 + (j % 2 ? 1 - g : g)) / k) / w;
                nx[j] = n.x * std::cos(phi);
                nz[j] = n.z * std::sin(phi);
            }
            for (int i = 0; i < 2 * k; ++i) {
                const double hh = h0 + (h1 - h0) * (i / 2 + (i % 2 ? 1 - g : g)) / k;
                const double rr = std::sqrt(std::max(0.0, 1 - hh * hh));
                for (int j = 0; j < 2 * k; ++j) wt += lobe(rr * (nx[j] + nz[j]) + n.y * hh, alpha);
            }
            wt *= equirect_row_solid_angle(r, w, h) / (4.0 * k * k);
            const float* t = env.equirect.at(r, c);
            for (int ch = 0; ch < 3; ++ch) sum[ch] += wt * t[ch];
            weight += wt;
        }
    }
    return {sum[0] / weight, sum[1] / weight, sum[2] / weight};
}

// The same over a cube input's own texels (the core's reference, which reads the cube it is given).
Rgb brute_force_input(const Environment& env, const Vec3& n, double roughness) {
    if (!env.is_cube()) return brute_force_equirect(env, n, roughness);
    double v[3];
    prefilter_specular_at(env.cube, n, roughness, v);
    return {v[0], v[1], v[2]};
}

// max |chain - brute force| over the level's max |brute force|, levels 1..: every texel of a level
// of up to 6 x 4² texels; of larger ones an even spread of 96 and the 32 nearest `focus` (the sun).
std::vector<double> levels_against_input(const Environment& env, const std::vector<CubeMap>& chain, const Vec3& focus) {
    std::vector<double> out(chain.size(), 0.0);
    const int levels = static_cast<int>(chain.size());
    for (int level = 1; level < levels; ++level) {
        const CubeMap& m = chain[level];
        const int n = m.size, total = 6 * n * n;
        std::vector<int> texels;
        if (total <= 96) {
            for (int t = 0; t < total; ++t) texels.push_back(t);
        } else {
            for (int k = 0; k < 96; ++k) texels.push_back(static_cast<int>(static_cast<long long>(k) * total / 96));
            std::vector<std::pair<double, int>> near;
            for (int t = 0; t < total; ++t) near.emplace_back(-dot(focus, cube_texel_direction(t / (n * n), t / n % n, t % n, n)), t);
            std::partial_sort(near.begin(), near.begin() + 32, near.end());
            for (int k = 0; k < 32; ++k) texels.push_back(near[static_cast<std::size_t>(k)].second);
        }
        double max_ref = 0, max_diff = 0;
        for (int t : texels) {
            const int f = t / (n * n), r = t / n % n, c = t % n;
            const Rgb ref = brute_force_input(env, cube_texel_direction(f, r, c, n), specular_level_roughness(level, levels));
            for (int ch = 0; ch < 3; ++ch) {
                max_ref = std::max(max_ref, std::fabs(ref[ch]));
                max_diff = std::max(max_diff, std::fabs(m.faces[f].at(r, c)[ch] - ref[ch]));
            }
        }
        out[level] = max_diff / max_ref;
    }
    return out;
}

// max |last level - E/π| over the level's max, E the tool's exact irradiance (texel by texel).
double roughest_against_exact_irradiance(const Environment& env, const CubeMap& last) {
    REQUIRE(last.size == 1);
    const IrradianceCells cells = build_irradiance_cells(env, 1, 1);
    double max_ref = 0, max_diff = 0;
    for (int f = 0; f < 6; ++f) {
        const Rgb e = exact_irradiance(cells, cube_texel_direction(f, 0, 0, 1));
        for (int ch = 0; ch < 3; ++ch) {
            max_ref = std::max(max_ref, std::fabs(e[ch] / test::kPi));
            max_diff = std::max(max_diff, std::fabs(last.faces[f].at(0, 0)[ch] - e[ch] / test::kPi));
        }
    }
    return max_diff / max_ref;
}

// A texel's corners (unnormalised directions).
std::array<Vec3, 4> equirect_texel_corners(int row, int col, int w, int h) {
    return {equirect_direction(static_cast<double>(col) / w, static_cast<double>(row) / h),
            equirect_direction(static_cast<double>(col + 1) / w, static_cast<double>(row) / h),
            equirect_direction(static_cast<double>(col) / w, static_cast<double>(row + 1) / h),
            equirect_direction(static_cast<double>(col + 1) / w, static_cast<double>(row + 1) / h)};
}
std::array<Vec3, 4> cube_texel_corners(int face, int row, int col, int n) {
    auto at = [&](int r, int c) { return cube_face_direction(face, 2.0 * c / n - 1, 2.0 * r / n - 1); };
    return {at(row, col), at(row, col + 1), at(row + 1, col), at(row + 1, col + 1)};
}
// Whether a texel meets one of the planes x = 0, y = 0, z = 0 (a coordinate of opposite or zero
// signs at its corners; each is monotone along the texel's edges for the small texels here).
bool crosses_axis_plane(const std::array<Vec3, 4>& corners) {
    for (int axis = 0; axis < 3; ++axis) {
        bool pos = false, neg = false;
        for (const Vec3& d : corners) {
            const double v = axis == 0 ? d.x : axis == 1 ? d.y : d.z;
            pos = pos || v >= -1e-12;
            neg = neg || v <= 1e-12;
        }
        if (pos && neg) return true;
    }
    return false;
}

void check_level_zero(const Environment& env, int base, const std::string& what) {
    const Sums in = input_integral(env), zero = cube_integral(tool_level_zero(env, base));
    for (int c = 0; c < 3; ++c) {
        INFO(what << " base " << base << " channel " << c << ": level 0 " << zero[c] << ", input " << in[c]);
        CHECK(std::fabs(zero[c] / in[c] - 1) <= 1e-6);
    }
}

}  // namespace

TEST_CASE("Level 0 holds the input's integral: a one-texel sun anywhere, odd sizes", "[specular][energy]") {
    std::mt19937 rng(19);
    for (int i = 0; i < 50; ++i) {
        const int base = 8 << (i % 3);
        // Lat-long inputs of odd sizes, 2:1 and not.
        const int w = 61 + 2 * static_cast<int>(rng() % 40), h = (w + 1) / 2 - static_cast<int>(rng() % 2) * 2;
        const int row = static_cast<int>(rng() % static_cast<unsigned>(h)), col = static_cast<int>(rng() % static_cast<unsigned>(w));
        check_level_zero(sun_equirect(w, h, row, col), base,
                         "lat-long " + std::to_string(w) + "x" + std::to_string(h) + " sun at " + std::to_string(row) + "," + std::to_string(col));
        // Cube inputs whose face is no power-of-two multiple of the source's.
        const int n = 5 + 2 * static_cast<int>(rng() % 14), face = static_cast<int>(rng() % 6);
        const int r = static_cast<int>(rng() % static_cast<unsigned>(n)), c = static_cast<int>(rng() % static_cast<unsigned>(n));
        check_level_zero(sun_cube(n, face, r, c), base, "cube " + std::to_string(n) + " sun on face " + std::to_string(face));
    }
}

TEST_CASE("Level 0 holds the input's integral: the shared real maps", "[specular][energy]") {
    for (const char* name : {"pmndrs_sky", "pmndrs_warehouse", "pmndrs_esplanade"}) {
        const Environment env = load_environment(std::string(BAKE_TEST_DATA_DIR) + "/" + name + ".exr");
        for (int base : {8, 32, 128}) check_level_zero(env, base, name);
    }
}

TEST_CASE("The roughness-1 level is the exact irradiance / pi", "[specular][energy]") {
    // alpha = 1: D = 1/π, so P(n) = ∫ L max(0, n·l) / π = E(n)/π, the tool's --irradiance exact. That
    // sum takes each texel at its centre, which is exact for a texel wholly on one side of n's
    // horizon but not for a bright texel across it (a 0.1 rad sun texel centred on the horizon
    // counts 0 where half of it shines): the suns are drawn off the six directions' horizons (the
    // axis planes), and the inputs are fine enough (texels under 0.05 rad) for the centre to stand
    // for the texel's centroid within 1e-4 of E; the brute-force test below covers the rest.
    std::vector<std::pair<std::string, Environment>> cases;
    for (const char* name : {"pmndrs_sky", "pmndrs_warehouse", "pmndrs_esplanade"})
        cases.emplace_back(name, load_environment(std::string(BAKE_TEST_DATA_DIR) + "/" + name + ".exr"));
    std::mt19937 rng(5);
    auto draw = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
    for (int i = 0; i < 4; ++i) {
        const int h = 65 + 2 * draw(32), n = 41 + 2 * draw(12);
        int row, col, face, r, c;
        do row = draw(h), col = draw(2 * h);
        while (crosses_axis_plane(equirect_texel_corners(row, col, 2 * h, h)));
        do face = draw(6), r = draw(n), c = draw(n);
        while (crosses_axis_plane(cube_texel_corners(face, r, c, n)));
        cases.emplace_back("lat-long sun " + std::to_string(i), sun_equirect(2 * h, h, row, col));
        cases.emplace_back("cube sun " + std::to_string(i), sun_cube(n, face, r, c));
    }
    for (const auto& [name, env] : cases) {
        // The shared maps at base 16 (source 6 x 32²): at base 8 their source of 6 x 16² texels is
        // read through bilinear taps and errs 1e-3 at roughness 1 (bench/NOTES.md).
        const int base = env.is_cube() || env.width() < 256 ? 8 : 16;
        const double d = roughest_against_exact_irradiance(env, tool_chain(env, base).back());
        INFO(name << " base " << base << ": max |level - E/pi| / max " << d);
        CHECK(d <= 1e-3);
    }
}

TEST_CASE("Specular levels against a brute force over the input's own texels", "[specular][energy]") {
    // Within 5e-3 of a level's max, the first level (the sharpest lobe, r = 1/(levels - 1), which
    // sees the source cube's resolution most) within 2e-2.
    for (const SunCase& c : one_texel_sun_cases()) {
        const std::vector<double> d = levels_against_input(c.env, tool_chain(c.env, c.base), c.sun);
        for (std::size_t level = 1; level < d.size(); ++level) {
            INFO(c.name << " level " << level << ": max |chain - brute force| / max " << d[level]);
            CHECK(d[level] <= (level == 1 ? 2e-2 : 5e-3));
        }
    }
}

TEST_CASE("GPU: a lat-long sun's chain keeps the input's energy, roughness 1 is E/pi", "[gpu][specular][energy]") {
    // The GPU path reads the same SpecularInput (sources, bright texels of the input) as the CPU
    // estimator: its roughness-1 level against the exact irradiance, and every level against the
    // CPU estimator (NVIDIA's 8-bit filter weights: 1.4e-5 of a level's max, bench/NOTES.md).
    auto gpu = open_gpu();
    if (!gpu) return;
    GpuSpecularPrefilter pre(gpu->projector->programs());
    const Environment env = sun_equirect(130, 65, 17, 43);
    REQUIRE_FALSE(crosses_axis_plane(equirect_texel_corners(17, 43, 130, 65)));
    SpecularSettings s;
    s.base_size = 8;
    const SpecularInput input = prepare_specular_input(env, default_specular_source_size(env, 8));
    const std::vector<CubeMap> chain = pre.prefilter(input, s);
    const Sums in = input_integral(env), zero = cube_integral(chain[0]);
    for (int c = 0; c < 3; ++c) CHECK(std::fabs(zero[c] / in[c] - 1) <= 1e-6);
    const double d = roughest_against_exact_irradiance(env, chain.back());
    INFO("max |level - E/pi| / max " << d);
    CHECK(d <= 1e-3);
    for (const auto& diff : compare_specular_chains(chain, prefilter_specular_sampled(input, s))) {
        INFO("level " << diff.level << ": GPU against the CPU estimator " << diff.max_rel_to_max);
        CHECK(diff.max_rel_to_max <= 1e-4);
    }
}

TEST_CASE("A chain of fewer levels holds the brute force at its own levels' roughness, CPU and GPU", "[gpu][specular][energy]") {
    // --specular-levels 3 / --specular-min-size 4 on a base of 16: faces 16, 8, 4 at roughness 0, 0.5
    // and 1 (not the full chain's 0, 0.25, 0.5): each level against the brute force at the roughness
    // i / (3 - 1), the first prefiltered within 2e-2, the last within 5e-3 (levels_against_input reads
    // the roughness from the chain's own length).
    const Environment env = sun_equirect(97, 49, 13, 71);
    const Vec3 sun = equirect_texel_direction(13, 71, 97, 49);
    SpecularSettings by_count, by_size;
    by_count.base_size = by_size.base_size = 16;
    by_count.set_levels(3);
    by_size.set_min_size(4);
    REQUIRE(by_count.last_size == 4);
    REQUIRE(by_size.levels() == 3);
    CHECK_THROWS_AS(by_count.set_levels(6), std::invalid_argument);
    CHECK_THROWS_AS(by_count.set_levels(0), std::invalid_argument);
    CHECK_THROWS_AS(by_size.set_min_size(3), std::invalid_argument);
    CHECK_THROWS_AS(by_size.set_min_size(32), std::invalid_argument);
    const SpecularInput input = prepare_specular_input(env, default_specular_source_size(env, 16));
    std::vector<std::pair<std::string, std::vector<CubeMap>>> chains{{"CPU", prefilter_specular_sampled(input, by_count)}};
    if (auto gpu = open_gpu()) {
        GpuSpecularPrefilter pre(gpu->projector->programs());
        chains.emplace_back("GPU", pre.prefilter(input, by_size));
    }
    for (const auto& [device, chain] : chains) {
        REQUIRE(chain.size() == 3);
        CHECK(chain.back().size == 4);
        const std::vector<double> d = levels_against_input(env, chain, sun);
        for (std::size_t level = 1; level < d.size(); ++level) {
            INFO(device << " level " << level << " (roughness " << specular_level_roughness(static_cast<int>(level), 3)
                        << "): max |chain - brute force| / max " << d[level]);
            CHECK(d[level] <= (level == 1 ? 2e-2 : 5e-3));
        }
    }
}
