#pragma once
// How far the stage that is running has come, for the progress display (a thread of the CLI reads
// it several times a second). A long stage calls begin(units) when it knows its size and advance()
// as units finish, from any thread; whoever starts a stage calls begin(0) (size not known yet).
// Process-wide and lock-free: progress is shown for one stage at a time.
#include <algorithm>
#include <atomic>

#include "stop_request.h"

namespace bake::stage_progress {

inline std::atomic<long long>& total_units() {
    static std::atomic<long long> total{0};
    return total;
}
inline std::atomic<long long>& done_units() {
    static std::atomic<long long> done{0};
    return done;
}

inline void begin(long long units) {
    done_units().store(0, std::memory_order_relaxed);
    total_units().store(units, std::memory_order_relaxed);
}

// Also where a long stage stops on request (stop_request.h): it throws Interrupted then.
inline void advance(long long units = 1) {
    done_units().fetch_add(units, std::memory_order_relaxed);
    throw_if_stop_requested();
}

// In [0, 1], or -1 while the stage's size is not known.
inline double fraction() {
    const long long total = total_units().load(std::memory_order_relaxed);
    if (total <= 0) return -1;
    return std::min(1.0, static_cast<double>(done_units().load(std::memory_order_relaxed)) / static_cast<double>(total));
}

}  // namespace bake::stage_progress
