// The inputs of bake-bench's `--whole-process` section: lat-long skies generated once by
// make-sample-sky into the scratch folder (kept when the file's own header has the size and
// format asked for; variant and grain are in the file name), single inputs and a batch of
// different maps of one size. Height = width / 2 throughout.
#pragma once

#include <string>
#include <vector>

#include "process_runner.h"

namespace bench {

struct Input {
    std::string label;  // "8192x4096 half DWAB .exr"
    std::string path;
    int width = 0;
    bool exr = false;  // half DWAB
    int variant = 0;
    double grain = 0;
    bool present = false;
};

// Generated once into DIR (through a temporary name, so a file there is always complete); sets
// in.present. Without make-sample-sky (sky_ok false) only a file already there counts.
void ensure_input(Input& in, const std::string& sky_tool, bool sky_ok, Runner& run);

}  // namespace bench
