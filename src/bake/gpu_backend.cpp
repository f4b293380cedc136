#include "gpu_backend.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>

#include "gl_objects.h"
#include "gpu_bc6h.h"
#include "gpu_exact_irradiance.h"
#include "gpu_irradiance_cells.h"
#include "gpu_projector.h"
#include "gpu_specular.h"
#include "gpu_specular_source.h"
#include "stage_progress.h"
#include "trace.h"

namespace bake {

namespace {

bool is_finite(const Projection& p) {
    for (const Rgb& c : p.radiance.rgb)
        for (double v : c)
            if (!std::isfinite(v)) return false;
    return std::isfinite(p.solid_angle_sum);
}

}  // namespace

GpuBackend::GpuBackend(GlBackend gl, bool debug_output, int threads) : threads_(threads) {
    context_ = GlContext::create(gl, debug_output);
    trace_event("context");
    projector_ = std::make_unique<GpuProjector>(*context_);
    exact_ = std::make_unique<GpuExactIrradiance>(projector_->programs());
    cells_ = std::make_unique<GpuIrradianceCells>(*projector_);
    specular_ = std::make_unique<GpuSpecularPrefilter>(projector_->programs());
    specular_source_ = std::make_unique<GpuSpecularSource>(*projector_);
}

GpuBackend::~GpuBackend() = default;

const GlContextInfo& GpuBackend::info() const { return context_->info(); }

void GpuBackend::prepare(const PrepareHint& hint) {
    GpuProjector::InputShape shape;
    shape.cube = hint.cube;
    shape.encoding = hint.encoding;
    shape.texel_count = hint.texel_count;
    try {
        projector_->prepare(hint.projected_order, shape, hint.exact_map ? std::nullopt : hint.cube_map, hint.map_order);
        if (hint.exact_map) exact_->prepare();
        else if (!shape.cube) cells_->prepare(!shape.encoding ? 0u : *shape.encoding == TexelEncoding::Rgbe8 ? 1u : 2u);
        if (hint.specular_source_size > 0 && hint.width > 0)
            specular_source_->plan_tables(hint.width, hint.height, hint.specular_source_size, threads_);
        // The sample sets on workers from now (a batch's first chain waited ~25 ms for them on the
        // H200 machine, its cores busy decoding the next inputs).
        if (hint.specular_source_size > 0 && hint.specular) specular_->plan(*hint.specular, hint.specular_source_size, threads_);
    } catch (const GpuError&) {
    }
}

Projection GpuBackend::project_sh(const Environment& env, int order, StageTimings& timings) {
    Projection p = projector_->project(env, order);
    // Float sums overflow where double ones do not (texels near FLT_MAX): never write that.
    if (!is_finite(p))
        throw GpuError("the float sums overflowed (texel values too large for float); --device cpu computes them in double");
    const GpuTimings& t = projector_->last_timings();
    timings.upload = t.upload_ms;
    timings.project = t.project_ms;
    timings.reduce = t.reduce_ms;
    return p;
}

std::optional<IrradianceCells> GpuBackend::report_cells(const Environment& env, int block) {
    return cells_->build(env, block);
}

std::vector<Rgb> GpuBackend::exact_irradiance(const IrradianceCells& cells, const std::vector<Vec3>& directions,
                                              double& ms) {
    exact_->upload(cells);
    std::vector<Rgb> values = exact_->evaluate(directions);
    ms += exact_->last_ms();
    return values;
}

Image GpuBackend::sh_irradiance_map(const ShCoefficients& irradiance, const MapShape& shape, double& ms) {
    Image map = shape.equirect ? projector_->render_irradiance_equirect(irradiance, 4 * shape.size, 2 * shape.size)
                               : assemble_cube(projector_->render_irradiance_cube(irradiance, shape.size), Layout::VStrip);
    ms += projector_->last_timings().irradiance_ms;
    return map;
}

SpecularInput GpuBackend::prepare_specular(const Environment& env, const SpecularSettings& settings, int threads,
                                           const BrightSplit* split, bool cpu_copy) {
    stage_next();  // the next input, when it was still decoding at this input's start
    const int source_size = settings.source_size;
    specular_->plan(settings, source_size, threads > 0 ? threads : threads_);  // on workers, while the source is made
    // The GPU's exact averages for lat-long inputs (within 1e-6 relative of the CPU's on llvmpipe and
    // on NVIDIA: tests/test_gpu_specular_source.cpp); cube inputs and sizes the GPU cannot take keep
    // the CPU's. BAKE_TEST_CPU_SPECULAR_SOURCE=1 keeps the CPU's always (benchmarks, comparisons).
    const char* cpu_only = std::getenv("BAKE_TEST_CPU_SPECULAR_SOURCE");
    if ((cpu_only && std::string(cpu_only) == "1") || !specular_source_->supports(env, source_size))
        return Backend::prepare_specular(env, settings, threads, split, cpu_copy);
    // Kept on the GPU (the mips made there, no read back, no upload for the prefilter) unless the
    // CPU needs them; a 1 x 1 source has no mips to make.
    const bool resident = !cpu_copy && source_size >= 2;
    SpecularInput in = prepare_specular_input(
        env, source_size,
        [&](const Environment& e, int size, const LuminanceCap& cap, CubeMap* full, CubeMap* capped) {
            if (resident) specular_source_->dispatch_resident(e, size, cap, threads);  // checked by prefilter_specular
            else specular_source_->average(e, size, cap, full, capped, threads);
        },
        "gpu", threads, kSpecularBrightFactor, kMaxBrightTexels, [&] { specular_source_->upload(env, source_size, threads); },
        split);
    trace_event(resident ? "specular source queued" : "specular source ready");
    in.average_by = "gpu: " + specular_source_->last_detail();  // resident: completed by prefilter_specular
    if (resident) {
        in.resident_on = name();
        in.resident_generation = specular_source_->resident_generation();
    }
    return in;
}

std::vector<CubeMap> GpuBackend::prefilter_specular(SpecularInput& input, const SpecularSettings& settings, double& ms,
                                                    EncodedTexture* bc6h, bool bc6h_mirror_z) {
    specular_->set_bc6h(bc6h != nullptr, bc6h_mirror_z);
    std::vector<CubeMap> chain;
    source_detail_ = specular_source_->last_detail();
    if (input.resident_on.empty()) {
        chain = specular_->prefilter(input, settings, threads_);
    } else {
        // Another input's source replaced it since: never read a stale one (the caller falls back).
        if (input.resident_on != name() || input.resident_generation != specular_source_->resident_generation())
            throw GpuError("the specular source kept on the GPU is no longer there");
        // Level 0's copy, then the levels, are queued behind the source's passes before anything
        // waits; level 0 (and the source's status) is then read while the GPU makes the levels.
        specular_source_->queue_level_read(settings.base_size);
        // With BC6H, level 0 encoded where the source's passes leave it, queued before the levels
        // (gpu_specular.cpp), so that the next input's source can follow them at once. (A source
        // smaller than the chain, which the bake never makes, has no such level: level 0 is then
        // uploaded after its read.)
        std::optional<Bc6hBufferLevel> zero_on_gpu;
        if (bc6h)
            if (const auto level = specular_source_->full_level_in_buffer(settings.base_size))
                zero_on_gpu = Bc6hBufferLevel{level->buffer, level->first_float, 3};
        auto level_zero = [&] {
            source_ahead_ = {};
            CubeMap zero;
            try {
                send_next();  // the GPU has the source and the levels to do: ~20 ms at 4k on the H200
                zero = specular_source_->take_queued_level(settings.base_size);
            } catch (...) {
                source_ahead_ = {};  // points into the next input
                throw;
            }
            trace_event("specular source checked, level 0 read");
            source_detail_ = specular_source_->last_detail();  // before the next input's source replaces it
            queue_source_ahead();
            return zero;
        };
        chain = specular_->prefilter(specular_source_->resident_texture(), specular_source_->resident_size(), level_zero,
                                     input, settings, threads_, zero_on_gpu ? &*zero_on_gpu : nullptr);
        input.average_by = "gpu: " + source_detail_;
    }
    trace_event("prefiltered");
    ms += specular_->last_ms();
    if (bc6h) *bc6h = specular_->last_bc6h();
    return chain;
}

void GpuBackend::set_next_input(std::function<NextInput()> next) {
    next_ = std::move(next);
    if (next_) stage_next();
    else projector_->unstage();  // its worker reads the next input's texels: done before they go
}

// The next input's texels copied into the staging buffers on a worker, where it is decoded (its
// send_next then only queues their copies).
void GpuBackend::stage_next() {
    if (!next_) return;
    try {
        const NextInput next = next_();
        if (next.env && projector_->stage_ahead(*next.env)) trace_event("next input staged");
    } catch (const std::exception&) {  // a GL failure: send_next copies them itself
        clear_stale_errors();
    }
}

// The next input's texels at once (behind the work in flight); its specular source and bright parts
// once the chain being made has its source checked (queue_source_ahead).
void GpuBackend::send_next() {
    source_ahead_ = {};
    const NextInput next = next_ ? next_() : NextInput{};
    if (!next.env) return;
    const Environment& env = *next.env;
    specular_source_->forget_upload();  // its texels are about to be replaced
    projector_->upload_ahead(env);
    trace_event("next input sent ahead");
    if (!next.specular || !next.split || !projector_->holds(env)) return;
    const int size = next.specular->source_size > 0 ? next.specular->source_size
                                                    : default_specular_source_size(env, next.specular->base_size);
    try {
        if (size < 2 || !specular_source_->supports(env, size)) return;
        SpecularInput bright;  // what the parts read of the input prepare_specular will make
        bright.bright = next.split->texels;
        bright.bright_equirect = !env.is_cube();
        bright.bright_width = env.width();
        bright.bright_height = env.height();
        specular_->plan_parts(std::move(bright), *next.specular, threads_);
    } catch (const std::exception&) {  // out of memory: the input's own stage makes them
        return;
    }
    source_ahead_ = {&env, size, next.split->cap};
}

// The next input's source behind the chain being made, once its status and level 0 are read. Never
// throws: a failure leaves the source to the input's own stage.
void GpuBackend::queue_source_ahead() {
    const SourceAhead ahead = std::exchange(source_ahead_, SourceAhead{});
    if (!ahead.env) return;
    try {
        specular_source_->dispatch_ahead(*ahead.env, ahead.size, ahead.cap, threads_);
        check_gl("queuing the next input's specular source");
        trace_event("next specular source queued");
    } catch (const std::exception&) {
        clear_stale_errors();
    }
}

GpuBackend::ProgramStats GpuBackend::program_stats() const {
    const GpuProjector::ProgramStats ps = projector_->program_stats();
    return {ps.compiled, ps.cached, ps.cache_folder};
}

}  // namespace bake
