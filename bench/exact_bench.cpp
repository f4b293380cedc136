#include "exact_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "bench_support.h"
#include "equirect.h"
#include "exact_irradiance.h"
#include "gl_objects.h"
#include "gpu_exact_irradiance.h"
#include "gpu_projector.h"
#include "layout.h"
#include "sh_error.h"

namespace bench {

void run_exact_bench(bake::GpuProjector& gpu, bool quick, int repeats, nlohmann::json* out) {
    const int width = quick ? 2048 : 8192, height = width / 2, map_size = quick ? 16 : 64;
    std::printf("exact irradiance: %dx%d source, 6x%d^2 map, %d repeats\n", width, height, map_size, repeats);
    const bake::Environment env = sun_sky(width, height);
    bake::GpuExactIrradiance exact(gpu.programs());

    std::vector<double> cells_ms, gpu_ms, gpu_wall_ms, report_cells_ms, report_gpu_ms, report_cpu_ms;
    bake::IrradianceCells cells, report;
    for (int i = 0; i < repeats; ++i) {
        Clock::time_point t0 = Clock::now();
        cells = bake::build_irradiance_cells(env, bake::irradiance_cell_block(env, bake::kExactIrradianceCellRows));
        cells_ms.push_back(ms_since(t0));
        t0 = Clock::now();
        exact.upload(cells);
        const std::vector<bake::Rgb> map = exact.evaluate(bake::cube_map_directions(map_size));
        gpu_wall_ms.push_back(ms_since(t0));
        gpu_ms.push_back(exact.last_ms());

        t0 = Clock::now();
        report = bake::build_irradiance_cells(env, bake::irradiance_cell_block(env, bake::kShErrorCellRows));
        report_cells_ms.push_back(ms_since(t0));
        const std::vector<bake::Vec3> dirs = bake::cube_map_directions(bake::kShErrorGridSize);
        exact.upload(report);
        exact.evaluate(dirs);
        report_gpu_ms.push_back(exact.last_ms());
        t0 = Clock::now();
        bake::exact_irradiance_at(report, dirs);
        report_cpu_ms.push_back(ms_since(t0));
    }
    // Agreement: the GPU map against the double CPU path at a subset of directions (every 37th).
    exact.upload(cells);
    const std::vector<bake::Vec3> all = bake::cube_map_directions(map_size);
    std::vector<bake::Vec3> some;
    for (std::size_t i = 0; i < all.size(); i += 37) some.push_back(all[i]);
    const std::vector<bake::Rgb> g = exact.evaluate(some), c = bake::exact_irradiance_at(cells, some);
    double diff = 0, max_e = 0;
    for (std::size_t i = 0; i < g.size(); ++i)
        for (int ch = 0; ch < 3; ++ch) {
            diff = std::max(diff, std::fabs(g[i][ch] - c[i][ch]));
            max_e = std::max(max_e, std::fabs(c[i][ch]));
        }
    // CPU double time of the whole map, from the subset's.
    const Clock::time_point t0 = Clock::now();
    bake::exact_irradiance_at(cells, some);
    const double cpu_map_ms = ms_since(t0) * static_cast<double>(all.size()) / static_cast<double>(some.size());

    nlohmann::json j = {{"source", std::to_string(width) + "x" + std::to_string(height)},
                        {"map", "6x" + std::to_string(map_size) + "^2"},
                        {"cells", cells.describe()},
                        {"cell_diameter", cells.max_diameter},
                        {"cells_cpu_ms", median(cells_ms)},
                        {"map_gpu_ms", median(gpu_ms)},
                        {"map_gpu_wall_ms", median(gpu_wall_ms)},
                        {"map_cpu_double_ms_estimated", cpu_map_ms},
                        {"gpu_vs_cpu_max_rel", max_e > 0 ? diff / max_e : 0.0},
                        {"report_cells", report.describe()},
                        {"report_cells_cpu_ms", median(report_cells_ms)},
                        {"report_gpu_ms", median(report_gpu_ms)},
                        {"report_cpu_ms", median(report_cpu_ms)}};
    *out = j;
    std::printf("\n| stage | time |\n|---|---|\n");
    std::printf("| cells (%s), CPU double, all cores | %.1f ms |\n", cells.describe().c_str(), median(cells_ms));
    std::printf("| exact map 6x%d^2, GPU (timer) | %.2f ms |\n", map_size, median(gpu_ms));
    std::printf("| exact map, GPU wall incl. cell upload and read-back | %.1f ms |\n", median(gpu_wall_ms));
    std::printf("| exact map, CPU double (estimated from 1/37 of it) | %.0f ms |\n", cpu_map_ms);
    std::printf("| SH error report cells (%s), CPU | %.1f ms |\n", report.describe().c_str(), median(report_cells_ms));
    std::printf("| SH error report exact values, GPU (timer) / CPU double | %.3f / %.1f ms |\n", median(report_gpu_ms),
                median(report_cpu_ms));
    std::printf("| GPU vs CPU exact, max rel to max E | %.2e |\n", max_e > 0 ? diff / max_e : 0.0);
}

}  // namespace bench
