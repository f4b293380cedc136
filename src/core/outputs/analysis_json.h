#pragma once
// The JSON of a bake's analysis, as the coefficients JSON and the run report state it: the SH
// error report (sh_error.h) and the deringing window (sh_window.h).
#include <nlohmann/json.hpp>

#include "sh_error.h"
#include "sh_window.h"

namespace bake {

nlohmann::json to_json(const ShErrorStats& stats);
nlohmann::json to_json(const ShErrorReport& report);

// {"kind", "cutoff", "band_factors", "min_irradiance_before", "min_irradiance_after", "nonnegative",
// "nonnegative_tolerance"}.
nlohmann::json window_json(const ShWindowChoice& window);

}  // namespace bake
