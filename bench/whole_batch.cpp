// The whole-process section's batch: the plan's different maps of one size as arguments of one
// bake-irradiance process (--out-dir, --name '{stem}.json', --jobs), on gpu and cpu at every
// --jobs of the plan, and the issue's rows (auto, gpu, cpu at its --jobs) also with --specular;
// cmgen one process per map, one after another. Each run is checked file by file against the CPU
// path. Seconds; maps/s = maps / median seconds.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "whole_results.h"
#include "whole_setup.h"

namespace bench {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::vector<Command*> Batch::commands() {
    std::vector<Command*> v;
    for (BatchRun& r : runs) v.push_back(&r.cmd);
    return v;
}

const BatchRun* Batch::find(const std::string& device, int jobs, bool specular) const {
    for (const BatchRun& r : runs)
        if (r.device == device && r.jobs == jobs && r.specular == specular) return &r;
    return nullptr;
}

namespace {

// The median of the single row closest in size to the batch's maps, for `col`: 0 if none ran.
double single_estimate(const std::vector<Row>& rows, int width, int col) {
    const Row* best = nullptr;
    for (const Row& r : rows)
        if (r.c[col].ok() && !r.in.exr && (!best || std::abs(r.in.width - width) < std::abs(best->in.width - width)))
            best = &r;
    return best ? best->c[col].med() : 0;
}

// bake-irradiance over every file, one process; jobs -1: no --jobs.
BatchRun bake_run(const Setup& s, const Plan& p, const std::vector<std::string>& files, const char* dev, int jobs,
                  bool specular) {
    std::error_code ec;
    BatchRun r;
    r.device = dev;
    r.jobs = jobs;
    r.specular = specular;
    const std::string label = fmt("batch.%s%s", specular ? "spec." : "", dev) + (jobs >= 0 ? fmt(".jobs%d", jobs) : "");
    r.out_dir = s.out(label);
    fs::remove_all(r.out_dir, ec);
    fs::create_directories(r.out_dir, ec);
    std::vector<std::string> argv{s.tool};
    argv.insert(argv.end(), files.begin(), files.end());
    argv.insert(argv.end(), {"--device", dev, "--order", "3", "--out-dir", r.out_dir, "--name", "{stem}.json"});
    if (specular)
        argv.insert(argv.end(), {"--specular", r.out_dir + "/{stem}_spec.exr", "--specular-size",
                                 std::to_string(p.specular_size)});
    if (jobs >= 0) argv.insert(argv.end(), {"--jobs", std::to_string(jobs)});
    r.cmd = {label, {argv}};
    if (static_cast<int>(files.size()) != p.batch_count) r.cmd.na = "batch inputs missing";
    if (std::string(dev) == "auto" && !s.has_auto) r.cmd.na = "this bake-irradiance has no --device auto";
    if (specular && !s.has_specular) r.cmd.na = "this bake-irradiance has no --specular";
    return r;
}

// cmgen one process per map: --sh=3 (and with `specular` --ibl-ld of the same base size).
BatchRun cmgen_run(const Setup& s, const Plan& p, const std::vector<std::string>& files, bool specular) {
    std::error_code ec;
    BatchRun r;
    r.device = "cmgen";
    r.specular = specular;
    const std::string label = specular ? "batch.spec.cmgen.sequential" : "batch.cmgen.sequential";
    r.out_dir = s.out(specular ? "batch.spec.cmgen" : "batch.cmgen");
    fs::remove_all(r.out_dir, ec);
    fs::create_directories(r.out_dir, ec);
    r.cmd = {label, {}};
    for (const auto& f : files) {
        std::vector<std::string> argv{s.cmgen, "-q", "--sh=3",
                                      "--sh-output=" + r.out_dir + "/" + fs::path(f).stem().string() + ".txt"};
        if (specular)
            argv.insert(argv.end(), {"--format=exr", "--size=" + std::to_string(p.specular_size), "--ibl-ld=" + r.out_dir});
        argv.push_back(f);
        r.cmd.processes.push_back(argv);
    }
    if (!s.cmgen_ok) r.cmd.na = "cmgen not found";
    else if (static_cast<int>(files.size()) != p.batch_count) r.cmd.na = "batch inputs missing";
    return r;
}

// The worst file of run `r` against the reference run's (coefficients; or the specular chains);
// *outputs counts the files compared. NaN when one is unreadable.
double agreement(const std::vector<std::string>& files, const BatchRun& r, const BatchRun& ref, bool chains,
                 int* outputs) {
    double worst = 0;
    for (const auto& f : files) {
        const std::string stem = fs::path(f).stem().string();
        const double d = chains ? chain_rel_diff(r.out_dir + "/" + stem + "_spec.exr", ref.out_dir + "/" + stem + "_spec.exr")
                                : rel_diff(radiance_of(r.out_dir + "/" + stem + ".json"),
                                           radiance_of(ref.out_dir + "/" + stem + ".json"));
        if (std::isnan(d)) return NAN;
        *outputs += 1;
        worst = std::max(worst, d);
    }
    return worst;
}

}  // namespace

Batch batch_commands(const Setup& s, const Plan& p, const std::vector<Row>& sh, const std::vector<Row>& spec) {
    Batch b;
    for (const Input& in : p.batch)
        if (in.present) b.files.push_back(in.path);
    const std::vector<int> jobs = s.has_jobs ? p.batch_jobs : std::vector<int>{-1};
    const int issue_jobs = s.has_jobs ? p.issue_jobs : -1;
    for (const char* dev : {"gpu", "cpu"})
        for (int j : jobs) b.runs.push_back(bake_run(s, p, b.files, dev, j, false));
    b.runs.push_back(bake_run(s, p, b.files, "auto", issue_jobs, false));
    b.runs.push_back(cmgen_run(s, p, b.files, false));
    for (const char* dev : {"auto", "gpu", "cpu"}) b.runs.push_back(bake_run(s, p, b.files, dev, issue_jobs, true));
    b.runs.push_back(cmgen_run(s, p, b.files, true));
    for (BatchRun& r : b.runs) {
        const int col = r.device == "auto" ? kAuto : r.device == "gpu" ? kGpu : r.device == "cpu" ? kCpu : kCmgen;
        r.cmd.expect_s = p.batch_count * single_estimate(r.specular ? spec : sh, p.batch_width, col);
        // The specular batches come after the SH batch has read every file and the specular rows
        // have run every program: no warm-up (a CPU batch of 20 chains takes a minute).
        r.cmd.warm_up = !r.specular;
    }
    return b;
}

void measure_batch(Setup& s, const Plan& p, Batch& b) {
    std::vector<Command*> sh, spec;
    for (BatchRun& r : b.runs) (r.specular ? spec : sh).push_back(&r.cmd);
    say(fmt("\nbatch: %d x %dx%d .hdr (variants 1..%d) in %s\n", p.batch_count, p.batch_width, p.batch_width / 2,
            p.batch_count, p.batch_dir.c_str()));
    s.run.measure(sh, s.opt.repeats);
    say(fmt("\nbatch with --specular (6x%d^2), no warm-up:\n", p.specular_size));
    s.run.measure(spec, s.opt.repeats);
}

std::string batch_table(const Setup& s, const Plan& p, const Batch& b, Json* jruns, std::vector<const Command*>* all) {
    const BatchRun* cpu_ref = b.find("cpu", s.has_jobs ? 0 : -1, false);
    const BatchRun* chain_ref = b.find("cpu", s.has_jobs ? p.issue_jobs : -1, true);
    char line[1024];
    std::string t = fmt("\nbatch: %d different %dx%d .hdr in one process, median (min) of %d; cmgen: one process per "
                        "map, one after another; spec: also --specular (6x%d^2; cmgen --ibl-ld)\n",
                        p.batch_count, p.batch_width, p.batch_width / 2, s.opt.repeats, p.specular_size);
    const char* fmt_row = "| %-28s | %-22s | %-8s | %-7s | %-13s | %-13s |\n";
    std::snprintf(line, sizeof line, fmt_row, "run", "s", "maps/s", "peak MB", "agree vs cpu", "chain vs cpu");
    t += line;
    t += "|------------------------------|------------------------|----------|---------|---------------|---------------|\n";
    *jruns = Json::array();
    for (const BatchRun& r : b.runs) {
        const Command& c = r.cmd;
        double worst = NAN, chain = NAN;
        int outputs = 0, chains = 0;
        const bool ours = r.device != "cmgen";
        if (ours && c.ok() && cpu_ref && cpu_ref->cmd.ok()) worst = agreement(b.files, r, *cpu_ref, false, &outputs);
        if (ours && r.specular && c.ok() && chain_ref && chain_ref->cmd.ok())
            chain = agreement(b.files, r, *chain_ref, true, &chains);
        const double mps = c.ok() ? p.batch_count / c.med() : NAN;
        std::snprintf(line, sizeof line, fmt_row, c.label.c_str(), cell_time(c).c_str(),
                      c.ok() ? fmt("%.2f", mps).c_str() : "-", cell_mb(c).c_str(), ours ? cell_agree(worst).c_str() : "-",
                      ours && r.specular ? cell_agree(chain).c_str() : "-");
        t += line;
        all->push_back(&c);
        Json j = c.json();
        j["device"] = r.device;
        j["jobs"] = r.jobs >= 0 ? Json(r.jobs) : Json();
        j["specular"] = r.specular ? Json(p.specular_size) : Json();
        j["maps"] = p.batch_count;
        j["maps_per_s"] = c.ok() ? Json(mps) : Json();
        j["max_rel_vs_cpu_jobs0"] = std::isnan(worst) ? Json() : Json(worst);
        j["outputs_checked"] = outputs;
        j["chain_max_rel_vs_cpu"] = std::isnan(chain) ? Json() : Json(chain);
        j["chains_checked"] = chains;
        jruns->push_back(j);
    }
    t += failure_lines(*all);
    t += "(agree vs cpu: the coefficients file by file against batch.cpu.jobs0, < 1e-4; chain vs cpu: the specular "
         "chains against the cpu run with --specular, < 1e-4; spec runs had no warm-up)\n";
    if (!s.has_jobs) t += "(this bake-irradiance has no --jobs: one batch run per device)\n";
    return t;
}

}  // namespace bench
