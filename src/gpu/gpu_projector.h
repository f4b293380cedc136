#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gl_context.h"
#include "gpu_pass_shape.h"
#include "projection.h"

namespace bake {

class ComputePrograms;

// Stage times of the last GPU operation, from GL timer queries (milliseconds).
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

    // What prepare() needs to know of an input: its layout, and for a cube its face size
    // (the symmetric pass needs a multiple of 8); for equirect, the packed encoding, if any.
    struct InputShape {
        bool cube = false;
        int face_size = 0;
        std::optional<TexelEncoding> encoding;
        std::size_t texel_count = 0;  // equirect: width x height when known (0: not known)
    };
    // Compiles the programs a projection of such an input at `order` will use, and the
    // irradiance-map program (cube_map: true cube, false lat-long, nullopt none), ahead of
    // time, so that compiling overlaps with decoding. Programs are compiled once per projector
    // anyway; this only moves the work earlier. With an equirect's texel_count it also creates
    // the upload's staging and texel buffers (pinning host memory and allocating device memory
    // cost more than the copy itself), which upload() then takes if the input matches.
    // Throws GpuError like the passes would.
    // map_order: the irradiance map's order when it differs from the projection's (0: the same).
    void prepare(int order, const InputShape& input, std::optional<bool> cube_map, int map_order = 0);

    // upload(env) then project_resident(order).
    Projection project(const Environment& env, int order);

    // The two halves of project(), for benchmarks and for projecting one input at several
    // orders: upload() copies env's texels to the GPU once (replacing any earlier input; nothing
    // when env's nonzero Environment::identity is that of the resident texels);
    // project_resident() runs the passes on them (bit-identical to project()).
    void upload(const Environment& env);
    Projection project_resident(int order);
    // upload(env) queued behind the GPU's work in flight and not waited for (a batch's next input
    // while the GPU makes this one's specular chain): the later upload(env) then sends nothing,
    // and reports this one's time. Any GL failure here forgets it (that upload sends again).
    void upload_ahead(const Environment& env);
    // Whether env's texels are the ones resident (upload(env) would send nothing).
    bool holds(const Environment& env) const;
    // GpuSourceTexels::stage for the upload_ahead(env) to come (a batch's next input), and unstage.
    bool stage_ahead(const Environment& env);
    void unstage();
    CubeMap render_irradiance_cube(const ShCoefficients& irradiance, int size);
    Image render_irradiance_equirect(const ShCoefficients& irradiance, int width, int height);

    // Benchmarks: runs the resident input's passes `repetitions` times back to back (no
    // read-back in between) and returns the mean GPU time per repetition of pass 1
    // (project_ms) and of the reduction passes (reduce_ms). Leaves the partial buffers in an
    // unspecified state (project_resident() recomputes them).
    GpuTimings time_resident(int order, int repetitions);

    // Shape of the passes for later calls (the next upload() uses its upload mode).
    void set_tuning(const GpuTuning& tuning);
    const GpuTuning& tuning() const;
    bool buffer_storage_available() const;

    // Programs made so far: compiled from source, or loaded from the program binary cache
    // (program_cache.h; folder empty when the cache is off).
    struct ProgramStats {
        std::size_t compiled = 0;
        std::size_t cached = 0;
        std::string cache_folder;
    };
    ProgramStats program_stats() const;
    // The compiled programs and their cache, shared with the other GPU modules (gpu_exact_irradiance.h).
    ComputePrograms& programs();

    // The resident lat-long input as project_sh.comp reads it, for other passes over the same
    // texels (gpu_irradiance_cells.h); nullopt for a cube or when no input is resident. GL names.
    struct ResidentTexels {
        unsigned texel_format = 0;  // 0 RGB float, 1 RGBE, 2 RGB half
        int width = 0, height = 0;
        struct Tile {
            unsigned buffer = 0;
            std::size_t first = 0, count = 0;  // texels (row-major) [first, first + count)
        };
        std::vector<Tile> tiles;
        unsigned row_table = 0, column_table = 0;  // (sin t, cos t, Omega, 0) a row, (cos p, sin p) a column
    };
    std::optional<ResidentTexels> resident_equirect() const;

    // The compiled programs' driver binaries (glGetProgramBinary), one (name, bytes) pair each;
    // NVIDIA's contain the generated assembly as text.
    std::vector<std::pair<std::string, std::string>> program_binaries() const;

    // Timings of the last upload (upload_ms), projection (project/reduce) and irradiance map.
    const GpuTimings& last_timings() const;

    // Rounding depth of project()'s float summation for an input of `texel_count` texels (cube
    // or equirect): the most roundings on any term's path (sequential adds per invocation + tree
    // levels), so |result - exact sum of the float terms| <= depth * 2^-24 * sum |terms| to
    // first order.
    static int summation_depth(std::size_t texel_count, bool cube, const GpuTuning& tuning = GpuTuning{});

    // Caps the texels per upload tile (rounded down to whole work groups, at least one; 0: the
    // GPU's limits alone). Lets tests run the tiled path on GPUs whose limits never force it.
    void set_max_tile_texels(std::size_t texels);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace bake
