#include "irradiance_analysis.h"

#include <chrono>

#include "coefficients_json.h"
#include "gpu_exact_irradiance.h"
#include "layout.h"
#include "stage_progress.h"

namespace bake {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

}  // namespace

int sh_error_cell_block(const Environment& env) {
    const int fine = irradiance_cell_block(env, kExactIrradianceCellRows);
    const int wanted = irradiance_cell_block(env, kShErrorCellRows);
    return fine * ((wanted + fine - 1) / fine);
}

std::vector<Rgb> ExactEvaluator::evaluate(const IrradianceCells& cells, const std::vector<Vec3>& directions) {
    stage_progress::begin(static_cast<long long>(directions.size()));
    if (gpu) {
        gpu->upload(cells);
        std::vector<Rgb> values = gpu->evaluate(directions);
        ms += gpu->last_ms();
        return values;
    }
    const Clock::time_point t0 = Clock::now();
    std::vector<Rgb> values = exact_irradiance_at(cells, directions, threads);
    ms += ms_since(t0);
    return values;
}

AnalysisCells build_analysis_cells(const Environment& env, bool exact_map, int threads) {
    AnalysisCells cells;
    const Clock::time_point t0 = Clock::now();
    const int report_block = sh_error_cell_block(env);
    if (exact_map) {
        cells.exact = build_irradiance_cells(env, irradiance_cell_block(env, kExactIrradianceCellRows), threads);
        cells.report = merge_irradiance_cells(*cells.exact, report_block / cells.exact->block);
    } else {
        cells.report = build_irradiance_cells(env, report_block, threads);
    }
    cells.report_exact = exact_irradiance_at(cells.report, cube_map_directions(kShErrorGridSize), threads);
    cells.ms = ms_since(t0);
    return cells;
}

IrradianceAnalysis analyse_irradiance(const AnalysisCells& cells, const ShCoefficients& irradiance5, int order,
                                      ShWindowKind window, double window_cutoff) {
    IrradianceAnalysis a;
    const std::vector<Vec3> dirs = cube_map_directions(kShErrorGridSize);
    const std::vector<Rgb>& exact = cells.report_exact;
    a.sh_error = make_sh_error_report(irradiance5, cells.report, exact);

    const ShCoefficients asked = truncate_order(irradiance5, order);
    a.window = choose_sh_window(window, asked, window_cutoff);
    if (a.window.kind != ShWindowKind::None) {
        a.sh_error.windowed = true;
        a.sh_error.output = measure_sh_error(apply_sh_window(asked, a.window.band_factors), order, dirs, exact);
    }
    return a;
}

Image render_exact_map(const IrradianceCells& cells, bool equirect, int size, ExactEvaluator& evaluator) {
    if (equirect)
        return equirect_from_values(evaluator.evaluate(cells, equirect_map_directions(4 * size, 2 * size)), 4 * size,
                                    2 * size);
    return assemble_cube(cube_from_values(evaluator.evaluate(cells, cube_map_directions(size)), size), Layout::VStrip);
}

nlohmann::json window_json(const ShWindowChoice& w) {
    return {{"kind", sh_window_name(w.kind)},
            {"cutoff", w.cutoff},
            {"band_factors", w.band_factors},
            {"min_irradiance_before", rgb_json(w.min_irradiance_before)},
            {"min_irradiance_after", rgb_json(w.min_irradiance_after)},
            {"nonnegative", w.nonnegative},
            // Rounding, not ringing, below this fraction of the mean: "nonnegative" beside a
            // min_irradiance_after of -4e-9 says so.
            {"nonnegative_tolerance", kShNonnegativeTolerance}};
}

}  // namespace bake
