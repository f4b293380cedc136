// The sun section of bake-bench (`--sun`, CPU only): find_sun and remove_sun on an 8192x4096 map,
// against the bake's own time on it (docs/sun.md, "Cost").
#pragma once

#include <nlohmann/json.hpp>

namespace bench {

// Prints the table (last) and fills *out.
void run_sun_bench(int repeats, int width, nlohmann::json* out);

}  // namespace bench
