#include "analysis_json.h"

#include "coefficients_json.h"

namespace bake {

nlohmann::json to_json(const ShErrorStats& s) {
    return {{"order", s.order},
            {"mean_relative", rgb_json(s.mean_relative)},
            {"max_relative", rgb_json(s.max_relative)},
            {"negative_fraction", rgb_json(s.negative_fraction)},
            {"max_abs_over_mean", rgb_json(s.max_abs_over_mean)},
            {"excluded", s.excluded}};
}

nlohmann::json to_json(const ShErrorReport& r) {
    nlohmann::json j = {
        {"definition", "relative error |E_sh(n) - E(n)| / |E(n)| per channel at each direction n where |E(n)| > 1e-4 "
                       "max|E| (others counted in 'excluded'); negative_fraction: share of directions with E_sh(n) < 0; "
                       "E: exact clamped-cosine convolution of the source"},
        {"directions", r.directions},
        {"reference", r.reference},
        {"reference_cell_diameter", r.reference_cell_diameter},
        {"order3", to_json(r.order3)},
        {"order5", to_json(r.order5)},
    };
    j["output"] = r.windowed ? to_json(r.output) : nlohmann::json(nullptr);
    return j;
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
