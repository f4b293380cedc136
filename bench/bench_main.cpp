// bake-bench: GPU projection throughput against the card's own measured memory bandwidth, the
// CPU double path's throughput and scaling, and the end-to-end stages of a large EXR.
// Prints a table and writes JSON (--json). Every GPU variant is first checked against the CPU
// double path (1e-5 relative) before anything is timed.
#include <glad/gl.h>
#include <EGL/egl.h>

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

#include "end_to_end.h"
#include "exact_bench.h"
#include "specular_bench.h"
#include "gl_context.h"
#include "gpu_projector.h"
#include "image_io.h"
#include "bench_support.h"
#include "environment_loader.h"
#include "layout.h"
#include "projection.h"
#include "sh_compare.h"

using namespace bake;
using bench::Clock;
using bench::median;
using bench::ms_since;

namespace {

double epoch_ms() {
    return static_cast<double>(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

// GL timer queries measure GPU execution; software renderers (llvmpipe) answer ~0 for them, so
// there the wall-clock time around a finished command stands in.
// Mesa's software renderers: their timestamps do not reliably bracket compute work (seen:
// read-kernel "bandwidths" of several TB/s on two CPU cores), so wall clock is used throughout.
bool g_force_wall = false;
double g_warmup_ms = 700;
bool g_timer_plausible = true;
double gpu_time_or_wall(double timer_ms, double wall_ms) {
    if (timer_ms > 1e-3 && !g_force_wall) return timer_ms;
    g_timer_plausible = false;
    return wall_ms;
}

// ---- Memory bandwidth, measured on this context -------------------------------------------

#ifndef GL_DYNAMIC_STORAGE_BIT
#define GL_DYNAMIC_STORAGE_BIT 0x0100
#endif
using BufferStorageFn = void(GLAD_API_PTR*)(GLenum, GLsizeiptr, const void*, GLbitfield);
BufferStorageFn g_buffer_storage = nullptr;

// Median over `reps` batches of `batch` operations, each batch between two GL_TIMESTAMP queries
// (wall clock around glFinish where timestamps read ~0); ms per operation.
template <typename Op>
double time_batches(int reps, int batch, const Op& op) {
    GLuint q[2];
    glGenQueries(2, q);
    std::vector<double> ms, wall;
    for (int i = 0; i < reps + 1; ++i) {
        glFinish();
        const auto t0 = Clock::now();
        glQueryCounter(q[0], GL_TIMESTAMP);
        for (int b = 0; b < batch; ++b) op();
        glQueryCounter(q[1], GL_TIMESTAMP);
        glFinish();
        const double w = ms_since(t0);
        GLuint64 a = 0, z = 0;
        glGetQueryObjectui64v(q[0], GL_QUERY_RESULT, &a);
        glGetQueryObjectui64v(q[1], GL_QUERY_RESULT, &z);
        if (i == 0) continue;  // warm-up
        ms.push_back(z > a ? static_cast<double>(z - a) * 1e-6 / batch : 0.0);
        wall.push_back(w / batch);
    }
    glDeleteQueries(2, q);
    return gpu_time_or_wall(median(ms), median(wall));
}

// Two buffers of `bytes`: immutable device-only storage (flags 0) when `storage`, else
// glBufferData(usage).
void make_buffers(GLuint* buf, int count, size_t bytes, bool storage, GLenum usage) {
    glGenBuffers(count, buf);
    for (int i = 0; i < count; ++i) {
        glBindBuffer(GL_COPY_WRITE_BUFFER, buf[i]);
        if (storage) g_buffer_storage(GL_COPY_WRITE_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, 0);
        else glBufferData(GL_COPY_WRITE_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, usage);
        const float one = 1.0f;  // never zeros (METHOD.md): a non-zero pattern
        glClearBufferData(GL_COPY_WRITE_BUFFER, GL_R32F, GL_RED, GL_FLOAT, &one);
    }
}

// glCopyBufferSubData between two buffers: (bytes read + bytes written) / time, GB/s.
double copy_bandwidth_gbs(size_t bytes, bool storage, GLenum usage) {
    GLuint buf[2];
    make_buffers(buf, 2, bytes, storage, usage);
    glBindBuffer(GL_COPY_READ_BUFFER, buf[0]);
    glBindBuffer(GL_COPY_WRITE_BUFFER, buf[1]);
    const double ms = time_batches(7, 4, [&] {
        glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, static_cast<GLsizeiptr>(bytes));
    });
    glDeleteBuffers(2, buf);
    return 2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9;
}

GLuint compile_compute(const char* src) {
    const GLuint s = glCreateShader(GL_COMPUTE_SHADER);
    glShaderSource(s, 1, &src, nullptr);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[4096];
        glGetShaderInfoLog(s, sizeof log, nullptr, log);
        std::fprintf(stderr, "bench shader: %s\n", log);
        std::exit(7);
    }
    const GLuint p = glCreateProgram();
    glAttachShader(p, s);
    glLinkProgram(p);
    glDeleteShader(s);
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        std::fprintf(stderr, "bench shader: link failed\n");
        std::exit(7);
    }
    return p;
}

// A read-only kernel: every vec4 of the buffer read once (8 independent 16-byte loads in flight
// per invocation, grid-stride), one float written per invocation; and a copy kernel (4 loads in
// flight, each vec4 written once). Several grid sizes; the best is kept. GB/s = bytes read (and
// written, for the copy) / time.
const char* kReadKernel = R"(#version 430 core
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Data { vec4 data[]; };
layout(std430, binding = 1) writeonly buffer Out { float result[]; };
uniform uint u_count;
void main() {
    uint stride = gl_NumWorkGroups.x * 256u;
    uint i = gl_GlobalInvocationID.x;
    vec4 s0 = vec4(0.0), s1 = vec4(0.0), s2 = vec4(0.0), s3 = vec4(0.0);
    vec4 s4 = vec4(0.0), s5 = vec4(0.0), s6 = vec4(0.0), s7 = vec4(0.0);
    for (; i + 7u * stride < u_count; i += 8u * stride) {
        s0 += data[i]; s1 += data[i + stride]; s2 += data[i + 2u * stride]; s3 += data[i + 3u * stride];
        s4 += data[i + 4u * stride]; s5 += data[i + 5u * stride]; s6 += data[i + 6u * stride]; s7 += data[i + 7u * stride];
    }
    for (; i < u_count; i += stride) s0 += data[i];
    vec4 s = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
    result[gl_GlobalInvocationID.x] = s.x + s.y + s.z + s.w;
}
)";
// The same reads, block-contiguous: work group g reads vec4s [g * u_per_group, +u_per_group),
// 8 loads of 256 consecutive vec4s in flight per iteration (u_per_group a multiple of 2048).
const char* kReadBlockKernel = R"(#version 430 core
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Data { vec4 data[]; };
layout(std430, binding = 1) writeonly buffer Out { float result[]; };
uniform uint u_count;
uniform uint u_per_group;
void main() {
    uint base = gl_WorkGroupID.x * u_per_group;
    uint end = min(base + u_per_group, u_count);
    vec4 s0 = vec4(0.0), s1 = vec4(0.0), s2 = vec4(0.0), s3 = vec4(0.0);
    vec4 s4 = vec4(0.0), s5 = vec4(0.0), s6 = vec4(0.0), s7 = vec4(0.0);
    for (uint i = base + gl_LocalInvocationID.x; i < end; i += 2048u) {
        s0 += data[i]; s1 += data[i + 256u]; s2 += data[i + 512u]; s3 += data[i + 768u];
        s4 += data[i + 1024u]; s5 += data[i + 1280u]; s6 += data[i + 1536u]; s7 += data[i + 1792u];
    }
    vec4 s = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
    result[gl_GlobalInvocationID.x] = s.x + s.y + s.z + s.w;
}
)";
const char* kCopyKernel = R"(#version 430 core
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Data { vec4 data[]; };
layout(std430, binding = 1) writeonly buffer Out { vec4 result[]; };
uniform uint u_count;
void main() {
    uint stride = gl_NumWorkGroups.x * 256u;
    uint i = gl_GlobalInvocationID.x;
    for (; i + 3u * stride < u_count; i += 4u * stride) {
        vec4 a = data[i], b = data[i + stride], c = data[i + 2u * stride], d = data[i + 3u * stride];
        result[i] = a; result[i + stride] = b; result[i + 2u * stride] = c; result[i + 3u * stride] = d;
    }
    for (; i < u_count; i += stride) result[i] = data[i];
}
)";

// Block-contiguous read kernel over a buffer of `bytes` (a multiple of 32 KiB): best over the
// per-group block sizes; GB/s of bytes read.
double block_read_bandwidth_gbs(size_t bytes, GLuint program, GLuint* best_per_group) {
    GLuint buf[2];
    make_buffers(buf, 1, bytes, true, 0);
    const GLuint count = static_cast<GLuint>(bytes / 16);
    glGenBuffers(1, &buf[1]);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf[1]);
    glBufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(count / 2048 + 1) * 256 * 4, nullptr, GL_DYNAMIC_COPY);
    glUseProgram(program);
    glUniform1ui(glGetUniformLocation(program, "u_count"), count);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buf[0]);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, buf[1]);
    GLint max_groups = 0;
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &max_groups);
    double best = 0;
    for (GLuint per_group : {2048u, 8192u, 32768u, 131072u}) {
        const GLuint groups = (count + per_group - 1) / per_group;
        if (groups > static_cast<GLuint>(max_groups)) continue;
        glUniform1ui(glGetUniformLocation(program, "u_per_group"), per_group);
        const double ms = time_batches(5, 4, [&] {
            glDispatchCompute(groups, 1, 1);
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        });
        if (glGetError() != GL_NO_ERROR) {
            std::fprintf(stderr, "bake-bench: block read kernel failed\n");
            std::exit(7);
        }
        const double gbs = static_cast<double>(bytes) / (ms * 1e-3) / 1e9;
        if (gbs > best) {
            best = gbs;
            *best_per_group = per_group;
        }
    }
    glUseProgram(0);
    glDeleteBuffers(2, buf);
    return best;
}

// Best over grid sizes of the read (copy = false) or copy kernel; *best_groups gets the grid.
double kernel_bandwidth_gbs(size_t bytes, bool storage, GLenum usage, GLuint program, bool copy, GLuint* best_groups) {
    GLuint buf[2];
    make_buffers(buf, copy ? 2 : 1, bytes, storage, usage);
    if (!copy) {
        glGenBuffers(1, &buf[1]);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf[1]);
        glBufferData(GL_SHADER_STORAGE_BUFFER, 65536 * 256 * 4, nullptr, GL_DYNAMIC_COPY);
    }
    glUseProgram(program);
    glUniform1ui(glGetUniformLocation(program, "u_count"), static_cast<GLuint>(bytes / 16));
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buf[0]);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, buf[1]);
    double best = 0;
    GLint max_groups = 0;
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &max_groups);
    while (glGetError() != GL_NO_ERROR) {
    }
    for (GLuint groups : {1056u, 2112u, 4224u, 16896u, 65535u}) {
        if (groups > static_cast<GLuint>(max_groups)) continue;
        const double ms = time_batches(5, 4, [&] {
            glDispatchCompute(groups, 1, 1);
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        });
        if (glGetError() != GL_NO_ERROR) {
            std::fprintf(stderr, "bake-bench: bandwidth kernel with %u groups failed\n", groups);
            std::exit(7);
        }
        const double gbs = (copy ? 2.0 : 1.0) * static_cast<double>(bytes) / (ms * 1e-3) / 1e9;
        if (gbs > best) {
            best = gbs;
            if (best_groups) *best_groups = groups;
        }
    }
    glUseProgram(0);
    glDeleteBuffers(2, buf);
    return best;
}

// ---- Inputs ---------------------------------------------------------------------------------

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
    int cpu_scaling_size = 512;
    std::string json_path = "bench.json";
    std::string programs_path;  // --programs: driver program binaries' text
    bool e2e = true;
    bool variants = false;
    bool cpu_only = false;
    int e2e_width = 8192;
    size_t copy_bytes = size_t(1) << 30;
    bool quick = false, repeats_given = false;
    bench::WholeProcessOptions whole;  // --whole-process DIR: only that section
    bool exact = false;                // --exact: only the exact-irradiance section
    bool specular = false;             // --specular [--specular-dir DIR]: only the specular section
    bool specular_source = false;      // --specular-source: only the specular source cube, CPU only
    std::string specular_maps;         // --specular-maps DIR: with --specular-source, the chain's accuracy on DIR's shared maps
    std::string specular_dir;
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
            a.cpu_scaling_size = 256;
            a.quick = true;
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
            a.repeats_given = true;
        } else if (s == "--cpu-max-size") {
            a.cpu_max_size = std::stoi(next());
        } else if (s == "--json") {
            a.json_path = next();
        } else if (s == "--programs") {
            a.programs_path = next();
        } else if (s == "--no-e2e") {
            a.e2e = false;
        } else if (s == "--variants") {
            a.variants = true;
        } else if (s == "--cpu-only") {
            a.cpu_only = true;
        } else if (s == "--e2e-width") {
            a.e2e_width = std::stoi(next());
        } else if (s == "--exact") {
            a.exact = true;
        } else if (s == "--specular") {
            a.specular = true;
        } else if (s == "--specular-source") {
            a.specular_source = true;
        } else if (s == "--specular-maps") {
            a.specular_maps = next();
        } else if (s == "--specular-dir") {
            a.specular_dir = next();
        } else if (s == "--whole-process") {
            a.whole.dir = next();
        } else if (s == "--tool") {
            a.whole.tool = next();
        } else if (s == "--sky-tool") {
            a.whole.sky_tool = next();
        } else if (s == "--cmgen") {
            a.whole.cmgen = next();
        } else if (s == "--grain") {
            a.whole.grain = std::stod(next());
        } else {
            std::fprintf(stderr, "usage: bake-bench [--quick] [--sizes 256,512] [--repeats N] [--cpu-max-size N] "
                                 "[--json out.json] [--programs out.txt] [--variants] [--cpu-only] [--no-e2e] "
                                 "[--e2e-width W]\n"
                                 "       bake-bench --whole-process DIR [--quick] [--repeats N] [--json out.json] "
                                 "[--tool bake-irradiance] [--sky-tool make-sample-sky] [--cmgen cmgen] [--grain G]\n"
                                 "       bake-bench --exact [--quick] [--repeats N] [--json out.json]\n"
                                 "       bake-bench --specular [--quick] [--repeats N] [--json out.json] [--specular-dir DIR "
                                 "--tool bake-irradiance --cmgen cmgen]\n"
                                 "       bake-bench --specular-source [--specular-maps tests/data] [--repeats N] [--json out.json]\n");
            std::exit(2);
        }
    }
    return a;
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
    for (const auto w0 = Clock::now(); ms_since(w0) < g_warmup_ms;) gpu.time_resident(order, 10);
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
    out->reduce_ms = g_timer_plausible ? median(red) : 0.0;
    const int reps = std::max(repeats, 20);
    glFinish();
    const auto tb = Clock::now();
    const GpuTimings batch = gpu.time_resident(order, reps);
    const double batch_wall = ms_since(tb) / reps;  // includes one project_resident() call
    out->batch_project_ms = gpu_time_or_wall(batch.project_ms, batch_wall);
    out->batch_reduce_ms = g_force_wall ? 0.0 : batch.reduce_ms;
    out->t_end_epoch_ms = epoch_ms();
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    const Args args = parse_args(argc, argv);
    nlohmann::json out;
    const unsigned hw_threads = std::max(1u, std::thread::hardware_concurrency());
    if (!args.whole.dir.empty()) {  // whole processes only: no GL context in this process
        bench::WholeProcessOptions w = args.whole;
        w.quick = args.quick;
        w.repeats = args.repeats_given ? args.repeats : 3;
        const int rc = bench::run_whole_process(w, &out["whole_process"]);
        std::ofstream(args.json_path) << out.dump(1) << "\n";
        std::printf("wrote %s\n", args.json_path.c_str());
        return rc;
    }
    if (args.specular_source) {  // CPU only: no GL context
        out["cpu_threads"] = hw_threads;
        bench::run_specular_source_bench(args.repeats_given ? args.repeats : 3, &out["specular_source"]);
        if (!args.specular_maps.empty())
            for (int base : {16, 64}) bench::run_specular_accuracy(args.specular_maps, base, &out["specular_accuracy"][std::to_string(base)]);
        std::ofstream(args.json_path) << out.dump(1) << "\n";
        std::printf("wrote %s\n", args.json_path.c_str());
        return 0;
    }
    if (args.cpu_only) {
        out["cpu_threads"] = hw_threads;
        out["cpu_scaling"] = cpu_scaling(args.cpu_scaling_size, hw_threads);
        std::ofstream(args.json_path) << out.dump(1) << "\n";
        return 0;
    }
    std::unique_ptr<GlContext> ctx;
    try {
        ctx = GlContext::create(GlBackend::Auto);
    } catch (const GpuError& e) {
        std::fprintf(stderr, "bake-bench: %s\n", e.what());
        return 5;
    }
    GpuProjector gpu(*ctx);
    if (args.exact) {
        out["renderer"] = ctx->info().renderer;
        bench::run_exact_bench(gpu, args.quick, args.repeats_given ? args.repeats : 5, &out["exact_irradiance"]);
        std::ofstream(args.json_path) << out.dump(1) << "\n";
        std::printf("wrote %s\n", args.json_path.c_str());
        return 0;
    }
    if (args.specular) {
        out["renderer"] = ctx->info().renderer;
        bench::SpecularBenchOptions so;
        so.quick = args.quick;
        so.repeats = args.repeats_given ? args.repeats : 5;
        so.dir = args.specular_dir;
        so.tool = args.whole.tool;
        so.cmgen = args.whole.cmgen;
        bench::run_specular_bench(gpu, so, &out["specular"]);
        std::ofstream(args.json_path) << out.dump(1) << "\n";
        std::printf("wrote %s\n", args.json_path.c_str());
        return 0;
    }
    g_force_wall = ctx->info().renderer.find("llvmpipe") != std::string::npos ||
                   ctx->info().renderer.find("softpipe") != std::string::npos;
    if (g_force_wall) g_warmup_ms = 0;  // no clocks to ramp up
    const GpuTuning defaults = gpu.tuning();
    out["renderer"] = ctx->info().renderer;
    out["gl_version"] = ctx->info().version;
    out["cpu_threads"] = hw_threads;
    out["tuning"] = defaults.describe();
    std::printf("renderer: %s | %s | %u CPU threads | tuning %s\n", ctx->info().renderer.c_str(),
                ctx->info().version.c_str(), hw_threads, defaults.describe().c_str());

    // Bandwidth: copies and a read-only kernel, on immutable device-only buffers and (for the
    // record) on glBufferData ones.
    g_buffer_storage = reinterpret_cast<BufferStorageFn>(eglGetProcAddress("glBufferStorage"));
    const bool storage = g_buffer_storage && gpu.buffer_storage_available();
    const GLuint read_program = compile_compute(kReadKernel), copy_program = compile_compute(kCopyKernel);
    const size_t bw_bytes = args.copy_bytes;
    nlohmann::json bwj;
    bwj["bytes"] = bw_bytes;
    GLuint read_groups = 0, copy_groups = 0, unused = 0;
    bwj["copy_bufferdata_dynamic_copy_gbs"] = copy_bandwidth_gbs(bw_bytes, false, GL_DYNAMIC_COPY);
    bwj["read_kernel_bufferdata_stream_draw_gbs"] =
        kernel_bandwidth_gbs(bw_bytes, false, GL_STREAM_DRAW, read_program, false, &unused);
    if (storage) {
        bwj["copy_storage_gbs"] = copy_bandwidth_gbs(bw_bytes, true, 0);
        bwj["read_kernel_storage_gbs"] = kernel_bandwidth_gbs(bw_bytes, true, 0, read_program, false, &read_groups);
        bwj["copy_kernel_storage_gbs"] = kernel_bandwidth_gbs(bw_bytes, true, 0, copy_program, true, &copy_groups);
    } else {
        bwj["copy_kernel_bufferdata_gbs"] =
            kernel_bandwidth_gbs(bw_bytes, false, GL_DYNAMIC_COPY, copy_program, true, &copy_groups);
    }
    // Block-contiguous reads at two sizes: the 6 x 2048^2 input's 302 MB and the 1 GiB above.
    const GLuint block_program = compile_compute(kReadBlockKernel);
    double block_bw = 0;
    if (storage)
        for (size_t bytes : {g_force_wall ? bw_bytes : size_t(302) << 20, bw_bytes}) {
            GLuint per_group = 0;
            const double g = block_read_bandwidth_gbs(bytes, block_program, &per_group);
            bwj["block_read_kernel_" + std::to_string(bytes >> 20) + "MiB_gbs"] = g;
            bwj["block_read_kernel_" + std::to_string(bytes >> 20) + "MiB_per_group"] = per_group;
            block_bw = std::max(block_bw, g);
        }
    bwj["read_kernel_groups"] = read_groups;
    bwj["copy_kernel_groups"] = copy_groups;
    const double copy_bw = storage ? bwj["copy_storage_gbs"].get<double>() : bwj["copy_bufferdata_dynamic_copy_gbs"].get<double>();
    const double read_bw = std::max(block_bw, storage ? bwj["read_kernel_storage_gbs"].get<double>()
                                                      : bwj["read_kernel_bufferdata_stream_draw_gbs"].get<double>());
    const double kcopy_bw =
        storage ? bwj["copy_kernel_storage_gbs"].get<double>() : bwj["copy_kernel_bufferdata_gbs"].get<double>();
    // The reference: the largest of the three (the fraction below is then the conservative one).
    const double bw = std::max({copy_bw, read_bw, kcopy_bw});
    bwj["reference_gbs"] = bw;
    out["bandwidth"] = bwj;
    std::printf("memory bandwidth, %zu MiB buffers: glCopyBufferSubData (read+write) %.1f GB/s, copy kernel "
                "(read+write) %.1f GB/s, read-only kernels (best of grid-stride and block) %.1f GB/s [glBufferData buffers: glCopyBufferSubData %.1f, "
                "read kernel %.1f]; reference %.1f GB/s\n\n",
                bw_bytes >> 20, copy_bw, kcopy_bw, read_bw, bwj["copy_bufferdata_dynamic_copy_gbs"].get<double>(),
                bwj["read_kernel_bufferdata_stream_draw_gbs"].get<double>(), bw);

    // The floor of any extra pass: one work group doing (almost) nothing, dispatched back to back
    // with the same barrier as a reduction pass.
    {
        const GLuint empty = compile_compute(R"(#version 430 core
layout(local_size_x = 256) in;
layout(std430, binding = 1) writeonly buffer Out { vec4 result[]; };
void main() { if (gl_LocalInvocationID.x == 0u) result[gl_WorkGroupID.x] = vec4(1.0); }
)");
        GLuint b = 0;
        glGenBuffers(1, &b);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, b);
        glBufferData(GL_SHADER_STORAGE_BUFFER, 4096, nullptr, GL_DYNAMIC_COPY);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, b);
        glUseProgram(empty);
        const double ms = time_batches(9, 50, [&] {
            glDispatchCompute(1, 1, 1);
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        });
        glUseProgram(0);
        glDeleteBuffers(1, &b);
        out["empty_dispatch_ms"] = ms;
        std::printf("one-group empty dispatch + barrier, back to back: %.4f ms each\n\n", ms);
    }

    // GPU projection per face size and order, default tuning.
    char head[256];
    std::snprintf(head, sizeof head, "%-9s %-5s %9s %9s %6s %9s %9s %8s %7s %8s %9s %9s %9s %8s\n", "input", "order",
                  "proj_ms", "reduce_ms", "passes", "batch_pj", "batch_red", "GB/s", "of_bw", "red/proj", "upload_ms",
                  "max_rel", "cpu_ms", "gpu/cpu");
    std::printf("%s", head);
    std::string table = head;
    nlohmann::json rows = nlohmann::json::array();
    for (int n : args.sizes) {
        const Environment env = random_cube(n, static_cast<unsigned>(n));
        const double texels = 6.0 * n * n;
        for (int order : {3, 5}) {
            // Accuracy first: no timing for a variant that disagrees with the double path.
            const bool run_cpu = n <= args.cpu_max_size;
            Projection cpu;
            double cpu_ms = 0;
            if (run_cpu) {
                const auto t_cpu = Clock::now();
                cpu = project_sh_cpu(env, order);
                cpu_ms = ms_since(t_cpu);
            }
            Measured m;
            if (!measure(gpu, env, order, run_cpu ? &cpu : nullptr, args.repeats, &m)) {
                std::fprintf(stderr, "bake-bench: %dx%d order %d: GPU differs from CPU by %.3e > 1e-5; not timed\n", n,
                             n, order, m.max_rel);
                return 6;
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
                          gbs, 100 * gbs / bw, 100 * m.reduce_ms / m.project_ms, m.upload_ms, m.max_rel, cpu_ms,
                          run_cpu ? cpu_ms / total : NAN);
            std::printf("%s", line);
            table += line;
            rows.push_back({{"input", label}, {"face_size", n}, {"order", order}, {"texels", texels},
                            {"project_ms_median", m.project_ms}, {"reduce_ms_median", m.reduce_ms},
                            {"reduce_passes", m.passes}, {"batch_project_ms", m.batch_project_ms},
                            {"batch_reduce_ms", m.batch_reduce_ms}, {"bytes_read", bytes}, {"gbs", gbs},
                            {"fraction_of_bandwidth", gbs / bw}, {"reduce_over_project", m.reduce_ms / m.project_ms},
                            {"upload_ms", m.upload_ms}, {"repeats", args.repeats},
                            {"t_start_epoch_ms", m.t_start_epoch_ms}, {"t_end_epoch_ms", m.t_end_epoch_ms},
                            {"max_rel_vs_cpu", run_cpu ? nlohmann::json(m.max_rel) : nlohmann::json()},
                            {"cpu_ms", run_cpu ? nlohmann::json(cpu_ms) : nlohmann::json()},
                            {"cpu_threads", hw_threads}});
        }
    }
    out["projection"] = rows;
    out["timer_queries_plausible"] = g_timer_plausible;
    if (!g_timer_plausible)
        std::printf("(software renderer or timer queries reading ~0: times above are wall-clock around finished "
                    "calls, read-back included; batch = wall of a batch / repetitions)\n");

    // Variants of the pass shapes and upload paths on the largest size, each checked first.
    std::string variant_table;
    if (args.variants) {
        const int n = args.sizes.back();
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
                const bool ok = measure(gpu, env, order, order == 3 ? &cpu3 : &cpu5, args.repeats, &m);
                const double gbs = ok ? 6.0 * n * n * 12 / ((m.project_ms + m.reduce_ms) * 1e-3) / 1e9 : 0;
                char line[320];
                std::snprintf(line, sizeof line, "%-62s %-5d %9.4f %9.4f %6d %9.4f %8.1f %6.1f%% %9.2f %9.2e%s\n",
                              t.describe().c_str(), order, m.project_ms, m.reduce_ms, m.passes, m.batch_project_ms,
                              gbs, 100 * gbs / bw, m.upload_ms, m.max_rel, ok ? "" : "  FAILED CHECK, not timed");
                std::printf("%s", line);
                variant_table += line;
                vj.push_back({{"tuning", t.describe()}, {"order", order}, {"face_size", n}, {"checked", ok},
                              {"project_ms_median", m.project_ms}, {"reduce_ms_median", m.reduce_ms},
                              {"reduce_passes", m.passes}, {"batch_project_ms", m.batch_project_ms},
                              {"batch_reduce_ms", m.batch_reduce_ms}, {"gbs", gbs}, {"fraction_of_bandwidth", gbs / bw},
                              {"upload_ms", m.upload_ms}, {"max_rel_vs_cpu", m.max_rel},
                              {"t_start_epoch_ms", m.t_start_epoch_ms}, {"t_end_epoch_ms", m.t_end_epoch_ms}});
            }
        }
        out["variants"] = vj;
        gpu.set_tuning(defaults);
    }
    if (!args.programs_path.empty()) {  // the drivers' program binaries, printable runs only
        std::ofstream prog(args.programs_path);
        for (const auto& entry : gpu.program_binaries()) {
            prog << "==== " << entry.first << "\n==== " << entry.second.size() << " bytes\n";
            std::string run;
            for (char c : entry.second) {
                if (c == '\n' || (c >= 32 && c < 127)) run += c;
                else {
                    if (run.size() >= 8) prog << run << "\n";
                    run.clear();
                }
            }
            if (run.size() >= 8) prog << run << "\n";
        }
    }

    out["cpu_scaling"] = cpu_scaling(args.cpu_scaling_size, hw_threads);

    // Irradiance map on the GPU: 6 x 64^2, order 5.
    {
        ShCoefficients e(5);
        for (int k = 0; k < 25; ++k) e.rgb[static_cast<size_t>(k)] = {1.0 / (k + 1), 0.5, -0.1 * k};
        std::vector<double> ms, wall;
        for (int r = 0; r < args.repeats + 3; ++r) {
            const auto t0 = Clock::now();
            gpu.render_irradiance_cube(e, 64);
            const double w = ms_since(t0);
            if (r >= 3) {
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

    // End to end on a large equirect EXR: decode, upload, project, irradiance, encode. Twice:
    // the first run pays one-time costs (staging buffers, shader compiles for this layout).
    std::string e2e_text;
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
        nlohmann::json runs = nlohmann::json::array();
        for (int run = 0; run < 2; ++run) {
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
            double cpu_ms = 0;
            if (run == 1) {
                t0 = Clock::now();
                project_sh_cpu(env, 3);
                cpu_ms = ms_since(t0);
            }
            const double gpu_stages = pt.upload_ms + pt.project_ms + pt.reduce_ms + irr_ms;
            char buf[768];
            std::snprintf(buf, sizeof buf,
                          "\nend to end (run %d), %dx%d float EXR (ZIP), order 3:\n"
                          "  decode %.1f ms | upload %.2f ms | project %.3f ms | reduce %.3f ms (%d passes) | "
                          "irradiance %.4f ms | encode %.1f ms\n"
                          "  GPU stages %.2f ms = %.1f%% of decode | wall of project() call %.1f ms, irradiance "
                          "call %.2f ms%s",
                          run + 1, w, h, decode_ms, pt.upload_ms, pt.project_ms, pt.reduce_ms, pt.reduce_passes,
                          irr_ms, encode_ms, gpu_stages, 100 * gpu_stages / decode_ms, gpu_project_wall_ms,
                          irr_wall_ms, "");
            e2e_text += buf;
            if (run == 1) {
                std::snprintf(buf, sizeof buf, " | CPU double path (%u threads) %.1f ms", hw_threads, cpu_ms);
                e2e_text += buf;
            }
            e2e_text += "\n";
            runs.push_back({{"run", run + 1}, {"width", w}, {"height", h}, {"decode_ms", decode_ms},
                            {"upload_ms", pt.upload_ms}, {"project_ms", pt.project_ms}, {"reduce_ms", pt.reduce_ms},
                            {"reduce_passes", pt.reduce_passes}, {"irradiance_ms", irr_ms}, {"encode_ms", encode_ms},
                            {"gpu_stages_ms", gpu_stages}, {"gpu_stages_over_decode", gpu_stages / decode_ms},
                            {"project_call_wall_ms", gpu_project_wall_ms},
                            {"cpu_double_ms", run == 1 ? nlohmann::json(cpu_ms) : nlohmann::json()}});
        }
        std::printf("%s", e2e_text.c_str());
        out["end_to_end"] = runs;
        std::filesystem::remove(in_path);
        std::filesystem::remove(out_path);
    }

    std::ofstream(args.json_path) << out.dump(1) << "\n";
    // The tables once more, last (the device reply keeps the end of the output).
    std::printf("\n==== summary: %s | %s\nbandwidth reference %.1f GB/s (copy %.1f, read %.1f)\n%s%s%s\nwrote %s\n",
                ctx->info().renderer.c_str(), ctx->info().version.c_str(), bw, copy_bw, read_bw, table.c_str(),
                variant_table.c_str(), e2e_text.c_str(), args.json_path.c_str());
    return 0;
}
