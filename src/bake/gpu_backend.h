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
    // other inputs get the CPU's source (Backend's).
    SpecularInput prepare_specular(const Environment& env, int source_size, int threads, const BrightSplit* split,
                                   bool cpu_copy) override;
    void plan_specular(const SpecularSettings& settings, int threads) override;
    std::vector<CubeMap> prefilter_specular(const SpecularInput& input, const SpecularSettings& settings,
                                            double& ms) override;
    void describe_specular_source(SpecularInput& input) override;
    // Called in prefilter_specular of a source kept on the GPU, once its levels are queued.
    void set_while_waiting(std::function<void()> work) override { while_waiting_ = std::move(work); }
    // The texels at once (behind the work in flight); the specular source and its bright parts
    // once the chain being made has its source checked (prefilter_specular), so that the GPU makes
    // the next source while this thread reads the chain back.
    void send_ahead(const NextInput& next) override;
    void stage_ahead(const Environment& env) override;
    void unstage() override;

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
    std::function<void()> while_waiting_;
    // send_ahead's specular source, queued by prefilter_specular (env null: none).
    struct SourceAhead {
        const Environment* env = nullptr;
        int size = 0;
        LuminanceCap cap;
    } source_ahead_;
    std::string source_detail_;  // the last chain's source, for describe_specular_source
    void queue_source_ahead();
};

}  // namespace bake
