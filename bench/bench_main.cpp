// bake-bench: GPU projection throughput against the card's own measured memory bandwidth, the
// CPU double path's throughput and scaling, and the end-to-end stages of a large EXR.
// Prints a table and writes JSON (--json). Every GPU variant is first checked against the CPU
// double path (1e-5 relative) before anything is timed.
#include <glad/gl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "gl_context.h"
#include "gpu_projector.h"
#include "image_io.h"
#include "environment_loader.h"
#include "projection.h"
#include "sh_compare.h"

using namespace bake;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n == 0 ? 0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

// GL timer queries measure GPU execution; software renderers (llvmpipe) answer ~0 for them, so
// there the wall-clock time around a finished command stands in.
bool g_timer_plausible = true;
double gpu_time_or_wall(double timer_ms, double wall_ms) {
    if (timer_ms > 1e-3) return timer_ms;
    g_timer_plausible = false;
    return wall_ms;
}

// Device memory bandwidth measured on this context: a buffer-to-buffer copy, bytes read plus
// bytes written over GL_TIME_ELAPSED, median of `reps`.
double measure_copy_bandwidth_gbs(size_t bytes, int reps) {
    GLuint buf[2], query;
    glGenBuffers(2, buf);
    glGenQueries(1, &query);
    for (GLuint b : buf) {
        glBindBuffer(GL_COPY_READ_BUFFER, b);
        glBufferData(GL_COPY_READ_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, GL_DYNAMIC_COPY);
    }
    glBindBuffer(GL_COPY_READ_BUFFER, buf[0]);
    glBindBuffer(GL_COPY_WRITE_BUFFER, buf[1]);
    const unsigned zero = 0;
    glClearBufferData(GL_COPY_READ_BUFFER, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
    std::vector<double> ms, wall;
    for (int i = 0; i < reps + 2; ++i) {
        glFinish();
        const auto t0 = Clock::now();
        glBeginQuery(GL_TIME_ELAPSED, query);
        glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, static_cast<GLsizeiptr>(bytes));
        glEndQuery(GL_TIME_ELAPSED);
        glFinish();
        const double w = ms_since(t0);
        GLuint64 ns = 0;
        glGetQueryObjectui64v(query, GL_QUERY_RESULT, &ns);
        if (i >= 2) {
            ms.push_back(static_cast<double>(ns) * 1e-6);
            wall.push_back(w);
        }
    }
    glDeleteQueries(1, &query);
    glDeleteBuffers(2, buf);
    return 2.0 * static_cast<double>(bytes) / (gpu_time_or_wall(median(ms), median(wall)) * 1e-3) / 1e9;
}

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

struct Args {
    std::vector<int> sizes{256, 512, 1024, 2048};
    int repeats = 21;
    int cpu_max_size = 2048;
    std::string json_path = "bench.json";
    bool e2e = true;
    int e2e_width = 8192;
    size_t copy_bytes = size_t(1) << 30;
};

Args parse_args(int argc, char** argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string s = argv[i];
        auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
        if (s == "--quick") {  // for llvmpipe: small sizes, a small e2e map
            a.sizes = {64, 256, 512};
            a.repeats = 5;
            a.e2e_width = 2048;
            a.copy_bytes = size_t(1) << 26;
        } else if (s == "--sizes") {
            a.sizes.clear();
            std::string v = next();
            for (size_t p = 0; p < v.size();) {
                const size_t q = v.find(',', p);
                a.sizes.push_back(std::stoi(v.substr(p, q - p)));
                p = q == std::string::npos ? v.size() : q + 1;
            }
        } else if (s == "--repeats") {
            a.repeats = std::max(1, std::stoi(next()));
        } else if (s == "--cpu-max-size") {
            a.cpu_max_size = std::stoi(next());
        } else if (s == "--json") {
            a.json_path = next();
        } else if (s == "--no-e2e") {
            a.e2e = false;
        } else if (s == "--e2e-width") {
            a.e2e_width = std::stoi(next());
        } else {
            std::fprintf(stderr, "usage: bake-bench [--quick] [--sizes 256,512] [--repeats N] [--cpu-max-size N] "
                                 "[--json out.json] [--no-e2e] [--e2e-width W]\n");
            std::exit(2);
        }
    }
    return a;
}

}  // namespace

int main(int argc, char** argv) {
    const Args args = parse_args(argc, argv);
    nlohmann::json out;
    std::unique_ptr<GlContext> ctx;
    try {
        ctx = GlContext::create(GlBackend::Auto);
    } catch (const GpuError& e) {
        std::fprintf(stderr, "bake-bench: %s\n", e.what());
        return 5;
    }
    GpuProjector gpu(*ctx);
    const unsigned hw_threads = std::max(1u, std::thread::hardware_concurrency());
    out["renderer"] = ctx->info().renderer;
    out["gl_version"] = ctx->info().version;
    out["cpu_threads"] = hw_threads;
    std::printf("renderer: %s | %s | %u CPU threads\n", ctx->info().renderer.c_str(), ctx->info().version.c_str(),
                hw_threads);

    const double bw = measure_copy_bandwidth_gbs(args.copy_bytes, 10);
    out["copy_bandwidth_gbs"] = bw;
    std::printf("measured copy bandwidth: %.1f GB/s (glCopyBufferSubData %zu MiB, read + write)\n\n", bw,
                args.copy_bytes >> 20);

    // GPU projection per face size and order.
    std::printf("%-10s %-5s %10s %10s %10s %8s %9s %9s %10s %9s %9s\n", "input", "order", "proj_ms", "reduce_ms",
                "passes", "GB/s", "of_bw", "red/proj", "max_rel", "cpu_ms", "gpu/cpu");
    nlohmann::json rows = nlohmann::json::array();
    for (int n : args.sizes) {
        const Environment env = random_cube(n, static_cast<unsigned>(n));
        const double texels = 6.0 * n * n;
        for (int order : {3, 5}) {
            // Accuracy first: no timing for a variant that disagrees with the double path.
            const auto t_cpu = Clock::now();
            const bool run_cpu = n <= args.cpu_max_size;
            Projection cpu;
            double cpu_ms = 0;
            if (run_cpu) {
                cpu = project_sh_cpu(env, order);
                cpu_ms = ms_since(t_cpu);
            }
            const Projection first = gpu.project(env, order);
            const double max_rel = run_cpu ? compare_sh(first.radiance, cpu.radiance).max_rel_diff : NAN;
            if (run_cpu && !(max_rel <= 1e-5)) {
                std::fprintf(stderr, "bake-bench: %dx%d order %d: GPU differs from CPU by %.3e > 1e-5; not timed\n", n,
                             n, order, max_rel);
                return 6;
            }
            std::vector<double> proj, red, wall;
            int passes = 0;
            for (int r = 0; r < args.repeats + 2; ++r) {
                const auto t0 = Clock::now();
                gpu.project(env, order);
                const double w = ms_since(t0);
                const GpuTimings& t = gpu.last_timings();
                if (r < 2) continue;  // warm-up
                proj.push_back(t.project_ms);
                red.push_back(t.reduce_ms);
                wall.push_back(w - t.upload_ms);
                passes = t.reduce_passes;
            }
            // Without usable timer queries, the whole call less upload stands in for project.
            const double p = gpu_time_or_wall(median(proj), median(wall)), rd = g_timer_plausible ? median(red) : 0.0;
            const double bytes = texels * 3 * sizeof(float);
            const double gbs = bytes / ((p + rd) * 1e-3) / 1e9;
            char label[32];
            std::snprintf(label, sizeof label, "6x%d^2", n);
            std::printf("%-10s %-5d %10.4f %10.4f %10d %8.1f %8.1f%% %8.2f%% %10.2e %9.1f %9.1f\n", label, order, p, rd,
                        passes, gbs, 100 * gbs / bw, 100 * rd / p, max_rel, cpu_ms,
                        run_cpu ? cpu_ms / (p + rd) : NAN);
            rows.push_back({{"input", label}, {"face_size", n}, {"order", order}, {"texels", texels},
                            {"project_ms_median", p}, {"reduce_ms_median", rd}, {"reduce_passes", passes},
                            {"bytes_read", bytes}, {"gbs", gbs}, {"fraction_of_copy_bandwidth", gbs / bw},
                            {"reduce_over_project", rd / p}, {"repeats", args.repeats},
                            {"max_rel_vs_cpu", run_cpu ? nlohmann::json(max_rel) : nlohmann::json()},
                            {"cpu_ms", run_cpu ? nlohmann::json(cpu_ms) : nlohmann::json()},
                            {"cpu_threads", hw_threads}});
        }
    }
    out["projection"] = rows;
    out["timer_queries_plausible"] = g_timer_plausible;
    if (!g_timer_plausible)
        std::printf("(GL timer queries read ~0 on this renderer: times above are wall-clock around finished calls)\n");

    // CPU double path scaling: 1 thread against all, on a 6x256^2 input.
    {
        const Environment env = random_cube(256, 7u);
        nlohmann::json cpu_rows = nlohmann::json::array();
        std::printf("\nCPU double path, 6x256^2:\n%-7s %-8s %10s %14s %14s\n", "order", "threads", "ms",
                    "Mtexel/s", "Mtexel/s/core");
        for (int order : {3, 5}) {
            double one = 0;
            std::vector<unsigned> counts{1u};
            if (hw_threads >= 2) counts.push_back(2u);
            if (hw_threads > 2) counts.push_back(hw_threads);
            for (unsigned th : counts) {
                std::vector<double> ms;
                for (int r = 0; r < 3; ++r) {
                    const auto t0 = Clock::now();
                    project_sh_cpu(env, order, static_cast<int>(th));
                    ms.push_back(ms_since(t0));
                }
                const double m = median(ms);
                if (th == 1) one = m;
                const double mt = 6.0 * 256 * 256 / (m * 1e-3) / 1e6;
                std::printf("%-7d %-8u %10.2f %14.2f %14.2f   speed-up %.2fx\n", order, th, m, mt, mt / th, one / m);
                cpu_rows.push_back({{"order", order}, {"threads", th}, {"ms", m}, {"mtexels_per_s", mt},
                                    {"speedup_over_1", one / m}});
            }
        }
        out["cpu_scaling"] = cpu_rows;
    }

    // Irradiance map on the GPU: 6 x 64^2, order 5.
    {
        ShCoefficients e(5);
        for (int k = 0; k < 25; ++k) e.rgb[static_cast<size_t>(k)] = {1.0 / (k + 1), 0.5, -0.1 * k};
        std::vector<double> ms, wall;
        for (int r = 0; r < args.repeats + 2; ++r) {
            const auto t0 = Clock::now();
            gpu.render_irradiance_cube(e, 64);
            const double w = ms_since(t0);
            if (r >= 2) {
                ms.push_back(gpu.last_timings().irradiance_ms);
                wall.push_back(w);
            }
        }
        const double irr = gpu_time_or_wall(median(ms), median(wall));
        out["irradiance_6x64_order5_ms"] = irr;
        out["irradiance_6x64_order5_call_wall_ms"] = median(wall);
        std::printf("\nirradiance map 6x64^2 order 5: GPU pass %.4f ms, whole call with read-back %.3f ms\n", irr,
                    median(wall));
    }

    // End to end on a large equirect EXR: decode, upload, project, irradiance, encode.
    if (args.e2e) {
        const int w = args.e2e_width, h = w / 2;
        const std::string in_path = "bench_e2e_input.exr", out_path = "bench_e2e_output.exr";
        {
            Image img(w, h);
            for (int r = 0; r < h; ++r)
                for (int c = 0; c < w; ++c) {
                    float* px = img.at(r, c);
                    px[0] = 1.0f + 0.5f * std::sin(0.01f * static_cast<float>(c));
                    px[1] = 0.5f + 0.25f * std::cos(0.013f * static_cast<float>(r));
                    px[2] = 0.25f + 0.001f * static_cast<float>((r * 7 + c * 13) % 97);
                }
            write_exr(in_path, img, EnvmapHint::None);
        }
        auto t0 = Clock::now();
        const Environment env = load_environment(in_path);
        const double decode_ms = ms_since(t0);
        t0 = Clock::now();
        const Projection p = gpu.project(env, 3);
        const double gpu_project_wall_ms = ms_since(t0);
        const GpuTimings pt = gpu.last_timings();
        t0 = Clock::now();
        const CubeMap map = gpu.render_irradiance_cube(irradiance_from_radiance(p.radiance), 32);
        const double irr_wall_ms = ms_since(t0);
        const double irr_ms = gpu.last_timings().irradiance_ms;
        t0 = Clock::now();
        write_exr(out_path, assemble_cube(map, Layout::VStrip), EnvmapHint::Cube);
        const double encode_ms = ms_since(t0);
        t0 = Clock::now();
        project_sh_cpu(env, 3);
        const double cpu_ms = ms_since(t0);
        const double gpu_stages = pt.upload_ms + pt.project_ms + pt.reduce_ms + irr_ms;
        std::printf("\nend to end, %dx%d float EXR (ZIP), order 3:\n", w, h);
        std::printf("  decode %.1f ms | upload %.2f ms | project %.3f ms | reduce %.3f ms | irradiance %.3f ms | "
                    "encode %.1f ms\n",
                    decode_ms, pt.upload_ms, pt.project_ms, pt.reduce_ms, irr_ms, encode_ms);
        std::printf("  GPU stages %.2f ms = %.1f%% of decode | wall of project() call %.1f ms, irradiance call %.1f "
                    "ms | CPU double path %.1f ms\n",
                    gpu_stages, 100 * gpu_stages / decode_ms, gpu_project_wall_ms, irr_wall_ms, cpu_ms);
        out["end_to_end"] = {{"width", w}, {"height", h}, {"decode_ms", decode_ms}, {"upload_ms", pt.upload_ms},
                             {"project_ms", pt.project_ms}, {"reduce_ms", pt.reduce_ms}, {"irradiance_ms", irr_ms},
                             {"encode_ms", encode_ms}, {"gpu_stages_over_decode", gpu_stages / decode_ms},
                             {"project_call_wall_ms", gpu_project_wall_ms}, {"cpu_double_ms", cpu_ms}};
        std::filesystem::remove(in_path);
        std::filesystem::remove(out_path);
    }

    std::ofstream(args.json_path) << out.dump(1) << "\n";
    std::printf("\nwrote %s\n", args.json_path.c_str());
    return 0;
}
