#pragma once
// What the GPU passes over the source texels share: their tuning (GpuTuning), the device's limits,
// and the shape of the projection's first pass, which the upload's tiles are cut for.
#include <cmath>
#include <cstddef>
#include <string>

namespace bake {

struct GpuTimings {
    double upload_ms = 0;    // wall-clock of the texel upload, finished (glFinish)
    double project_ms = 0;   // first pass: texels -> per-work-group partials
    double reduce_ms = 0;    // all later passes: partials -> one
    int reduce_passes = 0;
    double irradiance_ms = 0;
};

// Shape of the GPU passes. The defaults are the fastest measured on the lent H200 (see
// bench/NOTES.md); every combination computes the same sums to within the bound of
// summation_depth(), and bake-bench checks each against the CPU path before timing it.
struct GpuTuning {
    // Cubes whose face size is a multiple of 8: one basis evaluation per 8 mirror-symmetric
    // texels (project_sh.comp, CUBE_SYMMETRY). Off, or other sizes: one per texel.
    bool cube_symmetry = true;
    unsigned group_size = 256;        // pass-1 work-group size (power of two, 32 to 1024)
    unsigned tasks_per_thread = 1;    // symmetric pass: tasks (24 * sym_positions texels) per invocation
    unsigned sym_positions = 4;       // symmetric pass: positions per task, 4 (vec4 loads) or 2 (vec2)
    unsigned coeff_split = 1;         // symmetric pass: 2 = alternate warps take half the coefficients
    unsigned cube_quads_per_thread = 1;      // per-texel cube pass: position quads (24 texels)
    unsigned equirect_quads_per_thread = 4;  // lat-long pass: quads (4 texels)
    unsigned reduce_seq = 8;          // partials each reduction invocation adds before the tree
    unsigned reduce_group_size = 256; // reduction work-group size (power of two, 32 to 1024)
    // Texel buffers: BufferData = glBufferData(GL_STREAM_DRAW) + glBufferSubData (GL 4.3);
    // Storage = immutable glBufferStorage(GL_DYNAMIC_STORAGE_BIT) + glBufferSubData;
    // Staging = immutable device-only storage filled by glCopyBufferSubData from two persistently
    // mapped 8 MiB staging buffers (parallel memcpy). Storage and Staging need GL 4.4 or
    // ARB_buffer_storage, else BufferData is used.
    enum class Upload { BufferData, Storage, Staging } upload = Upload::Staging;
    unsigned upload_threads = 8;      // Staging: threads of the memcpy into the staging buffer
    std::string describe() const;
};

// The compute limits the passes are sized by (queried once per context).
struct GpuLimits {
    std::size_t max_block_bytes = 0;  // GL_MAX_SHADER_STORAGE_BLOCK_SIZE
    std::size_t max_groups_x = 0;     // GL_MAX_COMPUTE_WORK_GROUP_COUNT[0]
    std::size_t max_shared_bytes = 0;
    std::size_t max_invocations = 0;
    // Queries the current context; throws GpuError below OpenGL 4.3's minimums.
    static GpuLimits query();
};

// Bytes of an RGB float texel.
constexpr std::size_t kBytesPerTexel = 3 * sizeof(float);

inline std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

inline int ceil_log2(std::size_t n) {
    int levels = 0;
    while ((std::size_t{1} << levels) < n) ++levels;
    return levels;
}

// Pass 1 over texels one at a time: a cube's position quad = 4 positions x 6 faces; lat-long: 4 texels.
struct Pass1Shape {
    unsigned faces;             // 6 for a cube (positions shared by the faces), 1 for equirect
    unsigned quads_per_thread;  // position quads per invocation
    unsigned group_size;
    std::size_t positions_per_group() const { return std::size_t{group_size} * quads_per_thread * 4; }
    std::size_t texels_per_thread() const { return std::size_t{quads_per_thread} * 4 * faces; }
    static Pass1Shape of(bool cube, const GpuTuning& t) {
        return {cube ? 6u : 1u, cube ? t.cube_quads_per_thread : t.equirect_quads_per_thread, t.group_size};
    }
};

// Face size of a cube of `texel_count` texels when the symmetric pass applies to it, else 0.
inline std::size_t symmetric_face_size(std::size_t texel_count, const GpuTuning& tuning) {
    if (!tuning.cube_symmetry || texel_count % 6 != 0) return 0;
    const auto n = static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(texel_count / 6))));
    return n * n * 6 == texel_count && n % 8 == 0 ? n : 0;
}

}  // namespace bake
