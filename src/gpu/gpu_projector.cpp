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

#include <algorithm>
#include <exception>
#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "cube_map.h"
#include "embedded_shaders.h"
#include "gl_objects.h"
#include "gpu_irradiance_map.h"
#include "gpu_source_texels.h"
#include "trace.h"

namespace bake {
namespace {

// Symmetric cube pass: a task = P (sym_positions) positions of a face quadrant x 3 pairs x 8
// mirrored texels: 24 P texels, 3 P sequential adds.
constexpr int kWalshHadamardRoundings = 3;

// Reduction passes: up to reduce_group_size * reduce_seq partials -> 1.
// Shared memory per tree round, at most the 32 KiB that GL guarantees.
constexpr std::size_t kTreeSharedBytes = 32768;

bool is_power_of_two(unsigned v) { return v != 0 && (v & (v - 1)) == 0; }

// Coefficients per shared-memory tree round for a work group of `group` invocations.
unsigned tree_chunk(int count, unsigned group, std::size_t shared_bytes) {
    const std::size_t rounds = ceil_div(std::size_t(count) * group * 16, shared_bytes);
    return static_cast<unsigned>(ceil_div(static_cast<std::size_t>(count), std::max<std::size_t>(rounds, 1)));
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

GpuLimits GpuLimits::query() {
    GLint64 block = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    GLint groups = 0, shared = 0, invocations = 0;
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &groups);
    glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &shared);
    glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &invocations);
    check_gl("querying compute limits");
    GpuLimits l;
    l.max_block_bytes = static_cast<std::size_t>(std::max<GLint64>(block, 0));
    l.max_groups_x = static_cast<std::size_t>(std::max(groups, 0));
    l.max_shared_bytes = static_cast<std::size_t>(std::max(shared, 0));
    l.max_invocations = static_cast<std::size_t>(std::max(invocations, 0));
    if (l.max_invocations < 1024 || l.max_shared_bytes < kTreeSharedBytes ||
        l.max_block_bytes < std::size_t{256} * 4 * 6 * kBytesPerTexel)
        throw GpuError("the GPU's compute limits are below OpenGL 4.3's minimums (work group " +
                       std::to_string(l.max_invocations) + " invocations, " + std::to_string(l.max_shared_bytes) +
                       " bytes shared memory)");
    return l;
}

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
    Impl(const GlContext& context, const GpuLimits& l)
        : limits(l), programs(context.info()), source(context, l), map(programs, l, source) {}
    GpuLimits limits;
    GpuTuning tuning;
    ComputePrograms programs;
    GpuSourceTexels source;  // the uploaded input: pass 1 reads it, project_resident() reuses it
    GpuIrradianceMap map;
    GlBuffer partials_a, partials_b, result;
    StageTimer project_timer, reduce_timer;
    GpuTimings timings;
    std::uint64_t uploaded_identity = 0;  // Environment::identity of the resident texels (0: none known)
    double ahead_upload_ms = 0;           // upload_ahead's time, until upload() of the same input reports it

    // Shared memory for one tree round: what the device allows, at most 48 KiB (the most a
    // work group gets without opt-in on NVIDIA), at least the 32 KiB GL guarantees.
    std::size_t tree_shared_bytes() const {
        return std::max(kTreeSharedBytes, std::min<std::size_t>(limits.max_shared_bytes, 49152));
    }
    GLuint program(const char* shader_name, const std::string& defines) { return programs.get(shader_name, defines); }
    void set_uniform(GLuint program, const char* name, std::size_t value) const {
        glUniform1ui(glGetUniformLocation(program, name), static_cast<GLuint>(value));
    }
    // Pass-1 and reduction programs for `order` and an input of this shape (tuning t).
    std::pair<GLuint, GLuint> projection_programs(int order, bool cube, bool symmetric, unsigned texel_format,
                                                  const GpuTuning& t);
    // The same for the resident input.
    std::pair<GLuint, GLuint> projection_programs(int order) {
        const GpuSourceTexels::Resident& r = source.resident();
        return projection_programs(order, r.cube, r.symmetric, r.texel_format, r.tuning);
    }
    // The partial sums' buffers for the resident input: device-local where immutable storage exists.
    void allocate_partials();
    // Issues pass 1 over every tile (timed by project_timer when `timed`).
    void dispatch_pass1(GLuint program, bool timed);
    // Issues the reduction passes from partials_a; returns the buffer holding the final partial.
    GlBuffer* dispatch_reductions(GLuint program, int order);
};

GpuProjector::GpuProjector(const GlContext& context /* must be current on this thread */)
    : impl_(std::make_unique<Impl>(context, GpuLimits::query())) {}

GpuProjector::~GpuProjector() = default;

const GpuTimings& GpuProjector::last_timings() const { return impl_->timings; }

void GpuProjector::set_max_tile_texels(std::size_t texels) {
    impl_->uploaded_identity = 0;
    impl_->source.set_max_tile_texels(texels);
    impl_->map.set_max_tile_texels(texels);
}

void GpuProjector::set_tuning(const GpuTuning& tuning) {
    if (!is_power_of_two(tuning.group_size) || tuning.group_size < 32 || tuning.group_size > 1024 ||
        tuning.tasks_per_thread < 1 || tuning.cube_quads_per_thread < 1 || tuning.equirect_quads_per_thread < 1 ||
        tuning.reduce_seq < 1 || !is_power_of_two(tuning.reduce_group_size) || tuning.reduce_group_size < 32 ||
        tuning.reduce_group_size > 1024 || tuning.upload_threads < 1 || (tuning.sym_positions != 2 && tuning.sym_positions != 4) ||
        (tuning.coeff_split != 1 && tuning.coeff_split != 2) || (tuning.coeff_split == 2 && tuning.group_size < 64))
        throw GpuError("invalid GPU tuning: " + tuning.describe());
    impl_->tuning = tuning;
    impl_->uploaded_identity = 0;  // the next upload uses the new shape
}

const GpuTuning& GpuProjector::tuning() const { return impl_->tuning; }

GpuProjector::ProgramStats GpuProjector::program_stats() const {
    return {impl_->programs.compiled(), impl_->programs.cache().loaded(), impl_->programs.cache().folder()};
}

std::optional<GpuProjector::ResidentTexels> GpuProjector::resident_equirect() const {
    const GpuSourceTexels::Resident& r = impl_->source.resident();
    if (!r.valid || r.cube || r.tiles.empty()) return std::nullopt;
    ResidentTexels t;
    t.texel_format = r.texel_format;
    t.width = static_cast<int>(r.size);
    t.height = static_cast<int>(r.positions / std::max<std::size_t>(1, r.size));
    for (const GpuSourceTexels::Tile& tile : r.tiles) t.tiles.push_back({tile.texels->id, tile.first, tile.count});
    t.row_table = impl_->source.row_table().id;
    t.column_table = impl_->source.column_table().id;
    return t;
}

ComputePrograms& GpuProjector::programs() { return impl_->programs; }

bool GpuProjector::buffer_storage_available() const { return impl_->source.buffer_storage_available(); }

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
    const Pass1Shape shape = Pass1Shape::of(cube, tuning);
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
    if (cube_map) m.map.prepare(map_order > 0 ? map_order : order, *cube_map);
    if (!input.cube) {
        m.source.prepare(input.texel_count, input.encoding, m.tuning);
        trace_event("upload buffers made");
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
    // The same texels resident already (the specular source after the projection: 17 ms for an
    // 8192 x 4096 .hdr on the H200): nothing to send.
    if (env.identity != 0 && env.identity == m.uploaded_identity) {
        m.timings.upload_ms = m.ahead_upload_ms;  // upload_ahead's, once
        m.ahead_upload_ms = 0;
        return;
    }
    m.uploaded_identity = 0;
    m.ahead_upload_ms = 0;
    m.source.upload(env, m.tuning);
    m.timings.upload_ms = m.source.upload_ms();
    if (m.source.resident().positions > 0) m.allocate_partials();
    m.uploaded_identity = env.identity;
}

bool GpuProjector::holds(const Environment& env) const {
    return env.identity != 0 && env.identity == impl_->uploaded_identity;
}

bool GpuProjector::stage_ahead(const Environment& env) {
    if (holds(env)) return false;
    return impl_->source.stage(env, impl_->tuning);
}

void GpuProjector::unstage() { impl_->source.unstage(); }

void GpuProjector::upload_ahead(const Environment& env) {
    Impl& m = *impl_;
    if (env.identity == 0 || env.identity == m.uploaded_identity) return;
    m.uploaded_identity = 0;
    m.ahead_upload_ms = 0;
    // The copies are queued behind work that may still read the texels they replace (the specular
    // source pass): GL runs them in order, and the barrier covers the shaders' storage reads.
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
    try {
        if (fault_requested("upload-ahead")) throw GpuError("forced by BAKE_TEST_FAULT=upload-ahead");  // test hook
        m.source.upload(env, m.tuning, false);
        if (m.source.resident().positions > 0) m.allocate_partials();
        check_gl("uploading the next input's texels");
    } catch (const std::exception&) {  // a GL failure, out of memory: never this input's error
        clear_stale_errors();  // nothing resident: the input's own upload sends it again, or fails then
        return;
    }
    m.ahead_upload_ms = m.source.upload_ms();
    m.uploaded_identity = env.identity;
}

void GpuProjector::Impl::allocate_partials() {
    const GpuSourceTexels::Resident& r = source.resident();
    source.check_block(r.total_groups * kMaxShCount * 16, "the partial sums of pass 1");
    if (ceil_div(r.total_groups, tuning.reduce_group_size) > limits.max_groups_x)
        throw GpuError("the input needs more reduction work groups than GL_MAX_COMPUTE_WORK_GROUP_COUNT");
    const std::size_t partial_bytes = r.total_groups * kMaxShCount * 16;
    for (GlBuffer* b : {&partials_a, &partials_b}) {
        if (source.upload_mode(tuning) == GpuTuning::Upload::BufferData) {
            if (b->immutable) b->reset();  // project_resident() allocates with glBufferData
        } else if (!b->immutable || b->size < partial_bytes) {
            b->reset();
            b->allocate_storage(partial_bytes, 0);
        }
    }
    check_gl("allocating the partial sums");
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
    const GpuSourceTexels::Resident& r = source.resident();
    glUseProgram(project_program);
    set_uniform(project_program, "u_size", r.size);
    if (!r.cube) {
        source.row_table().bind(2);
        source.column_table().bind(3);
    }
    partials_a.bind(1);
    std::size_t first_group = 0;
    for (const GpuSourceTexels::Tile& tile : r.tiles) {
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
    std::size_t partials = source.resident().total_groups;
    const GpuTuning& rt = source.resident().tuning;
    const std::size_t per_group = std::size_t{rt.reduce_group_size} * rt.reduce_seq;
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
    const GpuSourceTexels::Resident& r = m.source.resident();
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
    const GpuSourceTexels::Resident& r = m.source.resident();
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
    impl_->map.render(irradiance, true, size, size, rgb.data());
    impl_->timings.irradiance_ms = impl_->map.last_ms();
    CubeMap cube(size);
    const std::size_t face_floats = static_cast<std::size_t>(size) * size * 3;
    for (std::size_t f = 0; f < 6; ++f)
        std::copy(rgb.begin() + static_cast<std::ptrdiff_t>(f * face_floats),
                  rgb.begin() + static_cast<std::ptrdiff_t>((f + 1) * face_floats), cube.faces[f].rgb.begin());
    return cube;
}

Image GpuProjector::render_irradiance_equirect(const ShCoefficients& irradiance, int width, int height) {
    if (width <= 0 || height <= 0) throw GpuError("irradiance map size must be positive");
    Image image(width, height);
    impl_->map.render(irradiance, false, width, height, image.rgb.data());
    impl_->timings.irradiance_ms = impl_->map.last_ms();
    return image;
}

}  // namespace bake
