// bake-bench --specular-source --specular-maps DIR: the CPU chain of the three shared lat-long maps
// (tests/data) against a brute force that integrates the GGX lobe over the input's own texels (not
// the source cube), per level, and its roughness-1 level against the exact irradiance / π. The
// README's "remaining error per level" comes from here. Conventions: docs/CONVENTION.md.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "bench_support.h"
#include "environment_loader.h"
#include "equirect.h"
#include "exact_irradiance.h"
#include "ggx.h"
#include "specular_bench.h"
#include "specular_prefilter.h"

namespace bench {

namespace {

double lobe(double c, double alpha) { return c <= 0 ? 0.0 : c * bake::ggx_d(std::sqrt(0.5 * (1.0 + c)), alpha); }

// P(n) over a lat-long input's texels: each cut into k x k equal parts of (φ, h = cos θ), where
// dΩ = dφ dh, summed at 2 x 2 Gauss-Legendre nodes; k from the texel's size against the lobe's
// scale near n (2·alpha, or a quarter of the angle from n in the tail) and, across n's horizon
// where W has a kink, parts of 0.004 rad scaled by π·D there.
void brute_force(const bake::Environment& env, const bake::Vec3& n, double roughness, double out[3]) {
    const double alpha = roughness * roughness, g = 0.21132486540518711775, kink = bake::ggx_d(std::sqrt(0.5), alpha);
    const int w = env.equirect.width, h = env.equirect.height;
    double sum[3] = {0, 0, 0}, weight = 0, nx[96], nz[96];
    for (int r = 0; r < h; ++r) {
        const double h0 = std::cos(bake::kPi * r / h), h1 = std::cos(bake::kPi * (r + 1) / h);
        const double side = std::max(bake::kPi / h, 2 * bake::kPi / w * std::max(std::sin(bake::kPi * r / h), std::sin(bake::kPi * (r + 1) / h)));
        const double omega = bake::equirect_row_solid_angle(r, w, h);
        for (int c = 0; c < w; ++c) {
            const double cn = bake::dot(n, bake::equirect_texel_direction(r, c, w, h));
            if (cn < -side) continue;
            const double scale = std::max(2 * alpha, 0.25 * std::acos(std::max(-1.0, std::min(1.0, cn))));
            int k = std::min(48, std::max(1, static_cast<int>(std::ceil(8 * side / scale))));
            if (std::fabs(cn) < side)
                k = std::max(k, std::min(48, static_cast<int>(std::ceil(side / 0.004 * std::min(1.0, bake::kPi * kink)))));
            for (int j = 0; j < 2 * k; ++j) {
                const double phi = -bake::kPi + 2 * bake::kPi * (c + (j / 2 + (j % 2 ? 1 - g : g)) / k) / w;
                nx[j] = n.x * std::cos(phi);
                nz[j] = n.z * std::sin(phi);
            }
            double wt = 0;
            for (int i = 0; i < 2 * k; ++i) {
                const double y = h0 + (h1 - h0) * (i / 2 + (i % 2 ? 1 - g : g)) / k, rr = std::sqrt(std::max(0.0, 1 - y * y));
                for (int j = 0; j < 2 * k; ++j) wt += lobe(rr * (nx[j] + nz[j]) + n.y * y, alpha);
            }
            wt *= omega / (4.0 * k * k);
            const float* t = env.equirect.at(r, c);
            for (int ch = 0; ch < 3; ++ch) sum[ch] += wt * t[ch];
            weight += wt;
        }
    }
    for (int ch = 0; ch < 3; ++ch) out[ch] = sum[ch] / weight;
}

// The direction of the input's brightest texel (|luminance|).
bake::Vec3 brightest(const bake::Environment& env) {
    double best = -1;
    bake::Vec3 d;
    for (int r = 0; r < env.equirect.height; ++r)
        for (int c = 0; c < env.equirect.width; ++c) {
            const float* t = env.equirect.at(r, c);
            const double l = std::fabs(0.2126 * t[0] + 0.7152 * t[1] + 0.0722 * t[2]);
            if (l > best) best = l, d = bake::equirect_texel_direction(r, c, env.equirect.width, env.equirect.height);
        }
    return d;
}

}  // namespace

void run_specular_accuracy(const std::string& dir, int base, nlohmann::json* out) {
    nlohmann::json maps = nlohmann::json::array();
    std::printf("\n| map (base %d) | level: max |chain - brute force over the input| / level max ... | roughness 1 vs E/pi |\n|---|---|---|\n",
                base);
    for (const char* name : {"pmndrs_sky", "pmndrs_warehouse", "pmndrs_esplanade"}) {
        const bake::Environment env = bake::load_environment(dir + "/" + name + ".exr");
        bake::SpecularSettings s;
        s.base_size = base;
        s.source_size = bake::default_specular_source_size(env, base);
        const std::vector<bake::CubeMap> chain = bake::prefilter_specular_sampled(bake::prepare_specular_input(env, s.source_size), s);
        const bake::Vec3 sun = brightest(env);
        const int levels = static_cast<int>(chain.size());
        std::vector<double> per_level(static_cast<std::size_t>(levels), 0.0);
        for (int level = 1; level < levels; ++level) {
            // Every texel of the small levels; else 32 spread evenly and the 16 nearest the brightest texel.
            const int n = chain[level].size, total = 6 * n * n;
            std::vector<int> texels;
            for (int k = 0; k < std::min(total, 32); ++k) texels.push_back(static_cast<int>(static_cast<long long>(k) * total / std::min(total, 32)));
            if (total > 32) {
                std::vector<std::pair<double, int>> near;
                for (int t = 0; t < total; ++t) near.emplace_back(-bake::dot(sun, bake::cube_texel_direction(t / (n * n), t / n % n, t % n, n)), t);
                std::partial_sort(near.begin(), near.begin() + 16, near.end());
                for (int k = 0; k < 16; ++k) texels.push_back(near[static_cast<std::size_t>(k)].second);
            }
            double max_ref = 0, max_diff = 0;
            for (int t : texels) {
                double ref[3];
                const int f = t / (n * n), r = t / n % n, c = t % n;
                brute_force(env, bake::cube_texel_direction(f, r, c, n), bake::specular_level_roughness(level, levels), ref);
                for (int ch = 0; ch < 3; ++ch) {
                    max_ref = std::max(max_ref, std::fabs(ref[ch]));
                    max_diff = std::max(max_diff, std::fabs(chain[level].faces[f].at(r, c)[ch] - ref[ch]));
                }
            }
            per_level[static_cast<std::size_t>(level)] = max_diff / max_ref;
        }
        const bake::IrradianceCells cells = bake::build_irradiance_cells(env, 1);
        double max_e = 0, max_diff = 0;
        for (int f = 0; f < 6; ++f) {
            const bake::Rgb e = bake::exact_irradiance(cells, bake::cube_texel_direction(f, 0, 0, 1));
            for (int ch = 0; ch < 3; ++ch) {
                max_e = std::max(max_e, std::fabs(e[ch] / bake::kPi));
                max_diff = std::max(max_diff, std::fabs(chain.back().faces[f].at(0, 0)[ch] - e[ch] / bake::kPi));
            }
        }
        maps.push_back({{"map", name}, {"base", base}, {"source_size", s.source_size}, {"max_rel_to_max_per_level", per_level},
                        {"roughness1_vs_exact_irradiance", max_diff / max_e}});
        std::printf("| %s (source %d) |", name, s.source_size);
        for (int level = 1; level < levels; ++level) std::printf(" %d: %.1e", level, per_level[static_cast<std::size_t>(level)]);
        std::printf(" | %.1e |\n", max_diff / max_e);
    }
    *out = maps;
}

}  // namespace bench
