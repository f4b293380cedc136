#pragma once
// The GPU path: one OpenGL 4.3 context and its compute programs for the whole run. Every
// operation throws GpuError when the GPU cannot do it (Devices decides what follows).
#include <memory>
#include <string>

#include "backend.h"
#include "gl_context.h"

namespace bake {

class GpuProjector;
class GpuExactIrradiance;
class GpuIrradianceCells;
class GpuSpecularPrefilter;
class GpuSpecularSource;

class GpuBackend final : public Backend {
public:
    // Makes the context and the GPU stages' objects; throws GpuError when no context works.
    // threads: the CPU threads its CPU parts may use (0: all cores).
    GpuBackend(GlBackend gl, bool debug_output, int threads = 0);
    ~GpuBackend() override;
    const char* name() const override { return "gpu"; }
    const GlContextInfo& info() const;
    // Compiles the programs (and makes the buffers) the hint says the first input will need.
    // Best effort: a failure surfaces again, with its own message, where it matters.
    void prepare(const PrepareHint& hint) override;

    Projection project_sh(const Environment& env, int order, StageTimings& timings) override;
    std::optional<IrradianceCells> report_cells(const Environment& env, int block) override;
    std::vector<Rgb> exact_irradiance(const IrradianceCells& cells, const std::vector<Vec3>& directions,
                                      double& ms) override;
    Image sh_irradiance_map(const ShCoefficients& irradiance, const MapShape& shape, double& ms) override;
    // The area averages of lat-long inputs on the GPU (GpuSpecularSource), the bright split on the CPU
    // while the texels upload (unless given); kept on the GPU with their mips unless `cpu_copy`;
    // other inputs get the CPU's source (Backend's). The chain's sample sets are made on workers
    // meanwhile.
    SpecularInput prepare_specular(const Environment& env, const SpecularSettings& settings, int threads,
                                   const BrightSplit* split, bool cpu_copy) override;
    std::vector<CubeMap> prefilter_specular(SpecularInput& input, const SpecularSettings& settings, double& ms,
                                            EncodedTexture* bc6h, bool bc6h_mirror_z) override;
    // The next input's texels staged on a worker at once and again at prepare_specular (whichever
    // finds it decoded), sent once this input's chain is queued, and its specular source queued
    // behind that chain once the chain's own source is checked, so that the GPU makes the next
    // source while this thread reads the chain back.
    void set_next_input(std::function<NextInput()> next) override;

    struct ProgramStats {
        std::size_t compiled = 0, cached = 0;
        std::string cache_folder;
    };
    ProgramStats program_stats() const;

private:
    int threads_ = 0;
    std::unique_ptr<GlContext> context_;
    std::unique_ptr<GpuProjector> projector_;
    std::unique_ptr<GpuExactIrradiance> exact_;
    std::unique_ptr<GpuIrradianceCells> cells_;
    std::unique_ptr<GpuSpecularPrefilter> specular_;
    std::unique_ptr<GpuSpecularSource> specular_source_;
    std::function<NextInput()> next_;  // set_next_input's
    // The next input's specular source, queued by prefilter_specular behind this input's chain (env null: none).
    struct SourceAhead {
        const Environment* env = nullptr;
        int size = 0;
        LuminanceCap cap;
    } source_ahead_;
    std::string source_detail_;  // the last chain's source, completed once its chain is made
    void stage_next();
    void send_next();
    void queue_source_ahead();
};

}  // namespace bake
