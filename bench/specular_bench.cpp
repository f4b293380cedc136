// The specular section of bake-bench (`--specular`, `--specular-source`): the GGX chain from a sun
// sky on the GPU and by the same estimator on the CPU in double, its distance from the brute force
// (relative to each level's max), sample-count variants, whole processes beside cmgen's, and the
// CPU source cube's cost and level 0's integral against the input's. Times in ms (GPU: GL timers).
#include "specular_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "bench_support.h"
#include "equirect.h"
#include "ggx.h"
#include "gpu_projector.h"
#include "gpu_specular.h"
#include "image_io.h"
#include "layout.h"
#include "specular_prefilter.h"

namespace bench {

namespace {

// Wall-clock milliseconds of a shell command (median of `repeats`), or -1 if it failed.
double time_command(const std::string& cmd, int repeats) {
    std::vector<double> ms;
    for (int i = 0; i < repeats; ++i) {
        const Clock::time_point t0 = Clock::now();
        if (std::system(cmd.c_str()) != 0) {
            std::fprintf(stderr, "bake-bench: failed: %s\n", cmd.c_str());
            return -1;
        }
        ms.push_back(ms_since(t0));
    }
    return median(ms);
}

// Per level, max-relative-to-max and mean relative distance from the brute force at 8 texels a
// level (each texel is one pass over the source cube).
std::pair<std::vector<double>, std::vector<double>> reference_distance(const bake::CubeMap& source,
                                                                       const std::vector<bake::CubeMap>& chain) {
    std::vector<double> max_rel(chain.size()), mean_rel(chain.size());
    for (std::size_t level = 1; level < chain.size(); ++level) {
        const int n = chain[level].size, total = 6 * n * n, count = std::min(total, 8);
        std::vector<float> a, b;
        for (int k = 0; k < count; ++k) {
            const long long t = static_cast<long long>(k) * total / count;
            const int face = static_cast<int>(t / (n * n)), row = static_cast<int>(t / n % n), col = static_cast<int>(t % n);
            double v[3];
            bake::prefilter_specular_at(source, bake::cube_texel_direction(face, row, col, n),
                                        bake::specular_level_roughness(static_cast<int>(level), static_cast<int>(chain.size())), v);
            for (int c = 0; c < 3; ++c) {
                a.push_back(chain[level].faces[face].at(row, col)[c]);
                b.push_back(static_cast<float>(v[c]));
            }
        }
        const bake::SpecularLevelDifference d = bake::compare_specular_values(a, b);
        max_rel[level] = d.max_rel_to_max;
        mean_rel[level] = d.mean_rel;
    }
    return {max_rel, mean_rel};
}

// The chain on the GPU, timed, and what it is compared with.
struct ChainRun {
    bake::SpecularSettings settings;
    bake::SpecularInput input;
    bake::CubeMap source;
    std::vector<bake::CubeMap> chain;
    std::vector<double> source_ms, gpu_ms, gpu_wall_ms, upload_ms;
};

ChainRun time_chain(bake::GpuSpecularPrefilter& pre, const bake::Environment& env, int base, int repeats) {
    ChainRun r;
    r.settings.base_size = base;
    r.settings.source_size = bake::default_specular_source_size(env, base);
    // One untimed run first: the program binary, the driver's first-use work and the clocks' ramp.
    pre.prefilter(bake::prepare_specular_input(env, r.settings.source_size), r.settings);
    for (int i = 0; i < repeats; ++i) {
        Clock::time_point t0 = Clock::now();
        r.input = bake::prepare_specular_input(env, r.settings.source_size);
        r.source_ms.push_back(ms_since(t0));
        r.source = r.input.mips[0];
        t0 = Clock::now();
        r.chain = pre.prefilter(r.input, r.settings);
        r.gpu_wall_ms.push_back(ms_since(t0));
        r.gpu_ms.push_back(pre.last_ms());
        r.upload_ms.push_back(pre.last_upload_ms());
    }
    return r;
}

// Variants: the GPU time and the distance from the brute force with fewer and more samples.
nlohmann::json sample_variants(bake::GpuSpecularPrefilter& pre, const ChainRun& r, int repeats,
                               std::vector<std::pair<int, double>>* rows) {
    nlohmann::json variants = nlohmann::json::array();
    for (int samples : {256, 4096}) {
        bake::SpecularSettings v = r.settings;
        v.samples = samples;
        std::vector<double> ms;
        std::vector<bake::CubeMap> vc;
        for (int i = 0; i < repeats; ++i) {
            vc = pre.prefilter(r.input, v);
            ms.push_back(pre.last_ms());
        }
        const auto [vmax, vmean] = reference_distance(r.source, vc);
        variants.push_back({{"samples", samples}, {"prefilter_gpu_ms", median(ms)}, {"reference_max_rel_per_level", vmax},
                            {"reference_mean_rel_per_level", vmean}});
        rows->emplace_back(samples, median(ms));
    }
    return variants;
}

// Whole processes on the same sky, written as a float EXR: ms (median), -1 when not run or failed.
void whole_processes(const SpecularBenchOptions& o, const bake::Environment& env, int base, double* ours_ms,
                     double* cmgen_ms) {
    std::filesystem::create_directories(o.dir + "/cmgen_out");
    const std::string sky_file = o.dir + "/specular_sky.exr";
    bake::write_exr(sky_file, env.equirect, bake::EnvmapHint::LatLong);
    if (!o.tool.empty())
        *ours_ms = time_command(o.tool + " " + sky_file + " --specular " + o.dir + "/spec.exr --specular-size " +
                                    std::to_string(base) + " -q --warn-error 1e300 > /dev/null",
                                o.repeats);
    if (!o.cmgen.empty())
        *cmgen_ms = time_command(o.cmgen + " --quiet --format=exr --size=" + std::to_string(base) + " --ibl-ld=" + o.dir +
                                     "/cmgen_out " + sky_file + " > /dev/null 2>&1",
                                 std::min(o.repeats, 3));
}

}  // namespace

void run_specular_bench(bake::GpuProjector& gpu, const SpecularBenchOptions& o, nlohmann::json* out) {
    const int width = o.quick ? 2048 : 8192, height = width / 2, base = o.quick ? 64 : 256;
    std::printf("specular: %dx%d source, 6x%d^2 base, %d repeats\n", width, height, base, o.repeats);
    const bake::Environment env = sun_sky(width, height);
    bake::GpuSpecularPrefilter pre(gpu.programs());
    pre.prepare();
    const ChainRun r = time_chain(pre, env, base, o.repeats);
    const bake::SpecularSettings& settings = r.settings;
    Clock::time_point t0 = Clock::now();
    const std::vector<bake::CubeMap> cpu = bake::prefilter_specular_sampled(r.input, settings);
    const double cpu_ms = ms_since(t0);
    double est_max = 0;
    for (const auto& d : bake::compare_specular_chains(r.chain, cpu)) est_max = std::max(est_max, d.max_rel_to_max);
    const auto [ref_max, ref_mean] = reference_distance(r.source, r.chain);
    std::vector<std::pair<int, double>> variant_rows;
    const nlohmann::json variants = sample_variants(pre, r, o.repeats, &variant_rows);

    nlohmann::json j = {{"source", std::to_string(width) + "x" + std::to_string(height)},
                        {"base", base},
                        {"levels", r.chain.size()},
                        {"source_size", settings.source_size},
                        {"samples", settings.samples},
                        {"bright_texels", r.input.bright.size()},
                        {"source_cpu_ms", median(r.source_ms)},
                        {"prefilter_gpu_ms", median(r.gpu_ms)},
                        {"upload_gpu_ms", median(r.upload_ms)},
                        {"prefilter_gpu_wall_ms", median(r.gpu_wall_ms)},
                        {"prefilter_cpu_ms", cpu_ms},
                        {"gpu_vs_cpu_estimator_max_rel", est_max},
                        {"reference_max_rel_per_level", ref_max},
                        {"reference_mean_rel_per_level", ref_mean},
                        {"variants", variants}};
    double ours_ms = -1, cmgen_ms = -1;
    if (!o.dir.empty() && (!o.tool.empty() || !o.cmgen.empty())) {
        whole_processes(o, env, base, &ours_ms, &cmgen_ms);
        j["whole_process_ours_ms"] = ours_ms;
        j["whole_process_cmgen_ms"] = cmgen_ms;
    }
    *out = j;

    std::printf("\n| stage | time |\n|---|---|\n");
    std::printf("| source cube 6x%d^2 + mips (and capped mips, %zu bright texels), CPU, all cores | %.1f ms |\n",
                settings.source_size, r.input.bright.size(), median(r.source_ms));
    std::printf("| source upload, GPU timer | %.2f ms |\n", median(r.upload_ms));
    std::printf("| prefilter %zu levels (6x%d^2 base, %d samples at level 1), GPU timer | %.2f ms |\n", r.chain.size(),
                base, settings.samples, median(r.gpu_ms));
    std::printf("| prefilter, GPU wall incl. upload and read-back | %.1f ms |\n", median(r.gpu_wall_ms));
    std::printf("| prefilter, CPU estimator in double, all cores | %.0f ms |\n", cpu_ms);
    std::printf("| GPU vs CPU estimator, max over levels of max rel to max | %.2e |\n", est_max);
    for (std::size_t level = 1; level < r.chain.size(); ++level)
        std::printf("| level %zu vs brute force (8 texels): max rel to max / mean rel | %.2e / %.2e |\n", level,
                    ref_max[level], ref_mean[level]);
    for (const auto& [samples, ms] : variant_rows)
        std::printf("| prefilter with %d samples at level 1, GPU timer | %.2f ms |\n", samples, ms);
    if (ours_ms >= 0) std::printf("| whole process: bake-irradiance --specular | %.0f ms |\n", ours_ms);
    if (cmgen_ms >= 0) std::printf("| whole process: cmgen --ibl-ld (%d samples) | %.0f ms |\n", 1024, cmgen_ms);
}

void run_specular_source_bench(int repeats, nlohmann::json* out) {
    const int base = 256;
    nlohmann::json rows = nlohmann::json::array();
    std::printf("\n| input | source | make_specular_source | prepare_specular_input (all of it) | bright texels | level 0 integral / input's - 1 (R, G, B) |\n"
                "|---|---|---|---|---|---|\n");
    for (int width : {4096, 8192}) {
        const bake::Environment env = sun_sky(width, width / 2);
        const int size = bake::default_specular_source_size(env, base);
        std::vector<double> source_ms, prepare_ms;
        bake::CubeMap source;
        bake::SpecularInput input;
        for (int i = 0; i < repeats; ++i) {
            // The source alone, then all that bake_specular does before the estimator: the bright
            // split over the input, the sources of the input and of the capped input, their mips.
            Clock::time_point t0 = Clock::now();
            source = bake::make_specular_source(env, size);
            source_ms.push_back(ms_since(t0));
            t0 = Clock::now();
            input = bake::prepare_specular_input(env, size);
            prepare_ms.push_back(ms_since(t0));
        }
        // The integrals over the sphere, in double: the input's texels and level 0's.
        double in[3] = {0, 0, 0}, zero[3] = {0, 0, 0};
        for (int r = 0; r < env.equirect.height; ++r) {
            const double omega = bake::equirect_row_solid_angle(r, env.equirect.width, env.equirect.height);
            for (int c = 0; c < env.equirect.width; ++c)
                for (int ch = 0; ch < 3; ++ch) in[ch] += omega * env.equirect.at(r, c)[ch];
        }
        const bake::CubeMap level0 = bake::specular_level_zero(input.mips, base);
        for (int f = 0; f < 6; ++f)
            for (int r = 0; r < base; ++r)
                for (int c = 0; c < base; ++c)
                    for (int ch = 0; ch < 3; ++ch)
                        zero[ch] += bake::cube_texel_solid_angle(r, c, base) * level0.faces[f].at(r, c)[ch];
        std::vector<double> rel(3);
        for (int ch = 0; ch < 3; ++ch) rel[ch] = zero[ch] / in[ch] - 1.0;
        rows.push_back({{"input", std::to_string(width) + "x" + std::to_string(width / 2)},
                        {"source_size", size},
                        {"repeats", repeats},
                        {"make_specular_source_ms", median(source_ms)},
                        {"prepare_specular_input_ms", median(prepare_ms)},
                        {"bright_texels", input.bright.size()},
                        {"level0_integral_rel_error", rel}});
        std::printf("| %dx%d sun sky | 6x%d^2 | %.0f ms | %.0f ms | %zu | %.2e, %.2e, %.2e |\n", width, width / 2, size,
                    median(source_ms), median(prepare_ms), input.bright.size(), rel[0], rel[1], rel[2]);
    }
    *out = rows;
}

}  // namespace bench
