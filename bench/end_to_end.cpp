// Whole-process timings: what a user waits for, process start, GL context, decode and all.
// Every run is fork + execv (no shell), stdout/stderr to files, timed around fork..wait4, with
// the child's peak RSS from wait4's rusage.
#include "end_to_end.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;


void say(const std::string& s) {
    std::fputs(s.c_str(), stdout);
    std::fflush(stdout);
}

template <typename... A>
std::string fmt(const char* f, A... a) {
    char buf[1024];
    std::snprintf(buf, sizeof buf, f, a...);
    return buf;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n == 0 ? NAN : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
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

std::string first_line(const std::string& path, const char* none = "(nothing on stderr)") {
    const auto l = lines_of(read_text(path));
    return l.empty() ? std::string(none) : l.front();
}

// bake-irradiance and make-sample-sky are looked up next to bake-bench, then one folder up
// (the build tree puts bake-bench in build/bench/, a packed devrun folder puts all side by side).
std::string next_to_self(const std::string& name) {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return name;
    for (const fs::path& d : {self.parent_path(), self.parent_path().parent_path()})
        if (is_executable((d / name).string())) return (d / name).string();
    return (self.parent_path() / name).string();
}

// ---- Running one process --------------------------------------------------------------------

struct RunResult {
    int exit_code = -1;  // 128 + signal when killed
    double seconds = 0;
    double peak_mb = 0;  // ru_maxrss, 10^6 bytes
};

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

// ---- Commands and their measurements ---------------------------------------------------------

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
    double min() const { return seconds.empty() ? NAN : *std::min_element(seconds.begin(), seconds.end()); }
    double peak() const { return peak_mb.empty() ? NAN : *std::max_element(peak_mb.begin(), peak_mb.end()); }
    Json json() const {
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
        j["peak_rss_mb"] = ok() ? Json(peak()) : Json();
        return j;
    }
};

struct Runner {
    std::string work, logs;

    // One run of every process of `c`; false (and `c` marked failed) on a non-zero exit.
    bool once(Command& c, double* seconds, double* peak) {
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
                return false;
            }
        }
        return true;
    }

    // One untimed warm-up of each (page cache, program binary cache), then `repeats` rounds, the
    // commands interleaved so that drift of the machine falls on all of them alike.
    void measure(std::vector<Command*> cmds, int repeats) {
        double s = 0, p = 0;
        for (Command* c : cmds)
            if (c->na.empty()) {
                say(fmt("  warm-up %-28s", c->label.c_str()));
                const bool ok = once(*c, &s, &p);
                say(ok ? fmt(" %8.3f s\n", s) : fmt(" FAILED (exit %d): %s\n", c->exit_code, c->error.c_str()));
            }
        for (int r = 0; r < repeats; ++r)
            for (Command* c : cmds) {
                if (!c->na.empty() || c->failed) continue;
                if (once(*c, &s, &p)) {
                    c->seconds.push_back(s);
                    c->peak_mb.push_back(p);
                    say(fmt("  run %d/%d %-28s %8.3f s  peak %7.1f MB\n", r + 1, repeats, c->label.c_str(), s, p));
                } else {
                    say(fmt("  run %d/%d %-28s FAILED (exit %d): %s\n", r + 1, repeats, c->label.c_str(),
                            c->exit_code, c->error.c_str()));
                }
            }
    }
};

// ---- Inputs --------------------------------------------------------------------------------

struct Input {
    std::string label;  // "8192x4096 half DWAB .exr"
    std::string path;
    int width = 0;
    bool exr = false;  // half DWAB
    int variant = 0;
    double grain = 0;
    bool present = false;
};

struct Header {
    int width = 0, height = 0;
    bool half_dwab = false;
};

// Width and height from the file's own header (Radiance resolution line, EXR dataWindow), and
// whether an EXR is half DWAB: enough to know a generated input is the one asked for.
Header read_header(const std::string& path) {
    Header h;
    std::ifstream f(path, std::ios::binary);
    std::vector<char> buf(65536);
    f.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const size_t n = static_cast<size_t>(f.gcount());
    if (n >= 4 && static_cast<unsigned char>(buf[0]) == 0x76 && buf[1] == 0x2f && buf[2] == 0x31 && buf[3] == 0x01) {
        size_t p = 8;
        auto cstr = [&](std::string* s) {
            s->clear();
            while (p < n && buf[p]) s->push_back(buf[p++]);
            return p++ < n;
        };
        auto i32 = [&](size_t at) {
            int32_t v = 0;
            if (at + 4 <= n) std::memcpy(&v, &buf[at], 4);
            return v;
        };
        bool dwab = false, all_half = true;
        std::string name, type;
        while (cstr(&name) && !name.empty() && cstr(&type) && p + 4 <= n) {
            const size_t size = static_cast<size_t>(i32(p)), v = p + 4;
            if (name == "dataWindow" && size == 16) {
                h.width = i32(v + 8) - i32(v) + 1;
                h.height = i32(v + 12) - i32(v + 4) + 1;
            } else if (name == "compression" && size == 1 && v < n) {
                dwab = buf[v] == 9;  // DWAB_COMPRESSION
            } else if (name == "channels") {
                for (size_t q = v; q < v + size && q < n && buf[q];) {
                    while (q < n && buf[q]) ++q;
                    all_half = all_half && i32(q + 1) == 1;  // HALF
                    q += 1 + 16;
                }
            }
            p = v + size;
        }
        h.half_dwab = dwab && all_half;
        return h;
    }
    // Radiance: header lines, a blank line, then "-Y H +X W".
    std::istringstream in(std::string(buf.data(), n));
    std::string line;
    bool blank = false;
    while (std::getline(in, line)) {
        if (blank) {
            std::sscanf(line.c_str(), "-Y %d +X %d", &h.height, &h.width);
            break;
        }
        blank = line.empty();
    }
    return h;
}

bool input_ok(const Input& in) {
    if (!fs::exists(in.path)) return false;
    const Header h = read_header(in.path);
    return h.width == in.width && h.height == in.width / 2 && h.half_dwab == in.exr;
}

// Generated once into DIR (through a temporary name, so a file there is always complete).
void ensure_input(Input& in, const std::string& sky_tool, bool sky_ok, Runner& run) {
    // The header cannot tell variant or grain: the file name carries them.
    in.present = input_ok(in);
    if (in.present || !sky_ok) return;
    const fs::path final_path(in.path);
    const std::string tmp = (final_path.parent_path() / ("partial-" + final_path.filename().string())).string();
    std::vector<std::string> argv{sky_tool, tmp, "--width", std::to_string(in.width)};
    if (in.exr) argv.insert(argv.end(), {"--half", "--compression", "dwab"});
    if (in.variant > 0) argv.insert(argv.end(), {"--variant", std::to_string(in.variant)});
    if (in.grain > 0) argv.insert(argv.end(), {"--grain", fmt("%g", in.grain)});
    const std::string out = run.logs + "/make-sample-sky.out", err = run.logs + "/make-sample-sky.err";
    const RunResult r = run_process(argv, run.work, out, err);
    std::error_code ec;
    if (r.exit_code == 0) fs::rename(tmp, in.path, ec);
    in.present = r.exit_code == 0 && !ec && input_ok(in);
    say(in.present ? fmt("  generated %s (%s) in %.2f s\n", in.path.c_str(), in.label.c_str(), r.seconds)
                   : fmt("  could not generate %s (exit %d): %s\n", in.path.c_str(), r.exit_code,
                         first_line(err).c_str()));
}

// ---- Results -------------------------------------------------------------------------------

// Radiance coefficients of a bake-irradiance JSON ([k][channel]); empty when unreadable.
std::vector<double> radiance_of(const std::string& path) {
    std::vector<double> v;
    try {
        const Json j = Json::parse(read_text(path));
        for (const auto& k : j.at("radiance"))
            for (const auto& c : k) v.push_back(c.get<double>());
    } catch (const std::exception&) {
        v.clear();
    }
    return v;
}

// max |a - b| / max |b|: the gpu/cpu agreement measure (b = the CPU double path). NaN if unreadable.
double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.empty() || a.size() != b.size()) return NAN;
    double d = 0, m = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        d = std::max(d, std::fabs(a[i] - b[i]));
        m = std::max(m, std::fabs(b[i]));
    }
    return m > 0 ? d / m : NAN;
}

// cmgen --sh-output: lines "( r, g, b); // L00". Its L00 over ours, per channel: only a loose
// check (cmgen resamples to a cube map first and its normalization may differ).
std::vector<double> cmgen_l00(const std::string& path) {
    for (const auto& l : lines_of(read_text(path))) {
        double r, g, b;
        if (l.find("L00") != std::string::npos && std::sscanf(l.c_str(), " ( %lf , %lf , %lf", &r, &g, &b) == 3)
            return {r, g, b};
    }
    return {};
}

// Stage times of one input from a --report JSON (ms, null for stages not run).
Json stages_of_report(const std::string& path) {
    try {
        const Json j = Json::parse(read_text(path));
        return j.at("files").at(0).at("timings_ms");
    } catch (const std::exception&) {
        return Json();
    }
}

std::string cpu_model() {
    for (const auto& l : lines_of(read_text("/proc/cpuinfo")))
        if (l.rfind("model name", 0) == 0 && l.find(':') != std::string::npos) return l.substr(l.find(':') + 2);
    return "unknown";
}

// 1-minute load average: on a shared machine, what else ran beside the measured processes.
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

std::string cell_time(const Command& c) {
    if (!c.na.empty()) return c.na == "input missing" || c.na == "batch inputs missing" ? "input missing" : "n/a";
    if (c.failed) return fmt("FAILED exit %d", c.exit_code);
    return c.ok() ? fmt("%.3f (%.3f)", c.med(), c.min()) : "-";
}

std::string cell_ratio(const Command& num, const Command& den) {
    return num.ok() && den.ok() ? fmt("%.2fx", num.med() / den.med()) : "-";
}

std::string cell_mb(const Command& c) { return c.ok() ? fmt("%.0f", c.peak()) : "-"; }

std::string cell_agree(double rel) {
    if (std::isnan(rel)) return "-";
    return fmt("%s %.1e", rel < 1e-4 ? "yes" : "NO", rel);
}

// The failures of a table, each with its stderr's first line, after the table.
std::string failure_lines(const std::vector<const Command*>& cmds) {
    std::string s;
    for (const Command* c : cmds)
        if (c->failed) s += fmt("  FAILED %s: exit %d: %s\n", c->label.c_str(), c->exit_code, c->error.c_str());
    return s;
}

}  // namespace

int run_whole_process(const WholeProcessOptions& opt, Json* out) {
    Json& J = *out;
    std::error_code ec;
    const fs::path dir = fs::absolute(opt.dir);
    Runner run{(dir / "work").string(), (dir / "logs").string()};
    for (const char* sub : {"work", "logs", "out"}) fs::create_directories(dir / sub, ec);
    if (!fs::is_directory(dir / "out")) {
        std::fprintf(stderr, "bake-bench: cannot create the scratch folder %s\n", dir.c_str());
        return 2;
    }
    const std::string tool = opt.tool.empty() ? next_to_self("bake-irradiance") : fs::absolute(opt.tool).string();
    const std::string sky = opt.sky_tool.empty() ? next_to_self("make-sample-sky") : fs::absolute(opt.sky_tool).string();
    const std::string cmgen = opt.cmgen.empty() ? "/usr/bin/cmgen" : fs::absolute(opt.cmgen).string();
    if (!is_executable(tool)) {
        std::fprintf(stderr, "bake-bench: bake-irradiance not found at %s (give --tool PATH)\n", tool.c_str());
        return 2;
    }
    const bool sky_ok = is_executable(sky);
    const bool cmgen_ok = is_executable(cmgen);
    std::string notes;
    if (!sky_ok)
        notes += fmt("make-sample-sky not found at %s (--sky-tool PATH): only inputs already in %s are used\n",
                     sky.c_str(), dir.c_str());
    if (!cmgen_ok) notes += fmt("cmgen not found at %s (--cmgen PATH): no cmgen column\n", cmgen.c_str());
    say(notes);

    // What the CLI offers (so that an older or newer binary is measured with what it has).
    const std::string help_out = run.logs + "/help.out";
    run_process({tool, "--help"}, run.work, help_out, run.logs + "/help.err");
    const std::string help = read_text(help_out);
    const bool has_jobs = help.find("--jobs") != std::string::npos;
    const bool has_timings = help.find("--timings") != std::string::npos;
    const bool has_report = help.find("--report") != std::string::npos;
    run_process({tool, "--version"}, run.work, run.logs + "/version.out", run.logs + "/version.err");
    const std::string version = first_line(run.logs + "/version.out", "(no --version)");

    // ---- Inputs, generated once -----------------------------------------------------------
    // Without grain a generated .hdr is mostly RLE runs (4096x2048: 1 MB against 24 MB with
    // grain 0.02, as dense as a real map), far faster to decode than what users bake.
    double grain = opt.grain;
    if (sky_ok && grain > 0) {
        run_process({sky, "--help"}, run.work, run.logs + "/sky-help.out", run.logs + "/sky-help.err");
        if ((read_text(run.logs + "/sky-help.out") + read_text(run.logs + "/sky-help.err")).find("--grain") ==
            std::string::npos) {
            const std::string n = "make-sample-sky has no --grain: inputs without grain (mostly RLE runs)\n";
            notes += n;
            say(n);
            grain = 0;
        }
    }
    const std::string gtag = grain > 0 ? fmt("-grain%g", grain) : "";
    const int batch_count = opt.quick ? 4 : 20, batch_width = opt.quick ? 1024 : 4096;
    const std::vector<std::pair<int, bool>> singles =
        opt.quick ? std::vector<std::pair<int, bool>>{{1024, false}, {2048, false}, {2048, true}}
                  : std::vector<std::pair<int, bool>>{{2048, false}, {4096, false}, {8192, false}, {8192, true}};
    std::vector<Input> inputs;
    for (const auto& [w, exr] : singles) {
        Input in;
        in.width = w;
        in.exr = exr;
        in.grain = grain;
        in.label = fmt("%dx%d %s", w, w / 2, exr ? "half DWAB .exr" : ".hdr");
        in.path = (dir / (fmt("sky-%d", w) + gtag + (exr ? "-half-dwab.exr" : ".hdr"))).string();
        inputs.push_back(in);
    }
    const fs::path batch_dir = dir / (fmt("batch-%dx%d-%d", batch_width, batch_width / 2, batch_count) + gtag);
    fs::create_directories(batch_dir, ec);
    std::vector<Input> batch;
    for (int k = 1; k <= batch_count; ++k) {
        Input in;
        in.width = batch_width;
        in.variant = k;
        in.grain = grain;
        in.label = fmt("%dx%d .hdr variant %d", batch_width, batch_width / 2, k);
        in.path = (batch_dir / fmt("sky-v%02d.hdr", k)).string();
        batch.push_back(in);
    }
    say(fmt("\nwhole process: inputs in %s (make-sample-sky --grain %g)\n", dir.c_str(), grain));
    for (Input& in : inputs) ensure_input(in, sky, sky_ok, run);
    for (Input& in : batch) ensure_input(in, sky, sky_ok, run);

    // ---- The machine ----------------------------------------------------------------------
    cpu_set_t set;
    CPU_ZERO(&set);
    const int affinity = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
    Json machine{{"nproc", affinity}, {"online_cpus", sysconf(_SC_NPROCESSORS_ONLN)}, {"cpu_model", cpu_model()},
                 {"mem_total_gb", mem_total_gb()}, {"tool", tool}, {"tool_version", version},
                 {"sky_tool", sky_ok ? Json(sky) : Json()}, {"cmgen", cmgen_ok ? Json(cmgen) : Json()}};
    std::string renderer_line = "(no GPU context reported)";
    for (const Input& in : inputs) {
        if (!in.present) continue;
        // --verbose names the context and renderer on stderr (one untimed run).
        const std::string err = run.logs + "/verbose.err";
        run_process({tool, in.path, "--device", "gpu", "--verbose", "-o", (dir / "out/verbose.json").string()},
                    run.work, run.logs + "/verbose.out", err);
        for (const auto& l : lines_of(read_text(err)))
            if (l.find("OpenGL context") != std::string::npos) renderer_line = l;
        break;
    }
    machine["gpu"] = renderer_line;
    // A forked child's ru_maxrss starts from this process's resident set (the copied address
    // space, until execv): the floor under every peak below, a few MB.
    struct rusage self {};
    ::getrusage(RUSAGE_SELF, &self);
    machine["bench_rss_mb"] = static_cast<double>(self.ru_maxrss) * 1024.0 / 1e6;
    J["machine"] = machine;
    J["repeats"] = opt.repeats;
    J["quick"] = opt.quick;
    J["grain"] = grain;
    J["dir"] = dir.string();
    J["notes"] = notes;
    const double load_start = load_average();
    machine["load_average_start"] = load_start;
    std::string head = fmt("machine: %d CPUs (nproc), %s, %.0f GB RAM\ngpu: %s\ntool: %s (%s)\n", affinity,
                           cpu_model().c_str(), mem_total_gb(), renderer_line.c_str(), tool.c_str(), version.c_str());
    say(head);

    // ---- Single inputs --------------------------------------------------------------------
    struct Row {
        Input in;
        Command gpu, cpu, cm;
        double agree = NAN;
        std::vector<double> l00_ratio;
        Json timings;
    };
    std::vector<Row> rows;
    for (const Input& in : inputs) {
        Row row;
        row.in = in;
        const std::string stem = fs::path(in.path).stem().string();
        const std::string gj = (dir / "out" / (stem + ".gpu.json")).string();
        const std::string cj = (dir / "out" / (stem + ".cpu.json")).string();
        const std::string ct = (dir / "out" / (stem + ".cmgen.txt")).string();
        row.gpu = {stem + ".gpu", {{tool, in.path, "--device", "gpu", "--order", "3", "-o", gj}}};
        row.cpu = {stem + ".cpu", {{tool, in.path, "--device", "cpu", "--order", "3", "-o", cj}}};
        row.cm = {stem + ".cmgen", {{cmgen, "-q", "--sh=3", "--sh-output=" + ct, in.path}}};
        if (!in.present) row.gpu.na = row.cpu.na = row.cm.na = "input missing";
        if (!cmgen_ok) row.cm.na = "cmgen not found";
        else if (in.exr) row.cm.na = "cmgen cannot read DWAB EXR";
        if (in.present) {
            say(fmt("\n%s (%s):\n", in.label.c_str(), in.path.c_str()));
            fs::remove(gj, ec);
            fs::remove(cj, ec);
            fs::remove(ct, ec);
            run.measure({&row.gpu, &row.cpu, &row.cm}, opt.repeats);
            if (row.gpu.ok() && row.cpu.ok()) row.agree = rel_diff(radiance_of(gj), radiance_of(cj));
            const std::vector<double> ours = radiance_of(cj), theirs = cmgen_l00(ct);
            if (row.cm.ok() && ours.size() >= 3 && theirs.size() == 3)
                for (int c = 0; c < 3; ++c) row.l00_ratio.push_back(theirs[c] / ours[c]);
            // Stage times, one more run each path (stdout's line, and the report's numbers).
            if (has_timings)
                for (const char* dev : {"gpu", "cpu"}) {
                    const std::string rep = (dir / "out" / (stem + "." + dev + ".report.json")).string();
                    std::vector<std::string> argv{tool, in.path, "--device", dev, "--order", "3", "--timings",
                                                  "-o", (dir / "out" / (stem + ".timings.json")).string()};
                    if (has_report) argv.insert(argv.end(), {"--report", rep});
                    const std::string o = run.logs + "/" + stem + "." + dev + ".timings.out";
                    const std::string e = run.logs + "/" + stem + "." + dev + ".timings.err";
                    const RunResult r = run_process(argv, run.work, o, e);
                    std::vector<std::string> lines;
                    for (const auto& l : lines_of(read_text(o)))
                        if (l.rfind("timings", 0) == 0) lines.push_back(l);
                    for (const auto& l : lines_of(read_text(e))) lines.push_back(l);  // notices, if any
                    row.timings[dev] = {{"exit_code", r.exit_code}, {"seconds", r.seconds}, {"lines", lines},
                                        {"stages_ms", has_report ? stages_of_report(rep) : Json()}};
                    for (const auto& l : lines) say("  " + std::string(dev) + ": " + l + "\n");
                }
        }
        rows.push_back(std::move(row));
    }

    char line[1024];
    std::string table = fmt("\nwhole process, one input per process, median (min) of %d after one warm-up; order 3, "
                            "coefficients JSON only; inputs: make-sample-sky --grain %g\n",
                            opt.repeats, grain);
    std::snprintf(line, sizeof line, "| %-24s | %-17s | %-17s | %-17s | %-9s | %-7s | %-11s | %-11s | %-10s | %-13s |\n",
                  "input", "gpu s", "cpu s", "cmgen s", "cmgen/gpu", "cpu/gpu", "gpu peak MB", "cpu peak MB",
                  "decoded MB", "gpu/cpu agree");
    table += line;
    table += "|--------------------------|-------------------|-------------------|-------------------|-----------|"
             "---------|-------------|-------------|------------|---------------|\n";
    std::vector<const Command*> all_cmds;
    Json jrows = Json::array();
    for (const Row& r : rows) {
        const double decoded_mb = static_cast<double>(r.in.width) * (r.in.width / 2) * 12 / 1e6;  // float RGB
        std::snprintf(line, sizeof line,
                      "| %-24s | %-17s | %-17s | %-17s | %-9s | %-7s | %-11s | %-11s | %-10.0f | %-13s |\n",
                      r.in.label.c_str(), cell_time(r.gpu).c_str(), cell_time(r.cpu).c_str(), cell_time(r.cm).c_str(),
                      cell_ratio(r.cm, r.gpu).c_str(), cell_ratio(r.cpu, r.gpu).c_str(), cell_mb(r.gpu).c_str(),
                      cell_mb(r.cpu).c_str(), decoded_mb, cell_agree(r.agree).c_str());
        table += line;
        all_cmds.insert(all_cmds.end(), {&r.gpu, &r.cpu, &r.cm});
        const double file_mb = r.in.present ? static_cast<double>(fs::file_size(r.in.path, ec)) / 1e6 : 0;
        jrows.push_back({{"input", r.in.label}, {"path", r.in.path}, {"present", r.in.present},
                         {"width", r.in.width}, {"height", r.in.width / 2}, {"file_mb", file_mb},
                         {"decoded_mb", decoded_mb}, {"gpu", r.gpu.json()}, {"cpu", r.cpu.json()},
                         {"cmgen", r.cm.json()},
                         {"cmgen_over_gpu", r.cm.ok() && r.gpu.ok() ? Json(r.cm.med() / r.gpu.med()) : Json()},
                         {"cpu_over_gpu", r.cpu.ok() && r.gpu.ok() ? Json(r.cpu.med() / r.gpu.med()) : Json()},
                         {"gpu_peak_over_decoded", r.gpu.ok() ? Json(r.gpu.peak() / decoded_mb) : Json()},
                         {"cpu_peak_over_decoded", r.cpu.ok() ? Json(r.cpu.peak() / decoded_mb) : Json()},
                         {"gpu_cpu_max_rel", std::isnan(r.agree) ? Json() : Json(r.agree)},
                         {"gpu_cpu_agree", std::isnan(r.agree) ? Json() : Json(r.agree < 1e-4)},
                         {"cmgen_l00_over_ours", r.l00_ratio}, {"timings", r.timings}});
    }
    table += failure_lines(all_cmds);
    table += "(decoded MB: width x height x 12 bytes, float RGB; peak MB: the process's maximum resident set; agree: "
             "max |gpu - cpu| / max |cpu| over the radiance coefficients, < 1e-4)\n";
    for (const Row& r : rows)
        if (r.l00_ratio.size() == 3)
            table += fmt("cmgen L00 / ours, %s: %.4f %.4f %.4f (r g b; cmgen resamples to a cube first)\n",
                         r.in.label.c_str(), r.l00_ratio[0], r.l00_ratio[1], r.l00_ratio[2]);
    for (const Row& r : rows)
        for (const char* dev : {"gpu", "cpu"})
            if (r.timings.contains(dev))
                for (const auto& l : r.timings[dev]["lines"])
                    table += fmt("%s --timings, %s: %s\n", dev, r.in.label.c_str(), l.get<std::string>().c_str());
    J["single"] = jrows;

    // ---- Batch ----------------------------------------------------------------------------
    std::vector<std::string> files;
    for (const Input& in : batch)
        if (in.present) files.push_back(in.path);
    std::vector<int> jobs{0};
    if (has_jobs) jobs = {0, 2, 4};
    std::vector<Command> bcmds;
    std::vector<std::string> out_dirs;
    for (const char* dev : {"gpu", "cpu"})
        for (int j : jobs) {
            const std::string label = fmt("batch.%s.jobs%d", dev, j);
            const std::string od = (dir / "out" / label).string();
            fs::remove_all(od, ec);
            fs::create_directories(od, ec);
            std::vector<std::string> argv{tool};
            argv.insert(argv.end(), files.begin(), files.end());
            argv.insert(argv.end(), {"--device", dev, "--order", "3", "--out-dir", od, "--name", "{stem}.json"});
            if (has_jobs) argv.insert(argv.end(), {"--jobs", std::to_string(j)});
            Command c{label, {argv}};
            if ((int)files.size() != batch_count) c.na = "batch inputs missing";
            bcmds.push_back(c);
            out_dirs.push_back(od);
        }
    Command bcm{"batch.cmgen.sequential", {}};
    const std::string cmo = (dir / "out/batch.cmgen").string();
    fs::create_directories(cmo, ec);
    for (const auto& f : files)
        bcm.processes.push_back({cmgen, "-q", "--sh=3", "--sh-output=" + cmo + "/" + fs::path(f).stem().string() + ".txt", f});
    if (!cmgen_ok) bcm.na = "cmgen not found";
    else if ((int)files.size() != batch_count) bcm.na = "batch inputs missing";
    say(fmt("\nbatch: %d x %dx%d .hdr (variants 1..%d) in %s\n", batch_count, batch_width, batch_width / 2,
            batch_count, batch_dir.c_str()));
    std::vector<Command*> bptr;
    for (Command& c : bcmds) bptr.push_back(&c);
    bptr.push_back(&bcm);
    run.measure(bptr, opt.repeats);

    // Every batch run's coefficients against the CPU path's (jobs 0), file by file.
    const size_t cpu_ref = jobs.size();  // index of batch.cpu.jobs0
    std::string btable = fmt("\nbatch: %d different %dx%d .hdr in one process, median (min) of %d; cmgen: one "
                             "process per map, one after another\n",
                             batch_count, batch_width, batch_width / 2, opt.repeats);
    std::snprintf(line, sizeof line, "| %-24s | %-17s | %-8s | %-7s | %-13s |\n", "run", "s", "maps/s", "peak MB",
                  "agree vs cpu");
    btable += line;
    btable += "|--------------------------|-------------------|----------|---------|---------------|\n";
    Json jbatch = Json::array();
    for (size_t i = 0; i < bptr.size(); ++i) {
        const Command& c = *bptr[i];
        double worst = NAN;
        int outputs = 0;
        if (i < bcmds.size() && c.ok() && bcmds[cpu_ref].ok()) {
            worst = 0;
            for (const auto& f : files) {
                const std::string stem = fs::path(f).stem().string() + ".json";
                const double d = rel_diff(radiance_of(out_dirs[i] + "/" + stem), radiance_of(out_dirs[cpu_ref] + "/" + stem));
                outputs += std::isnan(d) ? 0 : 1;
                worst = std::isnan(d) ? NAN : std::max(worst, d);
                if (std::isnan(d)) break;
            }
        }
        const double mps = c.ok() ? batch_count / c.med() : NAN;
        std::snprintf(line, sizeof line, "| %-24s | %-17s | %-8s | %-7s | %-13s |\n", c.label.c_str(),
                      cell_time(c).c_str(), c.ok() ? fmt("%.2f", mps).c_str() : "-", cell_mb(c).c_str(),
                      i < bcmds.size() ? cell_agree(worst).c_str() : "-");
        btable += line;
        Json j = c.json();
        j["maps"] = batch_count;
        j["maps_per_s"] = c.ok() ? Json(mps) : Json();
        j["max_rel_vs_cpu_jobs0"] = std::isnan(worst) ? Json() : Json(worst);
        j["outputs_checked"] = outputs;
        jbatch.push_back(j);
    }
    std::vector<const Command*> bconst(bptr.begin(), bptr.end());
    btable += failure_lines(bconst);
    if (!has_jobs) btable += "(this bake-irradiance has no --jobs: one batch run per device)\n";
    J["batch"] = {{"count", batch_count}, {"width", batch_width}, {"height", batch_width / 2},
                  {"dir", batch_dir.string()}, {"runs", jbatch}};

    J["machine"]["load_average_end"] = load_average();
    head += fmt("1-minute load average: %.2f at the start, %.2f at the end\n", load_start, load_average());
    const std::string summary = head + notes + table + btable;
    J["text"] = summary;
    // Last in the output: the device reply keeps its tail.
    say("\n==== summary (whole process)\n" + summary);
    // Failed runs or missing inputs: the section measured less than asked.
    bool any_failed = (int)files.size() != batch_count;
    for (const Input& in : inputs) any_failed = any_failed || !in.present;
    for (const Command* c : all_cmds) any_failed = any_failed || c->failed;
    for (const Command* c : bconst) any_failed = any_failed || c->failed;
    return any_failed ? 1 : 0;
}

}  // namespace bench
