#pragma once
#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace bake {

// threads <= 0 means every core; never more threads than items, never fewer than one.
inline int resolve_threads(int threads, long long items) {
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return static_cast<int>(std::max(1LL, std::min<long long>(threads, items)));
}

// Runs fn(i) for every i in [0, count) on `threads` threads (the caller's among them), handing out
// indices one at a time so that uneven items balance.
template <typename Fn>
void parallel_for(int count, int threads, const Fn& fn) {
    std::atomic<int> next{0};
    auto worker = [&] {
        for (int i = next++; i < count; i = next++) fn(i);
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (auto& th : pool) th.join();
}

}  // namespace bake
