#include "gpu_specular_source.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gl_objects.h"
#include "packed_image.h"
#include "parallel.h"

namespace bake {

namespace {
constexpr GLuint kGroup = 8;  // shaders/specular_source.comp: 8 x 8 texels a work group
}

struct GpuSpecularSource::Impl {
    explicit Impl(ComputePrograms& p) : programs(p) {}
    ComputePrograms& programs;
    GlBuffer texels, grid, omega, output;
    StageTimer timer;
    double last_ms = 0, last_upload_ms = 0, last_program_ms = 0, last_read_ms = 0;
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

GpuSpecularSource::GpuSpecularSource(ComputePrograms& programs) : impl_(std::make_unique<Impl>(programs)) {}
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
    // Padded to whole words (a half texel is 6 bytes).
    const std::size_t bytes = input_bytes(env);
    m.texels.allocate((bytes + 3) / 4 * 4, nullptr);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(bytes), data);
    const std::vector<double> grid = equirect_source_grid(env.width(), env.height());
    m.grid.allocate(grid.size() * sizeof(double), grid.data());
    std::vector<double> omega(static_cast<std::size_t>(size) * size);
    parallel_for(size, resolve_threads(threads, size), [&](int r) {
        for (int c = 0; c < size; ++c) omega[static_cast<std::size_t>(r) * size + c] = cube_texel_solid_angle(r, c, size);
    });
    m.omega.allocate(omega.size() * sizeof(double), omega.data());
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
    m.texels.bind(0);
    m.grid.bind(1);
    m.omega.bind(2);
    m.output.bind(3);
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
    std::vector<float> result(6 * texels);
    m.output.read(result.data(), result.size() * sizeof(float), "reading the specular source back");
    m.last_read_ms = ms_since(read_start);

    *full = CubeMap(size);
    *capped = capping ? CubeMap(size) : CubeMap();
    const std::size_t per_face = static_cast<std::size_t>(size) * size;
    bool finite = true;
    for (float v : result)
        if (std::isnan(v)) finite = false;
    if (!finite) throw GpuError("the specular source pass failed (an edge piece outside its column sums)");
    parallel_for(6, resolve_threads(threads, 6), [&](int f) {
        for (std::size_t i = 0; i < per_face; ++i) {
            const float* v = &result[6 * (f * per_face + i)];
            for (int c = 0; c < 3; ++c) full->faces[f].rgb[3 * i + c] = v[c];
            if (capping)
                for (int c = 0; c < 3; ++c) capped->faces[f].rgb[3 * i + c] = v[3 + c];
        }
    });
}

double GpuSpecularSource::last_ms() const { return impl_->last_ms; }
double GpuSpecularSource::last_upload_ms() const { return impl_->last_upload_ms; }
std::string GpuSpecularSource::last_detail() const {
    char text[160];
    std::snprintf(text, sizeof text, "program %.1f, upload %.1f, pass %.1f, read back %.1f", impl_->last_program_ms,
                  impl_->last_upload_ms, impl_->last_ms, impl_->last_read_ms);
    return text;
}

}  // namespace bake
