// The BC6H sections of bake-bench. `--bc6h`: the CPU encoder's rate (texels/s) at the default and
// thorough settings on 1 thread and on every core, and the GPU encoder's time for the same 6x256^2
// chain with its 9 levels on the GL timer (issue 35's target on the GPU machine: <= 2 ms), its
// blocks first checked to be the CPU's byte for byte. `--bc6h-quality CHAIN.exr...` (CPU only): the
// quality of both settings on --specular chains (texture_quality.h), and the bytes of each texel
// format's KTX2 and DDS files for the first chain and for a 6x32^2 cube.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bake {
class GpuProjector;
}

namespace bench {

// chain_exr: a --specular EXR to encode (read_specular_exr), or empty for bench_support.h's sky
// chain. Prints the table (last) and fills *out; false when the GPU's blocks differ from the CPU's.
bool run_bc6h_bench(bake::GpuProjector& gpu, const std::string& chain_exr, int repeats, nlohmann::json* out);

// Prints the tables (last) and fills *out.
void run_bc6h_quality(const std::vector<std::string>& chain_exrs, nlohmann::json* out);

}  // namespace bench
