#include "gpu_irradiance_map.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gpu_source_texels.h"

namespace bake {

namespace {

constexpr GLuint kMapGroupSize = 64;

void set_uniform(GLuint program, const char* name, std::size_t value) {
    glUniform1ui(glGetUniformLocation(program, name), static_cast<GLuint>(value));
}

}  // namespace

GLuint GpuIrradianceMap::program(int order, bool cube) {
    return programs_.get("irradiance_map.comp", "#define SH_ORDER " + std::to_string(order) + "\n#define WG_SIZE " +
                                                    std::to_string(kMapGroupSize) + "\n#define CUBE_LAYOUT " +
                                                    (cube ? "1" : "0") + "\n");
}

void GpuIrradianceMap::render(const ShCoefficients& irradiance, bool cube, int width, int height, float* out) {
    last_ms_ = 0;
    if (!is_supported_order(irradiance.order) || irradiance.count() != sh_count(irradiance.order))
        throw GpuError("irradiance coefficients of order " + std::to_string(irradiance.order) + " are not supported");
    if (width <= 0 || height <= 0) throw GpuError("irradiance map size must be positive");
    const std::size_t texel_count = static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * (cube ? 6 : 1);
    if (texel_count >= (std::size_t{1} << 32)) throw GpuError("the irradiance map has more than 2^32 texels");

    clear_stale_errors();
    const GLuint prog = program(irradiance.order, cube);
    std::vector<float> coefficient_words(static_cast<std::size_t>(irradiance.count()) * 4, 0.0f);
    for (std::size_t k = 0; k < irradiance.rgb.size(); ++k)
        for (std::size_t c = 0; c < 3; ++c) coefficient_words[4 * k + c] = static_cast<float>(irradiance.rgb[k][c]);
    coefficients_.allocate(coefficient_words.size() * sizeof(float), coefficient_words.data());
    coefficients_.bind(0);
    if (!cube) {
        tables_.upload_equirect_tables(width, height, &row_table_, &column_table_);
        row_table_.bind(2);
        column_table_.bind(3);
    }
    check_gl("uploading the irradiance coefficients");

    // Tiles bounded by the storage block size and the work-group count.
    std::size_t tile_texels = std::min(limits_.max_block_bytes / kBytesPerTexel, limits_.max_groups_x * kMapGroupSize);
    if (max_tile_texels_ > 0) tile_texels = std::max<std::size_t>(1, std::min(tile_texels, max_tile_texels_));
    glUseProgram(prog);
    set_uniform(prog, "u_size", static_cast<std::size_t>(width));
    timer_.reset();
    for (std::size_t first = 0; first < texel_count; first += tile_texels) {
        const std::size_t n = std::min(tile_texels, texel_count - first);
        output_.allocate(n * kBytesPerTexel, nullptr, GL_STREAM_READ);
        output_.bind(1);
        set_uniform(prog, "u_first_texel", first);
        set_uniform(prog, "u_texel_count", n);
        timer_.begin();
        glDispatchCompute(static_cast<GLuint>(ceil_div(n, kMapGroupSize)), 1, 1);
        timer_.end();
        check_gl("the irradiance map pass");
        output_.read(out + 3 * first, n * kBytesPerTexel, "reading the irradiance map back");
    }
    glUseProgram(0);
    last_ms_ = timer_.total_ms();
}

}  // namespace bake
