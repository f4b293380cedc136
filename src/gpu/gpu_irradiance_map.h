#pragma once
// Irradiance maps from SH coefficients on the GPU (shaders/irradiance_map.comp): E(n) = sum E_k
// Y_k(n) at every texel centre of a cube (faces +X -X +Y -Y +Z -Z) or a lat-long map, in tiles
// bounded by one storage block and one dispatch. Same definitions as the CPU's (projection.h).
#include "gl_objects.h"
#include "gpu_pass_shape.h"
#include "sh.h"

namespace bake {

class GpuSourceTexels;

class GpuIrradianceMap {
public:
    GpuIrradianceMap(ComputePrograms& programs, const GpuLimits& limits, const GpuSourceTexels& tables)
        : programs_(programs), limits_(limits), tables_(tables) {}

    // Compiles the program for maps of `order` coefficients, cube or lat-long.
    void prepare(int order, bool cube) { program(order, cube); }
    // Writes width x height texels a face (6 faces for a cube) as RGB floats into `out`, in
    // project_sh.comp's texel order. Throws GpuError.
    void render(const ShCoefficients& irradiance, bool cube, int width, int height, float* out);
    double last_ms() const { return last_ms_; }
    void set_max_tile_texels(std::size_t texels) { max_tile_texels_ = texels; }

private:
    GLuint program(int order, bool cube);

    ComputePrograms& programs_;
    GpuLimits limits_;
    const GpuSourceTexels& tables_;  // makes the lat-long tables
    GlBuffer coefficients_, output_, row_table_, column_table_;
    StageTimer timer_;
    double last_ms_ = 0;
    std::size_t max_tile_texels_ = 0;
};

}  // namespace bake
