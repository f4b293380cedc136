#include "gpu_irradiance_cells.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gl_objects.h"
#include "gpu_projector.h"

namespace bake {

namespace {

constexpr unsigned kGroupSize = 64;  // invocations (cells) a work group

}  // namespace

struct GpuIrradianceCells::Impl {
    explicit Impl(GpuProjector& p) : projector(p) {}
    GpuProjector& projector;
    GlBuffer cells;
    StageTimer timer;
    double last_ms = 0;
    GLuint program(unsigned texel_format) {
        // SH_ORDER only sizes sh_common.glsl's basis function, which this shader does not call.
        return projector.programs().get("irradiance_cells.comp", "#define SH_ORDER 1\n#define WG_SIZE " +
                                                                   std::to_string(kGroupSize) + "\n#define TEXEL_FORMAT " +
                                                                   std::to_string(texel_format) + "\n");
    }
};

GpuIrradianceCells::GpuIrradianceCells(GpuProjector& projector) : impl_(std::make_unique<Impl>(projector)) {}
GpuIrradianceCells::~GpuIrradianceCells() = default;

void GpuIrradianceCells::prepare(unsigned texel_format) { impl_->program(texel_format); }

std::optional<IrradianceCells> GpuIrradianceCells::build(const Environment& env, int block) {
    Impl& m = *impl_;
    const std::optional<GpuProjector::ResidentTexels> texels = m.projector.resident_equirect();
    if (!texels || env.is_cube() || texels->width != env.width() || texels->height != env.height()) return std::nullopt;
    IrradianceCells cells = irradiance_cell_grid(env, block);
    const std::size_t count = cells.count();
    if (count == 0) return cells;
    constexpr int kV = IrradianceCells::kValuesPerCell;
    clear_stale_errors();
    const GLuint program = m.program(texels->texel_format);
    glUseProgram(program);
    auto uniform = [&](const char* name, std::size_t v) {
        glUniform1ui(glGetUniformLocation(program, name), static_cast<GLuint>(v));
    };
    uniform("u_width", static_cast<std::size_t>(cells.source_width));
    uniform("u_height", static_cast<std::size_t>(cells.source_height));
    uniform("u_block", static_cast<std::size_t>(cells.block));
    uniform("u_columns", static_cast<std::size_t>(cells.columns));
    uniform("u_cell_count", count);
    const std::size_t groups = (count + kGroupSize - 1) / kGroupSize;
    const std::size_t groups_x = std::min<std::size_t>(groups, 65535), groups_y = (groups + groups_x - 1) / groups_x;
    m.cells.allocate(count * kV * sizeof(float), nullptr, GL_STREAM_READ);
    m.cells.bind(4);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, texels->row_table);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, texels->column_table);
    m.timer.reset();
    // Tile by tile, in order: a cell across two tiles adds the second's sum to the first's.
    for (std::size_t t = 0; t < texels->tiles.size(); ++t) {
        const GpuProjector::ResidentTexels::Tile& tile = texels->tiles[t];
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, tile.buffer);
        uniform("u_first", tile.first);
        uniform("u_count", tile.count);
        uniform("u_accumulate", t > 0 ? 1 : 0);
        if (t > 0) glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        m.timer.begin();
        glDispatchCompute(static_cast<GLuint>(groups_x), static_cast<GLuint>(groups_y), 1);
        m.timer.end();
        check_gl("the irradiance cells pass");
    }
    std::vector<float> sums(count * kV);
    m.cells.read(sums.data(), sums.size() * sizeof(float), "reading the irradiance cells back");
    glUseProgram(0);
    for (std::size_t i = 0; i < sums.size(); ++i) cells.moments[i] = sums[i];
    m.last_ms = m.timer.total_ms();
    return cells;
}

double GpuIrradianceCells::last_ms() const { return impl_->last_ms; }

}  // namespace bake
