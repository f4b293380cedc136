#include "detached_exit.h"

#include <csignal>
#include <cstdlib>
#include <cstring>

#include <dirent.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "trace.h"

namespace bake {
namespace {

alignas(64) char helper_stack[16 * 1024];
long exiting_pid = 0;

// The helper runs on its own small stack in the process's memory, with the exiting thread's
// thread pointer: it makes raw system calls only and touches no libc state.
int hold_until_parent_ends(void*) {
    syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0L, 0L, 0L);
    if (syscall(SYS_getppid) != exiting_pid) syscall(SYS_exit, 0);  // it ended before the prctl
    for (;;) syscall(SYS_pause);
}

// Closes standard input, output and error, and every other descriptor of the same pipe, socket
// or file (a library's copy of stderr: with only 0-2 closed, a pipe on stderr still ended ~30 ms
// after the exit on the GPU machine, when the helper released the table).
void close_standard_streams() {
    struct stat standard[3];
    bool open[3];
    for (int i = 0; i < 3; ++i) open[i] = fstat(i, &standard[i]) == 0 && !S_ISCHR(standard[i].st_mode);
    if (DIR* dir = opendir("/proc/self/fd")) {
        const int own = dirfd(dir);
        while (const dirent* entry = readdir(dir)) {
            char* end = nullptr;
            const long fd = std::strtol(entry->d_name, &end, 10);
            struct stat st;
            if (*end != '\0' || fd <= 2 || fd == own || fstat(static_cast<int>(fd), &st) != 0) continue;
            for (int i = 0; i < 3; ++i)
                if (open[i] && st.st_dev == standard[i].st_dev && st.st_ino == standard[i].st_ino) {
                    close(static_cast<int>(fd));
                    break;
                }
        }
        closedir(dir);
    }
    close(STDIN_FILENO);
    close(STDOUT_FILENO);
    close(STDERR_FILENO);
}

}  // namespace

void exit_detached(int code) {
    const char* off = std::getenv("BAKE_DETACHED_EXIT");
    if (!(off && std::strcmp(off, "0") == 0)) {
        // Every signal blocked from here: the helper starts with this mask (SIGKILL still ends
        // it), and the interrupt handlers have nothing left to remove.
        sigset_t all;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, nullptr);
        exiting_pid = static_cast<long>(getpid());
        const int pid = clone(hold_until_parent_ends, helper_stack + sizeof helper_stack, CLONE_VM | CLONE_FILES | SIGCHLD, nullptr);
        if (pid > 0) {
            trace_event("exit: release left to a helper");
            close_standard_streams();
        }
    }
    std::_Exit(code);
}

}  // namespace bake
