// GPU timing in bake-bench's in-process sections, and the card's memory bandwidth measured on the
// current GL context (the reference every projection's "of_bw" divides by). Times in ms, GB/s =
// 10^9 bytes a second. Needs a current GL 4.3 context (glad loaded) for everything but epoch_ms.
#pragma once

#include <cstddef>

#include <glad/gl.h>
#include <nlohmann/json.hpp>

namespace bench {

// Milliseconds since the Unix epoch: the JSON rows carry them to match nvidia-smi's clock log.
double epoch_ms();

// GL timer queries measure GPU execution; software renderers (llvmpipe) answer ~0 for them, and
// their timestamps do not reliably bracket compute work (seen: read-kernel "bandwidths" of several
// TB/s on two CPU cores), so there the wall-clock time around a finished command stands in.
void set_wall_clock_only(bool on);
bool wall_clock_only();
// The timer's time, or the wall clock's (and then the timers count as implausible) when the timer
// read ~0 or wall clock is forced.
double gpu_time_or_wall(double timer_ms, double wall_ms);
bool timer_queries_plausible();

// A compute program from GLSL source; exits (7) with the log on a compile or link error.
GLuint compile_compute(const char* src);

struct Bandwidth {
    double reference = 0;  // the largest of the three below: fractions of it are the conservative ones
    double copy = 0;       // glCopyBufferSubData, read + write
    double read = 0;       // read-only kernels, the best of grid-stride and block-contiguous
};

// Copies and read-only kernels on immutable device-only buffers (when `storage`: glBufferStorage is
// there) and, for the record, on glBufferData ones, over buffers of `bytes`; prints one line, fills
// *bwj (the JSON's "bandwidth").
Bandwidth measure_bandwidth(bool storage, std::size_t bytes, nlohmann::json* bwj);

// The floor of any extra pass: one work group doing (almost) nothing, dispatched back to back with
// the same barrier as a reduction pass; ms each.
double empty_dispatch_ms();

}  // namespace bench
