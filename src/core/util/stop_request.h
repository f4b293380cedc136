#pragma once
// A request to stop the run, made by a signal handler (src/cli/interrupts.cpp) and honoured where
// work can stop cleanly: between stages and inputs, and as long stages advance (stage_progress.h).
// Setting it is async-signal-safe (a lock-free atomic).
#include <atomic>
#include <csignal>

namespace bake {

// Thrown where a stop request is honoured. Not a std::exception: no handler of errors catches it
// by mistake; oneTBB and std::async carry it to the caller like any exception.
struct Interrupted {
    int signal;
};

inline std::atomic<int>& stop_request() {
    static std::atomic<int> signal{0};
    static_assert(std::atomic<int>::is_always_lock_free, "set from a signal handler");
    return signal;
}

// "SIGINT", "SIGTERM", "SIGHUP": the signals a stop is asked by (src/cli/interrupts.h).
inline const char* signal_name(int sig) {
    switch (sig) {
        case SIGINT: return "SIGINT";
        case SIGTERM: return "SIGTERM";
        case SIGHUP: return "SIGHUP";
        default: return "a signal";
    }
}

inline void throw_if_stop_requested() {
    if (const int sig = stop_request().load(std::memory_order_relaxed)) throw Interrupted{sig};
}

}  // namespace bake
