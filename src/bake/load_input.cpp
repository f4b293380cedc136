#include "load_input.h"

#include <algorithm>
#include <array>
#include <cstdio>

#include "errors.h"
#include "stopwatch.h"
#include "texel_policy.h"

namespace bake {

LoadedInput load_input(const BakeJob& job, const BakeSettings& settings, bool cells_on_gpu) {
    const Stopwatch watch;
    LoadOptions lo = settings.load;
    lo.packed = true;  // RGBE / half texels stay packed: both paths read them so (1/3, 1/2 the memory)

    LoadedInput l;
    Environment& env = l.env;
    BakeRecord& record = l.record;
    const std::string& label = job.label;
    if (!job.faces.empty()) {
        std::array<std::string, 6> paths;
        std::copy(job.faces.begin(), job.faces.end(), paths.begin());
        env = load_environment_faces(paths, lo);
        record.inputs = job.faces;
    } else if (auto pattern = expand_face_pattern(label)) {
        env = load_environment_faces(*pattern, lo);
        record.inputs.assign(pattern->begin(), pattern->end());
    } else {
        env = load_environment(label, lo);
        record.inputs = {label};
    }
    record.layout = env.layout;
    record.source_width = env.width();
    record.source_height = env.height();

    const TexelStats stats = scan_texels(env);
    record.nonfinite_policy = settings.replace_nonfinite ? "zero" : "reject";
    record.nonfinite_count = stats.nonfinite;
    if (stats.nonfinite > 0) {
        if (!settings.replace_nonfinite)
            throw InputError(label + ": " + std::to_string(stats.nonfinite) + " NaN/Inf values (first at " +
                             stats.first_nonfinite + "); --replace-nonfinite sets them to 0");
        zero_nonfinite(env);
        l.warnings.push_back("warning: " + label + ": replaced " + std::to_string(stats.nonfinite) +
                             " NaN/Inf values by 0 (first at " + stats.first_nonfinite + ")");
    }
    record.negative_policy = settings.clamp_negative ? "clamp" : "keep";
    record.negative_count = stats.negative;
    record.negative_min = stats.min_value;
    if (stats.negative > 0) {
        if (settings.clamp_negative) clamp_negative(env);
        char min[32];
        std::snprintf(min, sizeof min, "%g", static_cast<double>(stats.min_value));
        l.warnings.push_back("warning: " + label + ": " + std::to_string(stats.negative) + " negative values (min " + min +
                             (settings.clamp_negative ? "), clamped to 0" : "), kept; --clamp-negative sets them to 0"));
    }
    l.load_ms = watch.ms();
    if (!cells_on_gpu || env.is_cube()) l.cells = build_analysis_cells(env, settings.exact_map, settings.threads);
    return l;
}

}  // namespace bake
