// The KTX2 section of bake-bench (`--ktx2`, CPU only): encoding and writing a 6x256^2 cube chain
// with all its levels in each texel format, with and without Zstandard (issue 21's targets: float16
// without zstd <= 20 ms, zstd level 3 <= 100 ms, on the 2-core machine).
#pragma once

#include <nlohmann/json.hpp>

namespace bench {

// Prints the table (last) and fills *out.
void run_ktx2_bench(int repeats, nlohmann::json* out);

}  // namespace bench
