// The process's end, through the real binary with its stdout and stderr on pipes and a second copy
// of the stderr pipe inherited at descriptor 5 (as a library's copy of stderr would be): both
// pipes reach their end, every line arrives, and the exit code and outputs are those of the run,
// for a bake and for a refused input.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "cli_runner.h"
#include "errors.h"
#include "test_support.h"

using namespace bake;
using namespace bake::test;

namespace {

struct PipedRun {
    int exit_code = -1;
    std::string out, err;
};

// Runs the binary with `args`, stdout and stderr on pipes (stderr's also at descriptor 5), and
// reads both to their end before waiting for it.
PipedRun run_piped(const std::vector<std::string>& args) {
    int out[2], err[2];
    REQUIRE(::pipe(out) == 0);
    REQUIRE(::pipe(err) == 0);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::dup2(out[1], 1);
        ::dup2(err[1], 2);
        ::dup2(err[1], 5);
        for (int fd : {out[0], out[1], err[0], err[1]})
            if (fd > 5 || fd == 3 || fd == 4) ::close(fd);
        const int null = ::open("/dev/null", O_RDONLY);
        ::dup2(null, 0);
        std::vector<char*> argv{const_cast<char*>(BAKE_CLI_PATH)};
        for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(BAKE_CLI_PATH, argv.data());
        ::_exit(127);
    }
    ::close(out[1]);
    ::close(err[1]);
    PipedRun r;
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    int open_pipes = 2;
    while (open_pipes > 0) {
        REQUIRE(::poll(fds, 2, -1) > 0);
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
            char buf[4096];
            const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
            if (n > 0) {
                (i == 0 ? r.out : r.err).append(buf, static_cast<std::size_t>(n));
            } else {
                ::close(fds[i].fd);
                fds[i].fd = -1;
                --open_pipes;
            }
        }
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

}  // namespace

TEST_CASE("CLI exit: through pipes, with a copy of stderr held, every line, the exit code and the outputs arrive",
          "[cli][exit]") {
    const std::string dir = scratch("exit_piped");
    const std::string json = dir + "/sky.json";
    const PipedRun ok = run_piped({kSample, "-o", json, "--device", "cpu", "--timings", "--warn-error", "1e300"});
    CHECK(ok.exit_code == kExitOk);
    CHECK(ok.err.empty());
    CHECK(ok.out.rfind("timings ", 0) == 0);  // the whole line, ended
    CHECK(ok.out.back() == '\n');
    // The coefficients file is whole: it parses, 9 coefficients of radiance.
    CHECK(read_json(json)["radiance"].size() == 9);

    const PipedRun refused = run_piped({"no_such_input.hdr", "-o", dir + "/none.json", "--device", "cpu"});
    CHECK(refused.exit_code == kExitInput);
    CHECK(line_count(refused.err) == 1);
    CHECK(refused.err.find("no_such_input.hdr") != std::string::npos);
    CHECK(refused.out.empty());
}
