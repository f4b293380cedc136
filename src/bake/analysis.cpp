#include "analysis.h"

#include "coefficients_json.h"
#include "golden_check.h"
#include "layout.h"
#include "stage_progress.h"
#include "stopwatch.h"

namespace bake {

namespace {

// Ringing: where the unwindowed SH irradiance is negative (beyond rounding), the channel where it
// is worst as "negative in some directions (min -0.16 in B, 4.2% of its mean)"; "" where it is not.
// `ratio` gets min / mean of that channel.
std::string negative_irradiance_clause(const ShWindowChoice& window, const ShCoefficients& irradiance, double& ratio) {
    constexpr double kY00 = 0.282094791773878;
    ratio = 0;
    if (window.kind != ShWindowKind::None || window.nonnegative) return "";
    int worst = -1;
    for (int ch = 0; ch < 3; ++ch) {
        const double mean = irradiance.rgb[0][ch] * kY00;
        const double r = mean > 0 ? window.min_irradiance_after[ch] / mean : 0;
        if (r < ratio) {
            worst = ch;
            ratio = r;
        }
    }
    if (worst < 0) return "";
    char text[160];
    std::snprintf(text, sizeof text, "negative in some directions (min %.3g in %s, %.1f%% of its mean: ringing)",
                  window.min_irradiance_after[worst], channel_name(worst), -100 * ratio);
    return text;
}

// The SH quality warning of one input, or "": its mean error beyond --warn-error X (sh_error.h),
// and negative irradiance, which a shader shows as black or a colour shift: named in the same
// line when the error is reported, alone when it is deeper than X times the mean.
std::string sh_quality_warning(const IrradianceAnalysis& analysis, const ShCoefficients& irradiance, int order, double limit) {
    double ratio = 0;
    const std::string negative = negative_irradiance_clause(analysis.window, irradiance, ratio);
    const std::string error = sh_error_warning(analysis.sh_error, order, limit);
    const std::string fix = "; --window auto makes it non-negative";
    if (!error.empty()) return negative.empty() ? error : error + "; it is " + negative + fix;
    if (!negative.empty() && ratio < -limit)
        return "the order-" + std::to_string(order) + " SH irradiance is " + negative + fix;
    return "";
}

}  // namespace

int sh_error_cell_block(const Environment& env) {
    const int fine = irradiance_cell_block(env, kExactIrradianceCellRows);
    const int wanted = irradiance_cell_block(env, kShErrorCellRows);
    return fine * ((wanted + fine - 1) / fine);
}

AnalysisCells build_analysis_cells(const Environment& env, bool exact_map, int threads) {
    AnalysisCells cells;
    const Stopwatch watch;
    const int report_block = sh_error_cell_block(env);
    if (exact_map) {
        cells.exact = build_irradiance_cells(env, irradiance_cell_block(env, kExactIrradianceCellRows), threads);
        cells.report = merge_irradiance_cells(*cells.exact, report_block / cells.exact->block);
    } else {
        cells.report = build_irradiance_cells(env, report_block, threads);
    }
    cells.report_exact = exact_irradiance_at(cells.report, cube_map_directions(kShErrorGridSize), threads);
    cells.ms = watch.ms();
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

Image render_exact_map(const IrradianceCells& cells, const MapShape& shape, Backend& backend, double& ms) {
    const int n = shape.size;
    const std::vector<Vec3> directions = shape.equirect ? equirect_map_directions(4 * n, 2 * n) : cube_map_directions(n);
    stage_progress::begin(static_cast<long long>(directions.size()));
    const std::vector<Rgb> values = backend.exact_irradiance(cells, directions, ms);
    if (shape.equirect) return equirect_from_values(values, 4 * n, 2 * n);
    return assemble_cube(cube_from_values(values, n), Layout::VStrip);
}


std::vector<std::string> analysis_warnings(const IrradianceAnalysis& analysis, const ShCoefficients& irradiance,
                                           ShWindowKind requested, int order, double warn_error) {
    std::vector<std::string> warnings;
    if (requested == ShWindowKind::Auto && !analysis.window.nonnegative)
        warnings.push_back("no window makes the irradiance non-negative: the mean radiance is negative in some channel");
    else if (requested != ShWindowKind::None && !analysis.window.nonnegative)
        warnings.push_back(std::string("the irradiance stays negative in some directions with the ") +
                           sh_window_name(requested) + " window; --window auto finds the mildest one that is not");
    if (const std::string line = sh_quality_warning(analysis, irradiance, order, warn_error); !line.empty())
        warnings.push_back(line);
    return warnings;
}

}  // namespace bake
