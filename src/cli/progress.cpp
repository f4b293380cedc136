#include "progress.h"

#include <cmath>
#include <cstdlib>

#include "stage_progress.h"

namespace bake {

namespace {

using Clock = std::chrono::steady_clock;

// How long a stage runs before it is shown. BAKE_TEST_PROGRESS_DELAY_MS (a test hook) shortens it
// so that tests see the lines of quick stages (0 also makes a log line every 0.1 s, not every second).
Clock::duration show_delay() {
    if (const char* ms = std::getenv("BAKE_TEST_PROGRESS_DELAY_MS")) return std::chrono::milliseconds(std::atol(ms));
    return std::chrono::seconds(1);
}

std::string seconds_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, s < 10 ? "%.1f s" : "%.0f s", s);
    return buf;
}

}  // namespace

Progress::Progress(Mode mode)
    : mode_(mode),
      delay_(show_delay()),
      log_interval_(delay_ == Clock::duration::zero() ? Clock::duration(std::chrono::milliseconds(100))
                                                      : Clock::duration(std::chrono::seconds(1))) {
    if (mode_ != Mode::Off) ticker_ = std::thread([this] { run(); });
}

Progress::~Progress() {
    if (!ticker_.joinable()) return;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
        erase_locked();
    }
    wake_.notify_all();
    ticker_.join();
}

void Progress::stage(int index, int count, const std::string& label, const char* stage) {
    if (mode_ == Mode::Off) return;
    stage_progress::begin(0);
    std::lock_guard<std::mutex> lock(mutex_);
    text_ = "[" + std::to_string(index) + "/" + std::to_string(count) + "] " + label + ": " + stage;
    active_ = true;
    started_ = Clock::now();
    last_log_ = Clock::time_point();
    if (delay_ == Clock::duration::zero()) draw_locked(started_);
}

void Progress::clear() {
    if (mode_ == Mode::Off) return;
    std::lock_guard<std::mutex> lock(mutex_);
    active_ = false;
    erase_locked();
}

void Progress::print(std::FILE* stream, const std::string& line) {
    std::lock_guard<std::mutex> lock(mutex_);
    erase_locked();
    std::fflush(stream == stderr ? stdout : stderr);
    std::fputs(line.c_str(), stream);
    std::fputc('\n', stream);
    std::fflush(stream);
}

void Progress::erase_locked() {
    if (!shown_) return;
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    shown_ = false;
}

void Progress::draw_locked(Clock::time_point now) {
    const double elapsed = std::chrono::duration<double>(now - started_).count();
    const double fraction = stage_progress::fraction();
    std::string line = text_;
    if (fraction >= 0) {
        char pct[16];
        std::snprintf(pct, sizeof pct, " %d%%", static_cast<int>(std::floor(100 * fraction)));
        line += pct;
        // Time left from the pace so far, once there is a pace to go by.
        if (fraction >= 0.02 && fraction < 1) line += ", " + seconds_text(elapsed * (1 - fraction) / fraction) + " left";
    }
    line += " (" + seconds_text(elapsed) + ")";
    std::fflush(stdout);
    if (mode_ == Mode::Terminal) {
        std::fprintf(stderr, "\r\033[K%s", line.c_str());
        shown_ = true;
    } else {
        std::fprintf(stderr, "%s\n", line.c_str());
        last_log_ = now;
    }
    std::fflush(stderr);
}

void Progress::run() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_) {
        wake_.wait_for(lock, std::chrono::milliseconds(100));
        if (stop_ || !active_) continue;
        const Clock::time_point now = Clock::now();
        if (now - started_ < delay_) continue;
        if (mode_ == Mode::Log && now - last_log_ < log_interval_) continue;
        draw_locked(now);
    }
}

}  // namespace bake
