#include "compare_stage.h"

#include <cstdarg>
#include <cstdio>

#include "sh_compare.h"

namespace bake {

namespace {

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
    char buf[512];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, args);
    va_end(args);
    return buf;
}

void print_coefficients(const ShComparison& cmp, const Projection& gpu, const Projection& cpu, BakeLog& log) {
    static const char* const channel = "RGB";
    log.result(format("%-4s %-3s %-3s %-2s %24s %24s %12s %12s", "k", "l", "m", "ch", "gpu", "cpu", "abs_diff", "rel_diff"));
    for (const CoefficientDifference& d : cmp.rows)
        log.result(format("%-4d %-3d %-3d %-2c %24.17g %24.17g %12.4e %12.4e", d.k, sh_band(d.k), sh_m(d.k),
                          channel[d.channel], d.value, d.reference, d.abs_diff, d.rel_diff));
    const double four_pi = 4.0 * 3.14159265358979323846;
    log.result(format("solid angle sum: gpu %.17g (4pi%+.3e), cpu %.17g (4pi%+.3e)", gpu.solid_angle_sum,
                      gpu.solid_angle_sum - four_pi, cpu.solid_angle_sum, cpu.solid_angle_sum - four_pi));
    log.result(format("max abs diff %.4e, max rel diff %.4e (relative to each channel's coefficient-vector norm)",
                      cmp.max_abs_diff, cmp.max_rel_diff));
}

const char* layout_word(const MapShape& shape) { return shape.equirect ? "equirect" : "cube"; }

}  // namespace

CompareOutcome compare_paths(const Environment& env, const Projection& projected, const std::string& computed_by,
                             const AnalysisCells& cells, const BakeSettings& s, Devices& devices, BakeLog& log) {
    // --compare demands the GPU (Devices made it so): a failure here is the error.
    GpuBackend& gpu = *devices.gpu();
    Backend& cpu = devices.cpu();
    StageTimings unused;
    const bool bake_on_gpu = computed_by == "gpu";
    const Projection gpu_result = truncate_order(bake_on_gpu ? projected : gpu.project_sh(env, kProjectedOrder, unused), s.order);
    const Projection cpu_result = truncate_order(bake_on_gpu ? cpu.project_sh(env, kProjectedOrder, unused) : projected, s.order);
    const ShComparison cmp = compare_sh(gpu_result.radiance, cpu_result.radiance);
    print_coefficients(cmp, gpu_result, cpu_result, log);

    double ms = 0;
    const ImageDifference map_diff = compare_images(gpu.sh_irradiance_map(irradiance_from_radiance(gpu_result.radiance), s.map, ms),
                                                    cpu.sh_irradiance_map(irradiance_from_radiance(cpu_result.radiance), s.map, ms));
    log.result(format("irradiance map (%s, size %d): max abs diff %.4e, max |E| %.4e, relative %.4e", layout_word(s.map),
                      s.map.size, map_diff.max_abs_diff, map_diff.max_abs_reference,
                      map_diff.max_abs_reference > 0 ? map_diff.max_abs_diff / map_diff.max_abs_reference : 0.0));

    CompareOutcome out;
    // The exact map: the GPU's float sums against the double CPU path, relative to max |E|.
    double exact_rel = 0;
    if (s.exact_map) {
        out.exact_map = render_exact_map(*cells.exact, s.map, gpu, out.exact_map_ms);
        double cpu_ms = 0;
        const ImageDifference d = compare_images(*out.exact_map, render_exact_map(*cells.exact, s.map, cpu, cpu_ms));
        exact_rel = d.max_abs_reference > 0 ? d.max_abs_diff / d.max_abs_reference : 0.0;
        log.result(format("exact irradiance map (%s, size %d, %s): max abs diff %.4e, max |E| %.4e, relative %.4e",
                          layout_word(s.map), s.map.size, cells.exact->describe().c_str(), d.max_abs_diff,
                          d.max_abs_reference, exact_rel));
    }
    // NaN must fail too, hence the negated comparisons.
    const bool passed = cmp.max_rel_diff <= s.tolerance && exact_rel <= s.tolerance;
    out.report = {{"passed", passed},
                  {"tolerance", s.tolerance},
                  {"max_abs_diff", cmp.max_abs_diff},
                  {"max_rel_diff", cmp.max_rel_diff},
                  {"exact_map_rel_diff", s.exact_map ? nlohmann::json(exact_rel) : nlohmann::json(nullptr)}};
    if (!passed)
        out.failure = !(cmp.max_rel_diff <= s.tolerance)
                          ? format("compare: max relative difference %.4e exceeds tolerance %.4e", cmp.max_rel_diff, s.tolerance)
                          : format("compare: exact irradiance map differs by %.4e of its max, beyond tolerance %.4e",
                                   exact_rel, s.tolerance);
    return out;
}

}  // namespace bake
