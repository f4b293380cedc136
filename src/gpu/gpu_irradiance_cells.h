#pragma once
#include <memory>
#include <optional>

#include "exact_irradiance.h"

namespace bake {

class GpuProjector;

// The cells of exact_irradiance.h over the lat-long texels a GpuProjector holds after upload():
// the same moments, summed in float (shaders/irradiance_cells.comp: one work group a cell, at
// most ceil(b^2 / 256) additions an invocation then 8 tree levels, so each moment errs by about
// (b^2 / 256 + 8) 2^-24 times the sum of its terms' magnitudes, plus the float geometry's 2^-24;
// 2e-6 relative for the 64 x 64-texel cells of an 8192 x 4096 report), widened to double. A batch
// of maps then never sums its texels on the CPU. Needs the context current on this thread;
// throws GpuError on any GL failure.
class GpuIrradianceCells {
public:
    explicit GpuIrradianceCells(GpuProjector& projector);
    ~GpuIrradianceCells();
    GpuIrradianceCells(const GpuIrradianceCells&) = delete;
    GpuIrradianceCells& operator=(const GpuIrradianceCells&) = delete;

    // Cells of `block` texels a side over the resident input, which must be `env` (its grid and
    // geometry); nullopt when the resident input is not lat-long (cubes: the CPU builds those).
    std::optional<IrradianceCells> build(const Environment& env, int block);
    // GPU time of the last build (milliseconds).
    double last_ms() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace bake
