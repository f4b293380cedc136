// The in-process GPU sections of bake-bench (the default run): the projection per face size and
// order against the measured bandwidth, variants of the pass shapes, the irradiance map pass, and
// the CPU double path's throughput and thread scaling. Every GPU variant is first checked against
// the CPU double path (1e-5 relative) before anything is timed. Times in ms.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "layout.h"

namespace bake {
class GpuProjector;
}

namespace bench {

// A cube of 6 x n^2 texels, uniform in [0, 4) per channel (a fixed seed: the same map every run).
bake::Environment random_cube(int n, unsigned seed);

// CPU double path: exactly 1 and 2 threads, then all hardware threads; median of 5. Prints a table.
nlohmann::json cpu_scaling(int size, unsigned hw_threads);

struct ProjectionOptions {
    std::vector<int> sizes;  // face sizes
    int repeats = 21;
    int cpu_max_size = 2048;  // no CPU reference (and no check) above this face size
    unsigned hw_threads = 1;
    double bandwidth_gbs = 0;  // the reference, for of_bw
};

// The projection table (orders 3 and 5 per size, default tuning): prints it, returns its text in
// *table and its rows in *rows; false (after one line on stderr) when a size disagrees with the
// CPU path beyond 1e-5.
bool projection_table(bake::GpuProjector& gpu, const ProjectionOptions& o, std::string* table, nlohmann::json* rows);

// Variants of the pass shapes and upload paths on the largest size, each checked first; the
// projector's tuning is restored after. Prints and returns the table's text, rows in *rows.
std::string variants_table(bake::GpuProjector& gpu, const ProjectionOptions& o, nlohmann::json* rows);

// The irradiance map pass, 6 x 64^2 at order 5: prints; fills "irradiance_6x64_order5_ms" and
// "irradiance_6x64_order5_call_wall_ms" of *out.
void irradiance_map_bench(bake::GpuProjector& gpu, int repeats, nlohmann::json* out);

}  // namespace bench
