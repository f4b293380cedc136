#pragma once
// What a bake asks of a device, behind one interface with two implementations: the CPU path
// (double precision, the reference) and the GPU path (OpenGL 4.3 compute, float sums within the
// bounds their tests state). Which one runs an operation, and what happens when the GPU fails, is
// decided in one place: Devices (devices.h). Both compute the same quantities in the convention of
// docs/CONVENTION.md.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "exact_irradiance.h"
#include "image.h"
#include "projection.h"
#include "run_report.h"
#include "specular_prefilter.h"
#include "texture_format.h"

namespace bake {

// An irradiance map's shape: a cube of `size` (stored as a vertical strip, N x 6N) or a
// 4 size x 2 size lat-long map.
struct MapShape {
    bool equirect = false;
    int size = 32;
};

// What the first input will most likely need, guessed before it is decoded so that a backend can
// prepare (compile programs, make buffers) while it decodes. A wrong guess costs only time.
struct PrepareHint {
    bool cube = false;                      // the input is a cube (faces, or a forced cube layout)
    std::optional<TexelEncoding> encoding;  // lat-long: RGBE (.hdr) or half (.exr)
    std::size_t texel_count = 0;            // lat-long: from the header, when known
    std::optional<bool> cube_map;           // an SH irradiance map will be rendered: cube (true) or lat-long
    bool exact_map = false;                 // --irradiance exact
    int width = 0, height = 0;              // lat-long: from the header, when known
    int specular_source_size = 0;           // the specular chain's source cube face (0: no chain)
    std::optional<SpecularSettings> specular;  // with it, the chain's settings (its sample sets made ahead)
    int projected_order = 5, map_order = 3;
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual const char* name() const = 0;  // "cpu" or "gpu"
    virtual void prepare(const PrepareHint&) {}

    // Radiance coefficients of `order`; sets the stage times it measures (project; GPU: upload,
    // reduce too).
    virtual Projection project_sh(const Environment& env, int order, StageTimings& timings) = 0;
    // The SH error report's cells of `block` texels a side summed from the texels this backend
    // holds, or nothing when it leaves them to the CPU (which builds them where the input loads).
    virtual std::optional<IrradianceCells> report_cells(const Environment& env, int block) = 0;
    // E(n) over the cells at each direction (exact_irradiance.h); adds its time to `ms`.
    virtual std::vector<Rgb> exact_irradiance(const IrradianceCells& cells, const std::vector<Vec3>& directions,
                                              double& ms) = 0;
    // The irradiance map of SH irradiance coefficients at every texel centre; adds its time to `ms`.
    virtual Image sh_irradiance_map(const ShCoefficients& irradiance, const MapShape& shape, double& ms) = 0;
    // The specular source (specular_prefilter.h's prepare_specular_input) for the chain of
    // `settings` (source_size set): the bright split (`split` when given: the input's, made where it
    // decoded), the area averages of the input and of the capped input, their mips. The CPU's
    // unless a backend computes the averages itself (within 1e-6 relative of the CPU's); one may
    // keep them where its prefilter reads them (SpecularInput's resident_on) unless `cpu_copy` asks
    // for them in memory (--compare reads them).
    virtual SpecularInput prepare_specular(const Environment& env, const SpecularSettings& settings, int threads,
                                           const BrightSplit* split, bool cpu_copy) {
        (void)cpu_copy;
        return prepare_specular_input(env, settings.source_size, threads, kSpecularBrightFactor, kMaxBrightTexels, split);
    }
    // The GGX chain: level 0 the source's area average, the others Karis' estimator over `input`
    // (its mips in memory, or kept by this backend); adds its time to `ms`, and completes
    // input.average_by with what was measured after prepare_specular returned. With `bc6h`, also
    // the chain's BC6H blocks where it is made, in Bevy's layout when bc6h_mirror_z (the GPU: its
    // encoder, the CPU's default setting byte for byte, 1 byte a texel read back); a backend that
    // does not leaves them empty for the writer to encode the floats.
    virtual std::vector<CubeMap> prefilter_specular(SpecularInput& input, const SpecularSettings& settings, double& ms,
                                                    EncodedTexture* bc6h, bool bc6h_mirror_z) = 0;

    // The one call for overlap across a batch's inputs (batch.h). `next` gives the input after the
    // one baking once it is decoded (env null while it decodes, or when there is none), valid
    // during this input's operations: its specular chain's settings when it would be baked too.
    // A backend that keeps texels may stage them at once (on a worker), send them while it waits
    // for this input's specular chain and queue the next input's specular source behind that
    // chain; that input's own operations then find them there. Set by Bake for each input; an
    // empty function: nothing to send, and what was staged is let go. Never throws: a failure
    // leaves the next input to its own operations.
    struct NextInput {
        const Environment* env = nullptr;
        const BrightSplit* split = nullptr;          // its bright split, made where it decoded
        const SpecularSettings* specular = nullptr;  // the chain it will bake (nullptr: none)
    };
    virtual void set_next_input(std::function<NextInput()> next) { (void)next; }
};

}  // namespace bake
