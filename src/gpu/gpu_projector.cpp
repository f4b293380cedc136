// SH projection and irradiance maps with OpenGL 4.3 compute shaders (shaders/*.comp).
//
// Projection: upload() copies the source texels once as packed RGB float32 (split into tiles
// when one buffer would exceed GL_MAX_SHADER_STORAGE_BLOCK_SIZE or the work-group count limit).
// Pass 1 (project_sh.comp) turns each work group's texels into one partial (SH_COUNT vec4: rgb
// sums and, in coefficient 0's w, the solid-angle sum); reduction passes (reduce_partials.comp)
// then sum up to 256 * reduce_seq partials into one until a single partial is left, and only that
// one is read back. No atomics: the summation order is fixed by the input's size and the tuning
// (GpuTuning), so results are bit-for-bit repeatable on a given GPU and driver, with or
// without tiling.
//
// Pass 1 has two forms. Cubes of face size 8m (CUBE_SYMMETRY): an invocation takes tasks of 4
// positions in one quadrant of the face grid and, for each of the 3 opposite-face pairs, the 8
// texels that mirror them (same solid angle, directions the 8 sign flips of one direction): a
// Walsh-Hadamard transform of their radiances (3 roundings) turns them into 8 parity sums R_p,
// and one basis evaluation Y_k(d) * R_{parity(k)} adds all 8 (project_sh.comp explains).
// Other cubes and lat-long images: one basis evaluation per texel, a cube's geometry shared by
// the 6 faces at one position.
//
// Rounding (u = 2^-24): every output value is a float sum of per-texel terms L * Y_k * Omega
// (symmetric form: of terms Y_k * (Omega * R_p), R_p carrying 3 roundings of sums of the 8
// texels' |L Omega|, so the same bound covers it). Each invocation adds its terms sequentially
// (symmetric form: 3 * sym_positions per task, tasks_per_thread tasks; otherwise 24 per cube
// position quad or 4 per lat-long quad), then binary trees add: log2(group_size) levels in
// pass 1's work group; a reduction pass adds up to reduce_seq partials per invocation, then
// ceil(log2(min(n, reduce_group_size))) tree levels. So, to first order,
//     |sum_gpu - sum of the float terms| <= summation_depth * u * sum |terms|,
// summation_depth = 3 (symmetric form) + sequential adds + tree levels + reductions. With the
// default tuning: 3 + 12 + 8 + (0 + 8) = 31 for 6 x 1024^2 texels (256 partials, one reduction
// pass), 3 + 12 + 8 + (3 + 8) = 34 for 6 x 2048^2 (1024 partials). For non-negative radiance,
// sum_t |L Y_k Omega| <= max|Y_k| sum_t L Omega = sqrt(2l+1) |L_00| <= 3 x the channel's
// coefficient-vector norm, so this part stays below 3 * 34 * u = 6.1e-6 of the norm (the
// --compare measure). The terms themselves carry a few ulps from the direction, the solid angle
// and the basis polynomial; those errors are independent from texel to texel and largely
// average out. tests/test_gpu.cpp checks measured differences against the full bound
// (summation plus term evaluation), for every tuning variant too.
//
// Test hook: BAKE_TEST_FAULT=shader-compile makes every shader fail to compile (a real driver
// compile error with its info log); BAKE_TEST_FAULT=dispatch issues an invalid dispatch after
// the first projection pass so the GL error check after it fires. (BAKE_TEST_FAULT=context is
// in gl_context.cpp.)
#include "gpu_projector.h"

#include <glad/gl.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <EGL/egl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cube_map.h"
#include "embedded_shaders.h"
#include "equirect.h"
#include "gl_objects.h"

// GL 4.4 / ARB_buffer_storage, loaded by hand: the generated loader is GL 4.3 core.
#ifndef GL_MAP_PERSISTENT_BIT
#define GL_MAP_PERSISTENT_BIT 0x0040
#endif
#ifndef GL_MAP_COHERENT_BIT
#define GL_MAP_COHERENT_BIT 0x0080
#endif
#ifndef GL_DYNAMIC_STORAGE_BIT
#define GL_DYNAMIC_STORAGE_BIT 0x0100
#endif

namespace bake {
namespace {

// Cube pass 1 without symmetry: one position quad = 4 positions x 6 faces; lat-long: 4 texels.
struct Pass1Shape {
    GLuint faces;             // 6 for a cube (positions shared by the faces), 1 for equirect
    GLuint quads_per_thread;  // position quads per invocation
    GLuint group_size;
    std::size_t positions_per_group() const { return std::size_t{group_size} * quads_per_thread * 4; }
    std::size_t texels_per_thread() const { return std::size_t{quads_per_thread} * 4 * faces; }
};
// Symmetric cube pass: a task = P (sym_positions) positions of a face quadrant x 3 pairs x 8
// mirrored texels: 24 P texels, 3 P sequential adds.
constexpr int kWalshHadamardRoundings = 3;

// Reduction passes: up to reduce_group_size * reduce_seq partials -> 1.
// Shared memory per tree round, at most the 32 KiB that GL guarantees.
constexpr std::size_t kTreeSharedBytes = 32768;
constexpr GLuint kMapGroupSize = 64;
constexpr std::size_t kBytesPerTexel = 3 * sizeof(float);
constexpr std::size_t kStagingBytes = std::size_t{8} << 20;  // each of 2; pinning more costs a one-shot run more than it saves (bench/NOTES.md)

int ceil_log2(std::size_t n) {
    int levels = 0;
    while ((std::size_t{1} << levels) < n) ++levels;
    return levels;
}

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

bool is_power_of_two(unsigned v) { return v != 0 && (v & (v - 1)) == 0; }

// Coefficients per shared-memory tree round for a work group of `group` invocations.
unsigned tree_chunk(int count, unsigned group, std::size_t shared_bytes) {
    const std::size_t rounds = ceil_div(std::size_t(count) * group * 16, shared_bytes);
    return static_cast<unsigned>(ceil_div(static_cast<std::size_t>(count), std::max<std::size_t>(rounds, 1)));
}

// Face size of a cube of `texel_count` texels when the symmetric pass applies to it, else 0.
std::size_t symmetric_face_size(std::size_t texel_count, const GpuTuning& tuning) {
    if (!tuning.cube_symmetry || texel_count % 6 != 0) return 0;
    const auto n = static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(texel_count / 6))));
    return n * n * 6 == texel_count && n % 8 == 0 ? n : 0;
}

struct Limits {
    std::size_t max_block_bytes = 0;  // GL_MAX_SHADER_STORAGE_BLOCK_SIZE
    std::size_t max_groups_x = 0;     // GL_MAX_COMPUTE_WORK_GROUP_COUNT[0]
    std::size_t max_shared_bytes = 0;
    std::size_t max_invocations = 0;
};

// Double-precision lat-long geometry for the shaders (see project_sh.comp): rows
// (sin theta, cos theta, pixel solid angle, 0), columns (cos phi, sin phi).
void fill_equirect_tables(int width, int height, std::vector<float>* rows, std::vector<float>* cols) {
    constexpr double kPi = 3.14159265358979323846;
    rows->assign(static_cast<std::size_t>(height) * 4, 0.0f);
    cols->assign(static_cast<std::size_t>(width) * 2, 0.0f);
    for (int r = 0; r < height; ++r) {
        const double theta = kPi * (r + 0.5) / height;
        float* row = &(*rows)[static_cast<std::size_t>(r) * 4];
        row[0] = static_cast<float>(std::sin(theta));
        row[1] = static_cast<float>(std::cos(theta));
        row[2] = static_cast<float>(equirect_row_solid_angle(r, width, height));
    }
    for (int c = 0; c < width; ++c) {
        const double phi = 2.0 * kPi * (c + 0.5) / width - kPi;
        (*cols)[static_cast<std::size_t>(c) * 2] = static_cast<float>(std::cos(phi));
        (*cols)[static_cast<std::size_t>(c) * 2 + 1] = static_cast<float>(std::sin(phi));
    }
}

// memcpy split over a few threads: one thread does not fill host-to-device bandwidth.
void parallel_copy(void* dst, const void* src, std::size_t bytes, unsigned max_threads) {
    const unsigned threads = bytes < (std::size_t{4} << 20)
                                 ? 1u
                                 : std::max(1u, std::min(max_threads, std::thread::hardware_concurrency()));
    const std::size_t part = ceil_div(bytes, threads);
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) {
        const std::size_t begin = t * part;
        if (begin >= bytes) break;
        pool.emplace_back([=] {
            std::memcpy(static_cast<char*>(dst) + begin, static_cast<const char*>(src) + begin,
                        std::min(part, bytes - begin));
        });
    }
    std::memcpy(dst, src, std::min(part, bytes));
    for (auto& th : pool) th.join();
}

// Waits until the GPU has passed `fence` (however long: a timeout only means "not yet"), then
// deletes it. A failed wait (a lost context, say) is a GpuError.
void wait_and_delete(GLsync& fence) {
    if (!fence) return;
    GLenum status;
    while ((status = glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT, 1000000000)) == GL_TIMEOUT_EXPIRED) {
    }
    glDeleteSync(fence);
    fence = nullptr;
    if (status == GL_WAIT_FAILED) throw GpuError("waiting for an upload copy failed (context lost?)");
}

int reduction_depth(std::size_t partials, const GpuTuning& t) {
    int depth = 0;
    const std::size_t group = t.reduce_group_size;
    for (std::size_t n = partials; n > 1; n = ceil_div(n, group * t.reduce_seq)) {
        depth += static_cast<int>(std::min<std::size_t>(t.reduce_seq, ceil_div(n, group))) - 1;
        depth += ceil_log2(std::min<std::size_t>(n, group));
    }
    return depth;
}

}  // namespace

std::string GpuTuning::describe() const {
    std::ostringstream s;
    s << "sym=" << (cube_symmetry ? 1 : 0) << " wg=" << group_size << " tasks=" << tasks_per_thread
      << " P=" << sym_positions << " split=" << coeff_split << " cq=" << cube_quads_per_thread << " eq=" << equirect_quads_per_thread << " rseq=" << reduce_seq << " rwg=" << reduce_group_size
      << " upload="
      << (upload == Upload::BufferData ? "bufferdata" : upload == Upload::Storage ? "storage" : "staging");
    if (upload == Upload::Staging) s << "/" << upload_threads;
    return s.str();
}

struct GpuProjector::Impl {
    explicit Impl(const GlContextInfo& info) : programs(info) {}
    Limits limits;
    GpuTuning tuning;
    bool has_buffer_storage = false;
    ComputePrograms programs;
    // The uploaded input (upload()), in tiles; pass 1 reads it, project_resident() reuses it.
    struct Tile {
        // Symmetric cube pass: tasks [first, first + count), face rows [row_base, +rows) and
        // their mirrors. Otherwise: texel positions [first, first + count).
        std::size_t first = 0, count = 0;
        std::size_t row_base = 0, rows = 0;
        std::size_t stride_quads = 0;      // per-texel cube pass: quads per face in the buffer
        std::size_t groups = 0;            // pass-1 work groups
        std::unique_ptr<GlBuffer> texels;
    };
    struct Resident {
        bool valid = false;
        bool cube = false;
        bool symmetric = false;
        // Texels as uploaded: 0 RGB float, 1 RGBE bytes, 2 RGB half (project_sh.comp's
        // TEXEL_FORMAT); packed encodings are expanded in the shader.
        unsigned texel_format = 0;
        std::size_t bytes_per_texel = kBytesPerTexel;
        GpuTuning tuning;            // the pass-1 shape the tiles were cut for
        std::size_t size = 0;        // cube face size or equirect width
        std::size_t positions = 0;   // texels per face (cube) or per image
        std::size_t total_groups = 0;
        std::vector<Tile> tiles;
    } resident;
    std::vector<std::unique_ptr<GlBuffer>> spare_texels;  // made by prepare(), taken by upload()
    GlBuffer partials_a, partials_b, result, row_table, column_table;
    GlBuffer coefficients, map_output, map_row_table, map_column_table;
    std::unique_ptr<GlBuffer> staging[2];
    void* staging_map[2] = {nullptr, nullptr};
    GLsync staging_fence[2] = {nullptr, nullptr};
    int staging_next = 0;
    std::size_t staging_bytes = 0;  // size of each staging buffer
    std::size_t upload_total = 0;   // bytes of the upload in progress
    StageTimer project_timer, reduce_timer, irradiance_timer;
    GpuTimings timings;
    std::size_t max_tile_texels = 0;  // test cap, 0 = none

    ~Impl() {
        for (GLsync& f : staging_fence)
            if (f) glDeleteSync(f);
        for (int i = 0; i < 2; ++i)
            if (staging_map[i]) {
                glBindBuffer(GL_COPY_READ_BUFFER, staging[i]->id);
                glUnmapBuffer(GL_COPY_READ_BUFFER);
            }
    }

    // Shared memory for one tree round: what the device allows, at most 48 KiB (the most a
    // work group gets without opt-in on NVIDIA), at least the 32 KiB GL guarantees.
    std::size_t tree_shared_bytes() const {
        return std::max(kTreeSharedBytes, std::min<std::size_t>(limits.max_shared_bytes, 49152));
    }
    GpuTuning::Upload upload_mode() const {
        return has_buffer_storage ? tuning.upload : GpuTuning::Upload::BufferData;
    }
    GLuint program(const char* shader_name, const std::string& defines) { return programs.get(shader_name, defines); }
    void set_uniform(GLuint program, const char* name, std::size_t value) const {
        glUniform1ui(glGetUniformLocation(program, name), static_cast<GLuint>(value));
    }
    void upload_equirect_tables(int width, int height, GlBuffer* rows, GlBuffer* columns) const;
    void check_block(std::size_t bytes, const char* what) const;
    // The per-texel pass's tiles for `positions` texel positions (a cube: each on 6 faces):
    // ranges of positions in whole work groups, each small enough for one storage block and one
    // dispatch. Tile boundaries fall on work-group boundaries: tiling never changes a sum.
    std::vector<Tile> plan_texel_tiles(std::size_t positions, bool cube, std::size_t bpt) const;
    static std::size_t tile_bytes(const Tile& tile, bool cube, std::size_t bpt) {
        return (cube ? 6 : 1) * tile.stride_quads * 4 * bpt;
    }
    // Creates the staging buffers for an upload of upload_total bytes, if not already there.
    void ensure_staging();
    // Creates a tile buffer of `bytes` for the current upload mode (or takes a spare one).
    std::unique_ptr<GlBuffer> make_texel_buffer(std::size_t bytes);
    // Writes bytes into a tile buffer (src nullptr: zeros), through the upload mode's path.
    void write(GlBuffer& buffer, std::size_t offset, const void* src, std::size_t bytes);
    // Pass-1 and reduction programs for `order` and an input of this shape (tuning t).
    std::pair<GLuint, GLuint> projection_programs(int order, bool cube, bool symmetric, unsigned texel_format,
                                                  const GpuTuning& t);
    // The same for the resident input.
    std::pair<GLuint, GLuint> projection_programs(int order) {
        return projection_programs(order, resident.cube, resident.symmetric, resident.texel_format, resident.tuning);
    }
    GLuint map_program(int order, bool cube) {
        return program("irradiance_map.comp", "#define SH_ORDER " + std::to_string(order) + "\n#define WG_SIZE " +
                                                  std::to_string(kMapGroupSize) + "\n#define CUBE_LAYOUT " +
                                                  (cube ? "1" : "0") + "\n");
    }
    // Issues pass 1 over every tile (timed by project_timer when `timed`).
    void dispatch_pass1(GLuint program, bool timed);
    // Issues the reduction passes from partials_a; returns the buffer holding the final partial.
    GlBuffer* dispatch_reductions(GLuint program, int order);
    // Evaluates the irradiance SH at every texel of a cube (6 faces of width x width) or a
    // lat-long image into `out` (RGB float, in project_sh.comp's texel order).
    void render_map(const ShCoefficients& irradiance, bool cube, int width, int height, float* out);  // out: 3 floats a texel
};

void GpuProjector::Impl::check_block(std::size_t bytes, const char* what) const {
    if (bytes > limits.max_block_bytes)
        throw GpuError(std::string(what) + " needs a " + std::to_string(bytes) +
                       "-byte shader storage block; this GPU allows " +
                       std::to_string(limits.max_block_bytes) + " (GL_MAX_SHADER_STORAGE_BLOCK_SIZE)");
}

void GpuProjector::Impl::upload_equirect_tables(int width, int height, GlBuffer* rows_buffer,
                                                GlBuffer* columns_buffer) const {
    std::vector<float> rows, cols;
    fill_equirect_tables(width, height, &rows, &cols);
    check_block(rows.size() * sizeof(float), "the lat-long row table");
    check_block(cols.size() * sizeof(float), "the lat-long column table");
    rows_buffer->allocate(rows.size() * sizeof(float), rows.data());
    columns_buffer->allocate(cols.size() * sizeof(float), cols.data());
}

std::vector<GpuProjector::Impl::Tile> GpuProjector::Impl::plan_texel_tiles(std::size_t positions, bool cube,
                                                                           std::size_t bpt) const {
    const Pass1Shape shape{cube ? 6u : 1u, cube ? tuning.cube_quads_per_thread : tuning.equirect_quads_per_thread,
                           tuning.group_size};
    const std::size_t group_positions = shape.positions_per_group();
    std::size_t groups_per_tile =
        std::min(limits.max_block_bytes / (group_positions * shape.faces * bpt), limits.max_groups_x);
    if (max_tile_texels > 0) groups_per_tile = std::min(groups_per_tile, max_tile_texels / (group_positions * shape.faces));
    groups_per_tile = std::max<std::size_t>(groups_per_tile, 1);
    const std::size_t tile_positions = groups_per_tile * group_positions;
    std::vector<Tile> tiles;
    for (std::size_t first = 0; first < positions; first += tile_positions) {
        Tile tile;
        tile.first = first;
        tile.count = std::min(tile_positions, positions - first);
        tile.stride_quads = ceil_div(tile.count, 4);  // each face padded to whole quads
        tile.groups = ceil_div(tile.count, group_positions);
        tiles.push_back(std::move(tile));
    }
    return tiles;
}

std::unique_ptr<GlBuffer> GpuProjector::Impl::make_texel_buffer(std::size_t bytes) {
    for (auto it = spare_texels.begin(); it != spare_texels.end(); ++it)
        if ((*it)->size == std::max<std::size_t>(bytes, 16)) {
            std::unique_ptr<GlBuffer> spare = std::move(*it);
            spare_texels.erase(it);
            return spare;
        }
    auto buffer = std::make_unique<GlBuffer>();
    switch (upload_mode()) {
        case GpuTuning::Upload::BufferData: buffer->allocate(bytes); break;
        case GpuTuning::Upload::Storage: buffer->allocate_storage(bytes, GL_DYNAMIC_STORAGE_BIT); break;
        case GpuTuning::Upload::Staging: buffer->allocate_storage(bytes, 0); break;
    }
    return buffer;
}

void GpuProjector::Impl::write(GlBuffer& buffer, std::size_t offset, const void* src, std::size_t bytes) {
    if (bytes == 0) return;
    if (upload_mode() != GpuTuning::Upload::Staging) {
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffer.id);
        if (src) {
            glBufferSubData(GL_SHADER_STORAGE_BUFFER, static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes), src);
        } else {
            const std::vector<char> zeros(bytes, 0);
            glBufferSubData(GL_SHADER_STORAGE_BUFFER, static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes),
                            zeros.data());
        }
        return;
    }
    ensure_staging();
    for (std::size_t done = 0; done < bytes;) {
        const std::size_t n = std::min(staging_bytes, bytes - done);
        const int slot = staging_next;
        staging_next ^= 1;
        wait_and_delete(staging_fence[slot]);  // the copy out of this staging buffer must have finished
        if (src) parallel_copy(staging_map[slot], static_cast<const char*>(src) + done, n, tuning.upload_threads);
        else std::memset(staging_map[slot], 0, n);
        glBindBuffer(GL_COPY_READ_BUFFER, staging[slot]->id);
        glBindBuffer(GL_COPY_WRITE_BUFFER, buffer.id);
        glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, static_cast<GLintptr>(offset + done),
                            static_cast<GLsizeiptr>(n));
        staging_fence[slot] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        done += n;
    }
}

void GpuProjector::Impl::ensure_staging() {
    // Staging buffers sized to this upload (1 to 8 MiB): pinning host memory costs time, so a
    // small input does not pay for 2 x 8 MiB. Grown (re-created) when a larger upload comes.
    const std::size_t mib = std::size_t{1} << 20;
    const std::size_t wanted = std::min(kStagingBytes, std::max(mib, ceil_div(upload_total, mib) * mib));
    if (staging[0] && staging_bytes < wanted) {
        for (int i = 0; i < 2; ++i) {
            wait_and_delete(staging_fence[i]);  // no copy may still read the buffer we unmap
            glBindBuffer(GL_COPY_READ_BUFFER, staging[i]->id);
            glUnmapBuffer(GL_COPY_READ_BUFFER);
            staging_map[i] = nullptr;
            staging[i].reset();
        }
    }
    for (int i = 0; i < 2; ++i)
        if (!staging[i]) {
            staging[i] = std::make_unique<GlBuffer>();
            staging_bytes = wanted;
            const GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
            staging[i]->allocate_storage(staging_bytes, flags);
            staging_map[i] = glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(staging_bytes), flags);
            check_gl("mapping the staging buffer");
            if (!staging_map[i]) throw GpuError("could not map the texel staging buffer");
        }
}

GpuProjector::GpuProjector(const GlContext& context /* must be current on this thread */)
    : impl_(std::make_unique<Impl>(context.info())) {
    GLint64 block = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    GLint groups = 0, shared = 0, invocations = 0;
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &groups);
    glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &shared);
    glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &invocations);
    check_gl("querying compute limits");
    Limits& l = impl_->limits;
    l.max_block_bytes = static_cast<std::size_t>(std::max<GLint64>(block, 0));
    l.max_groups_x = static_cast<std::size_t>(std::max(groups, 0));
    l.max_shared_bytes = static_cast<std::size_t>(std::max(shared, 0));
    l.max_invocations = static_cast<std::size_t>(std::max(invocations, 0));
    if (l.max_invocations < 1024 || l.max_shared_bytes < kTreeSharedBytes ||
        l.max_block_bytes < std::size_t{256} * 4 * 6 * kBytesPerTexel)
        throw GpuError("the GPU's compute limits are below OpenGL 4.3's minimums (work group " +
                       std::to_string(l.max_invocations) + " invocations, " +
                       std::to_string(l.max_shared_bytes) + " bytes shared memory)");

    // glBufferStorage: core in GL 4.4, else ARB_buffer_storage.
    GLint major = 0, minor = 0, extensions = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    glGetIntegerv(GL_NUM_EXTENSIONS, &extensions);
    bool supported = major > 4 || (major == 4 && minor >= 4);
    for (GLint i = 0; i < extensions && !supported; ++i) {
        const auto* name = reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, static_cast<GLuint>(i)));
        supported = name && std::strcmp(name, "GL_ARB_buffer_storage") == 0;
    }
    clear_stale_errors();
    if (supported) {
        const char* name = "glBufferStorage";
        buffer_storage_function() = context.info().backend == "glfw"
                               ? reinterpret_cast<BufferStorageFn>(glfwGetProcAddress(name))
                               : reinterpret_cast<BufferStorageFn>(eglGetProcAddress(name));
        impl_->has_buffer_storage = buffer_storage_function() != nullptr;
    }
}

GpuProjector::~GpuProjector() = default;

const GpuTimings& GpuProjector::last_timings() const { return impl_->timings; }

void GpuProjector::set_max_tile_texels(std::size_t texels) { impl_->max_tile_texels = texels; }

void GpuProjector::set_tuning(const GpuTuning& tuning) {
    if (!is_power_of_two(tuning.group_size) || tuning.group_size < 32 || tuning.group_size > 1024 ||
        tuning.tasks_per_thread < 1 || tuning.cube_quads_per_thread < 1 || tuning.equirect_quads_per_thread < 1 ||
        tuning.reduce_seq < 1 || !is_power_of_two(tuning.reduce_group_size) || tuning.reduce_group_size < 32 ||
        tuning.reduce_group_size > 1024 || tuning.upload_threads < 1 || (tuning.sym_positions != 2 && tuning.sym_positions != 4) ||
        (tuning.coeff_split != 1 && tuning.coeff_split != 2) || (tuning.coeff_split == 2 && tuning.group_size < 64))
        throw GpuError("invalid GPU tuning: " + tuning.describe());
    impl_->tuning = tuning;
}

const GpuTuning& GpuProjector::tuning() const { return impl_->tuning; }

GpuProjector::ProgramStats GpuProjector::program_stats() const {
    return {impl_->programs.compiled(), impl_->programs.cache().loaded(), impl_->programs.cache().folder()};
}

std::optional<GpuProjector::ResidentTexels> GpuProjector::resident_equirect() const {
    const Impl::Resident& r = impl_->resident;
    if (!r.valid || r.cube || r.tiles.empty()) return std::nullopt;
    ResidentTexels t;
    t.texel_format = r.texel_format;
    t.width = static_cast<int>(r.size);
    t.height = static_cast<int>(r.positions / std::max<std::size_t>(1, r.size));
    for (const Impl::Tile& tile : r.tiles) t.tiles.push_back({tile.texels->id, tile.first, tile.count});
    t.row_table = impl_->row_table.id;
    t.column_table = impl_->column_table.id;
    return t;
}

ComputePrograms& GpuProjector::programs() { return impl_->programs; }

bool GpuProjector::buffer_storage_available() const { return impl_->has_buffer_storage; }

std::vector<std::pair<std::string, std::string>> GpuProjector::program_binaries() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& entry : impl_->programs.programs()) {
        GLint length = 0;
        glGetProgramiv(entry.second, GL_PROGRAM_BINARY_LENGTH, &length);
        std::string bytes(static_cast<std::size_t>(std::max(length, 0)), '\0');
        GLenum format = 0;
        GLsizei got = 0;
        if (length > 0) glGetProgramBinary(entry.second, length, &got, &format, &bytes[0]);
        bytes.resize(static_cast<std::size_t>(std::max(got, 0)));
        out.emplace_back(entry.first, bytes);
    }
    clear_stale_errors();
    return out;
}

int GpuProjector::summation_depth(std::size_t texel_count, bool cube, const GpuTuning& tuning) {
    const int tree = ceil_log2(tuning.group_size);
    if (cube) {
        if (const std::size_t n = symmetric_face_size(texel_count, tuning)) {
            const std::size_t tasks = (n / 2) * (n / (2 * tuning.sym_positions));
            const std::size_t per_thread = std::min<std::size_t>(tuning.tasks_per_thread, tasks);
            const std::size_t groups =
                ceil_div(tasks, std::size_t{tuning.group_size / tuning.coeff_split} * tuning.tasks_per_thread);
            return kWalshHadamardRoundings + static_cast<int>(per_thread * 3 * tuning.sym_positions) + tree +
                   reduction_depth(groups, tuning);
        }
    }
    const Pass1Shape shape{cube ? 6u : 1u, cube ? tuning.cube_quads_per_thread : tuning.equirect_quads_per_thread,
                           tuning.group_size};
    const std::size_t positions = texel_count / shape.faces;
    int depth = static_cast<int>(std::min(shape.texels_per_thread(), std::max<std::size_t>(texel_count, 1)));
    return depth + tree + reduction_depth(ceil_div(positions, shape.positions_per_group()), tuning);
}

void GpuProjector::prepare(int order, const InputShape& input, std::optional<bool> cube_map, int map_order) {
    if (!is_supported_order(order)) return;
    Impl& m = *impl_;
    clear_stale_errors();
    const bool symmetric = input.cube && input.face_size > 0 && input.face_size % 8 == 0 && m.tuning.cube_symmetry;
    const unsigned format = !input.encoding ? 0u : *input.encoding == TexelEncoding::Rgbe8 ? 1u : 2u;
    m.projection_programs(order, input.cube, symmetric, input.cube ? 0u : format, m.tuning);
    if (cube_map) m.map_program(map_order > 0 ? map_order : order, *cube_map);
    if (!input.cube && input.texel_count > 0 && m.upload_mode() == GpuTuning::Upload::Staging && m.spare_texels.empty()) {
        const std::size_t bpt = format == 0 ? kBytesPerTexel : bytes_per_texel(*input.encoding);
        if (input.texel_count >= (std::size_t{1} << 32)) return;  // too large: upload() will say so
        m.upload_total = input.texel_count * bpt;
        m.ensure_staging();
        for (const Impl::Tile& tile : m.plan_texel_tiles(input.texel_count, false, bpt))
            m.spare_texels.push_back(m.make_texel_buffer(Impl::tile_bytes(tile, false, bpt)));
        check_gl("creating the upload buffers");
    }
}

Projection GpuProjector::project(const Environment& env, int order) {
    if (!is_supported_order(order))  // before the upload: fail cheaply
        throw GpuError("SH order " + std::to_string(order) + " is not supported (1 to " +
                       std::to_string(kMaxShOrder) + ")");
    upload(env);
    return project_resident(order);
}

void GpuProjector::upload(const Environment& env) {
    Impl& m = *impl_;
    Impl::Resident& r = m.resident;
    r = Impl::Resident{};  // frees the previous input's tiles
    r.tuning = m.tuning;
    m.timings.upload_ms = 0;
    const std::size_t texel_count = env.texel_count();
    if (texel_count == 0) {
        r.valid = true;
        return;
    }
    r.cube = env.is_cube();
    r.size = static_cast<std::size_t>(env.width());
    r.symmetric = r.cube && symmetric_face_size(texel_count, m.tuning) != 0;
    if (env.is_packed()) {
        r.texel_format = env.packed.encoding == TexelEncoding::Rgbe8 ? 1 : 2;
        r.bytes_per_texel = bytes_per_texel(env.packed.encoding);
    }
    const std::size_t bpt = r.bytes_per_texel;
    m.upload_total = texel_count * bpt;
    const std::size_t group = m.tuning.group_size;
    clear_stale_errors();
    // Wall-clock up to glFinish: drivers may copy asynchronously (DMA), which GPU timestamps
    // around glBufferSubData do not bracket, and the first dispatch would absorb the copy.
    const auto upload_start = std::chrono::steady_clock::now();

    if (r.symmetric) {
        // Tiles: task ranges in whole work groups, each with the face rows it reads.
        const std::size_t n = r.size, half_quads = n / (2 * m.tuning.sym_positions), row_bytes = n * kBytesPerTexel;
        const std::size_t tasks = (n / 2) * half_quads;
        const std::size_t texels_per_task = 24 * m.tuning.sym_positions;
        const std::size_t group_tasks = group / m.tuning.coeff_split * m.tuning.tasks_per_thread;
        r.positions = n * n;
        const std::size_t rows_fit = m.limits.max_block_bytes / (12 * row_bytes);  // 6 faces x 2 bands
        std::size_t groups_per_tile = rows_fit > 2 ? (rows_fit - 2) * half_quads / group_tasks : 0;
        groups_per_tile = std::min(groups_per_tile, m.limits.max_groups_x);
        if (m.max_tile_texels > 0)
            groups_per_tile = std::min(groups_per_tile, m.max_tile_texels / (group_tasks * texels_per_task));
        groups_per_tile = std::max<std::size_t>(groups_per_tile, 1);
        const std::size_t tile_tasks = groups_per_tile * group_tasks;
        r.total_groups = ceil_div(tasks, group_tasks);
        for (std::size_t first = 0; first < tasks; first += tile_tasks) {
            Impl::Tile tile;
            tile.first = first;
            tile.count = std::min(tile_tasks, tasks - first);
            tile.row_base = first / half_quads;
            tile.rows = ceil_div(first + tile.count, half_quads) - tile.row_base;
            tile.groups = ceil_div(tile.count, group_tasks);
            const std::size_t band_bytes = tile.rows * row_bytes;
            m.check_block(12 * band_bytes, "a tile of cube texels");
            tile.texels = m.make_texel_buffer(12 * band_bytes);
            for (std::size_t f = 0; f < 6; ++f) {
                const float* face = env.cube.faces[f].rgb.data();
                const std::size_t bottom_row = n - tile.row_base - tile.rows;
                m.write(*tile.texels, 2 * f * band_bytes, face + 3 * tile.row_base * n, band_bytes);
                m.write(*tile.texels, (2 * f + 1) * band_bytes, face + 3 * bottom_row * n, band_bytes);
            }
            check_gl("uploading texels");
            r.tiles.push_back(std::move(tile));
        }
    } else {
        const Pass1Shape shape{r.cube ? 6u : 1u,
                               r.cube ? m.tuning.cube_quads_per_thread : m.tuning.equirect_quads_per_thread,
                               m.tuning.group_size};
        r.positions = texel_count / shape.faces;
        const std::size_t group_positions = shape.positions_per_group();
        if (r.positions >= (std::size_t{1} << 32) - group_positions)
            throw GpuError("the input has " + std::to_string(r.positions) +
                           " texels per face or image; the GPU path indexes at most 2^32");
        r.total_groups = ceil_div(r.positions, group_positions);
        if (!r.cube) m.upload_equirect_tables(env.width(), env.height(), &m.row_table, &m.column_table);
        for (Impl::Tile& tile : m.plan_texel_tiles(r.positions, r.cube, bpt)) {
            const std::size_t face_bytes = tile.stride_quads * 4 * bpt;
            tile.texels = m.make_texel_buffer(Impl::tile_bytes(tile, r.cube, bpt));
            for (std::size_t f = 0; f < shape.faces; ++f) {
                const void* face = r.cube ? static_cast<const void*>(env.cube.faces[f].rgb.data())
                                 : env.is_packed() ? static_cast<const void*>(env.packed.bytes.data())
                                                   : static_cast<const void*>(env.equirect.rgb.data());
                m.write(*tile.texels, f * face_bytes, static_cast<const char*>(face) + bpt * tile.first, tile.count * bpt);
                m.write(*tile.texels, f * face_bytes + tile.count * bpt, nullptr, (tile.stride_quads * 4 - tile.count) * bpt);
            }
            check_gl("uploading texels");
            r.tiles.push_back(std::move(tile));
        }
    }
    m.spare_texels.clear();  // prepared for another input than this one
    m.check_block(r.total_groups * kMaxShCount * 16, "the partial sums of pass 1");
    if (ceil_div(r.total_groups, m.tuning.reduce_group_size) > m.limits.max_groups_x)
        throw GpuError("the input needs more reduction work groups than GL_MAX_COMPUTE_WORK_GROUP_COUNT");
    // Partial sums: device-local where immutable storage exists (read back through `result`).
    const std::size_t partial_bytes = r.total_groups * kMaxShCount * 16;
    for (GlBuffer* b : {&m.partials_a, &m.partials_b}) {
        if (m.upload_mode() == GpuTuning::Upload::BufferData) {
            if (b->immutable) b->reset();  // project_resident() allocates with glBufferData
        } else if (!b->immutable || b->size < partial_bytes) {
            b->reset();
            b->allocate_storage(partial_bytes, 0);
        }
    }
    glFinish();
    m.timings.upload_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - upload_start).count();
    check_gl("uploading texels");
    r.valid = true;
}

std::pair<GLuint, GLuint> GpuProjector::Impl::projection_programs(int order, bool cube, bool symmetric,
                                                                   unsigned texel_format, const GpuTuning& t) {
    const int count = sh_count(order);
    const std::string common = "#define SH_ORDER " + std::to_string(order) + "\n#define WORK_GROUP_SUM 1\n";
    std::string pass1 = common + "#define WG_SIZE " + std::to_string(t.group_size) + "\n#define WG_LOG2 " +
                        std::to_string(ceil_log2(t.group_size)) + "\n#define REDUCE_CHUNK " +
                        std::to_string(tree_chunk(count, t.group_size, tree_shared_bytes())) + "\n#define CUBE_LAYOUT " +
                        (cube ? "1" : "0") + "\n#define CUBE_SYMMETRY " + (symmetric ? "1" : "0") +
                        "\n#define TEXEL_FORMAT " + std::to_string(texel_format) + "\n";
    if (symmetric)
        pass1 += "#define TASKS_PER_THREAD " + std::to_string(t.tasks_per_thread) + "\n#define SYM_POSITIONS " +
                 std::to_string(t.sym_positions) + "\n#define COEFF_SPLIT " + std::to_string(t.coeff_split) + "\n";
    else
        pass1 += "#define QUADS_PER_THREAD " +
                 std::to_string(cube ? t.cube_quads_per_thread : t.equirect_quads_per_thread) + "\n";
    const std::string reduce = common + "#define WG_SIZE " + std::to_string(t.reduce_group_size) + "\n#define WG_LOG2 " +
                               std::to_string(ceil_log2(t.reduce_group_size)) + "\n#define REDUCE_CHUNK " +
                               std::to_string(tree_chunk(count, t.reduce_group_size, tree_shared_bytes())) + "\n#define REDUCE_SEQ " +
                               std::to_string(t.reduce_seq) + "\n";
    return {program("project_sh.comp", pass1), program("reduce_partials.comp", reduce)};
}

void GpuProjector::Impl::dispatch_pass1(GLuint project_program, bool timed) {
    const Resident& r = resident;
    glUseProgram(project_program);
    set_uniform(project_program, "u_size", r.size);
    if (!r.cube) {
        row_table.bind(2);
        column_table.bind(3);
    }
    partials_a.bind(1);
    std::size_t first_group = 0;
    for (const Tile& tile : r.tiles) {
        tile.texels->bind(0);
        if (r.symmetric) tile.texels->bind(4);  // the vec2 view (SYM_POSITIONS 2)
        if (r.symmetric) {
            set_uniform(project_program, "u_first_task", tile.first);
            set_uniform(project_program, "u_task_count", tile.count);
            set_uniform(project_program, "u_row_base", tile.row_base);
            set_uniform(project_program, "u_rows", tile.rows);
        } else {
            set_uniform(project_program, "u_first", tile.first);
            set_uniform(project_program, "u_count", tile.count);
            set_uniform(project_program, "u_face_stride_quads", tile.stride_quads);
        }
        set_uniform(project_program, "u_first_partial", first_group);
        if (timed) project_timer.begin();
        glDispatchCompute(static_cast<GLuint>(tile.groups), 1, 1);
        if (timed) project_timer.end();
        if (fault_requested("dispatch"))  // an invalid dispatch: GL_INVALID_VALUE
            glDispatchCompute(static_cast<GLuint>(limits.max_groups_x) + 1u, 1, 1);
        check_gl("the projection pass");
        first_group += tile.groups;
    }
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
}

GlBuffer* GpuProjector::Impl::dispatch_reductions(GLuint reduce_program, int order) {
    // Reduction passes, ping-ponging between the two partial buffers.
    glUseProgram(reduce_program);
    GlBuffer* in = &partials_a;
    GlBuffer* out = &partials_b;
    std::size_t partials = resident.total_groups;
    const std::size_t per_group = std::size_t{resident.tuning.reduce_group_size} * resident.tuning.reduce_seq;
    while (partials > 1) {
        const std::size_t groups = ceil_div(partials, per_group);
        in->bind(0);
        out->bind(1);
        set_uniform(reduce_program, "u_partial_count", partials);
        // One work group per (chunk of partials, coefficient): see reduce_partials.comp.
        glDispatchCompute(static_cast<GLuint>(groups), static_cast<GLuint>(sh_count(order)), 1);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        ++timings.reduce_passes;
        partials = groups;
        std::swap(in, out);
    }
    check_gl("the reduction passes");
    return in;
}

Projection GpuProjector::project_resident(int order) {
    if (!is_supported_order(order))
        throw GpuError("SH order " + std::to_string(order) + " is not supported (1 to " +
                       std::to_string(kMaxShOrder) + ")");
    Impl& m = *impl_;
    const Impl::Resident& r = m.resident;
    if (!r.valid) throw GpuError("project_resident() needs an upload() first");
    const std::size_t count = static_cast<std::size_t>(sh_count(order));
    Projection result;
    result.radiance = ShCoefficients(order);
    m.timings.project_ms = m.timings.reduce_ms = 0;
    m.timings.reduce_passes = 0;
    if (r.positions == 0) return result;
    const std::size_t partial_bytes = count * 16;

    clear_stale_errors();
    const auto programs = m.projection_programs(order);
    m.project_timer.reset();
    m.reduce_timer.reset();
    if (!m.partials_a.immutable) {
        m.partials_a.allocate(r.total_groups * partial_bytes, nullptr, GL_STREAM_READ);
        m.partials_b.allocate(ceil_div(r.total_groups, r.tuning.reduce_group_size) * partial_bytes, nullptr, GL_STREAM_READ);
    }
    m.result.allocate(partial_bytes, nullptr, GL_STREAM_READ);
    check_gl("allocating buffers");

    m.dispatch_pass1(programs.first, true);
    if (r.total_groups > 1) m.reduce_timer.begin();
    GlBuffer* final_partial = m.dispatch_reductions(programs.second, order);
    if (r.total_groups > 1) m.reduce_timer.end();

    std::vector<float> sum(count * 4);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glBindBuffer(GL_COPY_READ_BUFFER, final_partial->id);
    glBindBuffer(GL_COPY_WRITE_BUFFER, m.result.id);
    glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, static_cast<GLsizeiptr>(partial_bytes));
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, m.result.id);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(partial_bytes), sum.data());
    check_gl("reading the result back");
    glUseProgram(0);

    for (std::size_t k = 0; k < count; ++k)
        for (std::size_t c = 0; c < 3; ++c) result.radiance.rgb[k][c] = sum[4 * k + c];
    result.solid_angle_sum = sum[3];
    m.timings.project_ms = m.project_timer.total_ms();
    m.timings.reduce_ms = m.reduce_timer.total_ms();
    return result;
}

GpuTimings GpuProjector::time_resident(int order, int repetitions) {
    Impl& m = *impl_;
    const Impl::Resident& r = m.resident;
    if (!r.valid || r.positions == 0) throw GpuError("time_resident() needs a non-empty upload() first");
    project_resident(order);  // compiles, allocates, checks
    const auto programs = m.projection_programs(order);
    StageTimer pass1, reduce;
    pass1.begin();
    for (int i = 0; i < repetitions; ++i) m.dispatch_pass1(programs.first, false);
    pass1.end();
    GpuTimings t;
    reduce.begin();
    for (int i = 0; i < repetitions; ++i) {
        m.timings.reduce_passes = 0;
        m.dispatch_reductions(programs.second, order);
    }
    reduce.end();
    glUseProgram(0);
    t.reduce_passes = m.timings.reduce_passes;
    t.project_ms = pass1.total_ms() / repetitions;
    t.reduce_ms = reduce.total_ms() / repetitions;
    check_gl("the timed passes");
    return t;
}

CubeMap GpuProjector::render_irradiance_cube(const ShCoefficients& irradiance, int size) {
    if (size <= 0) throw GpuError("irradiance map size must be positive");
    std::vector<float> rgb(static_cast<std::size_t>(size) * size * 6 * 3);
    impl_->render_map(irradiance, true, size, size, rgb.data());
    CubeMap cube(size);
    const std::size_t face_floats = static_cast<std::size_t>(size) * size * 3;
    for (std::size_t f = 0; f < 6; ++f)
        std::copy(rgb.begin() + static_cast<std::ptrdiff_t>(f * face_floats),
                  rgb.begin() + static_cast<std::ptrdiff_t>((f + 1) * face_floats), cube.faces[f].rgb.begin());
    return cube;
}

Image GpuProjector::render_irradiance_equirect(const ShCoefficients& irradiance, int width, int height) {
    Image image(width, height);
    if (width <= 0 || height <= 0) throw GpuError("irradiance map size must be positive");
    impl_->render_map(irradiance, false, width, height, image.rgb.data());
    return image;
}

void GpuProjector::Impl::render_map(const ShCoefficients& irradiance, bool cube, int width, int height,
                                    float* out) {
    Impl& m = *this;
    m.timings.irradiance_ms = 0;
    if (!is_supported_order(irradiance.order) || irradiance.count() != sh_count(irradiance.order))
        throw GpuError("irradiance coefficients of order " + std::to_string(irradiance.order) +
                       " are not supported");
    if (width <= 0 || height <= 0) throw GpuError("irradiance map size must be positive");
    const std::size_t texel_count =
        static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * (cube ? 6 : 1);
    if (texel_count >= (std::size_t{1} << 32))
        throw GpuError("the irradiance map has more than 2^32 texels");

    clear_stale_errors();
    const GLuint program = m.map_program(irradiance.order, cube);
    std::vector<float> coefficient_words(static_cast<std::size_t>(irradiance.count()) * 4, 0.0f);
    for (std::size_t k = 0; k < irradiance.rgb.size(); ++k)
        for (std::size_t c = 0; c < 3; ++c) coefficient_words[4 * k + c] = static_cast<float>(irradiance.rgb[k][c]);
    m.coefficients.allocate(coefficient_words.size() * sizeof(float), coefficient_words.data());
    m.coefficients.bind(0);
    if (!cube) {
        m.upload_equirect_tables(width, height, &m.map_row_table, &m.map_column_table);
        m.map_row_table.bind(2);
        m.map_column_table.bind(3);
    }
    check_gl("uploading the irradiance coefficients");

    // Tiles bounded by the storage block size and the work-group count.
    std::size_t tile_texels = std::min(m.limits.max_block_bytes / kBytesPerTexel,
                                       m.limits.max_groups_x * kMapGroupSize);
    if (m.max_tile_texels > 0) tile_texels = std::max<std::size_t>(1, std::min(tile_texels, m.max_tile_texels));
    glUseProgram(program);
    m.set_uniform(program, "u_size", static_cast<std::size_t>(width));
    m.irradiance_timer.reset();
    for (std::size_t first = 0; first < texel_count; first += tile_texels) {
        const std::size_t n = std::min(tile_texels, texel_count - first);
        m.map_output.allocate(n * kBytesPerTexel, nullptr, GL_STREAM_READ);
        m.map_output.bind(1);
        m.set_uniform(program, "u_first_texel", first);
        m.set_uniform(program, "u_texel_count", n);
        m.irradiance_timer.begin();
        glDispatchCompute(static_cast<GLuint>(ceil_div(n, kMapGroupSize)), 1, 1);
        m.irradiance_timer.end();
        check_gl("the irradiance map pass");
        m.map_output.read(out + 3 * first, n * kBytesPerTexel, "reading the irradiance map back");
    }
    glUseProgram(0);
    m.timings.irradiance_ms = m.irradiance_timer.total_ms();
}

}  // namespace bake
