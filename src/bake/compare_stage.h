#pragma once
// --compare: the GPU against the double CPU path, on the coefficients, the SH irradiance map and,
// with --irradiance exact, the exact map. The tables go to stdout (BakeLog::result); the verdict
// is measured against --tolerance.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis.h"
#include "bake.h"

namespace bake {

struct CompareOutcome {
    nlohmann::json report;                // the report's "compare": {passed, tolerance, max_abs_diff, ...}
    std::optional<std::string> failure;   // the error line (without the input's name) when it failed
    std::optional<Image> exact_map;       // the GPU's exact map, written as the output's map
    double exact_map_ms = 0;
};

// `projected`: the bake's own projection at kProjectedOrder, computed by `computed_by`.
CompareOutcome compare_paths(const Environment& env, const Projection& projected, const std::string& computed_by,
                             const AnalysisCells& cells, const BakeSettings& settings, Devices& devices, BakeLog& log);

}  // namespace bake
