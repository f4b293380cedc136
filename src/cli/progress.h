#pragma once
// The progress line on stderr: "[2/5] sky.exr: specular 45%, 12 s left". Shown only for a stage
// that has run longer than a second, so that quick bakes print nothing; on a terminal one line
// redrawn in place (and erased when done), in a log (--progress always, stderr not a terminal) a
// plain line every second at most. A thread of its own draws it, so stages that report no
// fraction (stage_progress.h) still show their elapsed time.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace bake {

class Progress {
public:
    enum class Mode { Off, Terminal, Log };
    explicit Progress(Mode mode = Mode::Off);
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    bool enabled() const { return mode_ != Mode::Off; }

    // A new stage of input `index` of `count` (resets stage_progress).
    void stage(int index, int count, const std::string& label, const char* stage);
    // No stage running: the line is erased.
    void clear();
    // Prints `line` (with its newline) to `stream` without leaving the progress line half-drawn.
    void print(std::FILE* stream, const std::string& line);

private:
    void run();
    void draw_locked(std::chrono::steady_clock::time_point now);
    void erase_locked();

    Mode mode_;
    std::chrono::steady_clock::duration delay_, log_interval_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::thread ticker_;
    bool stop_ = false;
    bool active_ = false;   // a stage is running
    bool shown_ = false;    // the terminal line is drawn
    std::string text_;      // "[i/n] label: stage"
    std::chrono::steady_clock::time_point started_, last_log_;
};

}  // namespace bake
