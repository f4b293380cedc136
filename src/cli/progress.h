#pragma once
#include <cstdio>
#include <string>

namespace bake {

// One self-overwriting status line on stderr ("[2/5] sky.exr: project..."), only where the
// caller decided it is wanted (stderr is a terminal, not --quiet). clear() erases it; call it
// before printing anything else so that no line is left half-covered.
class Progress {
public:
    explicit Progress(bool enabled) : enabled_(enabled) {}
    bool enabled() const { return enabled_; }

    void stage(int index, int count, const std::string& label, const char* stage) {
        if (!enabled_) return;
        std::fflush(stdout);
        std::fprintf(stderr, "\r\033[K[%d/%d] %s: %s...", index, count, label.c_str(), stage);
        std::fflush(stderr);
        shown_ = true;
    }

    void clear() {
        if (!shown_) return;
        std::fputs("\r\033[K", stderr);
        std::fflush(stderr);
        shown_ = false;
    }

private:
    bool enabled_;
    bool shown_ = false;
};

}  // namespace bake
