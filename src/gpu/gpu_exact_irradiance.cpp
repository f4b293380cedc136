#include "gpu_exact_irradiance.h"

#include "stage_progress.h"

#include <algorithm>
#include <string>

#include "gl_objects.h"

namespace bake {

namespace {

constexpr GLuint kGroupSize = 128;
constexpr GLuint kOutputsPerGroup = 8;
// Directions per dispatch: 16 B each in and out, well inside the 16 MiB storage block GL
// guarantees, and far below the work-group count limit.
constexpr std::size_t kDirectionsPerChunk = std::size_t{1} << 18;

}  // namespace

struct GpuExactIrradiance::Impl {
    explicit Impl(ComputePrograms& p) : programs(p) {}
    ComputePrograms& programs;
    GlBuffer cells, directions, output;
    std::size_t cell_count = 0;
    StageTimer timer;
    double last_ms = 0;
    GLuint program() {
        // SH_ORDER only sizes sh_common.glsl's basis function, which this shader does not call.
        return programs.get("exact_irradiance.comp", "#define SH_ORDER 1\n#define WG_SIZE " + std::to_string(kGroupSize) +
                                                         "\n#define OUTPUTS " + std::to_string(kOutputsPerGroup) + "\n");
    }
};

GpuExactIrradiance::GpuExactIrradiance(ComputePrograms& programs) : impl_(std::make_unique<Impl>(programs)) {}
GpuExactIrradiance::~GpuExactIrradiance() = default;

void GpuExactIrradiance::upload(const IrradianceCells& cells) {
    // 18 moments a cell, packed into 5 vec4 (exact_irradiance.comp).
    constexpr int kFloats = 20;
    const std::size_t count = cells.count();
    GLint64 max_block = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &max_block);
    const std::size_t bytes = count * kFloats * sizeof(float);
    if (bytes > static_cast<std::size_t>(max_block))
        throw GpuError("exact irradiance needs a " + std::to_string(bytes) + "-byte shader storage block; this GPU allows " +
                       std::to_string(max_block) + " (GL_MAX_SHADER_STORAGE_BLOCK_SIZE)");
    std::vector<float> packed(std::max<std::size_t>(count, 1) * kFloats, 0.0f);
    // The cells hold R: P N, G: P N, B: P N; the shader reads P_r P_g P_b N_r N_g N_b.
    for (std::size_t i = 0; i < count; ++i) {
        const double* m = &cells.moments[i * IrradianceCells::kValuesPerCell];
        float* out = &packed[i * kFloats];
        for (int part = 0; part < 2; ++part)
            for (int c = 0; c < 3; ++c)
                for (int k = 0; k < 3; ++k) out[9 * part + 3 * c + k] = static_cast<float>(m[6 * c + 3 * part + k]);
    }
    impl_->cells.allocate(packed.size() * sizeof(float), packed.data());
    impl_->cell_count = count;
    check_gl("uploading the irradiance cells");
}

void GpuExactIrradiance::prepare() { impl_->program(); }

std::vector<Rgb> GpuExactIrradiance::evaluate(const std::vector<Vec3>& dirs) {
    Impl& m = *impl_;
    std::vector<Rgb> out(dirs.size());
    const GLuint program = m.program();
    glUseProgram(program);
    glUniform1ui(glGetUniformLocation(program, "u_cell_count"), static_cast<GLuint>(m.cell_count));
    m.timer.reset();
    std::vector<float> chunk_dirs, result;
    for (std::size_t first = 0; first < dirs.size(); first += kDirectionsPerChunk) {
        const std::size_t n = std::min(kDirectionsPerChunk, dirs.size() - first);
        chunk_dirs.assign(4 * n, 0.0f);
        for (std::size_t i = 0; i < n; ++i) {
            chunk_dirs[4 * i] = static_cast<float>(dirs[first + i].x);
            chunk_dirs[4 * i + 1] = static_cast<float>(dirs[first + i].y);
            chunk_dirs[4 * i + 2] = static_cast<float>(dirs[first + i].z);
        }
        m.directions.allocate(chunk_dirs.size() * sizeof(float), chunk_dirs.data());
        m.output.allocate(chunk_dirs.size() * sizeof(float), nullptr, GL_STREAM_READ);
        m.cells.bind(0);
        m.directions.bind(1);
        m.output.bind(2);
        glUniform1ui(glGetUniformLocation(program, "u_direction_count"), static_cast<GLuint>(n));
        m.timer.begin();
        glDispatchCompute(static_cast<GLuint>((n + kOutputsPerGroup - 1) / kOutputsPerGroup), 1, 1);
        m.timer.end();
        check_gl("the exact irradiance pass");
        result.resize(4 * n);
        m.output.read(result.data(), result.size() * sizeof(float), "reading the exact irradiance back");
        for (std::size_t i = 0; i < n; ++i)
            out[first + i] = {result[4 * i], result[4 * i + 1], result[4 * i + 2]};
        stage_progress::advance(static_cast<long long>(n));
    }
    m.last_ms = m.timer.total_ms();
    return out;
}

double GpuExactIrradiance::last_ms() const { return impl_->last_ms; }

}  // namespace bake
