// The card's memory bandwidth, measured on the current context: glCopyBufferSubData between
// buffers, and read and copy kernels over them (several grid sizes, the best kept); GB/s = bytes
// moved (read, plus written for copies) / time. Timing by GL_TIMESTAMP pairs around batches, or
// wall clock on software renderers (gpu_time_or_wall).
#include "gl_bandwidth.h"

#include <EGL/egl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_support.h"

namespace bench {
namespace {

bool g_force_wall = false;
bool g_timer_plausible = true;


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

}  // namespace

double epoch_ms() {
    return static_cast<double>(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

void set_wall_clock_only(bool on) { g_force_wall = on; }
bool wall_clock_only() { return g_force_wall; }
bool timer_queries_plausible() { return g_timer_plausible; }

double gpu_time_or_wall(double timer_ms, double wall_ms) {
    if (timer_ms > 1e-3 && !g_force_wall) return timer_ms;
    g_timer_plausible = false;
    return wall_ms;
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

Bandwidth measure_bandwidth(bool storage_available, size_t bw_bytes, nlohmann::json* out) {
    g_buffer_storage = reinterpret_cast<BufferStorageFn>(eglGetProcAddress("glBufferStorage"));
    const bool storage = g_buffer_storage && storage_available;
    const GLuint read_program = compile_compute(kReadKernel), copy_program = compile_compute(kCopyKernel);
    nlohmann::json& bwj = *out;
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
    std::printf("memory bandwidth, %zu MiB buffers: glCopyBufferSubData (read+write) %.1f GB/s, copy kernel "
                "(read+write) %.1f GB/s, read-only kernels (best of grid-stride and block) %.1f GB/s [glBufferData buffers: glCopyBufferSubData %.1f, "
                "read kernel %.1f]; reference %.1f GB/s\n\n",
                bw_bytes >> 20, copy_bw, kcopy_bw, read_bw, bwj["copy_bufferdata_dynamic_copy_gbs"].get<double>(),
                bwj["read_kernel_bufferdata_stream_draw_gbs"].get<double>(), bw);
    return {bw, copy_bw, read_bw};
}

double empty_dispatch_ms() {
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
    return ms;
}

}  // namespace bench
