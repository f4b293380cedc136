// The in-process end-to-end section of bake-bench: a large equirect float EXR (ZIP) decoded,
// uploaded, projected at order 3, its irradiance map rendered and encoded, each stage timed (ms;
// GPU stages by the projector's GL timers). Twice: the first run pays one-time costs.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace bake {
class GpuProjector;
}

namespace bench {

// Writes the input (width x width/2) into the current folder, runs the two runs, removes the
// files; returns the text (also printed) and fills *runs (the JSON's "end_to_end").
std::string end_to_end_stages(bake::GpuProjector& gpu, int width, unsigned hw_threads, nlohmann::json* runs);

}  // namespace bench
