#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "coefficients_json.h"

namespace bake {

// Limits a golden check enforces. A coefficient value fails when it exceeds any limit in force.
// The relative measure is the one of --compare (sh_compare.h): |actual - expected| divided by the
// Euclidean norm of the golden's coefficient vector of that field and channel.
struct GoldenTolerance {
    bool relative_in_force = true;
    double relative = 1e-5;
    bool absolute_in_force = false;
    double absolute = 0;
};

// One coefficient value beyond tolerance.
struct GoldenFailure {
    std::string field;  // "radiance" or "irradiance"
    int k = 0, l = 0, m = 0;
    int channel = 0;    // 0 R, 1 G, 2 B
    double expected = 0, actual = 0, abs_diff = 0, rel_diff = 0;
};

// The outcome of comparing a run with a golden coefficients file.
struct GoldenCheck {
    std::string file;
    int golden_order = 0, run_order = 0, compared_order = 0;
    int compared_values = 0;         // coefficient values compared (both fields, 3 channels)
    double max_abs_diff = 0, max_rel_diff = 0;
    std::vector<GoldenFailure> failures;
    // Differences of context. A golden of another order, convention or window is not the same
    // result, however close its numbers: each fails the check by itself. The input's
    // differences (file names, layout, size, texel policies) are notes only: goldens travel.
    std::vector<std::string> convention_differences;  // keys of "convention" that differ, or why
    std::vector<std::string> input_differences;       // "layout: golden hcross, this run equirect", ...
    // Windowed coefficients compare with the same window only: why not, when they differ.
    std::string window_difference;
    bool order_differs() const { return golden_order != run_order; }
    bool passed() const {
        return failures.empty() && window_difference.empty() && !order_differs() && convention_differences.empty();
    }
    // Why the check failed, in one clause ("" when it passed): order, convention, window, then values.
    std::string failure_reason() const;
};

// Compares `run`'s radiance and irradiance coefficients with the golden's, over the coefficients
// both have (the lower order, so that the numbers are there to read), and records differences
// of order, convention, window (kind or band factors; a file without "window" was not windowed)
// and input (file names, layout, size, negative and non-finite texel policies).
GoldenCheck check_golden(const std::string& golden_path, const CoefficientsDocument& golden, const BakeRecord& run,
                         const GoldenTolerance& tolerance);

// Human-readable lines: the verdict, the notes, then one line per failing value.
std::vector<std::string> describe_golden(const GoldenCheck& check, const GoldenTolerance& tolerance);

// "R", "G" or "B".
const char* channel_name(int channel);

// For the run report (docs/report.schema.json, "golden").
nlohmann::json golden_to_json(const GoldenCheck& check, const GoldenTolerance& tolerance);

}  // namespace bake
