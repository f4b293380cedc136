#include "load_input.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "errors.h"
#include "exact_irradiance.h"
#include "rotate.h"
#include "sh_error.h"
#include "stopwatch.h"
#include "sun_lights.h"
#include "texel_policy.h"
#include "trace.h"

namespace bake {

namespace {

// Inputs this small or smaller are measured (a constant map's error is below 1.3e-4 beyond).
constexpr std::size_t kMeasuredTexels = 128 * 64;
// Past this, the bake means nothing: refused.
constexpr double kSmallMapRefusal = 0.25;

// The SH irradiance's largest relative error, at `order`, for a constant map of env's layout and
// size (exactly pi everywhere): what the texels' sampling alone costs. 0.5 / height^2 or so for a
// lat-long map (8x4: 3.7%, 64x32: 5e-4 at order 3); cubes are exact at order 3 by symmetry and err
// at order 5 (6x2^2: 5%, 6x8^2: 9e-4).
double constant_map_error(const Environment& env, int order) {
    Environment constant;
    constant.layout = env.layout;
    if (env.is_cube()) {
        constant.cube = CubeMap(env.cube.size);
        for (Image& face : constant.cube.faces) std::fill(face.rgb.begin(), face.rgb.end(), 1.0f);
    } else {
        constant.equirect = Image(env.width(), env.height());
        std::fill(constant.equirect.rgb.begin(), constant.equirect.rgb.end(), 1.0f);
    }
    const ShCoefficients e = irradiance_from_radiance(truncate_order(project_sh_cpu(constant, kProjectedOrder, 1).radiance, order));
    constexpr double kPi = 3.14159265358979323846;
    double worst = 0;
    for (const Vec3& n : cube_map_directions(kShErrorGridSize)) worst = std::max(worst, std::fabs(eval_sh(e, n)[0] - kPi) / kPi);
    return worst;
}

// Issue 18 #10: a 4x2 constant map gave irradiance 2.65 - 4.12 instead of pi, silently. The
// texels' sampling alone costs the SH irradiance this much, whatever the map holds: a warning past
// --warn-error (the SH error a user accepts; order 3 errs 3-16% on real maps), an error past 25%.
void check_texel_count(const Environment& env, const std::string& label, int order, double warn_error,
                       std::vector<std::string>& warnings) {
    if (env.texel_count() > kMeasuredTexels) return;
    const double error = constant_map_error(env, order);
    if (error <= warn_error && error <= kSmallMapRefusal) return;
    char what[256];
    std::snprintf(what, sizeof what,
                  "%dx%d texels%s are too few: even a constant map's order-%d irradiance is off by %.2g%% (64x32 "
                  "lat-long or 6x8x8 cube texels keep it under 0.1%%)",
                  env.is_cube() ? env.cube.size : env.width(), env.is_cube() ? env.cube.size : env.height(),
                  env.is_cube() ? " a face" : "", order, 100 * error);
    if (error > kSmallMapRefusal) throw InputError(label + ": " + what);
    warnings.push_back("warning: " + label + ": " + what);
}

}  // namespace

LoadedInput load_input(const BakeJob& job, const BakeSettings& settings, bool cells_on_gpu) {
    const Stopwatch watch;
    LoadedInput l;
    LoadOptions lo = settings.load;
    lo.packed = true;  // RGBE / half texels stay packed: both paths read them so (1/3, 1/2 the memory)
    lo.warnings = &l.warnings;

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
    check_texel_count(env, label, settings.order, settings.warn_error, l.warnings);
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
    if (settings.rotate_degrees != 0) {  // before everything else reads the texels
        const RotationKind kind = rotate_environment(env, settings.rotate_degrees, settings.threads);
        record.rotation = {{"degrees", settings.rotate_degrees}, {"method", rotation_kind_name(kind)}};
        if (kind == RotationKind::Resampled) {
            char deg[32];
            std::snprintf(deg, sizeof deg, "%g", settings.rotate_degrees);
            l.warnings.push_back("notice: " + label + ": a cube turned by " + deg +
                                 " degrees, not a multiple of 90: resampled (exact for lat-long maps by whole columns)");
        }
    }
    if (settings.extract_sun) {
        // Before anything reads the texels (the report's cells, the bright split, the upload): every
        // product is baked from the map without its sun.
        SunOptions options;
        options.threads = settings.threads;
        SunSearch search = find_sun(env, options);
        if (search.sun) remove_sun_in_place(env, *search.sun);
        record.sun_asked = true;
        record.sun = search.sun ? sun_json(*search.sun) : nlohmann::json();
        l.sun = std::move(search.sun);
        l.sun_verdict = search.verdict;
    }
    env.identity = next_environment_identity();  // final from here on
    l.load_ms = watch.ms();
    if (!cells_on_gpu || env.is_cube()) l.cells = build_analysis_cells(env, settings.exact_map, settings.threads);
    trace_event("decoded");
    if (!job.specular.empty() || !job.gltf.empty() || !job.sheen.empty()) l.bright = split_specular_bright(env, settings.threads);
    trace_event("bright split");
    return l;
}

}  // namespace bake
