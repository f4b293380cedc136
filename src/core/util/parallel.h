#pragma once
#include <algorithm>
#include <functional>
#include <thread>

namespace bake {

// threads <= 0 means every core; never more threads than items, never fewer than one.
inline int resolve_threads(int threads, long long items) {
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return static_cast<int>(std::max(1LL, std::min<long long>(threads, items)));
}

// parallel_for without its template: fn(i) for i in [0, count) on at most `threads` threads of oneTBB.
void parallel_for_erased(int count, int threads, const std::function<void(int)>& fn);

// Runs fn(i) for every i in [0, count) on at most `threads` threads, the caller's among them.
// oneTBB schedules it (work stealing balances uneven items; its worker threads are kept between
// calls); a task_arena per thread limit caps the concurrency. Callers on several threads and calls
// from inside fn are oneTBB's to share out. An exception from fn is rethrown here once every
// running item has finished. Callers must not depend on which thread runs an index.
template <typename Fn>
void parallel_for(int count, int threads, const Fn& fn) {
    if (count <= 0) return;
    if (threads <= 1 || count == 1) {
        for (int i = 0; i < count; ++i) fn(i);
        return;
    }
    parallel_for_erased(count, threads, std::function<void(int)>(std::cref(fn)));
}

}  // namespace bake
