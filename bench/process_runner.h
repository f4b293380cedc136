// Running and timing whole processes for bake-bench's `--whole-process` section: fork + execv (no
// shell), stdout/stderr to files, wall time around fork..wait4, peak RSS from wait4's rusage; a
// Command (one process, or several whose times add up) and the Runner that measures commands
// interleaved, within a time cap per command and a deadline for the whole section. Also the few text and machine
// helpers the section's tables use. Times in seconds, memory in MB (10^6 bytes).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_support.h"

namespace bench {

// Printed at once (the device reply keeps what was printed before a kill).
void say(const std::string& s);

template <typename... A>
std::string fmt(const char* f, A... a) {
    char buf[1024];
    std::snprintf(buf, sizeof buf, f, a...);
    return buf;
}

bool is_executable(const std::string& path);
std::string read_text(const std::string& path);
std::vector<std::string> lines_of(const std::string& s);  // the non-empty lines
std::string first_line(const std::string& path, const char* none = "(nothing on stderr)");

// bake-irradiance and make-sample-sky are looked up next to bake-bench, then one folder up
// (the build tree puts bake-bench in build/bench/, a packed devrun folder puts all side by side).
std::string next_to_self(const std::string& name);

std::string cpu_model();
double load_average();  // 1-minute: on a shared machine, what else ran beside the measured processes
double mem_total_gb();

struct RunResult {
    int exit_code = -1;  // 128 + signal when killed
    double seconds = 0;
    double peak_mb = 0;  // ru_maxrss
};

// One process, stdin /dev/null, stdout and stderr to the given files, in `cwd`.
RunResult run_process(const std::vector<std::string>& argv, const std::string& cwd, const std::string& out_path,
                      const std::string& err_path);

// One measured command: one process, or several run one after another (cmgen over a batch,
// one process per map) whose times add up.
struct Command {
    Command() = default;
    Command(std::string l, std::vector<std::vector<std::string>> p) : label(std::move(l)), processes(std::move(p)) {}
    std::string label;  // also the log files' name
    std::vector<std::vector<std::string>> processes;
    std::string na;       // why not run ("" = run it)
    bool failed = false;
    int exit_code = 0;
    std::string error;  // stderr's first line of the failing run
    std::vector<double> seconds, peak_mb;
    bool warm_up = true;  // one untimed run first (false: its inputs and caches were warmed by earlier commands)
    double expect_s = 0;  // expected seconds of one run before any ran (for the deadline; 0: unknown)
    int asked = 0;        // timed runs asked for (the section's repeats)
    int wanted = 0;       // timed runs to make: `asked`, or fewer within the runner's cap
    std::string skipped;  // why runs were left out ("" = none): the section's deadline

    bool ok() const { return na.empty() && !failed && !seconds.empty(); }
    double med() const { return median(seconds); }
    double min() const;
    double max() const;
    double peak() const;
    double last_s = 0;  // the latest run, warm-up included (0: none)
    nlohmann::json json() const;
};

struct Runner {
    std::string work, logs;
    // No run starts that is expected (its command's latest run, or expect_s) to end after this
    // steady-clock time; the epoch (default): none.
    Clock::time_point deadline{};
    // A command whose first run (the warm-up, or the first timed run) takes t seconds gets
    // min(repeats, max(1, cap_s / t)) timed runs: a batch of 20 specular bakes on the CPU path runs
    // once where a 0.1 s bake runs `repeats` times. 0: no cap.
    double cap_s = 0;

    // One run of every process of `c`; false (and `c` marked failed) on a non-zero exit.
    bool once(Command& c, double* seconds, double* peak);

    // One untimed warm-up of each (page cache, program binary cache) unless c->warm_up is false,
    // then `repeats` rounds, the commands interleaved so that drift of the machine falls on all of
    // them alike. A command whose next run would pass the deadline keeps what it has (c->skipped).
    void measure(std::vector<Command*> cmds, int repeats);

    // Seconds left before the deadline (1e9 without one).
    double left() const;

private:
    bool fits(Command& c);
};

}  // namespace bench
