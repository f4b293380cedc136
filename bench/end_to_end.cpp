// Whole-process timings: what a user waits for, process start, GL context, decode and all. Every
// run goes through process_runner (fork + execv, fork..wait4, peak RSS); inputs through
// whole_inputs; this file decides what is run and prints the tables. Seconds, MB (10^6 bytes).
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

namespace bench {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// The tools, what the CLI offers (so that an older or newer binary is measured with what it has),
// the scratch folder and the notes printed above the tables.
struct Setup {
    WholeProcessOptions opt;
    fs::path dir;
    Runner run;
    std::string tool, sky, cmgen, version, notes;
    bool sky_ok = false, cmgen_ok = false;
    bool has_jobs = false, has_timings = false, has_report = false;
    double grain = 0;
};

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

struct Inputs {
    std::vector<Input> singles, batch;
    fs::path batch_dir;
    int batch_count = 0, batch_width = 0;
};

// The inputs, generated once.
Inputs make_inputs(Setup& s) {
    std::error_code ec;
    Inputs r;
    const std::string gtag = s.grain > 0 ? fmt("-grain%g", s.grain) : "";
    r.batch_count = s.opt.quick ? 4 : 20;
    r.batch_width = s.opt.quick ? 1024 : 4096;
    const std::vector<std::pair<int, bool>> singles =
        s.opt.quick ? std::vector<std::pair<int, bool>>{{1024, false}, {2048, false}, {2048, true}}
                    : std::vector<std::pair<int, bool>>{{2048, false}, {4096, false}, {8192, false}, {8192, true}};
    for (const auto& [w, exr] : singles) {
        Input in;
        in.width = w;
        in.exr = exr;
        in.grain = s.grain;
        in.label = fmt("%dx%d %s", w, w / 2, exr ? "half DWAB .exr" : ".hdr");
        in.path = (s.dir / (fmt("sky-%d", w) + gtag + (exr ? "-half-dwab.exr" : ".hdr"))).string();
        r.singles.push_back(in);
    }
    r.batch_dir = s.dir / (fmt("batch-%dx%d-%d", r.batch_width, r.batch_width / 2, r.batch_count) + gtag);
    fs::create_directories(r.batch_dir, ec);
    for (int k = 1; k <= r.batch_count; ++k) {
        Input in;
        in.width = r.batch_width;
        in.variant = k;
        in.grain = s.grain;
        in.label = fmt("%dx%d .hdr variant %d", r.batch_width, r.batch_width / 2, k);
        in.path = (r.batch_dir / fmt("sky-v%02d.hdr", k)).string();
        r.batch.push_back(in);
    }
    say(fmt("\nwhole process: inputs in %s (make-sample-sky --grain %g)\n", s.dir.c_str(), s.grain));
    for (Input& in : r.singles) ensure_input(in, s.sky, s.sky_ok, s.run);
    for (Input& in : r.batch) ensure_input(in, s.sky, s.sky_ok, s.run);
    return r;
}

// The machine, the GPU's renderer (one untimed --verbose run) and the run's settings into J;
// returns the text head of the summary.
std::string describe_machine(const Setup& s, const Inputs& inputs, Json& J) {
    cpu_set_t set;
    CPU_ZERO(&set);
    const int affinity = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
    Json machine{{"nproc", affinity}, {"online_cpus", sysconf(_SC_NPROCESSORS_ONLN)}, {"cpu_model", cpu_model()},
                 {"mem_total_gb", mem_total_gb()}, {"tool", s.tool}, {"tool_version", s.version},
                 {"sky_tool", s.sky_ok ? Json(s.sky) : Json()}, {"cmgen", s.cmgen_ok ? Json(s.cmgen) : Json()}};
    std::string renderer_line = "(no GPU context reported)";
    for (const Input& in : inputs.singles) {
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

// ---- Single inputs ---------------------------------------------------------------------------

struct Row {
    Input in;
    Command gpu, cpu, cm;
    double agree = NAN;
    std::vector<double> l00_ratio;
    Json timings;
};

// Stage times, one more run each path (stdout's line, and the report's numbers).
void timings_runs(const Setup& s, const std::string& stem, Row& row) {
    for (const char* dev : {"gpu", "cpu"}) {
        const std::string rep = (s.dir / "out" / (stem + "." + dev + ".report.json")).string();
        std::vector<std::string> argv{s.tool, row.in.path, "--device", dev, "--order", "3", "--timings",
                                      "-o", (s.dir / "out" / (stem + ".timings.json")).string()};
        if (s.has_report) argv.insert(argv.end(), {"--report", rep});
        const std::string o = s.run.logs + "/" + stem + "." + dev + ".timings.out";
        const std::string e = s.run.logs + "/" + stem + "." + dev + ".timings.err";
        const RunResult r = run_process(argv, s.run.work, o, e);
        std::vector<std::string> lines;
        for (const auto& l : lines_of(read_text(o)))
            if (l.rfind("timings", 0) == 0) lines.push_back(l);
        for (const auto& l : lines_of(read_text(e))) lines.push_back(l);  // notices, if any
        row.timings[dev] = {{"exit_code", r.exit_code}, {"seconds", r.seconds}, {"lines", lines},
                            {"stages_ms", s.has_report ? stages_of_report(rep) : Json()}};
        for (const auto& l : lines) say("  " + std::string(dev) + ": " + l + "\n");
    }
}

Row measure_single(Setup& s, const Input& in) {
    std::error_code ec;
    Row row;
    row.in = in;
    const std::string stem = fs::path(in.path).stem().string();
    const std::string gj = (s.dir / "out" / (stem + ".gpu.json")).string();
    const std::string cj = (s.dir / "out" / (stem + ".cpu.json")).string();
    const std::string ct = (s.dir / "out" / (stem + ".cmgen.txt")).string();
    row.gpu = {stem + ".gpu", {{s.tool, in.path, "--device", "gpu", "--order", "3", "-o", gj}}};
    row.cpu = {stem + ".cpu", {{s.tool, in.path, "--device", "cpu", "--order", "3", "-o", cj}}};
    row.cm = {stem + ".cmgen", {{s.cmgen, "-q", "--sh=3", "--sh-output=" + ct, in.path}}};
    if (!in.present) row.gpu.na = row.cpu.na = row.cm.na = "input missing";
    if (!s.cmgen_ok) row.cm.na = "cmgen not found";
    else if (in.exr) row.cm.na = "cmgen cannot read DWAB EXR";
    if (!in.present) return row;
    say(fmt("\n%s (%s):\n", in.label.c_str(), in.path.c_str()));
    fs::remove(gj, ec);
    fs::remove(cj, ec);
    fs::remove(ct, ec);
    s.run.measure({&row.gpu, &row.cpu, &row.cm}, s.opt.repeats);
    if (row.gpu.ok() && row.cpu.ok()) row.agree = rel_diff(radiance_of(gj), radiance_of(cj));
    const std::vector<double> ours = radiance_of(cj), theirs = cmgen_l00(ct);
    if (row.cm.ok() && ours.size() >= 3 && theirs.size() == 3)
        for (int c = 0; c < 3; ++c) row.l00_ratio.push_back(theirs[c] / ours[c]);
    if (s.has_timings) timings_runs(s, stem, row);
    return row;
}

Json single_json(const Row& r, double decoded_mb) {
    std::error_code ec;
    const double file_mb = r.in.present ? static_cast<double>(fs::file_size(r.in.path, ec)) / 1e6 : 0;
    return {{"input", r.in.label}, {"path", r.in.path}, {"present", r.in.present},
            {"width", r.in.width}, {"height", r.in.width / 2}, {"file_mb", file_mb},
            {"decoded_mb", decoded_mb}, {"gpu", r.gpu.json()}, {"cpu", r.cpu.json()},
            {"cmgen", r.cm.json()},
            {"cmgen_over_gpu", r.cm.ok() && r.gpu.ok() ? Json(r.cm.med() / r.gpu.med()) : Json()},
            {"cpu_over_gpu", r.cpu.ok() && r.gpu.ok() ? Json(r.cpu.med() / r.gpu.med()) : Json()},
            {"gpu_peak_over_decoded", r.gpu.ok() ? Json(r.gpu.peak() / decoded_mb) : Json()},
            {"cpu_peak_over_decoded", r.cpu.ok() ? Json(r.cpu.peak() / decoded_mb) : Json()},
            {"gpu_cpu_max_rel", std::isnan(r.agree) ? Json() : Json(r.agree)},
            {"gpu_cpu_agree", std::isnan(r.agree) ? Json() : Json(r.agree < 1e-4)},
            {"cmgen_l00_over_ours", r.l00_ratio}, {"timings", r.timings}};
}

// The single-input table (text), its rows into *jrows, its commands into *all.
std::string single_table(const Setup& s, const std::vector<Row>& rows, Json* jrows,
                         std::vector<const Command*>* all) {
    char line[1024];
    std::string table = fmt("\nwhole process, one input per process, median (min) of %d after one warm-up; order 3, "
                            "coefficients JSON only; inputs: make-sample-sky --grain %g\n",
                            s.opt.repeats, s.grain);
    std::snprintf(line, sizeof line, "| %-24s | %-17s | %-17s | %-17s | %-9s | %-7s | %-11s | %-11s | %-10s | %-13s |\n",
                  "input", "gpu s", "cpu s", "cmgen s", "cmgen/gpu", "cpu/gpu", "gpu peak MB", "cpu peak MB",
                  "decoded MB", "gpu/cpu agree");
    table += line;
    table += "|--------------------------|-------------------|-------------------|-------------------|-----------|"
             "---------|-------------|-------------|------------|---------------|\n";
    *jrows = Json::array();
    for (const Row& r : rows) {
        const double decoded_mb = static_cast<double>(r.in.width) * (r.in.width / 2) * 12 / 1e6;  // float RGB
        std::snprintf(line, sizeof line,
                      "| %-24s | %-17s | %-17s | %-17s | %-9s | %-7s | %-11s | %-11s | %-10.0f | %-13s |\n",
                      r.in.label.c_str(), cell_time(r.gpu).c_str(), cell_time(r.cpu).c_str(), cell_time(r.cm).c_str(),
                      cell_ratio(r.cm, r.gpu).c_str(), cell_ratio(r.cpu, r.gpu).c_str(), cell_mb(r.gpu).c_str(),
                      cell_mb(r.cpu).c_str(), decoded_mb, cell_agree(r.agree).c_str());
        table += line;
        all->insert(all->end(), {&r.gpu, &r.cpu, &r.cm});
        jrows->push_back(single_json(r, decoded_mb));
    }
    table += failure_lines(*all);
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
    return table;
}

// ---- Batch -----------------------------------------------------------------------------------

struct Batch {
    std::vector<std::string> files;
    std::vector<int> jobs{0};
    std::vector<Command> bake;  // gpu jobs..., then cpu jobs...
    std::vector<std::string> out_dirs;
    Command cmgen{"batch.cmgen.sequential", {}};
    std::vector<Command*> all() {
        std::vector<Command*> v;
        for (Command& c : bake) v.push_back(&c);
        v.push_back(&cmgen);
        return v;
    }
};

// The batch's commands: bake-irradiance with every file as an argument, each device and --jobs,
// and cmgen one process per map.
Batch batch_commands(const Setup& s, const Inputs& inputs) {
    std::error_code ec;
    Batch b;
    for (const Input& in : inputs.batch)
        if (in.present) b.files.push_back(in.path);
    if (s.has_jobs) b.jobs = {0, 2, 4};
    const bool complete = (int)b.files.size() == inputs.batch_count;
    for (const char* dev : {"gpu", "cpu"})
        for (int j : b.jobs) {
            const std::string label = fmt("batch.%s.jobs%d", dev, j);
            const std::string od = (s.dir / "out" / label).string();
            fs::remove_all(od, ec);
            fs::create_directories(od, ec);
            std::vector<std::string> argv{s.tool};
            argv.insert(argv.end(), b.files.begin(), b.files.end());
            argv.insert(argv.end(), {"--device", dev, "--order", "3", "--out-dir", od, "--name", "{stem}.json"});
            if (s.has_jobs) argv.insert(argv.end(), {"--jobs", std::to_string(j)});
            Command c{label, {argv}};
            if (!complete) c.na = "batch inputs missing";
            b.bake.push_back(c);
            b.out_dirs.push_back(od);
        }
    const std::string cmo = (s.dir / "out/batch.cmgen").string();
    fs::create_directories(cmo, ec);
    for (const auto& f : b.files)
        b.cmgen.processes.push_back(
            {s.cmgen, "-q", "--sh=3", "--sh-output=" + cmo + "/" + fs::path(f).stem().string() + ".txt", f});
    if (!s.cmgen_ok) b.cmgen.na = "cmgen not found";
    else if (!complete) b.cmgen.na = "batch inputs missing";
    return b;
}

// The worst file of batch run i against the CPU path's (jobs 0), file by file; *outputs counts
// the files read.
double batch_agreement(const Batch& b, size_t i, size_t cpu_ref, int* outputs) {
    double worst = 0;
    for (const auto& f : b.files) {
        const std::string stem = fs::path(f).stem().string() + ".json";
        const double d = rel_diff(radiance_of(b.out_dirs[i] + "/" + stem), radiance_of(b.out_dirs[cpu_ref] + "/" + stem));
        *outputs += std::isnan(d) ? 0 : 1;
        worst = std::isnan(d) ? NAN : std::max(worst, d);
        if (std::isnan(d)) break;
    }
    return worst;
}

std::string batch_table(const Setup& s, const Inputs& inputs, Batch& b, Json* jbatch) {
    const size_t cpu_ref = b.jobs.size();  // index of batch.cpu.jobs0
    char line[1024];
    std::string btable = fmt("\nbatch: %d different %dx%d .hdr in one process, median (min) of %d; cmgen: one "
                             "process per map, one after another\n",
                             inputs.batch_count, inputs.batch_width, inputs.batch_width / 2, s.opt.repeats);
    std::snprintf(line, sizeof line, "| %-24s | %-17s | %-8s | %-7s | %-13s |\n", "run", "s", "maps/s", "peak MB",
                  "agree vs cpu");
    btable += line;
    btable += "|--------------------------|-------------------|----------|---------|---------------|\n";
    *jbatch = Json::array();
    const std::vector<Command*> all = b.all();
    for (size_t i = 0; i < all.size(); ++i) {
        const Command& c = *all[i];
        double worst = NAN;
        int outputs = 0;
        if (i < b.bake.size() && c.ok() && b.bake[cpu_ref].ok()) worst = batch_agreement(b, i, cpu_ref, &outputs);
        const double mps = c.ok() ? inputs.batch_count / c.med() : NAN;
        std::snprintf(line, sizeof line, "| %-24s | %-17s | %-8s | %-7s | %-13s |\n", c.label.c_str(),
                      cell_time(c).c_str(), c.ok() ? fmt("%.2f", mps).c_str() : "-", cell_mb(c).c_str(),
                      i < b.bake.size() ? cell_agree(worst).c_str() : "-");
        btable += line;
        Json j = c.json();
        j["maps"] = inputs.batch_count;
        j["maps_per_s"] = c.ok() ? Json(mps) : Json();
        j["max_rel_vs_cpu_jobs0"] = std::isnan(worst) ? Json() : Json(worst);
        j["outputs_checked"] = outputs;
        jbatch->push_back(j);
    }
    btable += failure_lines(std::vector<const Command*>(all.begin(), all.end()));
    if (!s.has_jobs) btable += "(this bake-irradiance has no --jobs: one batch run per device)\n";
    return btable;
}

}  // namespace

int run_whole_process(const WholeProcessOptions& opt, Json* out) {
    Json& J = *out;
    Setup s;
    if (const int rc = find_tools(opt, &s)) return rc;
    check_grain(&s);
    const Inputs inputs = make_inputs(s);
    std::string head = describe_machine(s, inputs, J);
    const double load_start = J["machine"]["load_average_start"].get<double>();

    std::vector<Row> rows;
    for (const Input& in : inputs.singles) rows.push_back(measure_single(s, in));
    std::vector<const Command*> all_cmds;
    Json jrows;
    const std::string table = single_table(s, rows, &jrows, &all_cmds);
    J["single"] = jrows;

    Batch b = batch_commands(s, inputs);
    say(fmt("\nbatch: %d x %dx%d .hdr (variants 1..%d) in %s\n", inputs.batch_count, inputs.batch_width,
            inputs.batch_width / 2, inputs.batch_count, inputs.batch_dir.c_str()));
    s.run.measure(b.all(), opt.repeats);
    Json jbatch;
    const std::string btable = batch_table(s, inputs, b, &jbatch);
    J["batch"] = {{"count", inputs.batch_count}, {"width", inputs.batch_width}, {"height", inputs.batch_width / 2},
                  {"dir", inputs.batch_dir.string()}, {"runs", jbatch}};

    J["machine"]["load_average_end"] = load_average();
    head += fmt("1-minute load average: %.2f at the start, %.2f at the end\n", load_start, load_average());
    const std::string summary = head + s.notes + table + btable;
    J["text"] = summary;
    // Last in the output: the device reply keeps its tail.
    say("\n==== summary (whole process)\n" + summary);
    // Failed runs or missing inputs: the section measured less than asked.
    bool any_failed = (int)b.files.size() != inputs.batch_count;
    for (const Input& in : inputs.singles) any_failed = any_failed || !in.present;
    for (const Command* c : all_cmds) any_failed = any_failed || c->failed;
    for (const Command* c : b.all()) any_failed = any_failed || c->failed;
    return any_failed ? 1 : 0;
}

}  // namespace bench
