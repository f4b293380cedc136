// The specular section of bake-bench (`--specular`): the GGX-prefiltered chain from a large sky
// with a sun, on the GPU and by the same estimator on the CPU, its distance from the brute force,
// and, given the tools, whole processes of bake-irradiance --specular and Filament's cmgen side by side.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace bake {
class GpuProjector;
}

namespace bench {

struct SpecularBenchOptions {
    bool quick = false;      // 2048 x 1024 source, 64 base (llvmpipe); else 8192 x 4096 and 256
    int repeats = 5;
    std::string dir;         // scratch folder for the whole-process runs (the source EXR, outputs)
    std::string tool;        // bake-irradiance; empty: no whole-process rows
    std::string cmgen;       // cmgen; empty: no cmgen row
};

// Prints the table (the last of the output) and fills *out.
void run_specular_bench(bake::GpuProjector& gpu, const SpecularBenchOptions& options, nlohmann::json* out);

// `--specular-source`, CPU only (no GL context): the source cube (make_specular_source), and all
// that comes before the estimator (prepare_specular_input: bright split, sources, mips), from
// 4096x2048 and 8192x4096 sun skies at the default sizes of a 256 base (source 6x512^2), and how
// far level 0's integral is from the input's. Prints a table and fills *out.
void run_specular_source_bench(int repeats, nlohmann::json* out);

// `--specular-source --specular-maps DIR` (specular_accuracy.cpp): the CPU chain at `base` of the
// three shared maps in DIR against a brute force over their own texels, per level, and roughness 1
// against the exact irradiance / π. Prints a table and fills *out.
void run_specular_accuracy(const std::string& dir, int base, nlohmann::json* out);

}  // namespace bench
