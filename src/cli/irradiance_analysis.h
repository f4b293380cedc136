#pragma once
#include <optional>
#include <string>
#include <vector>

#include "exact_irradiance.h"
#include "sh_error.h"
#include "sh_window.h"

namespace bake {

class GpuExactIrradiance;

// The stages of a bake beyond the SH coefficients: the SH error report (always), the deringing
// window, and the exact irradiance map (--irradiance exact). Exact values come from the GPU when
// `gpu` is given (GpuError propagates: the caller falls back), else from the double CPU path.
struct IrradianceAnalysis {
    ShWindowChoice window;
    ShErrorReport sh_error;
    std::optional<IrradianceCells> exact_cells;  // the exact map's cells, when asked for
    double cells_ms = 0;    // building the cells (CPU)
    double sh_error_ms = 0; // exact values at the report's directions (GPU timers on the GPU)
};

// Cells of the error report's reference: the exact map's cell side times a whole factor, so that
// the report is the same with or without --irradiance exact.
int sh_error_cell_block(const Environment& env);

// Evaluates exact irradiance on the GPU or the CPU; `ms` accumulates the time spent.
struct ExactEvaluator {
    GpuExactIrradiance* gpu = nullptr;
    int threads = 0;
    double ms = 0;
    std::vector<Rgb> evaluate(const IrradianceCells& cells, const std::vector<Vec3>& directions);
};

// Builds the cells, measures the SH error of `irradiance5` (order-5 irradiance coefficients,
// unwindowed) for orders 3 and 5, and chooses the window for `order` (windowed coefficients:
// apply_sh_window(c, result.window.band_factors)); with a window, the report's `output` measures
// the windowed coefficients too.
IrradianceAnalysis analyse_irradiance(const Environment& env, const ShCoefficients& irradiance5, int order,
                                      ShWindowKind window, double window_cutoff, bool exact_map,
                                      ExactEvaluator& evaluator);

// The exact irradiance map: a cube of `size` (vertical strip) or a 4 size x 2 size lat-long.
Image render_exact_map(const IrradianceCells& cells, bool equirect, int size, ExactEvaluator& evaluator);

// {"kind", "cutoff", "band_factors", "min_irradiance_before", "min_irradiance_after", "nonnegative"}.
nlohmann::json window_json(const ShWindowChoice& window);

}  // namespace bake
