#pragma once
// The CPU path: double precision on every core (oneTBB), the reference the GPU is checked against.
#include "backend.h"

namespace bake {

class CpuBackend final : public Backend {
public:
    explicit CpuBackend(int threads) : threads_(threads) {}
    const char* name() const override { return "cpu"; }
    Projection project_sh(const Environment& env, int order, StageTimings& timings) override;
    std::optional<IrradianceCells> report_cells(const Environment&, int) override { return std::nullopt; }
    std::vector<Rgb> exact_irradiance(const IrradianceCells& cells, const std::vector<Vec3>& directions,
                                      double& ms) override;
    Image sh_irradiance_map(const ShCoefficients& irradiance, const MapShape& shape, double& ms) override;
    std::vector<CubeMap> prefilter_specular(SpecularInput& input, const SpecularSettings& settings, double& ms,
                                            EncodedTexture* bc6h, bool bc6h_mirror_z) override;

private:
    int threads_;
};

}  // namespace bake
