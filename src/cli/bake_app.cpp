// The command-line tool: parses the options, plans the run (its jobs, its shard, what is unchanged,
// every file it touches through the one guard), hands the inputs to a Batch (src/bake/batch.h) and
// prints what it says: errors and warnings on stderr, results on stdout, the progress line; then
// the report and the depfile. No numerics and no GL here.
#include "bake_app.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "atomic_file.h"
#include "bake_manifest.h"
#include "batch.h"
#include "cli_report.h"
#include "depfile.h"
#include "errors.h"
#include "interrupts.h"
#include "job_plan.h"
#include "options.h"
#include "outputs.h"
#include "progress.h"
#include "report_merge.h"
#include "shard.h"
#include "stop_request.h"
#include "stopwatch.h"
#include "trace.h"

namespace bake {

namespace {

constexpr const char* kTool = "bake-irradiance";

// The exit code and error line of an exception that ends a run (or an input).
std::pair<int, std::string> refusal(const std::exception& e) {
    if (dynamic_cast<const CLI::ValidationError*>(&e)) return {kExitUsage, one_line(e.what()) + " (see --help)"};
    return failure_of(e);
}

class App final : public BatchLog {
public:
    App(const Options& o, std::vector<std::string> warnings)
        : o_(o), settings_(bake_settings(o)), progress_(progress_mode(o)), run_warnings_(std::move(warnings)) {}
    int run();

    // BatchLog: what the bake and the batch say.
    void stage(const char* name) override {
        throw_if_stop_requested();  // a stage boundary is a clean place to stop
        trace_event(name);
        progress_.stage(index_, job_count_, label_, name);
    }
    void input(const BakeJob& job) override {
        index_ = job.index;
        label_ = job.label;
    }
    void writing(const BakeJob& job) override { progress_.stage(job.index, job_count_, job.label, "write"); }
    void stages_done() override { progress_.clear(); }
    void warning(const std::string& line) override {
        if (!o_.quiet) print_line(line);
    }
    void result(const std::string& line) override { print_out(line); }
    void detail(const std::string& line) override {
        if (!o_.quiet) print_out(line);
    }
    void error(const std::string& line) override { print_line(line); }
    void finished(const FileReport& rep) override {
        if (o_.timings && rep.status != "skipped") print_out(timings_line(rep));
        if (o_.batch() && !o_.quiet) print_out(summary_line(rep, job_count_));
    }

private:
    // Progress lines: asked for, or on a terminal (auto); never with --quiet.
    static Progress::Mode progress_mode(const Options& o) {
        if (o.quiet || o.progress == "never") return Progress::Mode::Off;
        if (::isatty(STDERR_FILENO)) return Progress::Mode::Terminal;
        return o.progress == "always" ? Progress::Mode::Log : Progress::Mode::Off;
    }
    void print_line(const std::string& line) { progress_.print(stderr, std::string(kTool) + ": " + one_line(line)); }
    void print_out(const std::string& line) { progress_.print(stdout, line); }

    // Whether a GL context is made (devices.h says what --device auto gives the GPU).
    bool context_wanted() const { return o_.compare || o_.device == "gpu" || (o_.device == "auto" && gpu_work_); }
    // --jobs auto: decode 2 inputs ahead where the GPU bakes or the CPU stages have 8 threads or
    // more, none on small machines, where decoding ahead takes the cores the CPU stages use.
    // Measured (batches of SH bakes, default jobs): on 16 cores 2 ahead is 1.4-1.8x faster than
    // none for 4-20 maps of 2k-4k; on 2 cores four 8k maps took 1.56 s with 2 ahead and 1.24 s
    // with none.
    int default_jobs_ahead() const {
        const int threads = o_.threads > 0 ? o_.threads : static_cast<int>(std::thread::hardware_concurrency());
        return context_wanted() || threads >= 8 ? 2 : 0;
    }
    std::vector<BakeJob> plan(RunReport& report);
    std::vector<bool> shard_members(const std::vector<BakeJob>& jobs, RunReport& report) const;
    std::optional<FileReport> unchanged(const BakeJob& job) const;
    void open_devices();
    int finish(RunReport& report, const std::string& first_failure);

    const Options& o_;
    const BakeSettings settings_;
    Progress progress_;
    std::vector<std::string> run_warnings_;
    std::unique_ptr<Devices> devices_;
    std::optional<FileGuard> guard_;                     // every file of the run, checked before any work
    std::vector<std::optional<FileReport>> unchanged_;   // --skip-unchanged: a job's report when it is skipped
    bool gpu_work_ = false;                              // work --device auto gives the GPU
    int job_count_ = 0;
    int index_ = 0;  // the input being baked, for stage lines
    std::string label_;
};

// The jobs of this run (its shard's), with what --skip-unchanged skips decided, and every file
// they and the run touch checked by the guard, which is then sealed; missing folders are made.
std::vector<BakeJob> App::plan(RunReport& report) {
    std::vector<BakeJob> all = plan_jobs(o_);
    const std::vector<bool> mine = o_.shard.empty() ? std::vector<bool>(all.size(), true) : shard_members(all, report);
    std::vector<bool> bakes = mine;
    std::vector<std::optional<FileReport>> unchanged_all(all.size());
    if (o_.skip_unchanged)
        for (std::size_t i = 0; i < all.size(); ++i)
            if (mine[i] && (unchanged_all[i] = unchanged(all[i]))) bakes[i] = false;
    guard_ = run_files(o_, all, settings_, bakes);
    guard_->check(o_.no_clobber);
    guard_->make_folders();
    guard_->seal();
    std::vector<BakeJob> jobs;
    for (std::size_t i = 0; i < all.size(); ++i)
        if (mine[i]) {
            jobs.push_back(std::move(all[i]));
            unchanged_.push_back(std::move(unchanged_all[i]));
        }
    return jobs;
}

// --shard K/N: which jobs are this task's, by a stable hash of each input's path relative to the
// batch's root (shard.h says why); the report states the shard and the command's input count.
std::vector<bool> App::shard_members(const std::vector<BakeJob>& jobs, RunReport& report) const {
    Shard shard;
    try {
        shard = parse_shard(o_.shard, [](const char* name) -> std::optional<std::string> {
            const char* v = std::getenv(name);
            return v ? std::optional<std::string>(v) : std::nullopt;
        });
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--shard: ") + e.what());
    }
    std::vector<std::string> labels;
    for (const BakeJob& j : jobs) labels.push_back(j.label);
    const std::string root = common_root(labels);
    report.shard = {{"index", shard.index}, {"count", shard.count}, {"inputs", static_cast<int>(jobs.size())}};
    std::vector<bool> mine;
    for (const BakeJob& j : jobs) mine.push_back(shard_of(j.label, root, shard.count) == shard.index);
    return mine;
}

// --skip-unchanged: the job's report when its outputs were baked from the same inputs, options
// and version (its manifest says, bake_manifest.h), saying skipped and why; else nothing. Reads
// and hashes the inputs and outputs, decodes nothing.
std::optional<FileReport> App::unchanged(const BakeJob& job) const {
    const std::vector<std::string> outputs = planned_outputs(job, settings_);
    if (outputs.empty()) return std::nullopt;
    std::string reason;
    if (!outputs_unchanged(manifest_path(outputs.front()), settings_.generator, settings_.fingerprint, input_files(job),
                           outputs, &reason))
        return std::nullopt;
    FileReport rep;
    rep.index = job.index;
    rep.input = job.label;
    rep.order = o_.order;
    rep.status = "skipped";
    rep.skip_reason = "--skip-unchanged: outputs baked from the same input bytes, options and version";
    rep.files = input_files(job);
    rep.outputs = outputs;
    return rep;
}

void App::open_devices() {
    const DeviceMode mode = o_.compare || o_.device == "gpu" ? DeviceMode::Gpu
                            : o_.device == "cpu"             ? DeviceMode::Cpu
                                                             : DeviceMode::Auto;
    const GlBackend gl = o_.gl == "egl" ? GlBackend::Egl : o_.gl == "glfw" ? GlBackend::Glfw : GlBackend::Auto;
    devices_ = std::make_unique<Devices>(mode, gpu_work_, gl, o_.verbose, o_.threads, [this](const std::string& line) {
        if (!o_.quiet) print_line(line);
    });
    if (o_.verbose && devices_->gpu()) {
        const GlContextInfo& info = devices_->gpu()->info();
        print_line("OpenGL context: " + info.backend + ", renderer '" + info.renderer + "', version '" + info.version + "'");
    }
}

int App::run() {
    const Stopwatch run_watch;
    std::vector<BakeJob> jobs;
    std::unique_ptr<Batch> batch;
    gpu_work_ = !o_.specular.empty() || !o_.gltf.empty() || !o_.sheen.empty() || o_.irradiance == "exact";
    RunReport report = new_report(o_, o_.jobs >= 0 ? o_.jobs : default_jobs_ahead());
    report.warnings = run_warnings_;
    // Everything that can refuse the whole run, before any input is baked: usage errors found in
    // the names, the files (the guard), the DFG table, the GPU when demanded. The report says why.
    try {
        jobs = plan(report);
        job_count_ = static_cast<int>(jobs.size());
        gpu_work_ = gpu_work_ || (o_.device == "auto" && gpu_pays_off(jobs));
        report.settings["jobs"] = o_.jobs >= 0 ? o_.jobs : default_jobs_ahead();
        if (!o_.dfg.empty()) {
            write_dfg_table(o_.dfg, o_.dfg_size, o_.threads, settings_.ktx);
            report.outputs.push_back(o_.dfg);
        }
        if (!o_.sheen_lut.empty()) {
            write_sheen_lut_table(o_.sheen_lut, o_.dfg_size, o_.threads, settings_.ktx);
            report.outputs.push_back(o_.sheen_lut);
        }
        batch = std::make_unique<Batch>(jobs, settings_, BatchSettings{report.settings["jobs"].get<int>(), o_.fail_fast},
                                        std::move(unchanged_));
        if (!jobs.empty()) {
            // The first inputs decode on workers while this thread makes the GL context and its
            // programs: each takes a good part of a small bake. In a batch the next two as well,
            // so that the first map finds the second decoded when it hands it to the GPU (else
            // copied on this thread: ~18 ms on the H200 machine); four more at once delayed the
            // context by ~40 ms (bench/NOTES.md).
            if (context_wanted()) batch->decode_first(2, o_.irradiance != "exact");
            trace_event("devices");
            open_devices();
            trace_event("devices ready");
        }
    } catch (const std::exception& e) {
        const auto [code, line] = refusal(e);
        print_line(line);
        fail_every_input(report, o_, code, line);
        report.total_ms = run_watch.ms();
        write_report_of_refusal(o_.report, o_, report, guard_ ? &*guard_ : nullptr);
        return code;
    }
    if (jobs.empty()) return finish(report, "");
    if (GpuBackend* gpu = devices_->gpu()) {
        gpu->prepare(batch->first_input_hint());
        trace_event("programs ready");
        report.gpu_backend = gpu->info().backend;
        report.gpu_renderer = gpu->info().renderer;
        report.gpu_version = gpu->info().version;
    }
    report.files.resize(jobs.size());
    for (std::size_t i = 0; i < jobs.size(); ++i) {  // as the inputs not reached are reported: skipped
        report.files[i].index = jobs[i].index;
        report.files[i].input = jobs[i].label;
        report.files[i].order = o_.order;
    }
    std::string first_failure;
    try {
        first_failure = batch->run(*devices_, *this, report.files);
    } catch (const Interrupted& stop) {
        // The pending files are gone already (interrupts.h); what was baked stays baked.
        int baked = 0;
        for (FileReport& r : report.files) {
            baked += r.status == "ok";
            if (r.status == "skipped" && r.skip_reason.empty()) r.skip_reason = "interrupted";  // never reached
        }
        report.interrupted = signal_name(stop.signal);
        report.total_ms = run_watch.ms();
        print_line(std::string("interrupted by ") + signal_name(stop.signal) + ": " + std::to_string(baked) + " of " +
                   std::to_string(jobs.size()) + " inputs baked");
        finish(report, first_failure);
        return 128 + stop.signal;
    }
    if (o_.verbose && devices_->gpu()) {
        const GpuBackend::ProgramStats ps = devices_->gpu()->program_stats();
        print_line("GPU programs: " + std::to_string(ps.compiled) + " compiled, " + std::to_string(ps.cached) +
                   " loaded from the program cache (" + (ps.cache_folder.empty() ? "off" : ps.cache_folder) + ")");
    }
    report.total_ms = run_watch.ms();
    return finish(report, first_failure);
}

// The exit code (the first failed input's), the depfile, the report, and a batch's total line.
int App::finish(RunReport& report, const std::string& first_failure) {
    int exit_code = kExitOk;
    for (const FileReport& r : report.files)
        if (r.status == "failed") {
            exit_code = *r.exit_code;
            break;
        }
    if (!o_.depfile.empty()) {
        try {
            write_depfile(o_.depfile, report);
            report.outputs.push_back(o_.depfile);
        } catch (const OutputError& e) {
            print_line(e.what());
            if (exit_code == kExitOk) exit_code = kExitOutput;
        }
    }
    report.exit_code = exit_code;
    if (!o_.report.empty()) {
        try {
            write_run_report(o_.report, report);
        } catch (const OutputError& e) {
            print_line(e.what());
            if (exit_code == kExitOk) exit_code = kExitOutput;
        }
    }
    if (o_.batch() && !o_.quiet) {
        int ok = 0, failed = 0, skipped = 0;
        for (const FileReport& r : report.files) {
            ok += r.status == "ok";
            failed += r.status == "failed";
            skipped += r.status == "skipped";
        }
        char total[64];
        std::snprintf(total, sizeof total, "%.2f s", report.total_ms / 1000.0);
        print_out("total: " + std::to_string(report.files.size()) + " files, " + std::to_string(ok) + " ok, " +
                  std::to_string(failed) + " failed, " + std::to_string(skipped) + " skipped in " + total + "; exit " +
                  std::to_string(exit_code) + (first_failure.empty() ? "" : " (first failure: " + first_failure + ")"));
    }
    return exit_code;
}

// --merge-reports OUT.json REPORT...: the shards' reports as one (report_merge.h). Exit: the merged
// run's (the first failed input's), 2 when OUT is one of the reports, 3 when the reports do not
// make one batch, 4 when OUT cannot be written.
int merge_reports_command(const Options& o) {
    try {
        FileGuard guard;
        for (const std::string& in : o.inputs) guard.read(in, "--merge-reports input");
        guard.write(o.merge_reports, "--merge-reports");
        guard.check(false);
        guard.make_folders();
        guard.seal();
    } catch (const std::exception& e) {
        const auto [code, line] = refusal(e);
        std::cerr << kTool << ": " << line << "\n";
        return code;
    }
    try {
        const nlohmann::json merged = merge_reports(o.inputs);
        write_text_atomically(o.merge_reports, merged.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
        std::string first_failure;
        for (const nlohmann::json& f : merged["files"])
            if (f.value("status", "") == "failed") {
                first_failure = f.value("input", std::string());
                break;
            }
        if (!o.quiet)
            std::printf("merged %zu reports: %d inputs, %d ok, %d failed, %d skipped; exit %d%s\n", o.inputs.size(),
                        merged["summary"]["files"].get<int>(), merged["summary"]["ok"].get<int>(),
                        merged["summary"]["failed"].get<int>(), merged["summary"]["skipped"].get<int>(),
                        merged["exit_code"].get<int>(),
                        first_failure.empty() ? "" : (" (first failure: " + first_failure + ")").c_str());
        return merged["exit_code"].get<int>();
    } catch (const OutputError& e) {
        std::cerr << kTool << ": " << one_line(e.what()) << "\n";
        return kExitOutput;
    } catch (const std::exception& e) {  // InputError, or reports that are not one batch
        std::cerr << kTool << ": --merge-reports: " << one_line(e.what()) << "\n";
        return kExitInput;
    }
}

}  // namespace

int run_bake_app(int argc, char** argv) {
    ParsedCommandLine parsed = parse_command_line(argc, argv);
    const Options& o = parsed.options;
    if (!parsed.usage_error.empty()) {
        std::cerr << kTool << ": " << parsed.usage_error << "\n";
        RunReport report = new_report(o, o.jobs);
        report.warnings = parsed.warnings;
        fail_every_input(report, o, kExitUsage, parsed.usage_error);
        write_report_of_refusal(o.report, o, report);
        return kExitUsage;
    }
    if (parsed.exit_code) return *parsed.exit_code;  // help, version, or a parse error (printed)
    if (!o.merge_reports.empty()) return merge_reports_command(o);
    if (!o.quiet)
        for (const std::string& w : parsed.warnings) std::cerr << kTool << ": " << w << "\n";
    try {
        App app(o, parsed.warnings);
        return app.run();
    } catch (const std::exception& e) {
        const auto [code, line] = refusal(e);
        std::cerr << kTool << ": " << line << "\n";
        return code;
    } catch (const Interrupted& stop) {
        std::cerr << kTool << ": interrupted by " << signal_name(stop.signal) << "\n";
        return 128 + stop.signal;
    }
}

}  // namespace bake
