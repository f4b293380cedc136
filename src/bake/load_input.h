#pragma once
// The first stage of a bake: one input decoded and checked (texel policies), and, where the CPU
// sums them, the SH error report's cells built from its texels. Prints nothing: it runs on
// decode-ahead threads; warnings are returned.
#include <optional>
#include <string>
#include <vector>

#include "analysis.h"
#include "bake_settings.h"
#include "sun.h"
#include "coefficients_json.h"

namespace bake {

struct LoadedInput {
    Environment env;
    BakeRecord record;                  // inputs, layout, size, texel policies filled in
    std::vector<std::string> warnings;  // whole lines ("warning: <input>: ...")
    double load_ms = 0;
    // The report's cells (and the exact map's), built here after the texel policy so that a
    // batch's come ahead with --jobs; none when the GPU will sum a lat-long input's cells from
    // the texels it uploads.
    std::optional<AnalysisCells> cells;
    // The specular chains' bright split (split_specular_bright), made here when the job bakes one:
    // it needs the input alone, and here it runs on a decode-ahead thread or while the first
    // input's GL context starts.
    std::optional<BrightSplit> bright;
    // --extract-sun: the sun taken out of `env` (none found: empty, `sun_verdict` says why).
    std::optional<Sun> sun;
    std::string sun_verdict;
};

// Throws InputError naming the file and the problem.
LoadedInput load_input(const BakeJob& job, const BakeSettings& settings, bool cells_on_gpu);

}  // namespace bake
