#include "parallel.h"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <vector>

namespace bake {

namespace {

struct Job {
    const std::function<void(int)>* fn = nullptr;
    int count = 0;
    int max_helpers = 0;
    std::atomic<int> next{0};
    int helpers = 0;  // workers in the job (under the pool's mutex)
    std::exception_ptr error;  // the first exception (under the pool's mutex)
};

class Pool {
public:
    static Pool& instance() {
        static Pool pool;
        return pool;
    }

    void run(Job& job) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            while (static_cast<int>(workers_.size()) < job.max_helpers) workers_.emplace_back([this] { worker_main(); });
            queue_.push_back(&job);
        }
        wake_.notify_all();
        work(job);
        // Every item is claimed: take the job off the queue, then wait for the helpers still in it.
        std::unique_lock<std::mutex> lock(mutex_);
        queue_.erase(std::find(queue_.begin(), queue_.end(), &job));
        left_.wait(lock, [&] { return job.helpers == 0; });
        if (job.error) std::rethrow_exception(job.error);
    }

    ~Pool() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        wake_.notify_all();
        for (std::thread& t : workers_) t.join();
    }

private:
    void work(Job& job) {
        for (int i = job.next++; i < job.count; i = job.next++) {
            try {
                (*job.fn)(i);
            } catch (...) {
                std::lock_guard<std::mutex> lock(mutex_);
                if (!job.error) job.error = std::current_exception();
                job.next = job.count;  // claim nothing more
            }
        }
    }

    // A queued job with items left and room for a helper (under mutex_).
    Job* open_job() const {
        for (Job* job : queue_)
            if (job->helpers < job->max_helpers && job->next.load() < job->count) return job;
        return nullptr;
    }

    void worker_main() {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            wake_.wait(lock, [&] { return stop_ || open_job() != nullptr; });
            if (stop_) return;
            Job* job = open_job();
            ++job->helpers;
            lock.unlock();
            work(*job);
            lock.lock();
            if (--job->helpers == 0) left_.notify_all();
        }
    }

    std::mutex mutex_;
    std::condition_variable wake_, left_;
    std::vector<Job*> queue_;
    std::vector<std::thread> workers_;
    bool stop_ = false;
};

}  // namespace

void parallel_for_in_pool(int count, int threads, const std::function<void(int)>& fn) {
    Job job;
    job.fn = &fn;
    job.count = count;
    job.max_helpers = std::min(threads, count) - 1;
    Pool::instance().run(job);
}

}  // namespace bake
