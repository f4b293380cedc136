#include "bake.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "analysis_json.h"
#include "compare_stage.h"
#include "errors.h"
#include "outputs.h"
#include "specular_stage.h"
#include "stopwatch.h"

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

bool Bake::cells_on_gpu(bool gpu_there) const {
    return gpu_there && devices_.mode() != DeviceMode::Cpu && !s_.exact_map;
}

void Bake::run(const BakeJob& job, const std::function<LoadedInput()>& get_loaded, FileReport& rep) {
    const std::optional<CoefficientsDocument> golden = read_golden(job);

    log_.stage("load");
    LoadedInput loaded = get_loaded();
    rep.timings.load = loaded.load_ms;
    rep.files = loaded.record.inputs;
    rep.layout = layout_name(loaded.env.layout);
    rep.width = loaded.env.width();
    rep.height = loaded.env.height();
    for (const std::string& w : loaded.warnings) {
        rep.warnings.push_back(w);
        log_.warning(w);
    }
    const Environment& env = loaded.env;
    BakeRecord& record = loaded.record;

    // Project.
    log_.stage(devices_.on_gpu(Operation::ProjectSh) ? "upload + project (gpu)" : "project (cpu)");
    const Projection projected = devices_.run(
        Operation::ProjectSh, job.label, [&](Backend& b) { return b.project_sh(env, kProjectedOrder, rep.timings); },
        &record.computed_by);
    rep.path = record.computed_by;
    if (record.computed_by == "gpu") {
        record.renderer = devices_.gpu()->info().renderer;
        record.gl_version = devices_.gpu()->info().version;
        rep.renderer = record.renderer;
    }
    const ShCoefficients irradiance5 = irradiance_from_radiance(projected.radiance);
    record.radiance = truncate_order(projected.radiance, s_.order);
    record.irradiance = irradiance_from_radiance(record.radiance);
    record.solid_angle_sum = projected.solid_angle_sum;

    // Analyse: the SH error report, the window, the exact map's cells.
    log_.stage("sh error");
    const AnalysisCells cells = loaded.cells ? std::move(*loaded.cells) : analysis_cells(env, job.label);
    const IrradianceAnalysis analysis = analyse_irradiance(cells, irradiance5, s_.order, s_.window, s_.window_cutoff);
    rep.timings.sh_error = cells.ms;
    record.radiance = apply_sh_window(record.radiance, analysis.window.band_factors);
    record.irradiance = apply_sh_window(record.irradiance, analysis.window.band_factors);
    record.window = window_json(analysis.window);
    record.sh_error = to_json(analysis.sh_error);
    record.irradiance_map = s_.exact_map ? nlohmann::json{{"method", "exact"},
                                                          {"cells", cells.exact->describe()},
                                                          {"cell_diameter", cells.exact->max_diameter}}
                                         : nlohmann::json{{"method", "sh"}};
    rep.window = record.window;
    rep.sh_error = record.sh_error;
    for (const std::string& w : analysis_warnings(analysis, record.irradiance, s_.window, s_.order, s_.warn_error)) {
        rep.warnings.push_back("warning: " + job.label + ": " + w);
        log_.warning(rep.warnings.back());
    }

    // Compare (--compare): its exact map is the output's.
    std::optional<CheckFailed> failed_compare;
    std::optional<Image> map;
    double map_ms = 0;
    if (s_.compare) {
        log_.stage("compare");
        CompareOutcome c = compare_paths(env, projected, record.computed_by, cells, s_, devices_, log_);
        rep.compare = c.report;
        if (c.failure) failed_compare = CheckFailed{kExitCompareMismatch, job.label + ": " + *c.failure};
        if (c.exact_map && outputs_need_map(job)) {
            map = std::move(c.exact_map);
            map_ms = c.exact_map_ms;
        }
    }

    // The irradiance map, once, when an output needs it.
    if (outputs_need_map(job) && !map) {
        log_.stage("irradiance");
        map = devices_.run(s_.exact_map ? Operation::ExactIrradiance : Operation::ShIrradianceMap, job.label,
                           [&](Backend& b) {
                               map_ms = 0;
                               return s_.exact_map ? render_exact_map(*cells.exact, s_.map, b, map_ms)
                                                   : b.sh_irradiance_map(record.irradiance, s_.map, map_ms);
                           });
    }
    if (map) rep.timings.irradiance = map_ms;

    // The specular chain (--specular).
    std::optional<SpecularBake> specular;
    if (!job.specular.empty()) {
        log_.stage("specular");
        specular = devices_.run(Operation::Specular, job.label,
                                [&](Backend& b) { return bake_specular(env, s_.specular, b, s_.threads); });
        rep.timings.specular = specular->source_ms + specular->prefilter_ms;
        if (s_.compare) {
            compare_specular(*specular, kSpecularCompareTexels, s_.threads);
            for (const std::string& line : describe_specular_comparison(*specular)) log_.result(line);
        }
    }

    check_float_range(job.label, record, map ? &*map : nullptr, specular ? &*specular : nullptr);

    // Outputs: all of the input's, or none.
    log_.stage("write");
    const Stopwatch write_watch;
    write_outputs(BakeProducts{job, s_, env, record, map ? &*map : nullptr, specular ? &*specular : nullptr}, rep);
    rep.timings.write = write_watch.ms();

    // The golden check (--golden), after the outputs: a changed result can be inspected.
    std::optional<CheckFailed> failed_golden;
    if (golden) {
        const GoldenCheck check = check_golden(job.golden, *golden, record, s_.golden);
        rep.golden = golden_to_json(check, s_.golden);
        for (const std::string& line : describe_golden(check, s_.golden)) {
            if (check.passed()) log_.detail("golden: " + line);
            else log_.result("golden: " + line);
        }
        if (!check.passed())
            failed_golden = CheckFailed{kExitGoldenMismatch, job.golden + ": " + job.label + " fails: " + check.failure_reason()};
    }
    // Both checks ran and every output is written; the first failure is the input's.
    if (failed_compare) throw *failed_compare;
    if (failed_golden) throw *failed_golden;
}

// The analysis cells of an input whose decode left them to the GPU: summed on the GPU from the
// texels the projection uploaded, else (the GPU failed, or leaves them) on the CPU.
AnalysisCells Bake::analysis_cells(const Environment& env, const std::string& label) {
    const Stopwatch watch;
    std::optional<IrradianceCells> report = devices_.run(Operation::ReportCells, label,
                                                         [&](Backend& b) { return b.report_cells(env, sh_error_cell_block(env)); });
    if (!report) return build_analysis_cells(env, s_.exact_map, s_.threads);
    AnalysisCells cells;
    cells.report = std::move(*report);
    cells.report_exact = exact_irradiance_at(cells.report, cube_map_directions(kShErrorGridSize), s_.threads);
    cells.ms = watch.ms();
    return cells;
}

}  // namespace bake
