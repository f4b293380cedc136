#include "gpu_specular_source.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gl_objects.h"
#include "gpu_projector.h"
#include "packed_image.h"
#include "parallel.h"

// GL 4.4 / ARB_buffer_storage (glad is generated for 4.3).
#ifndef GL_CLIENT_STORAGE_BIT
#define GL_CLIENT_STORAGE_BIT 0x0200
#endif

namespace bake {

namespace {
constexpr GLuint kGroup = 8;  // shaders/specular_source.comp: 8 x 8 texels a work group
}

struct GpuSpecularSource::Impl {
    explicit Impl(GpuProjector& p) : projector(p), programs(p.programs()) {}
    GpuProjector& projector;
    ComputePrograms& programs;
    GlBuffer texels, grid, omega, output, readback, constants;
    GLuint texel_buffer = 0;  // the projector's single tile, or `texels`
    StageTimer timer;
    double last_ms = 0, last_upload_ms = 0, last_program_ms = 0, last_read_ms = 0, last_map_ms = 0;
    GLuint program = 0;
    const void* uploaded = nullptr;  // the texels upload() sent, until average() uses them
    int uploaded_size = 0;
    GLint64 max_block = 0;
    GLint max_groups[3] = {0, 0, 0};
    bool limits_read = false;
    void read_limits() {
        if (limits_read) return;
        glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &max_block);
        for (GLuint i = 0; i < 3; ++i) glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, i, &max_groups[i]);
        limits_read = true;
    }
};

GpuSpecularSource::GpuSpecularSource(GpuProjector& projector) : impl_(std::make_unique<Impl>(projector)) {}
GpuSpecularSource::~GpuSpecularSource() = default;

static std::size_t input_bytes(const Environment& env) {
    return env.is_packed() ? env.packed.bytes.size() : env.equirect.rgb.size() * sizeof(float);
}

bool GpuSpecularSource::supports(const Environment& env, int size) const {
    if (env.is_cube() || size <= 0 || env.width() <= 0 || env.height() <= 0) return false;
    impl_->read_limits();
    const std::size_t groups = (static_cast<std::size_t>(size) + kGroup - 1) / kGroup;
    const std::size_t out_bytes = 6 * 6 * static_cast<std::size_t>(size) * size * sizeof(float);
    const auto block = static_cast<std::size_t>(impl_->max_block);
    return input_bytes(env) <= block && out_bytes <= block && groups <= static_cast<std::size_t>(impl_->max_groups[0]) &&
           groups <= static_cast<std::size_t>(impl_->max_groups[1]) && impl_->max_groups[2] >= 6;
}

void GpuSpecularSource::upload(const Environment& env, int size, int threads) {
    Impl& m = *impl_;
    m.uploaded = nullptr;
    if (!supports(env, size)) throw GpuError("the specular source: input not supported on the GPU");
    const unsigned format = !env.is_packed() ? 0u : env.packed.encoding == TexelEncoding::Rgbe8 ? 1u : 2u;
    using Clock = std::chrono::steady_clock;
    const auto program_start = Clock::now();
    m.program = m.programs.get("specular_source.comp", "#define SH_ORDER 1\n#define TEXEL_FORMAT " + std::to_string(format) + "\n");
    m.last_program_ms = std::chrono::duration<double, std::milli>(Clock::now() - program_start).count();
    clear_stale_errors();
    const auto start = Clock::now();
    const void* data = env.is_packed() ? static_cast<const void*>(env.packed.bytes.data()) : env.equirect.rgb.data();
    // The projector's upload (staging buffers filled on all cores: 16 ms for 8192 x 4096 RGBE on
    // the H100 machine, where one glBufferSubData took 120 ms), when it leaves the texels in one tile.
    m.texel_buffer = 0;
    m.projector.upload(env);
    const std::optional<GpuProjector::ResidentTexels> resident = m.projector.resident_equirect();
    const std::size_t texel_count = static_cast<std::size_t>(env.width()) * env.height();
    if (resident && resident->texel_format == format && resident->width == env.width() && resident->height == env.height() &&
        resident->tiles.size() == 1 && resident->tiles[0].first == 0 && resident->tiles[0].count == texel_count) {
        m.texel_buffer = resident->tiles[0].buffer;
    } else {
        // Padded to whole words (a half texel is 6 bytes).
        const std::size_t bytes = input_bytes(env);
        m.texels.allocate((bytes + 3) / 4 * 4, nullptr);
        glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(bytes), data);
        m.texel_buffer = m.texels.id;
    }
    const std::vector<double> grid = equirect_source_grid(env.width(), env.height());
    m.grid.allocate(grid.size() * sizeof(double), grid.data());
    std::vector<double> omega(static_cast<std::size_t>(size) * size);
    parallel_for(size, resolve_threads(threads, size), [&](int r) {
        for (int c = 0; c < size; ++c) omega[static_cast<std::size_t>(r) * size + c] = cube_texel_solid_angle(r, c, size);
    });
    m.omega.allocate(omega.size() * sizeof(double), omega.data());
    // The shader's non-dyadic double constants (shaders/specular_source.comp), so that no
    // compiler's handling of double literals can round them.
    {
        constexpr double kPi = 3.14159265358979323846;
        std::vector<double> c = {kPi, kPi / 2, 2 * kPi};
        for (int k = 0; k <= 8; ++k) c.push_back(std::atan(k / 8.0));
        for (int k = 3; k <= 15; k += 2) c.push_back(1.0 / k);
        for (double w : {0.2126, 0.7152, 0.0722}) c.push_back(w);
        m.constants.allocate(c.size() * sizeof(double), c.data());
    }
    m.output.allocate(6 * 6 * static_cast<std::size_t>(size) * size * sizeof(float), nullptr, GL_STREAM_READ);
    check_gl("uploading the specular source's input");
    glFinish();
    m.last_upload_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    m.uploaded = data;
    m.uploaded_size = size;
}

void GpuSpecularSource::average(const Environment& env, int size, const LuminanceCap& cap, CubeMap* full, CubeMap* capped,
                                int threads) {
    Impl& m = *impl_;
    const void* data = env.is_packed() ? static_cast<const void*>(env.packed.bytes.data()) : env.equirect.rgb.data();
    if (m.uploaded != data || m.uploaded_size != size) upload(env, size, threads);
    m.uploaded = nullptr;  // one average an upload
    using Clock = std::chrono::steady_clock;
    auto ms_since = [](Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); };
    const GLuint program = m.program;
    const int w = env.width(), h = env.height();
    const std::size_t texels = 6 * static_cast<std::size_t>(size) * size;
    glUseProgram(program);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, m.texel_buffer);
    m.grid.bind(1);
    m.omega.bind(2);
    m.output.bind(3);
    m.constants.bind(4);
    const bool capping = std::isfinite(cap.threshold);
    glUniform1i(glGetUniformLocation(program, "u_size"), size);
    glUniform1i(glGetUniformLocation(program, "u_width"), w);
    glUniform1i(glGetUniformLocation(program, "u_height"), h);
    glUniform1i(glGetUniformLocation(program, "u_capping"), capping ? 1 : 0);
    glUniform1d(glGetUniformLocation(program, "u_threshold"), capping ? cap.threshold : 0.0);
    m.timer.reset();
    m.timer.begin();
    const GLuint groups = static_cast<GLuint>((size + static_cast<int>(kGroup) - 1) / static_cast<int>(kGroup));
    glDispatchCompute(groups, groups, 6);
    m.timer.end();
    check_gl("the specular source pass");
    m.last_ms = m.timer.total_ms();  // waits for the pass
    const auto read_start = Clock::now();
    *full = CubeMap(size);
    *capped = capping ? CubeMap(size) : CubeMap();
    const std::size_t per_face = static_cast<std::size_t>(size) * size, bytes = 6 * texels * sizeof(float);
    // The output is the two cubes as they lie in memory (full, then capped), face after face.
    const std::size_t face_floats = 3 * per_face;
    auto face_of = [&](int k) -> float* { return (k < 6 ? full : capped)->faces[k % 6].rgb.data(); };
    const int planes = capping ? 12 : 6;
    if (m.projector.buffer_storage_available()) {
        // Copied on the GPU into host memory and read where it lies (glGetBufferSubData of the
        // 36 MB of a 6 x 512² source took 60 ms on the H100 machine).
        if (!m.readback.immutable || m.readback.size < bytes) {
            m.readback.reset();
            m.readback.allocate_storage(bytes, GL_MAP_READ_BIT | GL_CLIENT_STORAGE_BIT);
        }
        glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
        glBindBuffer(GL_COPY_READ_BUFFER, m.output.id);
        glBindBuffer(GL_COPY_WRITE_BUFFER, m.readback.id);
        const auto copy_bytes = static_cast<GLsizeiptr>(static_cast<std::size_t>(planes) * face_floats * sizeof(float));
        glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, copy_bytes);
        const void* mapped = glMapBufferRange(GL_COPY_WRITE_BUFFER, 0, copy_bytes, GL_MAP_READ_BIT);
        if (!mapped) {
            check_gl("mapping the specular source");
            throw GpuError("mapping the specular source failed");
        }
        m.last_map_ms = ms_since(read_start);
        const float* src = static_cast<const float*>(mapped);
        parallel_for(planes, resolve_threads(threads, planes),
                     [&](int k) { std::copy_n(src + static_cast<std::size_t>(k) * face_floats, face_floats, face_of(k)); });
        glUnmapBuffer(GL_COPY_WRITE_BUFFER);
        check_gl("reading the specular source back");
    } else {
        glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, m.output.id);
        for (int k = 0; k < planes; ++k)
            glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, static_cast<GLintptr>(static_cast<std::size_t>(k) * face_floats * sizeof(float)),
                               static_cast<GLsizeiptr>(face_floats * sizeof(float)), face_of(k));
        check_gl("reading the specular source back");
        m.last_map_ms = 0;
    }
    // The shader marks a failure with NaN in every channel of the texel.
    bool ok = true;
    for (int k = 0; k < 6; ++k)
        for (std::size_t i = 0; i < face_floats && ok; i += 3)
            if (std::isnan(face_of(k)[i])) ok = false;
    m.last_read_ms = ms_since(read_start);
    if (!ok) throw GpuError("the specular source pass failed (an edge piece outside its column sums)");
}

double GpuSpecularSource::last_ms() const { return impl_->last_ms; }
double GpuSpecularSource::last_upload_ms() const { return impl_->last_upload_ms; }
std::string GpuSpecularSource::last_detail() const {
    char text[160];
    std::snprintf(text, sizeof text, "program %.1f, upload %.1f, pass %.1f, read back %.1f (copy and map %.1f)",
                  impl_->last_program_ms, impl_->last_upload_ms, impl_->last_ms, impl_->last_read_ms, impl_->last_map_ms);
    return text;
}

}  // namespace bake
