#pragma once
// BAKE_TRACE=1: one line "trace <epoch seconds.microseconds> <event>" on stderr at each event,
// for whole-process timelines on the GPU machine (a script subtracts the time it started the
// process; bench/NOTES.md). Off by default: one flag test per event.
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace bake {

inline bool trace_on() {
    static const bool on = [] {
        const char* v = std::getenv("BAKE_TRACE");
        return v && v[0] == '1';
    }();
    return on;
}

inline void trace_event(const char* event) {
    if (!trace_on()) return;
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    std::fprintf(stderr, "trace %lld.%06ld %s\n", static_cast<long long>(ts.tv_sec), ts.tv_nsec / 1000, event);
}

}  // namespace bake
