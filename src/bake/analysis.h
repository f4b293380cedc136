#pragma once
#include <optional>
#include <string>
#include <vector>

#include "backend.h"
#include "exact_irradiance.h"
#include "sh_error.h"
#include "sh_window.h"

namespace bake {

// The stages of a bake beyond the SH coefficients: the SH error report (always), the deringing
// window, and the exact irradiance map (--irradiance exact).
struct IrradianceAnalysis {
    ShWindowChoice window;
    ShErrorReport sh_error;
};

// Cells of the error report's reference: the exact map's cell side times a whole factor, so that
// the report is the same with or without --irradiance exact.
int sh_error_cell_block(const Environment& env);

// What a bake's analysis needs of the texels: the error report's cells and the exact irradiance
// at its directions (cube_map_directions(kShErrorGridSize), CPU double), and the exact map's cells
// when asked for. They depend on the texels alone: the CPU path makes them where the input is
// decoded (load_input), the GPU path sums a lat-long input's cells on the GPU (gpu_irradiance_cells.h).
struct AnalysisCells {
    IrradianceCells report;
    std::vector<Rgb> report_exact;
    std::optional<IrradianceCells> exact;
    double ms = 0;
};
AnalysisCells build_analysis_cells(const Environment& env, bool exact_map, int threads);

// Measures the SH error of `irradiance5` (order-5 irradiance coefficients, unwindowed) for orders
// 3 and 5 against `cells`, and chooses the window for `order` (windowed coefficients:
// apply_sh_window(c, result.window.band_factors)); with a window, the report's `output` measures
// the windowed coefficients too.
IrradianceAnalysis analyse_irradiance(const AnalysisCells& cells, const ShCoefficients& irradiance5, int order,
                                      ShWindowKind window, double window_cutoff);

// The exact irradiance map of `shape` on `backend` (its time added to `ms`; GpuError propagates).
Image render_exact_map(const IrradianceCells& cells, const MapShape& shape, Backend& backend, double& ms);

// The analysis' warnings (without "warning: <input>: "): a window that leaves the irradiance
// negative, and the SH quality line: the mean error beyond --warn-error, and negative irradiance
// (named in the same line, or alone when deeper than warn_error times the mean).
std::vector<std::string> analysis_warnings(const IrradianceAnalysis& analysis, const ShCoefficients& irradiance,
                                           ShWindowKind requested, int order, double warn_error);


}  // namespace bake
