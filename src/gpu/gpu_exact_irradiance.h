#pragma once
#include <memory>
#include <vector>

#include "exact_irradiance.h"

namespace bake {

class ComputePrograms;

// Exact irradiance (exact_irradiance.h) on the GPU: the cells, built in double on the CPU, are
// uploaded as float, and shaders/exact_irradiance.comp sums every cell's term for each output
// direction (Kahan-compensated float, then a tree of log2(work group) levels, so
// |E_gpu - E| <= ~10 u sum |terms| + the cells' own rounding to float, u = 2^-24; for a
// non-negative map sum |terms| = E(n)). Needs the context current on this thread; throws
// GpuError on any GL failure or when the cells exceed the GPU's storage block limit.
class GpuExactIrradiance {
public:
    explicit GpuExactIrradiance(ComputePrograms& programs);
    ~GpuExactIrradiance();
    GpuExactIrradiance(const GpuExactIrradiance&) = delete;
    GpuExactIrradiance& operator=(const GpuExactIrradiance&) = delete;

    // Compiles the program ahead of time (evaluate() would otherwise, on first use).
    void prepare();
    // Replaces the cells on the GPU.
    void upload(const IrradianceCells& cells);
    // E at unit directions (float sums, widened).
    std::vector<Rgb> evaluate(const std::vector<Vec3>& directions);
    // GPU time of the last evaluate(), from timestamp queries (milliseconds).
    double last_ms() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace bake
