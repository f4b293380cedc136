#include "sh_error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>


namespace bake {

double ShErrorStats::worst_mean() const {
    return std::max({mean_relative[0], mean_relative[1], mean_relative[2]});
}

ShErrorStats measure_sh_error(const ShCoefficients& irradiance, int order, const std::vector<Vec3>& directions,
                              const std::vector<Rgb>& exact) {
    ShErrorStats s;
    s.order = order;
    const ShCoefficients c = truncate_order(irradiance, order);
    const std::size_t n = directions.size();
    if (n == 0) return s;
    std::vector<Rgb> sh(n);
    for (std::size_t i = 0; i < n; ++i) sh[i] = eval_sh(c, directions[i]);
    for (int ch = 0; ch < 3; ++ch) {
        double max_abs_e = 0, sum_abs_e = 0;
        for (const Rgb& e : exact) {
            max_abs_e = std::max(max_abs_e, std::fabs(e[ch]));
            sum_abs_e += std::fabs(e[ch]);
        }
        double sum_rel = 0, max_rel = 0, max_abs_diff = 0;
        std::size_t used = 0, negative = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double diff = std::fabs(sh[i][ch] - exact[i][ch]);
            max_abs_diff = std::max(max_abs_diff, diff);
            negative += sh[i][ch] < 0;
            if (std::fabs(exact[i][ch]) > kShErrorFloor * max_abs_e) {
                const double rel = diff / std::fabs(exact[i][ch]);
                sum_rel += rel;
                max_rel = std::max(max_rel, rel);
                ++used;
            } else {
                ++s.excluded;
            }
        }
        s.mean_relative[ch] = used ? sum_rel / static_cast<double>(used) : 0.0;
        s.max_relative[ch] = max_rel;
        s.negative_fraction[ch] = static_cast<double>(negative) / static_cast<double>(n);
        const double mean_abs_e = sum_abs_e / static_cast<double>(n);
        s.max_abs_over_mean[ch] = mean_abs_e > 0 ? max_abs_diff / mean_abs_e : 0.0;
    }
    return s;
}

ShErrorReport make_sh_error_report(const ShCoefficients& irradiance5, const IrradianceCells& reference,
                                   const std::vector<Rgb>& exact) {
    ShErrorReport r;
    r.directions = "cube 6x" + std::to_string(kShErrorGridSize) + "^2 texel centres";
    r.reference = reference.describe();
    r.reference_cell_diameter = reference.max_diameter;
    const std::vector<Vec3> dirs = cube_map_directions(kShErrorGridSize);
    r.order3 = measure_sh_error(irradiance5, 3, dirs, exact);
    r.order5 = measure_sh_error(irradiance5, 5, dirs, exact);
    return r;
}


std::string sh_error_warning(const ShErrorReport& report, int order, double threshold) {
    const ShErrorStats& asked = order >= 5 ? report.order5 : report.order3;
    const double err = asked.worst_mean();
    // NaN warns too.
    if (err <= threshold) return "";
    char line[400];
    const double e5 = report.order5.worst_mean();
    const char* advice = order < 5 && e5 <= threshold ? "--order 5 would do" : "--irradiance exact gives the exact map";
    std::snprintf(line, sizeof line,
                  "order-%d SH irradiance is off by %.1f%% on average (worst channel; max %.0f%%) against the exact "
                  "convolution, above --warn-error %.1f%%; order 5: %.1f%%: %s",
                  order, 100 * err, 100 * std::max({asked.max_relative[0], asked.max_relative[1], asked.max_relative[2]}),
                  100 * threshold, 100 * e5, advice);
    return line;
}

}  // namespace bake
