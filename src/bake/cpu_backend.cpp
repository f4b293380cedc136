#include "cpu_backend.h"

#include <stdexcept>

#include "stopwatch.h"

namespace bake {

Projection CpuBackend::project_sh(const Environment& env, int order, StageTimings& timings) {
    const Stopwatch watch;
    Projection p = project_sh_cpu(env, order, threads_);
    timings.project = watch.ms();
    return p;
}

std::vector<Rgb> CpuBackend::exact_irradiance(const IrradianceCells& cells, const std::vector<Vec3>& directions,
                                              double& ms) {
    const Stopwatch watch;
    std::vector<Rgb> values = exact_irradiance_at(cells, directions, threads_);
    ms += watch.ms();
    return values;
}

Image CpuBackend::sh_irradiance_map(const ShCoefficients& irradiance, const MapShape& shape, double& ms) {
    const Stopwatch watch;
    Image map = shape.equirect ? render_irradiance_equirect(irradiance, 4 * shape.size, 2 * shape.size)
                               : assemble_cube(render_irradiance_cube(irradiance, shape.size), Layout::VStrip);
    ms += watch.ms();
    return map;
}

std::vector<CubeMap> CpuBackend::prefilter_specular(SpecularInput& input, const SpecularSettings& settings, double& ms,
                                                    EncodedTexture* bc6h, bool bc6h_mirror_z) {
    (void)bc6h;  // the writer encodes the floats
    (void)bc6h_mirror_z;
    // bake_specular never hands the CPU a source another backend kept.
    if (input.mips.empty()) throw std::logic_error("CpuBackend::prefilter_specular: the source is not in memory");
    const Stopwatch watch;
    std::vector<CubeMap> chain = prefilter_specular_sampled(input, settings, threads_);
    ms += watch.ms();
    return chain;
}

}  // namespace bake
