// SH projection and irradiance maps with OpenGL 4.3 compute shaders (shaders/*.comp).
//
// Projection: upload() copies the source texels once as packed RGB float32 (split into tiles
// when one buffer would exceed GL_MAX_SHADER_STORAGE_BLOCK_SIZE or the work-group count limit).
// Pass 1 (project_sh.comp) turns each work group's texels (1024 positions x 6 faces for a cube,
// 4096 texels for equirect) into one partial (SH_COUNT vec4: rgb sums and, in coefficient 0's w,
// the solid-angle sum); reduction passes (reduce_partials.comp) then sum 256 partials into one
// until a single partial is left, and only that one is read back. No atomics: the summation
// order is fixed by the input's size, so results are bit-for-bit repeatable on a given GPU and
// driver, with or without tiling.
//
// Rounding (u = 2^-24): every output value is a float sum of per-texel terms L * Y_k * Omega.
// Each invocation adds its texels sequentially (24 for a cube, 16 for equirect), then binary
// trees add: 8 levels in pass 1's work group and ceil(log2(min(n, 256))) in a reduction pass
// over n partials. So, to first order,
//     |sum_gpu - sum of the float terms| <= summation_depth * u * sum |terms|,
// summation_depth = 24 + 8 + the reduction levels: 42 for 6 x 1024^2 texels, 44 for
// 6 x 2048^2. For non-negative radiance, sum_t |L Y_k Omega| <= max|Y_k| sum_t L Omega
// = sqrt(2l+1) |L_00| <= 3 x the channel's coefficient-vector norm, so this part stays below
// 3 * 44 * u = 7.9e-6 of the norm (the --compare measure). The terms themselves carry a few
// ulps from the direction, the solid angle and the basis polynomial; those errors are
// independent from texel to texel and largely average out. tests/test_gpu.cpp checks measured
// differences against the full bound (summation plus term evaluation): they use 2-4% of it.
//
// Test hook: BAKE_TEST_FAULT=shader-compile makes every shader fail to compile (a real driver
// compile error with its info log); BAKE_TEST_FAULT=dispatch issues an invalid dispatch after
// the first projection pass so the GL error check after it fires. (BAKE_TEST_FAULT=context is
// in gl_context.cpp.)
#include "gpu_projector.h"

#include <glad/gl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "cube_map.h"
#include "embedded_shaders.h"
#include "equirect.h"

namespace bake {
namespace {

// Pass 1 (project_sh.comp): 256 invocations per work group, each taking position quads (4
// texel positions) one after the other. A cube position quad covers 4 positions on all 6 faces
// (24 texels), so one quad per invocation; an equirect quad is 4 texels, so 4 quads.
constexpr GLuint kProjectGroupSize = 256;  // a power of two: the tree halves it
constexpr GLuint kProjectGroupLog2 = 8;

struct Pass1Shape {
    GLuint faces;             // 6 for a cube (positions shared by the faces), 1 for equirect
    GLuint quads_per_thread;  // position quads per invocation
    std::size_t positions_per_group() const { return std::size_t{kProjectGroupSize} * quads_per_thread * 4; }
    std::size_t texels_per_thread() const { return std::size_t{quads_per_thread} * 4 * faces; }
};
constexpr Pass1Shape kCubeShape{6, 1};
constexpr Pass1Shape kEquirectShape{1, 4};

// Reduction passes: 256 partials -> 1.
constexpr GLuint kReduceGroupSize = 256;
constexpr GLuint kReduceGroupLog2 = 8;
// Coefficients per shared-memory tree round: 5 * 256 * 16 B = 20 KiB, under the 32 KiB that
// GL guarantees for GL_MAX_COMPUTE_SHARED_MEMORY_SIZE; 5 divides both 25 and 9 + 1.
constexpr GLuint kReduceChunk = 5;
constexpr GLuint kMapGroupSize = 64;
constexpr std::size_t kBytesPerTexel = 3 * sizeof(float);

bool fault_requested(const char* what) {
    const char* fault = std::getenv("BAKE_TEST_FAULT");
    return fault && std::strcmp(fault, what) == 0;
}

int ceil_log2(std::size_t n) {
    int levels = 0;
    while ((std::size_t{1} << levels) < n) ++levels;
    return levels;
}

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

std::string gl_error_name(GLenum error) {
    switch (error) {
        case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
        case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
        case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
        case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
        case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY (out of GPU memory)";
        case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
        case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
        case 0x0507: return "GL_CONTEXT_LOST (the GPU was reset or the context lost)";
        default: {
            char buf[32];
            std::snprintf(buf, sizeof buf, "GL error 0x%04X", error);
            return buf;
        }
    }
}

// Throws GpuError naming `stage` if GL recorded an error since the last check.
void check_gl(const char* stage) {
    const GLenum error = glGetError();
    if (error == GL_NO_ERROR) return;
    std::string message = std::string("OpenGL error after ") + stage + ": " + gl_error_name(error);
    // GL keeps one flag per error kind; clear the rest so the next operation starts clean.
    for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; ++i) {
    }
    throw GpuError(message);
}

void clear_stale_errors() {
    for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; ++i) {
    }
}

// The info log on one line (GpuError's what() is one line).
std::string one_line(std::string log) {
    while (!log.empty() && (log.back() == '\n' || log.back() == '\r' || log.back() == ' '))
        log.pop_back();
    std::string out;
    for (char c : log) {
        if (c == '\n') out += " | ";
        else if (c != '\r') out += c;
    }
    return out;
}

struct GlBuffer {
    GLuint id = 0;
    GlBuffer() { glGenBuffers(1, &id); }
    ~GlBuffer() { glDeleteBuffers(1, &id); }
    GlBuffer(const GlBuffer&) = delete;
    GlBuffer& operator=(const GlBuffer&) = delete;
    // (Re)specifies the store, orphaning any previous one still in use by the GPU.
    // usage: GL_STREAM_DRAW for uploads, GL_STREAM_READ for what the CPU reads back (NVIDIA's
    // debug output flags a mismatch).
    void allocate(std::size_t bytes, const void* data = nullptr, GLenum usage = GL_STREAM_DRAW) {
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, id);
        glBufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(std::max<std::size_t>(bytes, 16)),
                     data, usage);
    }
    void bind(GLuint binding) const { glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, id); }
};

// GPU time of one stage (several tiles or passes, summed) from pairs of GL_TIMESTAMP queries.
// Not GL_TIME_ELAPSED: Mesa's llvmpipe runs compute dispatches outside its elapsed-time queries
// (they read ~0), while timestamps taken before and after a dispatch bracket it on llvmpipe and
// on hardware alike.
class StageTimer {
public:
    ~StageTimer() {
        if (!queries_.empty()) glDeleteQueries(static_cast<GLsizei>(queries_.size()), queries_.data());
    }
    void reset() { used_ = 0; }
    void begin() { glQueryCounter(next(), GL_TIMESTAMP); }
    void end() { glQueryCounter(next(), GL_TIMESTAMP); }
    double total_ms() const {  // waits for the GPU
        GLuint64 total_ns = 0;
        for (std::size_t i = 0; i + 1 < used_; i += 2) {
            GLuint64 start = 0, stop = 0;
            glGetQueryObjectui64v(queries_[i], GL_QUERY_RESULT, &start);
            glGetQueryObjectui64v(queries_[i + 1], GL_QUERY_RESULT, &stop);
            total_ns += stop > start ? stop - start : 0;
        }
        return static_cast<double>(total_ns) * 1e-6;
    }

private:
    GLuint next() {
        if (used_ == queries_.size()) {
            queries_.push_back(0);
            glGenQueries(1, &queries_.back());
        }
        return queries_[used_++];
    }
    std::vector<GLuint> queries_;
    std::size_t used_ = 0;
};

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

}  // namespace

struct GpuProjector::Impl {
    Limits limits;
    std::map<std::string, GLuint> programs;  // by shader name + defines
    // The uploaded input (upload()), in tiles; pass 1 reads it, project_resident() reuses it.
    struct Tile {
        std::size_t first = 0, count = 0;  // texel positions [first, first + count)
        std::size_t stride_quads = 0;      // quads per face in the buffer
        std::size_t groups = 0;            // pass-1 work groups
        std::unique_ptr<GlBuffer> texels;
    };
    struct Resident {
        bool valid = false;
        bool cube = false;
        std::size_t size = 0;        // cube face size or equirect width
        std::size_t positions = 0;   // texels per face (cube) or per image
        std::size_t total_groups = 0;
        std::vector<Tile> tiles;
    } resident;
    GlBuffer partials_a, partials_b, row_table, column_table;
    GlBuffer coefficients, map_output, map_row_table, map_column_table;
    StageTimer project_timer, reduce_timer, irradiance_timer;
    GpuTimings timings;
    std::size_t max_tile_texels = 0;  // test cap, 0 = none

    ~Impl() {
        for (auto& entry : programs) glDeleteProgram(entry.second);
    }

    GLuint program(const char* shader_name, const std::string& defines);
    void set_uniform(GLuint program, const char* name, std::size_t value) const {
        glUniform1ui(glGetUniformLocation(program, name), static_cast<GLuint>(value));
    }
    void upload_equirect_tables(int width, int height, GlBuffer* rows, GlBuffer* columns) const;
    void check_block(std::size_t bytes, const char* what) const;
    // Evaluates the irradiance SH at every texel of a cube (6 faces of width x width) or a
    // lat-long image into `out` (RGB float, in project_sh.comp's texel order).
    void render_map(const ShCoefficients& irradiance, bool cube, int width, int height, std::vector<float>* out);
};

GLuint GpuProjector::Impl::program(const char* shader_name, const std::string& defines) {
    const std::string key = std::string(shader_name) + "\n" + defines;
    auto found = programs.find(key);
    if (found != programs.end()) return found->second;

    const char* body = shaders::find(shader_name);
    if (!body) throw GpuError(std::string("shader ") + shader_name + " is not embedded in the binary");
    std::string header = "#version 430 core\n" + defines;
    if (fault_requested("shader-compile"))
        header += "#error forced compile failure (BAKE_TEST_FAULT=shader-compile)\n";
    // Source strings 1 and 2 restart line numbering, so the log's "1:LINE" / "2:LINE" point
    // into sh_common.glsl and the shader file themselves.
    const char* sources[] = {header.c_str(), "#line 1 1\n", shaders::kShader_sh_common_glsl,
                             "\n#line 1 2\n", body};
    const GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
    glShaderSource(shader, 5, sources, nullptr);
    glCompileShader(shader);
    GLint ok = 0;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    auto info_log = [](GLuint object, bool is_program) {
        GLint length = 0;
        if (is_program) glGetProgramiv(object, GL_INFO_LOG_LENGTH, &length);
        else glGetShaderiv(object, GL_INFO_LOG_LENGTH, &length);
        std::string log(static_cast<std::size_t>(std::max(length, 1)), '\0');
        if (is_program) glGetProgramInfoLog(object, length, nullptr, &log[0]);
        else glGetShaderInfoLog(object, length, nullptr, &log[0]);
        log.resize(std::strlen(log.c_str()));
        return one_line(log);
    };
    if (!ok) {
        const std::string log = info_log(shader, false);
        glDeleteShader(shader);
        throw GpuError(std::string("shader ") + shader_name + " failed to compile (source 1 = " +
                       "sh_common.glsl, 2 = " + shader_name + "): " + log);
    }
    const GLuint prog = glCreateProgram();
    glAttachShader(prog, shader);
    glLinkProgram(prog);
    glDeleteShader(shader);  // freed with the program
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        const std::string log = info_log(prog, true);
        glDeleteProgram(prog);
        throw GpuError(std::string("shader ") + shader_name + " failed to link: " + log);
    }
    check_gl("compiling shaders");
    programs.emplace(key, prog);
    return prog;
}

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

GpuProjector::GpuProjector(const GlContext& /*context: must be current on this thread*/)
    : impl_(std::make_unique<Impl>()) {
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
    const std::size_t shared_needed = kReduceChunk * std::max(kProjectGroupSize, kReduceGroupSize) * 16;
    if (l.max_invocations < std::max(kProjectGroupSize, kReduceGroupSize) || l.max_shared_bytes < shared_needed ||
        l.max_block_bytes < kCubeShape.positions_per_group() * kCubeShape.faces * kBytesPerTexel)
        throw GpuError("the GPU's compute limits are below OpenGL 4.3's minimums (work group " +
                       std::to_string(l.max_invocations) + " invocations, " +
                       std::to_string(l.max_shared_bytes) + " bytes shared memory)");
}

GpuProjector::~GpuProjector() = default;

const GpuTimings& GpuProjector::last_timings() const { return impl_->timings; }

void GpuProjector::set_max_tile_texels(std::size_t texels) { impl_->max_tile_texels = texels; }

int GpuProjector::summation_depth(std::size_t texel_count, bool cube) {
    const Pass1Shape& shape = cube ? kCubeShape : kEquirectShape;
    const std::size_t positions = texel_count / shape.faces;
    int depth = static_cast<int>(std::min(shape.texels_per_thread(), std::max<std::size_t>(texel_count, 1)));
    depth += kProjectGroupLog2;
    for (std::size_t n = ceil_div(positions, shape.positions_per_group()); n > 1; n = ceil_div(n, kReduceGroupSize))
        depth += ceil_log2(std::min<std::size_t>(n, kReduceGroupSize));
    return depth;
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
    m.timings.upload_ms = 0;
    const std::size_t texel_count = env.texel_count();
    if (texel_count == 0) {
        r.valid = true;
        return;
    }
    r.cube = env.is_cube();
    const Pass1Shape& shape = r.cube ? kCubeShape : kEquirectShape;
    r.size = static_cast<std::size_t>(r.cube ? env.cube.size : env.equirect.width);
    r.positions = texel_count / shape.faces;
    const std::size_t group_positions = shape.positions_per_group();
    if (r.positions >= (std::size_t{1} << 32) - group_positions)
        throw GpuError("the input has " + std::to_string(r.positions) +
                       " texels per face or image; the GPU path indexes at most 2^32");

    // Tiles: ranges of positions in whole work groups, each small enough for one storage block
    // and one dispatch. Tile boundaries fall on work-group boundaries: tiling never changes a sum.
    std::size_t groups_per_tile = std::min(
        m.limits.max_block_bytes / (group_positions * shape.faces * kBytesPerTexel), m.limits.max_groups_x);
    if (m.max_tile_texels > 0)
        groups_per_tile = std::min(groups_per_tile, m.max_tile_texels / (group_positions * shape.faces));
    groups_per_tile = std::max<std::size_t>(groups_per_tile, 1);
    const std::size_t tile_positions = groups_per_tile * group_positions;
    r.total_groups = ceil_div(r.positions, group_positions);
    m.check_block(r.total_groups * kMaxShCount * 16, "the partial sums of pass 1");
    if (ceil_div(r.total_groups, kReduceGroupSize) > m.limits.max_groups_x)
        throw GpuError("the input needs more reduction work groups than GL_MAX_COMPUTE_WORK_GROUP_COUNT");

    clear_stale_errors();
    // Wall-clock up to glFinish: drivers may copy asynchronously (DMA), which GPU timestamps
    // around glBufferSubData do not bracket, and the first dispatch would absorb the copy.
    const auto upload_start = std::chrono::steady_clock::now();
    if (!r.cube) m.upload_equirect_tables(env.equirect.width, env.equirect.height, &m.row_table, &m.column_table);
    for (std::size_t first = 0; first < r.positions; first += tile_positions) {
        Impl::Tile tile;
        tile.first = first;
        tile.count = std::min(tile_positions, r.positions - first);
        tile.stride_quads = ceil_div(tile.count, 4);  // each face padded to whole quads
        tile.groups = ceil_div(tile.count, group_positions);
        tile.texels = std::make_unique<GlBuffer>();
        const std::size_t face_bytes = tile.stride_quads * 4 * kBytesPerTexel;
        tile.texels->allocate(shape.faces * face_bytes);
        const float zeros[12] = {};
        for (std::size_t f = 0; f < shape.faces; ++f) {
            const float* src = r.cube ? env.cube.faces[f].rgb.data() : env.equirect.rgb.data();
            const auto offset = static_cast<GLintptr>(f * face_bytes);
            glBufferSubData(GL_SHADER_STORAGE_BUFFER, offset, static_cast<GLsizeiptr>(tile.count * kBytesPerTexel),
                            src + 3 * first);
            if (tile.stride_quads * 4 > tile.count)
                glBufferSubData(GL_SHADER_STORAGE_BUFFER, offset + static_cast<GLintptr>(tile.count * kBytesPerTexel),
                                static_cast<GLsizeiptr>((tile.stride_quads * 4 - tile.count) * kBytesPerTexel), zeros);
        }
        check_gl("uploading texels");
        r.tiles.push_back(std::move(tile));
    }
    glFinish();
    m.timings.upload_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - upload_start).count();
    r.valid = true;
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
    const Pass1Shape& shape = r.cube ? kCubeShape : kEquirectShape;
    const std::size_t partial_bytes = count * 16;

    clear_stale_errors();
    const std::string defines = "#define SH_ORDER " + std::to_string(order) +
                                "\n#define REDUCE_CHUNK " + std::to_string(kReduceChunk) +
                                "\n#define WORK_GROUP_SUM 1\n";
    const GLuint project_program = m.program(
        "project_sh.comp", defines + "#define WG_SIZE " + std::to_string(kProjectGroupSize) +
                               "\n#define WG_LOG2 " + std::to_string(kProjectGroupLog2) +
                               "\n#define QUADS_PER_THREAD " + std::to_string(shape.quads_per_thread) +
                               "\n#define CUBE_LAYOUT " + (r.cube ? "1" : "0") + "\n");
    const GLuint reduce_program = m.program(
        "reduce_partials.comp", defines + "#define WG_SIZE " + std::to_string(kReduceGroupSize) +
                                    "\n#define WG_LOG2 " + std::to_string(kReduceGroupLog2) + "\n");

    m.project_timer.reset();
    m.reduce_timer.reset();
    m.partials_a.allocate(r.total_groups * partial_bytes, nullptr, GL_STREAM_READ);
    m.partials_b.allocate(ceil_div(r.total_groups, kReduceGroupSize) * partial_bytes, nullptr, GL_STREAM_READ);
    check_gl("allocating buffers");

    glUseProgram(project_program);
    m.set_uniform(project_program, "u_size", r.size);
    if (!r.cube) {
        m.row_table.bind(2);
        m.column_table.bind(3);
    }
    m.partials_a.bind(1);
    std::size_t first_group = 0;
    for (const Impl::Tile& tile : r.tiles) {
        tile.texels->bind(0);
        m.set_uniform(project_program, "u_first", tile.first);
        m.set_uniform(project_program, "u_count", tile.count);
        m.set_uniform(project_program, "u_face_stride_quads", tile.stride_quads);
        m.set_uniform(project_program, "u_first_partial", first_group);
        m.project_timer.begin();
        glDispatchCompute(static_cast<GLuint>(tile.groups), 1, 1);
        m.project_timer.end();
        if (fault_requested("dispatch"))  // an invalid dispatch: GL_INVALID_VALUE
            glDispatchCompute(static_cast<GLuint>(m.limits.max_groups_x) + 1u, 1, 1);
        check_gl("the projection pass");
        first_group += tile.groups;
    }
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);

    // Reduction passes, ping-ponging between the two partial buffers.
    glUseProgram(reduce_program);
    GlBuffer* in = &m.partials_a;
    GlBuffer* out = &m.partials_b;
    std::size_t partials = r.total_groups;
    if (partials > 1) m.reduce_timer.begin();
    while (partials > 1) {
        const std::size_t groups = ceil_div(partials, kReduceGroupSize);
        in->bind(0);
        out->bind(1);
        m.set_uniform(reduce_program, "u_partial_count", partials);
        glDispatchCompute(static_cast<GLuint>(groups), 1, 1);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        ++m.timings.reduce_passes;
        partials = groups;
        std::swap(in, out);
    }
    if (m.timings.reduce_passes > 0) m.reduce_timer.end();
    check_gl("the reduction passes");

    std::vector<float> sum(count * 4);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, in->id);
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

CubeMap GpuProjector::render_irradiance_cube(const ShCoefficients& irradiance, int size) {
    std::vector<float> rgb;
    impl_->render_map(irradiance, true, size, size, &rgb);
    CubeMap cube(size);
    const std::size_t face_floats = static_cast<std::size_t>(size) * size * 3;
    for (std::size_t f = 0; f < 6; ++f)
        std::copy(rgb.begin() + static_cast<std::ptrdiff_t>(f * face_floats),
                  rgb.begin() + static_cast<std::ptrdiff_t>((f + 1) * face_floats), cube.faces[f].rgb.begin());
    return cube;
}

Image GpuProjector::render_irradiance_equirect(const ShCoefficients& irradiance, int width, int height) {
    Image image(width, height);
    impl_->render_map(irradiance, false, width, height, &image.rgb);
    return image;
}

void GpuProjector::Impl::render_map(const ShCoefficients& irradiance, bool cube, int width, int height,
                                    std::vector<float>* out) {
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
    out->assign(texel_count * 3, 0.0f);

    clear_stale_errors();
    const GLuint program = m.program(
        "irradiance_map.comp", "#define SH_ORDER " + std::to_string(irradiance.order) +
                                   "\n#define WG_SIZE " + std::to_string(kMapGroupSize) +
                                   "\n#define CUBE_LAYOUT " + (cube ? "1" : "0") + "\n");
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
        glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, m.map_output.id);
        glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(n * kBytesPerTexel),
                           out->data() + 3 * first);
        check_gl("reading the irradiance map back");
    }
    glUseProgram(0);
    m.timings.irradiance_ms = m.irradiance_timer.total_ms();
}

}  // namespace bake
