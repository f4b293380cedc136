#pragma once
// GpuSpecularSource's state (gpu_specular_source.h), shared by its two files: the passes
// (gpu_specular_source.cpp) and the reads of the resident chains (gpu_specular_source_read.cpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <future>
#include <string>
#include <vector>

#include "gl_objects.h"
#include "gpu_projector.h"
#include "gpu_specular_source.h"

namespace bake {

inline constexpr GLuint kSourceGroup = 8;  // shaders/specular_source.comp, specular_source_mips.comp: 8 x 8 texels a work group

// Floats of the chains' levels of a `size` source from `level` down to 1 x 1: each level holds
// both cubes (full, capped), 6 faces of RGB texels. With level 0, the whole buffer; / 36 gives
// the solid-angle table's doubles (one face a level).
inline std::size_t level_floats_before(int size, int level) {
    std::size_t total = 0;
    for (int s = size >> level; s >= 1; s >>= 1) total += 36 * static_cast<std::size_t>(s) * s;
    return total;
}
// Offset (floats) of `level` in the chains' buffer, and (doubles) in the solid-angle table.
inline std::size_t level_offset(int size, int level) { return level_floats_before(size, 0) - level_floats_before(size, level); }
inline std::size_t omega_offset(int size, int level) { return level_offset(size, level) / 36; }

struct GpuSpecularSource::Impl {
    explicit Impl(GpuProjector& p) : projector(p), programs(p.programs()) {}
    GpuProjector& projector;
    ComputePrograms& programs;
    GlBuffer texels, grid, omega, output, readback, constants, status, cap_items, partials;
    // The polar caps' work list (shaders/specular_source.comp, modes 1 and 2) for (size, width,
    // rings, pieces): items, cap texels, where the texels' list starts.
    int caps_for[4] = {0, 0, -1, 0};
    int tables_for[3] = {0, 0, 0};  // upload(): the grid, solid angles, constants and chains' buffer made for (width, height, size)
    // plan_tables: the grid and the solid angles being made for (width, height, size).
    struct Tables {
        std::vector<double> grid, omega;
    };
    int planned_for[3] = {0, 0, 0};
    std::future<Tables> planned;
    static Tables make_tables(int width, int height, int size, int threads) {
        Tables t;
        t.grid = equirect_source_grid(width, height);
        t.omega = face_solid_angles(size, threads);
        return t;
    }
    int cap_item_count = 0, cap_texel_count = 0, cap_rings = 0;
    int split_rings = -1, split_pieces = 32;  // set_cap_split
    GLuint texel_buffer = 0;  // the projector's single tile, or `texels`
    StageTimer timer, mips_timer, texture_timer;
    double last_mips_gpu_ms = 0, last_texture_gpu_ms = 0;
    double last_ms = 0, last_upload_ms = 0, last_program_ms = 0, last_read_ms = 0, last_map_ms = 0;
    GLuint program = 0;
    // average_resident's chains: generation (0: none), face size, cubes in `output` (1 or 2), the
    // prefilter's texture.
    std::uint64_t generation = 0, last_generation = 0;
    int resident_size = 0, resident_cubes = 0;
    // dispatch_resident's passes are in flight and their status not yet read (check_resident).
    bool unchecked = false;
    // queue_level_read: level `queued_level`'s full cube then the status word, copied into
    // `level_readback` behind the passes; `level_fence` signals when they are there.
    GlBuffer level_readback;
    GLsync level_fence = nullptr;
    int queued_level = -1;
    std::uint64_t queued_generation = 0;  // the chains queue_level_read was for (0: none)
    void drop_level_fence() {
        if (level_fence) glDeleteSync(level_fence);
        level_fence = nullptr;
        queued_level = -1;
    }
    // The end of check_resident (or take_queued_level) once the status word is read: the source
    // pass's timers (their results are there once the passes are), and a failed pass ends the chains.
    void conclude_check(GLuint failed) {
        unchecked = false;
        last_ms = timer.total_ms();
        last_mips_gpu_ms = mips_timer.total_ms();
        last_texture_gpu_ms = texture_timer.total_ms();
        if (failed) {
            generation = 0;
            throw GpuError("the specular source pass failed (an edge piece outside its column sums)");
        }
    }
    // dispatch_ahead's passes, for the dispatch_resident of the same input (Environment::identity),
    // face size and cap threshold while `generation` is still theirs; generation 0: none.
    struct Ahead {
        std::uint64_t identity = 0, generation = 0;
        int size = 0;
        double threshold = 0;
    } ahead;
    bool queuing_ahead = false;  // dispatch_ahead is running: upload() waits for nothing
    // Whether the resident chains are dispatch_ahead's for env at face `size` (and cap `threshold`).
    bool ahead_of(const Environment& env, int size) const {
        return ahead.generation != 0 && ahead.generation == generation && env.identity != 0 && ahead.identity == env.identity &&
               ahead.size == size;
    }
    bool ahead_matches(const Environment& env, int size, double threshold) const {
        const bool same_cap = ahead.threshold == threshold || (std::isinf(ahead.threshold) && std::isinf(threshold));
        return ahead_of(env, size) && same_cap;
    }
    GLuint texture = 0;
    int texture_size = 0;
    double last_mips_ms = 0;
    ~Impl() {
        if (texture) glDeleteTextures(1, &texture);
        drop_level_fence();
    }
    const void* uploaded = nullptr;  // the texels upload() sent, until average() uses them
    int uploaded_size = 0;
    GLint64 max_block = 0;
    GLint max_groups[3] = {0, 0, 0};
    bool limits_read = false;
    // Calls use(p) with `count` floats of `output` from float `offset`, in host memory: copied on
    // the GPU into a client-storage buffer and mapped where ARB_buffer_storage is there
    // (glGetBufferSubData of the 36 MB of a 6 x 512² source took 60 ms on the H100 machine), else
    // glGetBufferSubData. Returns the milliseconds until the data was in host memory.
    template <typename Use>
    double read_output(std::size_t offset, std::size_t count, Use&& use) {
        const auto start = std::chrono::steady_clock::now();
        auto ms = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(); };
        const std::size_t bytes = count * sizeof(float);
        glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
        if (!projector.buffer_storage_available()) {
            std::vector<float> host(count);
            glBindBuffer(GL_SHADER_STORAGE_BUFFER, output.id);
            glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, static_cast<GLintptr>(offset * sizeof(float)),
                               static_cast<GLsizeiptr>(bytes), host.data());
            check_gl("reading the specular source back");
            const double copied = ms();
            use(static_cast<const float*>(host.data()));
            return copied;
        }
        readback.ensure_readback(bytes);
        glBindBuffer(GL_COPY_READ_BUFFER, output.id);
        glBindBuffer(GL_COPY_WRITE_BUFFER, readback.id);
        glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, static_cast<GLintptr>(offset * sizeof(float)), 0,
                            static_cast<GLsizeiptr>(bytes));
        const void* mapped = glMapBufferRange(GL_COPY_WRITE_BUFFER, 0, static_cast<GLsizeiptr>(bytes), GL_MAP_READ_BIT);
        if (!mapped) {
            check_gl("mapping the specular source");
            throw GpuError("mapping the specular source failed");
        }
        const double copied = ms();
        use(static_cast<const float*>(mapped));
        glBindBuffer(GL_COPY_WRITE_BUFFER, readback.id);
        glUnmapBuffer(GL_COPY_WRITE_BUFFER);
        check_gl("reading the specular source back");
        return copied;
    }
    // Level `level` of the first `cubes` resident cubes (full, then capped) read back into out[0], out[1].
    void read_level(int level, int cubes, CubeMap* const out[2]) {
        const int s = resident_size >> level;
        const std::size_t face_floats = 3 * static_cast<std::size_t>(s) * s;
        read_output(level_offset(resident_size, level), static_cast<std::size_t>(6 * cubes) * face_floats, [&](const float* src) {
            for (int k = 0; k < 6 * cubes; ++k) std::copy_n(src + k * face_floats, face_floats, out[k / 6]->faces[k % 6].rgb.data());
        });
    }
    void read_limits() {
        if (limits_read) return;
        glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &max_block);
        for (GLuint i = 0; i < 3; ++i) glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, i, &max_groups[i]);
        limits_read = true;
    }
};

}  // namespace bake
