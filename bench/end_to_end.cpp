// Whole-process timings (issue 9, issue 19's table): what a user waits for, process start, GL
// context, decode and all, on every path of bake-irradiance (--device auto, gpu, cpu) and cmgen.
// Every run goes through process_runner (fork + execv, fork..wait4, peak RSS); inputs through
// whole_inputs; the rows in whole_singles and whole_batch, issue 19's table in issue19_table; this
// file finds the tools, plans the inputs, runs the parts in order and prints the summary.
// Seconds, MB (10^6 bytes).
#include "end_to_end.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "process_runner.h"
#include "whole_inputs.h"
#include "whole_results.h"
#include "whole_setup.h"

namespace bench {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// Timed runs of one command within about this many seconds (Runner::cap_s): a minute-long batch
// runs once, so that the whole section fits one 10-minute device command.
constexpr double kCapS = 45;

// The scratch folder and the tools; 0, or the exit code (2) after one line on stderr.
int find_tools(const WholeProcessOptions& opt, Setup* s) {
    std::error_code ec;
    s->opt = opt;
    s->dir = fs::absolute(opt.dir);
    s->run = Runner{(s->dir / "work").string(), (s->dir / "logs").string()};
    for (const char* sub : {"work", "logs", "out"}) fs::create_directories(s->dir / sub, ec);
    if (!fs::is_directory(s->dir / "out")) {
        std::fprintf(stderr, "bake-bench: cannot create the scratch folder %s\n", s->dir.c_str());
        return 2;
    }
    s->tool = opt.tool.empty() ? next_to_self("bake-irradiance") : fs::absolute(opt.tool).string();
    s->sky = opt.sky_tool.empty() ? next_to_self("make-sample-sky") : fs::absolute(opt.sky_tool).string();
    s->cmgen = opt.cmgen.empty() ? "/usr/bin/cmgen" : fs::absolute(opt.cmgen).string();
    if (!is_executable(s->tool)) {
        std::fprintf(stderr, "bake-bench: bake-irradiance not found at %s (give --tool PATH)\n", s->tool.c_str());
        return 2;
    }
    s->sky_ok = is_executable(s->sky);
    s->cmgen_ok = is_executable(s->cmgen);
    if (!s->sky_ok)
        s->notes += fmt("make-sample-sky not found at %s (--sky-tool PATH): only inputs already in %s are used\n",
                        s->sky.c_str(), s->dir.c_str());
    if (!s->cmgen_ok) s->notes += fmt("cmgen not found at %s (--cmgen PATH): no cmgen column\n", s->cmgen.c_str());
    say(s->notes);
    const Runner& run = s->run;
    const std::string help_out = run.logs + "/help.out";
    run_process({s->tool, "--help"}, run.work, help_out, run.logs + "/help.err");
    const std::string help = read_text(help_out);
    s->has_jobs = help.find("--jobs") != std::string::npos;
    s->has_timings = help.find("--timings") != std::string::npos;
    s->has_report = help.find("--report") != std::string::npos;
    s->has_specular = help.find("--specular FILE") != std::string::npos;
    for (const auto& l : lines_of(help))  // "  --device TEXT=auto   auto: the faster path ..."
        if (l.rfind("  --device", 0) == 0) s->has_auto = l.find("auto") != std::string::npos;
    run_process({s->tool, "--version"}, run.work, run.logs + "/version.out", run.logs + "/version.err");
    s->version = first_line(run.logs + "/version.out", "(no --version)");
    return 0;
}

// Without grain a generated .hdr is mostly RLE runs (4096x2048: 1 MB against 24 MB with grain
// 0.02, as dense as a real map), far faster to decode than what users bake.
void check_grain(Setup* s) {
    s->grain = s->opt.grain;
    if (!s->sky_ok || s->grain <= 0) return;
    const Runner& run = s->run;
    run_process({s->sky, "--help"}, run.work, run.logs + "/sky-help.out", run.logs + "/sky-help.err");
    if ((read_text(run.logs + "/sky-help.out") + read_text(run.logs + "/sky-help.err")).find("--grain") ==
        std::string::npos) {
        const std::string n = "make-sample-sky has no --grain: inputs without grain (mostly RLE runs)\n";
        s->notes += n;
        say(n);
        s->grain = 0;
    }
}

// The dense grain of issue 19's 8192x4096 .hdr row (and its --quick stand-in).
constexpr double kDenseGrain = 0.05;

Input single_input(const Setup& s, int width, bool exr, double grain) {
    Input in;
    in.width = width;
    in.exr = exr;
    in.grain = grain;
    in.label = fmt("%dx%d %s", width, width / 2, exr ? "half DWAB .exr" : ".hdr");
    if (grain != s.grain) in.label += fmt(" grain %g", grain);
    const std::string gtag = grain > 0 ? fmt("-grain%g", grain) : "";
    in.path = (s.dir / (fmt("sky-%d", width) + gtag + (exr ? "-half-dwab.exr" : ".hdr"))).string();
    return in;
}

// Issue 19's inputs (--quick: a small variant, the same rows), generated once.
Plan make_plan(Setup& s) {
    std::error_code ec;
    Plan p;
    const double dense = s.grain > 0 ? kDenseGrain : 0;
    const int w0 = s.opt.quick ? 1024 : 2048, w1 = 2 * w0, w2 = s.opt.quick ? w1 : 4 * w0;
    p.singles = {single_input(s, w0, false, s.grain), single_input(s, w1, false, s.grain),
                 single_input(s, w2, false, dense), single_input(s, w2, true, s.grain)};
    p.specular_of = {2, 1};  // the largest .hdr, then the batch's size
    p.specular_size = s.opt.quick ? 64 : 256;
    p.batch_count = s.opt.quick ? 4 : 20;
    p.batch_width = s.opt.quick ? 1024 : 4096;
    p.batch_jobs = {0, 2, 4};
    p.issue_jobs = 4;
    const std::string gtag = s.grain > 0 ? fmt("-grain%g", s.grain) : "";
    p.batch_dir = s.dir / (fmt("batch-%dx%d-%d", p.batch_width, p.batch_width / 2, p.batch_count) + gtag);
    fs::create_directories(p.batch_dir, ec);
    for (int k = 1; k <= p.batch_count; ++k) {
        Input in;
        in.width = p.batch_width;
        in.variant = k;
        in.grain = s.grain;
        in.label = fmt("%dx%d .hdr variant %d", p.batch_width, p.batch_width / 2, k);
        in.path = (p.batch_dir / fmt("sky-v%02d.hdr", k)).string();
        p.batch.push_back(in);
    }
    say(fmt("\nwhole process: inputs in %s (make-sample-sky --grain %g; the %dx%d .hdr: %g)\n", s.dir.c_str(), s.grain,
            w2, w2 / 2, dense));
    for (Input& in : p.singles) ensure_input(in, s.sky, s.sky_ok, s.run);
    for (Input& in : p.batch) ensure_input(in, s.sky, s.sky_ok, s.run);
    return p;
}

// The machine, the GPU's renderer (one untimed --verbose run) and the run's settings into J;
// returns the text head of the summary.
std::string describe_machine(const Setup& s, const Plan& p, Json& J) {
    cpu_set_t set;
    CPU_ZERO(&set);
    const int affinity = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
    Json machine{{"nproc", affinity}, {"online_cpus", sysconf(_SC_NPROCESSORS_ONLN)}, {"cpu_model", cpu_model()},
                 {"mem_total_gb", mem_total_gb()}, {"tool", s.tool}, {"tool_version", s.version},
                 {"sky_tool", s.sky_ok ? Json(s.sky) : Json()}, {"cmgen", s.cmgen_ok ? Json(s.cmgen) : Json()}};
    std::string renderer_line = "(no GPU context reported)";
    for (const Input& in : p.singles) {
        if (!in.present) continue;
        // --verbose names the context and renderer on stderr (one untimed run).
        const std::string err = s.run.logs + "/verbose.err";
        run_process({s.tool, in.path, "--device", "gpu", "--verbose", "-o", (s.dir / "out/verbose.json").string()},
                    s.run.work, s.run.logs + "/verbose.out", err);
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
    J["repeats"] = s.opt.repeats;
    J["quick"] = s.opt.quick;
    J["grain"] = s.grain;
    J["dir"] = s.dir.string();
    J["notes"] = s.notes;
    J["machine"]["load_average_start"] = load_average();
    const std::string head = fmt("machine: %d CPUs (nproc), %s, %.0f GB RAM\ngpu: %s\ntool: %s (%s)\n", affinity,
                                 cpu_model().c_str(), mem_total_gb(), renderer_line.c_str(), s.tool.c_str(),
                                 s.version.c_str());
    say(head);
    return head;
}

// The parts in order: SH rows, --specular rows, the batches; then the tables, issue 19's last.
struct Results {
    std::vector<Row> sh, spec;
    Batch batch;
    std::vector<const Command*> all;
    std::string text;
};

void run_parts(Setup& s, Plan& p, Results& r, Json& J) {
    for (const Input& in : p.singles) r.sh.push_back(measure_sh_row(s, in));
    for (int i : p.specular_of) r.spec.push_back(measure_specular_row(s, p.singles[static_cast<size_t>(i)], p.specular_size));
    r.batch = batch_commands(s, p, r.sh, r.spec);
    measure_batch(s, p, r.batch);
    std::vector<const Command*> sh_cmds, spec_cmds, batch_cmds;
    Json jbatch;
    r.text = sh_table(s, r.sh, &J["single"], &sh_cmds);
    r.text += specular_table(s, r.spec, &J["specular"], &spec_cmds);
    r.text += batch_table(s, p, r.batch, &jbatch, &batch_cmds);
    J["batch"] = {{"count", p.batch_count}, {"width", p.batch_width}, {"height", p.batch_width / 2},
                  {"dir", p.batch_dir.string()}, {"specular_size", p.specular_size}, {"runs", jbatch}};
    for (const auto* v : {&sh_cmds, &spec_cmds, &batch_cmds}) r.all.insert(r.all.end(), v->begin(), v->end());
}

}  // namespace

int run_whole_process(const WholeProcessOptions& opt, Json* out) {
    Json& J = *out;
    const Clock::time_point start = Clock::now();
    Setup s;
    if (const int rc = find_tools(opt, &s)) return rc;
    if (opt.budget_s > 0) s.run.deadline = start + std::chrono::milliseconds(static_cast<long long>(opt.budget_s * 1e3));
    s.run.cap_s = kCapS;
    check_grain(&s);
    Plan p = make_plan(s);
    std::string head = describe_machine(s, p, J);
    J["budget_s"] = opt.budget_s;
    J["cap_s"] = s.run.cap_s;
    const double load_start = J["machine"]["load_average_start"].get<double>();

    Results r;
    run_parts(s, p, r, J);
    J["machine"]["load_average_end"] = load_average();
    J["seconds"] = std::chrono::duration<double>(Clock::now() - start).count();
    head += fmt("1-minute load average: %.2f at the start, %.2f at the end; the section took %.0f s\n", load_start,
                load_average(), J["seconds"].get<double>());
    const std::string issue = issue_table(s, p, r.sh, r.spec, r.batch, &J["issue19"]);
    const std::string summary = head + s.notes + r.text + issue;
    J["text"] = summary;
    // Last in the output: the device reply keeps its tail.
    say("\n==== summary (whole process)\n" + summary);
    // Failed or skipped runs, or missing inputs: the section measured less than asked.
    bool any_failed = static_cast<int>(r.batch.files.size()) != p.batch_count;
    for (const Input& in : p.singles) any_failed = any_failed || !in.present;
    for (const Command* c : r.all) any_failed = any_failed || c->failed || (!c->skipped.empty() && !c->ok());
    return any_failed ? 1 : 0;
}

}  // namespace bench
