// parallel_for on oneTBB. Until issue 18 this was a hand-written pool (a condition variable and
// an atomic index read outside its lock) that crashed about one 16-core run in five; oneTBB's
// scheduler handles concurrent and nested callers and exceptions, and measured no slower
// (bench/NOTES.md, "Thread pool").
#include "parallel.h"

#include <map>
#include <memory>
#include <mutex>

#if defined(__SANITIZE_THREAD__)
#include <atomic>
#include <exception>
#include <vector>
#else
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#endif

namespace bake {

#if defined(__SANITIZE_THREAD__)
// ThreadSanitizer builds (scripts/test-tsan): Debian's libtbb is not instrumented, so TSan cannot see
// the ordering its scheduler provides and reports races inside oneTBB's inlined partitioner and in
// every body it runs. There, parallel_for starts plain threads for each call (TSan understands
// thread creation and join) so that what TSan checks is our own code: the bodies, the decode-ahead
// threads, the GL context thread. Same contract: every index once, at most `threads` threads, the
// first exception rethrown after every thread finished.
void parallel_for_erased(int count, int threads, const std::function<void(int)>& fn) {
    std::atomic<int> next{0};
    std::mutex error_mutex;
    std::exception_ptr error;
    auto work = [&] {
        for (int i = next++; i < count; i = next++) {
            try {
                fn(i);
            } catch (...) {
                std::lock_guard<std::mutex> lock(error_mutex);
                if (!error) error = std::current_exception();
                next = count;
            }
        }
    };
    std::vector<std::thread> helpers;
    for (int t = 1; t < std::min(threads, count); ++t) helpers.emplace_back(work);
    work();
    for (std::thread& t : helpers) t.join();
    if (error) std::rethrow_exception(error);
}
#else
namespace {

// One arena per thread limit below the machine's, made on first use and kept for the process:
// making one costs more than a small section. The map is only touched under its mutex, and an
// arena, once made, never moves or goes away.
tbb::task_arena& arena_for(int threads) {
    static std::mutex mutex;
    static std::map<int, std::unique_ptr<tbb::task_arena>> arenas;
    std::lock_guard<std::mutex> lock(mutex);
    std::unique_ptr<tbb::task_arena>& arena = arenas[threads];
    if (!arena) arena = std::make_unique<tbb::task_arena>(threads);
    return *arena;
}

}  // namespace

void parallel_for_erased(int count, int threads, const std::function<void(int)>& fn) {
    auto body = [&] {
        tbb::parallel_for(tbb::blocked_range<int>(0, count, 1), [&](const tbb::blocked_range<int>& r) {
            for (int i = r.begin(); i < r.end(); ++i) fn(i);
        });
    };
    if (threads >= tbb::this_task_arena::max_concurrency() &&
        tbb::this_task_arena::max_concurrency() >= tbb::info::default_concurrency())
        body();  // the whole machine (or more): the default arena, with no arena switch
    else
        arena_for(threads).execute(body);
}
#endif

}  // namespace bake
