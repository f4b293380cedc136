// Whole processes, timed as a user runs them: fork + execv (no shell), stdout/stderr to files,
// steady_clock around fork..wait4, the child's peak RSS from wait4's rusage.
#include "process_runner.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace bench {

namespace fs = std::filesystem;
using Json = nlohmann::json;

void say(const std::string& s) {
    std::fputs(s.c_str(), stdout);
    std::fflush(stdout);
}

bool is_executable(const std::string& p) {
    struct stat st {};
    return !p.empty() && ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

std::string read_text(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::vector<std::string> lines_of(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);)
        if (!l.empty()) out.push_back(l);
    return out;
}

std::string first_line(const std::string& path, const char* none) {
    const auto l = lines_of(read_text(path));
    return l.empty() ? std::string(none) : l.front();
}

std::string next_to_self(const std::string& name) {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return name;
    for (const fs::path& d : {self.parent_path(), self.parent_path().parent_path()})
        if (is_executable((d / name).string())) return (d / name).string();
    return (self.parent_path() / name).string();
}

std::string cpu_model() {
    for (const auto& l : lines_of(read_text("/proc/cpuinfo")))
        if (l.rfind("model name", 0) == 0 && l.find(':') != std::string::npos) return l.substr(l.find(':') + 2);
    return "unknown";
}

double load_average() {
    double l = NAN;
    std::sscanf(read_text("/proc/loadavg").c_str(), "%lf", &l);
    return l;
}

double mem_total_gb() {
    long kb = 0;
    for (const auto& l : lines_of(read_text("/proc/meminfo")))
        if (std::sscanf(l.c_str(), "MemTotal: %ld kB", &kb) == 1) break;
    return static_cast<double>(kb) * 1024 / 1e9;
}

RunResult run_process(const std::vector<std::string>& argv, const std::string& cwd, const std::string& out_path,
                      const std::string& err_path) {
    // Everything the child needs is built before fork: it only opens, dups and execs.
    std::vector<char*> cargv;
    for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
    cargv.push_back(nullptr);
    RunResult r;
    const auto t0 = Clock::now();
    const pid_t pid = ::fork();
    if (pid < 0) {
        std::fprintf(stderr, "bake-bench: fork failed: %s\n", std::strerror(errno));
        return r;
    }
    if (pid == 0) {
        const int in = ::open("/dev/null", O_RDONLY);
        const int o = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int e = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || o < 0 || e < 0 || ::chdir(cwd.c_str()) != 0) ::_exit(126);
        ::dup2(in, 0);
        ::dup2(o, 1);
        ::dup2(e, 2);
        ::execv(cargv[0], cargv.data());
        const char* msg = "bake-bench: execv failed: ";
        (void)!::write(2, msg, std::strlen(msg));
        (void)!::write(2, std::strerror(errno), std::strlen(std::strerror(errno)));
        (void)!::write(2, "\n", 1);
        ::_exit(127);
    }
    int status = 0;
    struct rusage ru {};
    while (::wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
    }
    r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    r.peak_mb = static_cast<double>(ru.ru_maxrss) * 1024.0 / 1e6;  // Linux: KiB
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

double Command::min() const { return seconds.empty() ? NAN : *std::min_element(seconds.begin(), seconds.end()); }

double Command::max() const { return seconds.empty() ? NAN : *std::max_element(seconds.begin(), seconds.end()); }

double Command::peak() const { return peak_mb.empty() ? NAN : *std::max_element(peak_mb.begin(), peak_mb.end()); }

Json Command::json() const {
    Json j;
    j["status"] = !na.empty() ? "n/a" : failed ? "FAILED" : "ok";
    j["na_reason"] = na.empty() ? Json() : Json(na);
    j["exit_code"] = failed ? Json(exit_code) : Json();
    j["error"] = failed ? Json(error) : Json();
    j["argv"] = processes.empty() ? Json() : Json(processes.front());  // the first, for several
    j["processes"] = processes.size();
    j["seconds"] = seconds;
    j["median_s"] = ok() ? Json(med()) : Json();
    j["min_s"] = ok() ? Json(min()) : Json();
    j["max_s"] = ok() ? Json(max()) : Json();
    j["runs"] = seconds.size();
    j["runs_asked"] = asked;
    j["runs_wanted"] = wanted;
    j["warm_up"] = warm_up;
    j["skipped"] = skipped.empty() ? Json() : Json(skipped);
    j["peak_rss_mb"] = ok() ? Json(peak()) : Json();
    return j;
}

bool Runner::once(Command& c, double* seconds, double* peak) {
    *seconds = 0;
    *peak = 0;
    const std::string out = logs + "/" + c.label + ".out", err = logs + "/" + c.label + ".err";
    for (const auto& p : c.processes) {
        const RunResult r = run_process(p, work, out, err);
        *seconds += r.seconds;
        *peak = std::max(*peak, r.peak_mb);
        if (r.exit_code != 0) {
            c.failed = true;
            c.exit_code = r.exit_code;
            c.error = first_line(err);
            c.last_s = *seconds;
            return false;
        }
    }
    c.last_s = *seconds;
    return true;
}

double Runner::left() const {
    if (deadline == Clock::time_point{}) return 1e9;
    return std::chrono::duration<double>(deadline - Clock::now()).count();
}

bool Runner::fits(Command& c) {
    const double expected = c.last_s > 0 ? c.last_s : c.expect_s;
    if (expected <= left()) return true;
    if (c.skipped.empty()) {
        c.skipped = fmt("time budget: %.0f s left", std::max(0.0, left())) +
                    (expected > 0 ? fmt(", a run takes ~%.0f s", expected) : "");
        say(fmt("  %-36s skipped (%s)\n", c.label.c_str(), c.skipped.c_str()));
    }
    return false;
}

void Runner::measure(std::vector<Command*> cmds, int repeats) {
    double s = 0, p = 0;
    for (Command* c : cmds) {
        c->asked = c->wanted = repeats;
        if (!c->na.empty() || !c->warm_up || !fits(*c)) continue;
        say(fmt("  warm-up %-28s", c->label.c_str()));
        const bool ok = once(*c, &s, &p);
        say(ok ? fmt(" %8.3f s\n", s) : fmt(" FAILED (exit %d): %s\n", c->exit_code, c->error.c_str()));
        if (cap_s > 0 && s > 0) c->wanted = std::min(repeats, std::max(1, static_cast<int>(cap_s / s)));
    }
    for (int r = 0; r < repeats; ++r)
        for (Command* c : cmds) {
            if (!c->na.empty() || c->failed || !c->skipped.empty()) continue;
            if (static_cast<int>(c->seconds.size()) >= c->wanted || !fits(*c)) continue;
            if (once(*c, &s, &p)) {
                c->seconds.push_back(s);
                c->peak_mb.push_back(p);
                if (!c->warm_up && c->seconds.size() == 1 && cap_s > 0)
                    c->wanted = std::min(repeats, std::max(1, static_cast<int>(cap_s / s)));
                say(fmt("  run %d/%d %-28s %8.3f s  peak %7.1f MB\n", r + 1, c->wanted, c->label.c_str(), s, p));
            } else {
                say(fmt("  run %d/%d %-28s FAILED (exit %d): %s\n", r + 1, c->wanted, c->label.c_str(), c->exit_code,
                        c->error.c_str()));
            }
        }
}

}  // namespace bench
