#include <cstdio>
#include <cstdlib>

#include "bake_app.h"
#include "detached_exit.h"
#include "interrupts.h"
#include "trace.h"

#if defined(__SANITIZE_ADDRESS__)
#define BAKE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BAKE_SANITIZED 1
#endif
#endif

int main(int argc, char** argv) {
    bake::trace_event("main");
    bake::install_interrupt_handlers();
#ifndef BAKE_SANITIZED
    const int code = bake::run_bake_app(argc, argv, /*exiting=*/true);
    // Every output is written, closed and renamed by now, and every thread joined. What exit()
    // would still run is the OpenGL driver's own teardown in its atexit handlers: 25-35 ms on
    // the GPU machine, longer than a 2048x1024 bake's stages; the kernel frees the same things,
    // after the process has ended (detached_exit.h). (Sanitizer builds exit normally, so that
    // LeakSanitizer still checks.)
    bake::trace_event("exit");
    std::fflush(nullptr);
    bake::exit_detached(code);
#else
    return bake::run_bake_app(argc, argv);
#endif
}
