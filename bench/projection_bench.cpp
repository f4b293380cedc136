// The in-process GPU projection sections of bake-bench: the projection table, pass-shape variants,
// the irradiance map pass, and the CPU double path's scaling. Every GPU result is checked against
// the CPU double path (1e-5 relative) before it is timed. Times in ms (gl_bandwidth: GL timestamp
// pairs, or wall clock on software renderers).
#include "projection_bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "bench_support.h"
#include "gl_bandwidth.h"
#include "gpu_projector.h"
#include "projection.h"
#include "sh_compare.h"

namespace bench {

using namespace bake;

Environment random_cube(int n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 4.0f);
    Environment env;
    env.layout = Layout::Faces;
    env.cube = CubeMap(n);
    for (auto& f : env.cube.faces)
        for (float& v : f.rgb) v = u(rng);
    return env;
}

// CPU double path: exactly 1 and 2 threads, then all hardware threads; median of 5.
nlohmann::json cpu_scaling(int size, unsigned hw_threads) {
    const Environment env = random_cube(size, 7u);
    const double texels = 6.0 * size * size;
    nlohmann::json rows = nlohmann::json::array();
    std::printf("\nCPU double path, 6x%d^2 (median of 5):\n%-7s %-8s %10s %14s %14s %9s\n", size, "order", "threads",
                "ms", "Mtexel/s", "Mtexel/s/core", "speed-up");
    for (int order : {3, 5}) {
        double one = 0;
        std::vector<unsigned> counts{1u, 2u};
        if (hw_threads > 2) counts.push_back(hw_threads);
        for (unsigned th : counts) {
            std::vector<double> ms;
            for (int r = 0; r < 6; ++r) {
                const auto t0 = Clock::now();
                project_sh_cpu(env, order, static_cast<int>(th));
                if (r > 0) ms.push_back(ms_since(t0));
            }
            const double m = median(ms);
            if (th == 1) one = m;
            const double mt = texels / (m * 1e-3) / 1e6;
            std::printf("%-7d %-8u %10.2f %14.2f %14.2f %8.2fx\n", order, th, m, mt, mt / th, one / m);
            rows.push_back({{"order", order}, {"threads", th}, {"ms", m}, {"mtexels_per_s", mt},
                            {"mtexels_per_s_per_core", mt / th}, {"speedup_over_1", one / m}, {"face_size", size}});
        }
    }
    return rows;
}

namespace {

struct Measured {
    double project_ms = 0, reduce_ms = 0, batch_project_ms = 0, batch_reduce_ms = 0, upload_ms = 0;
    int passes = 0;
    double max_rel = NAN;
    double t_start_epoch_ms = 0, t_end_epoch_ms = 0;  // to match nvidia-smi's clock log
};

// Upload once, check against the CPU result, then time warm: `repeats` project_resident()
// calls (per-call timer queries, median) and one back-to-back batch (time_resident).
bool measure(GpuProjector& gpu, const Environment& env, int order, const Projection* cpu, int repeats, Measured* out) {
    gpu.upload(env);
    out->upload_ms = gpu.last_timings().upload_ms;
    const Projection first = gpu.project_resident(order);
    if (cpu) {
        out->max_rel = compare_sh(first.radiance, cpu->radiance).max_rel_diff;
        if (!(out->max_rel <= 1e-5)) return false;
    }
    // Warm-up: keep the GPU busy first, so that its clocks have ramped up (an idle H200 drops
    // its SM clock to 345 MHz and takes up to ~1 s back to 1980 MHz; see bench/NOTES.md).
    for (const auto w0 = Clock::now(); ms_since(w0) < (wall_clock_only() ? 0.0 : 700.0);) gpu.time_resident(order, 10);
    out->t_start_epoch_ms = epoch_ms();
    std::vector<double> proj, red, wall;
    for (int r = 0; r < repeats + 3; ++r) {
        const auto t0 = Clock::now();
        gpu.project_resident(order);
        const double w = ms_since(t0);
        if (r < 3) continue;  // warm-up
        proj.push_back(gpu.last_timings().project_ms);
        red.push_back(gpu.last_timings().reduce_ms);
        wall.push_back(w);
        out->passes = gpu.last_timings().reduce_passes;
    }
    out->project_ms = gpu_time_or_wall(median(proj), median(wall));
    out->reduce_ms = timer_queries_plausible() ? median(red) : 0.0;
    const int reps = std::max(repeats, 20);
    glFinish();
    const auto tb = Clock::now();
    const GpuTimings batch = gpu.time_resident(order, reps);
    const double batch_wall = ms_since(tb) / reps;  // includes one project_resident() call
    out->batch_project_ms = gpu_time_or_wall(batch.project_ms, batch_wall);
    out->batch_reduce_ms = wall_clock_only() ? 0.0 : batch.reduce_ms;
    out->t_end_epoch_ms = epoch_ms();
    return true;
}

// One row of the projection table: face size n, `order`.
bool projection_row(GpuProjector& gpu, const ProjectionOptions& o, const Environment& env, int n, int order,
                    std::string* table, nlohmann::json* rows) {
    const double texels = 6.0 * n * n;
    // Accuracy first: no timing for a variant that disagrees with the double path.
    const bool run_cpu = n <= o.cpu_max_size;
    Projection cpu;
    double cpu_ms = 0;
    if (run_cpu) {
        const auto t_cpu = Clock::now();
        cpu = project_sh_cpu(env, order);
        cpu_ms = ms_since(t_cpu);
    }
    Measured m;
    if (!measure(gpu, env, order, run_cpu ? &cpu : nullptr, o.repeats, &m)) {
        std::fprintf(stderr, "bake-bench: %dx%d order %d: GPU differs from CPU by %.3e > 1e-5; not timed\n", n,
                     n, order, m.max_rel);
        return false;
    }
    const double total = m.project_ms + m.reduce_ms;
    const double bytes = texels * 3 * sizeof(float);
    // Over the whole projection (pass 1 + reductions): the conservative figure.
    const double gbs = bytes / (total * 1e-3) / 1e9;
    char label[32], line[256];
    std::snprintf(label, sizeof label, "6x%d^2", n);
    std::snprintf(line, sizeof line,
                  "%-9s %-5d %9.4f %9.4f %6d %9.4f %9.4f %8.1f %6.1f%% %7.2f%% %9.2f %9.2e %9.1f %8.1f\n",
                  label, order, m.project_ms, m.reduce_ms, m.passes, m.batch_project_ms, m.batch_reduce_ms,
                  gbs, 100 * gbs / o.bandwidth_gbs, 100 * m.reduce_ms / m.project_ms, m.upload_ms, m.max_rel, cpu_ms,
                  run_cpu ? cpu_ms / total : NAN);
    std::printf("%s", line);
    *table += line;
    rows->push_back({{"input", label}, {"face_size", n}, {"order", order}, {"texels", texels},
                    {"project_ms_median", m.project_ms}, {"reduce_ms_median", m.reduce_ms},
                    {"reduce_passes", m.passes}, {"batch_project_ms", m.batch_project_ms},
                    {"batch_reduce_ms", m.batch_reduce_ms}, {"bytes_read", bytes}, {"gbs", gbs},
                    {"fraction_of_bandwidth", gbs / o.bandwidth_gbs}, {"reduce_over_project", m.reduce_ms / m.project_ms},
                    {"upload_ms", m.upload_ms}, {"repeats", o.repeats},
                    {"t_start_epoch_ms", m.t_start_epoch_ms}, {"t_end_epoch_ms", m.t_end_epoch_ms},
                    {"max_rel_vs_cpu", run_cpu ? nlohmann::json(m.max_rel) : nlohmann::json()},
                    {"cpu_ms", run_cpu ? nlohmann::json(cpu_ms) : nlohmann::json()},
                    {"cpu_threads", o.hw_threads}});
    return true;
}

}  // namespace

bool projection_table(GpuProjector& gpu, const ProjectionOptions& o, std::string* table, nlohmann::json* rows) {
    char head[256];
    std::snprintf(head, sizeof head, "%-9s %-5s %9s %9s %6s %9s %9s %8s %7s %8s %9s %9s %9s %8s\n", "input", "order",
                  "proj_ms", "reduce_ms", "passes", "batch_pj", "batch_red", "GB/s", "of_bw", "red/proj", "upload_ms",
                  "max_rel", "cpu_ms", "gpu/cpu");
    std::printf("%s", head);
    *table = head;
    *rows = nlohmann::json::array();
    for (int n : o.sizes) {
        const Environment env = random_cube(n, static_cast<unsigned>(n));
        for (int order : {3, 5})
            if (!projection_row(gpu, o, env, n, order, table, rows)) return false;
    }
    return true;
}

std::string variants_table(GpuProjector& gpu, const ProjectionOptions& o, nlohmann::json* rows) {
    const GpuTuning defaults = gpu.tuning();
    std::string variant_table;
    const int n = o.sizes.back();
    const Environment env = random_cube(n, 4242u);
    const Projection cpu3 = project_sh_cpu(env, 3), cpu5 = project_sh_cpu(env, 5);
    auto v = [&](bool sym, unsigned wg, unsigned tasks, unsigned cq, unsigned rseq, GpuTuning::Upload up,
                 unsigned threads, unsigned positions, unsigned reduce_group) {
        GpuTuning t = defaults;
        t.cube_symmetry = sym;
        t.group_size = wg;
        t.tasks_per_thread = tasks;
        t.cube_quads_per_thread = cq;
        t.reduce_seq = rseq;
        t.upload = up;
        t.upload_threads = threads;
        t.sym_positions = positions;
        t.reduce_group_size = reduce_group;
        return t;
    };
    using U = GpuTuning::Upload;
    auto split = [](GpuTuning t) {
        t.coeff_split = 2;
        return t;
    };
    const std::vector<GpuTuning> variants = {
        v(false, 256, 1, 1, 1, U::BufferData, 4, 4, 256),  // the previous design
        v(true, 256, 2, 1, 8, U::Staging, 8, 2, 256),     // the default
        v(true, 256, 1, 1, 8, U::Staging, 8, 4, 256),
        v(true, 128, 1, 1, 8, U::Staging, 8, 4, 256),
        split(v(true, 256, 2, 1, 8, U::Staging, 8, 4, 256)),
        v(true, 256, 2, 1, 8, U::Staging, 8, 2, 256),     // the default again: drift check
    };
    char vh[256];
    std::snprintf(vh, sizeof vh, "%-62s %-5s %9s %9s %6s %9s %8s %7s %9s %9s\n", "variant", "order",
                  "proj_ms", "reduce_ms", "passes", "batch_pj", "GB/s", "of_bw", "upload_ms", "max_rel");
    variant_table = std::string("\nvariants on 6x") + std::to_string(n) + "^2:\n" + vh;
    std::printf("%s", variant_table.c_str());
    nlohmann::json vj = nlohmann::json::array();
    for (const GpuTuning& t : variants) {
        gpu.set_tuning(t);
        for (int order : {3, 5}) {
            Measured m;
            const bool ok = measure(gpu, env, order, order == 3 ? &cpu3 : &cpu5, o.repeats, &m);
            const double gbs = ok ? 6.0 * n * n * 12 / ((m.project_ms + m.reduce_ms) * 1e-3) / 1e9 : 0;
            char line[320];
            std::snprintf(line, sizeof line, "%-62s %-5d %9.4f %9.4f %6d %9.4f %8.1f %6.1f%% %9.2f %9.2e%s\n",
                          t.describe().c_str(), order, m.project_ms, m.reduce_ms, m.passes, m.batch_project_ms,
                          gbs, 100 * gbs / o.bandwidth_gbs, m.upload_ms, m.max_rel, ok ? "" : "  FAILED CHECK, not timed");
            std::printf("%s", line);
            variant_table += line;
            vj.push_back({{"tuning", t.describe()}, {"order", order}, {"face_size", n}, {"checked", ok},
                          {"project_ms_median", m.project_ms}, {"reduce_ms_median", m.reduce_ms},
                          {"reduce_passes", m.passes}, {"batch_project_ms", m.batch_project_ms},
                          {"batch_reduce_ms", m.batch_reduce_ms}, {"gbs", gbs}, {"fraction_of_bandwidth", gbs / o.bandwidth_gbs},
                          {"upload_ms", m.upload_ms}, {"max_rel_vs_cpu", m.max_rel},
                          {"t_start_epoch_ms", m.t_start_epoch_ms}, {"t_end_epoch_ms", m.t_end_epoch_ms}});
        }
    }
    *rows = vj;
    gpu.set_tuning(defaults);
    return variant_table;
}

void irradiance_map_bench(GpuProjector& gpu, int repeats, nlohmann::json* out) {
    ShCoefficients e(5);
    for (int k = 0; k < 25; ++k) e.rgb[static_cast<size_t>(k)] = {1.0 / (k + 1), 0.5, -0.1 * k};
    std::vector<double> ms, wall;
    for (int r = 0; r < repeats + 3; ++r) {
        const auto t0 = Clock::now();
        gpu.render_irradiance_cube(e, 64);
        const double w = ms_since(t0);
        if (r >= 3) {
            ms.push_back(gpu.last_timings().irradiance_ms);
            wall.push_back(w);
        }
    }
    const double irr = gpu_time_or_wall(median(ms), median(wall));
    (*out)["irradiance_6x64_order5_ms"] = irr;
    (*out)["irradiance_6x64_order5_call_wall_ms"] = median(wall);
    std::printf("\nirradiance map 6x64^2 order 5: GPU pass %.4f ms, whole call with read-back %.3f ms\n", irr,
                median(wall));
}

}  // namespace bench
