// Running and timing whole processes for bake-bench's `--whole-process` section: fork + execv (no
// shell), stdout/stderr to files, wall time around fork..wait4, peak RSS from wait4's rusage; a
// Command (one process, or several whose times add up) and the Runner that measures commands
// interleaved. Also the few text and machine
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

    bool ok() const { return na.empty() && !failed && !seconds.empty(); }
    double med() const { return median(seconds); }
    double min() const;
    double peak() const;
    nlohmann::json json() const;
};

struct Runner {
    std::string work, logs;

    // One run of every process of `c`; false (and `c` marked failed) on a non-zero exit.
    bool once(Command& c, double* seconds, double* peak);

    // One untimed warm-up of each (page cache, program binary cache), then `repeats` rounds, the
    // commands interleaved so that drift of the machine falls on all of them alike.
    void measure(std::vector<Command*> cmds, int repeats);
};

}  // namespace bench
