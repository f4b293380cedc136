// The exact-irradiance section of bake-bench (`--exact`): cells from a large source, the exact
// map on the GPU and the CPU, and the cost of the SH error report on both paths.
#pragma once

#include <nlohmann/json.hpp>

namespace bake {
class GpuProjector;
}

namespace bench {

// Prints the table (the last of the output) and fills *out. quick: a 2048 x 1024 source (llvmpipe).
void run_exact_bench(bake::GpuProjector& gpu, bool quick, int repeats, nlohmann::json* out);

}  // namespace bench
