#pragma once
#include <cstddef>
#include <memory>

#include "gl_context.h"
#include "projection.h"

namespace bake {

// Stage times of the last GPU operation, from GL timer queries (milliseconds).
struct GpuTimings {
    double upload_ms = 0;    // wall-clock of the texel upload, finished (glFinish)
    double project_ms = 0;   // first pass: texels -> per-work-group partials
    double reduce_ms = 0;    // all later passes: partials -> one
    int reduce_passes = 0;
    double irradiance_ms = 0;
};

// SH projection and irradiance maps with OpenGL 4.3 compute shaders, on the context current
// on this thread. Same definitions as the CPU path (projection.h): the source's own texels,
// exact solid angles, then a multi-pass reduction of per-work-group partial sums.
// Throws GpuError on any GL failure or when the input exceeds the GPU's limits.
class GpuProjector {
public:
    explicit GpuProjector(const GlContext& context);
    ~GpuProjector();
    GpuProjector(const GpuProjector&) = delete;
    GpuProjector& operator=(const GpuProjector&) = delete;

    // upload(env) then project_resident(order).
    Projection project(const Environment& env, int order);

    // The two halves of project(), for benchmarks and for projecting one input at several
    // orders: upload() copies env's texels to the GPU once (replacing any earlier input);
    // project_resident() runs the passes on them (bit-identical to project()).
    void upload(const Environment& env);
    Projection project_resident(int order);
    CubeMap render_irradiance_cube(const ShCoefficients& irradiance, int size);
    Image render_irradiance_equirect(const ShCoefficients& irradiance, int width, int height);

    // Timings of the last upload (upload_ms), projection (project/reduce) and irradiance map.
    const GpuTimings& last_timings() const;

    // Rounding depth of project()'s float summation for an input of `texel_count` texels (cube
    // or equirect): the most roundings on any term's path (sequential adds per invocation + tree
    // levels), so |result - exact sum of the float terms| <= depth * 2^-24 * sum |terms| to
    // first order.
    static int summation_depth(std::size_t texel_count, bool cube);

    // Caps the texels per upload tile (rounded down to whole work groups, at least one; 0: the
    // GPU's limits alone). Lets tests run the tiled path on GPUs whose limits never force it.
    void set_max_tile_texels(std::size_t texels);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace bake
