#include "bake.h"

#include <cmath>
#include <cstdio>
#include <future>
#include <limits>

#include "analysis_json.h"
#include "compare_stage.h"
#include "errors.h"
#include "file_names.h"
#include "outputs.h"
#include "specular_stage.h"
#include "stop_request.h"
#include "stopwatch.h"
#include "trace.h"

namespace bake {

namespace {

// A golden given is read before any work: a bad one fails first.
std::optional<CoefficientsDocument> read_golden(const BakeJob& job) {
    if (job.golden.empty()) return std::nullopt;
    try {
        return read_coefficients_json(job.golden);
    } catch (const InputError& e) {
        throw InputError(std::string(e.what()) + " (--golden)");
    }
}

// Issue 18 #5: finite texels near FLT_MAX gave coefficients of 1e39 and maps of +Inf, written as
// if fine. Every output is read as float (EXR, shaders, engines): a value beyond float's range is
// the input's problem (exit 3), found before anything is written.
void check_float_range(const std::string& label, const BakeRecord& record, const Image* map,
                       const SpecularBake* specular) {
    constexpr double kMax = std::numeric_limits<float>::max();
    auto refuse = [&](const std::string& what, double value) {
        char v[32];
        std::snprintf(v, sizeof v, "%.3g", value);
        throw InputError(label + ": texel values too large for float outputs: " + what + " is " + v +
                         " (float holds up to 3.4e38); scale the map down");
    };
    for (const ShCoefficients* c : {&record.radiance, &record.irradiance})
        for (const Rgb& rgb : c->rgb)
            for (double v : rgb)
                if (!(std::fabs(v) <= kMax)) refuse(c == &record.radiance ? "a radiance coefficient" : "an irradiance coefficient", v);
    if (map)
        for (float v : map->rgb)
            if (!std::isfinite(v)) refuse("an irradiance map texel", v);
    if (specular)
        for (const CubeMap& level : specular->chain)
            for (const Image& face : level.faces)
                for (float v : face.rgb)
                    if (!std::isfinite(v)) refuse("a specular chain texel", v);
}

}  // namespace


Bake::~Bake() {
    if (GpuBackend* gpu = devices_.gpu()) gpu->set_next_input({});
}

// Whether a batch input's backend is handed the next input (Backend::set_next_input): not when
// something after the chain still reads this input's texels or source there (--compare, --gltf,
// --sheen).
bool Bake::sends_ahead(const BakeJob& job) const {
    return next_input_ && !job.specular.empty() && !s_.compare && job.gltf.empty() && job.sheen.empty();
}

bool Bake::cells_on_gpu(bool gpu_there) const {
    return gpu_there && devices_.mode() != DeviceMode::Cpu && !s_.exact_map;
}

// What the stages of one input make, in order.
struct Bake::State {
    const BakeJob& job;
    FileReport& rep;
    LoadedInput loaded;
    Projection projected;              // at kProjectedOrder
    ShCoefficients irradiance5;        // of `projected`, unwindowed
    AnalysisCells cells;
    std::optional<Image> map;          // the irradiance map, when an output needs one
    double map_ms = 0;
    std::optional<SpecularBake> specular, gltf_chain, sheen;
    std::optional<CheckFailed> failed_compare;
    // analyse()'s CPU half, joined by finish_analysis(); last, so that an exception's unwinding
    // waits for it before the members it reads go.
    std::future<IrradianceAnalysis> analysis;
};

BakeOutcome Bake::compute(const BakeJob& job, const std::function<LoadedInput()>& get_loaded, FileReport& rep) {
    std::optional<CoefficientsDocument> golden = read_golden(job);
    log_.stage("load");
    State st{job, rep, get_loaded(), {}, {}, {}, {}, 0, {}, {}, {}, {}, {}};
    rep.timings.load = st.loaded.load_ms;
    rep.files = st.loaded.record.inputs;
    rep.layout = layout_name(st.loaded.env.layout);
    rep.width = st.loaded.env.width();
    rep.height = st.loaded.env.height();
    for (const std::string& w : st.loaded.warnings) {
        rep.warnings.push_back(w);
        log_.warning(w);
    }
    if (s_.extract_sun) {
        rep.sun = st.loaded.record.sun;
        if (!st.loaded.sun) {  // said, so that a missing light is never a surprise
            rep.warnings.push_back("notice: " + job.label + ": no sun taken out: " + st.loaded.sun_verdict);
            log_.warning(rep.warnings.back());
        }
    }
    // The next input for the backend of the specular chain, from now: it may stage its texels while
    // this input's first stages run, and send them while it makes this input's chain.
    if (sends_ahead(job))
        devices_.backend_for(Operation::Specular).set_next_input([this]() -> Backend::NextInput {
            const LoadedInput* next = next_input_();
            if (!next) return {};
            return {&next->env, next->bright ? &*next->bright : nullptr, &s_.specular};
        });
    project(st);
    // The specular stage runs beside the analysis' CPU half (the exact irradiance at the report's
    // directions: 4-8 ms on the H200 machine) unless --compare reads the analysis first: the
    // chain depends on the texels alone, and on the GPU path it is mostly waiting for the GPU.
    const bool chain_wanted = !job.specular.empty() || !job.gltf.empty() || !job.sheen.empty();
    const bool beside = chain_wanted && !s_.compare;
    analyse(st, beside);
    if (beside) specular(st);
    finish_analysis(st);
    if (s_.compare) compare(st);
    if (outputs_need_map(job) && !st.map) irradiance_map(st);
    if (st.map) rep.timings.irradiance = st.map_ms;
    if (chain_wanted && !beside) specular(st);
    const Image* map = st.map ? &*st.map : nullptr;
    const SpecularBake* chain = st.specular ? &*st.specular : nullptr;
    check_float_range(job.label, st.loaded.record, map, chain);
    if (st.gltf_chain) check_float_range(job.label, st.loaded.record, nullptr, &*st.gltf_chain);
    if (st.sheen) check_float_range(job.label, st.loaded.record, nullptr, &*st.sheen);
    for (const std::string& w : clipping_warnings(job, s_, map, chain, st.sheen ? &*st.sheen : nullptr,
                                                  st.gltf_chain ? &*st.gltf_chain : nullptr)) {
        rep.warnings.push_back(w);
        log_.warning(w);
    }

    // Moved, not copied: a batch's writer holds them while the next input bakes.
    BakeOutcome out;
    out.record = std::move(st.loaded.record);
    if (!job.preview.empty()) out.env = std::move(st.loaded.env);
    out.map = std::move(st.map);
    out.specular = std::move(st.specular);
    out.gltf_chain = std::move(st.gltf_chain);
    out.sheen = std::move(st.sheen);
    out.golden = std::move(golden);
    out.failed_compare = std::move(st.failed_compare);
    out.sun = std::move(st.loaded.sun);
    return out;
}

void write_outcome(const BakeJob& job, const BakeSettings& settings, const BakeOutcome& o, FileReport& rep,
                   const std::function<void()>& before_commit) {
    throw_if_stop_requested();  // a stage boundary, as before the write moved off the main thread
    trace_event("write");         // in a batch on the writer thread: the timeline shows the overlap
    const Stopwatch write_watch;
    write_outputs(BakeProducts{job, settings, o.env ? &*o.env : nullptr, o.record, o.map ? &*o.map : nullptr,
                               o.specular ? &*o.specular : nullptr, o.gltf_chain ? &*o.gltf_chain : nullptr,
                               o.sheen ? &*o.sheen : nullptr,
                               o.sun ? &*o.sun : nullptr},
                  rep, before_commit);
    rep.timings.write = write_watch.ms();
    trace_event("written");
}

void release_written(BakeOutcome& o) {
    o.env.reset();
    o.map.reset();
    o.specular.reset();
    o.gltf_chain.reset();
    o.sheen.reset();
}

// --golden: the check and its lines (stdout: a failure always, a pass unless --quiet), after the
// outputs so that a changed result can be inspected; then the first failed check is the input's.
void Bake::conclude(const BakeJob& job, const BakeOutcome& o, FileReport& rep) {
    std::optional<CheckFailed> failed_golden;
    if (o.golden) {
        const GoldenCheck outcome = check_golden(job.golden, *o.golden, o.record, s_.golden);
        rep.golden = golden_to_json(outcome, s_.golden);
        for (const std::string& line : describe_golden(outcome, s_.golden)) {
            if (outcome.passed()) log_.detail("golden: " + line);
            else log_.result("golden: " + line);
        }
        if (!outcome.passed())
            failed_golden = CheckFailed{kExitGoldenMismatch, job.golden + ": " + job.label + " fails: " + outcome.failure_reason()};
    }
    if (o.failed_compare) throw *o.failed_compare;
    if (failed_golden) throw *failed_golden;
}

// Radiance SH at kProjectedOrder (lower orders are its prefix), and the record's coefficients.
void Bake::project(State& st) {
    BakeRecord& record = st.loaded.record;
    log_.stage(devices_.on_gpu(Operation::ProjectSh) ? "upload + project (gpu)" : "project (cpu)");
    st.projected = devices_.run(
        Operation::ProjectSh, st.job.label,
        [&](Backend& b) { return b.project_sh(st.loaded.env, kProjectedOrder, st.rep.timings); }, &record.computed_by);
    st.rep.path = record.computed_by;
    if (record.computed_by == "gpu") {
        record.renderer = devices_.gpu()->info().renderer;
        record.gl_version = devices_.gpu()->info().version;
        st.rep.renderer = record.renderer;
    }
    st.irradiance5 = irradiance_from_radiance(st.projected.radiance);
    record.radiance = truncate_order(st.projected.radiance, s_.order);
    record.irradiance = irradiance_from_radiance(record.radiance);
    record.solid_angle_sum = st.projected.solid_angle_sum;
}

// The SH error report, the window (applied to the record's coefficients), the exact map's cells:
// the cells here (the GPU's, on this thread), the rest (CPU alone) on a worker when `beside`, else
// in finish_analysis.
void Bake::analyse(State& st, bool beside) {
    log_.stage("sh error");
    st.cells = st.loaded.cells ? std::move(*st.loaded.cells) : analysis_cells(st.loaded.env, st.job.label);
    st.analysis = std::async(beside ? std::launch::async : std::launch::deferred, [this, &st] {
        const Stopwatch watch;
        if (st.cells.report_exact.empty())
            st.cells.report_exact = exact_irradiance_at(st.cells.report, cube_map_directions(kShErrorGridSize), s_.threads);
        IrradianceAnalysis analysis = analyse_irradiance(st.cells, st.irradiance5, s_.order, s_.window, s_.window_cutoff);
        st.cells.ms += watch.ms();
        trace_event("sh error measured");
        return analysis;
    });
}

void Bake::finish_analysis(State& st) {
    BakeRecord& record = st.loaded.record;
    const IrradianceAnalysis analysis = st.analysis.get();
    st.rep.timings.sh_error = st.cells.ms;
    record.radiance = apply_sh_window(record.radiance, analysis.window.band_factors);
    record.irradiance = apply_sh_window(record.irradiance, analysis.window.band_factors);
    record.window = window_json(analysis.window);
    record.sh_error = to_json(analysis.sh_error);
    record.irradiance_map = s_.exact_map ? nlohmann::json{{"method", "exact"},
                                                          {"cells", st.cells.exact->describe()},
                                                          {"cell_diameter", st.cells.exact->max_diameter}}
                                         : nlohmann::json{{"method", "sh"}};
    st.rep.window = record.window;
    st.rep.sh_error = record.sh_error;
    for (const std::string& w : analysis_warnings(analysis, record.irradiance, s_.window, s_.order, s_.warn_error)) {
        st.rep.warnings.push_back("warning: " + st.job.label + ": " + w);
        log_.warning(st.rep.warnings.back());
    }
}

// --compare: the GPU against the CPU; its exact map is the output's.
void Bake::compare(State& st) {
    log_.stage("compare");
    CompareOutcome c = compare_paths(st.loaded.env, st.projected, st.loaded.record.computed_by, st.cells, s_, devices_, log_);
    st.rep.compare = c.report;
    if (c.failure) st.failed_compare = CheckFailed{kExitCompareMismatch, st.job.label + ": " + *c.failure};
    if (c.exact_map && outputs_need_map(st.job)) {
        st.map = std::move(c.exact_map);
        st.map_ms = c.exact_map_ms;
    }
}

// The irradiance map, once, for every output that needs it: from the SH, or exact.
void Bake::irradiance_map(State& st) {
    log_.stage("irradiance");
    st.map = devices_.run(s_.exact_map ? Operation::ExactIrradiance : Operation::ShIrradianceMap, st.job.label,
                          [&](Backend& b) {
                              st.map_ms = 0;
                              return s_.exact_map ? render_exact_map(*st.cells.exact, s_.map, b, st.map_ms)
                                                  : b.sh_irradiance_map(st.loaded.record.irradiance, s_.map, st.map_ms);
                          });
}

// The GGX chain (--specular) and with --compare its comparisons; --gltf's own chain, whose last
// level (roughness 1) is 16x16, as EXT_lights_image_based wants it.
void Bake::specular(State& st) {
    log_.stage("specular");
    // The bright split was made where the input decoded; --compare reads the source in memory.
    const BrightSplit* split = st.loaded.bright ? &*st.loaded.bright : nullptr;
    // A BC6H chain file of the default setting: encoded where the chain is made (the GPU's encoder
    // writes the CPU's bytes); the thorough setting, and other backends, leave it to the writer.
    const bool texture_file = has_extension(st.job.specular, ".ktx2") || has_extension(st.job.specular, ".dds");
    const Bc6hBlocks bc6h{texture_file && s_.ktx.format == TextureFormat::Bc6hUFloat && s_.ktx.bc6h_quality == Bc6hQuality::Default,
                          s_.ktx_convention == KtxCubeConvention::Bevy};
    if (!st.job.specular.empty())
        st.specular = devices_.run(Operation::Specular, st.job.label, [&](Backend& b) {
            return bake_specular(st.loaded.env, s_.specular, b, s_.threads, nullptr, split, s_.compare, bc6h);
        });
    if (!st.job.gltf.empty()) {
        // The same source as --specular's chain (same base size): prepared once.
        SpecularSettings gltf = s_.specular;
        gltf.last_size = std::min(s_.gltf_last_size, gltf.base_size);
        const SpecularInput* source = st.specular ? &st.specular->input : nullptr;
        st.gltf_chain = devices_.run(Operation::Specular, st.job.label, [&](Backend& b) {
            return bake_specular(st.loaded.env, gltf, b, s_.threads, source, split);
        });
    }
    if (!st.job.sheen.empty()) {
        // The Charlie chain (--sheen) from the same source.
        const SpecularInput* source = st.specular ? &st.specular->input : st.gltf_chain ? &st.gltf_chain->input : nullptr;
        st.sheen = devices_.run(Operation::Specular, st.job.label, [&](Backend& b) {
            return bake_specular(st.loaded.env, s_.sheen, b, s_.threads, source, split);
        });
    }
    if (!st.specular) return;
    st.rep.timings.specular = st.specular->source_ms + st.specular->prefilter_ms;
    {
        const SpecularInput& in = st.specular->input;
        char parts[256];
        std::snprintf(parts, sizeof parts, "source %.1f: split %.1f%s, average %.1f (%s), mips %.1f; prefilter %.1f",
                      st.specular->source_ms, in.split_ms, in.split_given ? " (with the load)" : "", in.average_ms,
                      in.average_by.c_str(), in.mips_ms, st.specular->prefilter_ms);
        st.rep.timings.specular_parts = parts;
    }
    if (!s_.compare) return;
    compare_specular(*st.specular, kSpecularCompareTexels, s_.threads);
    for (const std::string& line : describe_specular_comparison(*st.specular)) log_.result(line);
}

// The analysis cells of an input whose decode left them to the GPU: summed on the GPU from the
// texels the projection uploaded, else (the GPU failed, or leaves them) on the CPU.
AnalysisCells Bake::analysis_cells(const Environment& env, const std::string& label) {
    const Stopwatch watch;
    std::optional<IrradianceCells> report = devices_.run(Operation::ReportCells, label,
                                                         [&](Backend& b) { return b.report_cells(env, sh_error_cell_block(env)); });
    if (!report) return build_analysis_cells(env, s_.exact_map, s_.threads);
    AnalysisCells cells;  // report_exact left to analyse()'s CPU half
    cells.report = std::move(*report);
    cells.ms = watch.ms();
    return cells;
}

}  // namespace bake
