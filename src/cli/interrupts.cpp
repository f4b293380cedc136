#include "interrupts.h"

#include <signal.h>
#include <unistd.h>

#include "pending_files.h"
#include "stop_request.h"

namespace bake {

namespace {

constexpr unsigned kGraceSeconds = 10;  // long enough to finish writing a large file on a loaded machine

// Ends the process now by `sig`, as if unhandled: the parent sees the signal.
void die_by(int sig) {
    remove_all_pending_files();
    ::signal(sig, SIG_DFL);
    ::raise(sig);
    ::_exit(128 + sig);
}

void on_alarm(int) {
    const int sig = stop_request().load();
    die_by(sig ? sig : SIGTERM);
}

void on_stop_signal(int sig) {
    remove_all_pending_files();
    if (stop_request().exchange(sig) != 0) die_by(sig);  // the second one
    ::alarm(kGraceSeconds);
}

}  // namespace

void install_interrupt_handlers() {
    struct sigaction action {};
    sigemptyset(&action.sa_mask);
    action.sa_handler = on_stop_signal;
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        // A signal ignored when the tool starts stays ignored: nohup's SIGHUP, a shell's SIGINT
        // for a background job.
        struct sigaction was {};
        if (::sigaction(sig, nullptr, &was) == 0 && was.sa_handler == SIG_IGN) continue;
        ::sigaction(sig, &action, nullptr);
    }
    action.sa_handler = on_alarm;
    ::sigaction(SIGALRM, &action, nullptr);
    ::signal(SIGXFSZ, SIG_IGN);
}

}  // namespace bake
