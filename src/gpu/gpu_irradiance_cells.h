#pragma once
#include <memory>
#include <optional>

#include "exact_irradiance.h"

namespace bake {

class GpuProjector;

// The cells of exact_irradiance.h over the lat-long texels a GpuProjector holds after upload():
// the same moments, summed in float (shaders/irradiance_cells.comp: one invocation a cell, Kahan-
// compensated, so each moment errs by a few 2^-24 of the sum of its terms' magnitudes whatever
// the cell's size), widened to double. A batch of maps then never sums its texels on the CPU.
// Needs the context current on this thread; throws GpuError on any GL failure.
class GpuIrradianceCells {
public:
    explicit GpuIrradianceCells(GpuProjector& projector);
    ~GpuIrradianceCells();
    GpuIrradianceCells(const GpuIrradianceCells&) = delete;
    GpuIrradianceCells& operator=(const GpuIrradianceCells&) = delete;

    // Compiles the program for texels of `texel_format` (GpuProjector::ResidentTexels) ahead of time.
    void prepare(unsigned texel_format);
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
