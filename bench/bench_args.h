// bake-bench's command line: which section runs (the in-process GPU sections by default,
// --whole-process, --exact, --specular, --specular-source, --cpu-only) and its sizes and repeats.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "end_to_end.h"

namespace bench {

struct Args {
    std::vector<int> sizes{256, 512, 1024, 2048};
    int repeats = 21;
    int cpu_max_size = 2048;
    int cpu_scaling_size = 512;
    std::string json_path = "bench.json";
    std::string programs_path;  // --programs: driver program binaries' text
    bool e2e = true;
    bool variants = false;
    bool cpu_only = false;
    int e2e_width = 8192;
    size_t copy_bytes = size_t(1) << 30;
    bool quick = false, repeats_given = false;
    WholeProcessOptions whole;         // --whole-process DIR: only that section
    bool exact = false;                // --exact: only the exact-irradiance section
    bool specular = false;             // --specular [--specular-dir DIR]: only the specular section
    bool specular_source = false;      // --specular-source: only the specular source cube, CPU only
    std::string specular_maps;         // --specular-maps DIR: with --specular-source, the chain's accuracy on DIR's shared maps
    std::string specular_dir;
    bool ktx2 = false;                 // --ktx2: only the KTX2 encode/write section, CPU only
    bool sun = false;                  // --sun: only find_sun and remove_sun on an e2e_width map, CPU only
    bool bc6h = false;                 // --bc6h [--bc6h-chain FILE]: only the BC6H encoders' section
    std::string bc6h_chain;
    std::vector<std::string> bc6h_quality;  // --bc6h-quality FILE...: only BC6H's quality on these chains, CPU only
};

// Exits (2) with the usage on an unknown option.
Args parse_args(int argc, char** argv);

}  // namespace bench
