// The command-line tool: parses the options, plans the jobs, runs each input's bake (src/bake) with
// the next inputs decoding ahead and, in a batch, the previous input's outputs being written, and
// prints: errors and warnings on stderr, results on stdout, the progress line. No numerics and no
// GL here.
#include "bake_app.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <functional>
#include <deque>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "atomic_file.h"
#include "bake.h"
#include "bake_manifest.h"
#include "outputs.h"
#include "cli_report.h"
#include "depfile.h"
#include "dfg.h"
#include "dfg_files.h"
#include "ibl_ktx2.h"
#include "environment_loader.h"
#include "errors.h"
#include "file_names.h"
#include "image_io.h"
#include "interrupts.h"
#include "job_plan.h"
#include "options.h"
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
    if (dynamic_cast<const CLI::ValidationError*>(&e) || dynamic_cast<const UsageError*>(&e))
        return {kExitUsage, one_line(e.what()) + " (see --help)"};
    if (dynamic_cast<const InputError*>(&e)) return {kExitInput, one_line(e.what())};
    if (dynamic_cast<const OutputError*>(&e)) return {kExitOutput, one_line(e.what())};
    if (dynamic_cast<const GpuError*>(&e)) return {kExitGpuUnavailable, "GPU path failed: " + one_line(e.what())};
    if (dynamic_cast<const std::bad_alloc*>(&e)) return {kExitFailure, "out of memory"};
    return {kExitFailure, "internal error: " + one_line(e.what())};
}

// The DFG table depends on no input: written once, before the inputs.
void write_dfg(const std::string& path, int size, int threads, const KtxWriteOptions& ktx) {
    const Image table = compute_dfg_table(size, threads);
    if (has_extension(path, ".png"))
        write_dfg_png16(path, table);
    else if (has_extension(path, ".ktx2"))
        write_dfg_ktx2(path, table, ktx);
    else
        write_dfg_exr(path, table);
}

// --device auto on a batch: the GPU pays for its context (~100 ms of a process on the H200
// machine) once the batch holds about 16 maps of 4096 x 2048 (whole processes, 20 of them with
// --jobs 4: 56.0 maps/s on the GPU, 51.9 on the CPU; bench/results/h200-issue19-ahead/; 8 of them
// took 0.25 s on the CPU, 0.32 on the GPU: h200-batch-crossover/). Decided from the inputs' headers
// (the texels a file stores, six faces' for --faces), before any work; a header that cannot be
// read counts nothing (its input fails later, as on any path). BAKE_TEST_GPU_BATCH_TEXELS sets the
// limit for tests.
bool large_batch(const std::vector<BakeJob>& jobs) {
    if (jobs.size() < 2) return false;
    std::uint64_t limit = std::uint64_t{1} << 27;
    if (const char* hook = std::getenv("BAKE_TEST_GPU_BATCH_TEXELS"); hook && *hook) limit = std::strtoull(hook, nullptr, 10);
    std::uint64_t total = 0;
    for (const BakeJob& job : jobs) {
        for (const std::string& file : job.faces.empty() ? std::vector<std::string>{job.label} : job.faces)
            if (const auto size = read_image_size(file); size && size->first > 0 && size->second > 0)
                total += static_cast<std::uint64_t>(size->first) * static_cast<std::uint64_t>(size->second);
        if (total >= limit) return true;
    }
    return false;
}

// Whether this machine has a GPU device for a hardware OpenGL driver: NVIDIA's control node, or a
// DRM render node (Mesa's hardware drivers). Without one the only OpenGL is a software rasterizer,
// which --device auto refuses after making its context: for a large SH batch that is ~50 ms of
// nothing on the 2-core VM (3.8% of a 16-map batch), so it is not tried there. The test hook
// BAKE_TEST_SOFTWARE_GL_IS_GPU=1 (llvmpipe counts as a GPU) counts as one.
bool gpu_device_present() {
    if (const char* hook = std::getenv("BAKE_TEST_SOFTWARE_GL_IS_GPU"); hook && std::string(hook) == "1") return true;
    std::error_code ec;
    if (std::filesystem::exists("/dev/nvidiactl", ec)) return true;
    for (const auto& entry : std::filesystem::directory_iterator("/dev/dri", ec))
        if (entry.path().filename().string().rfind("renderD", 0) == 0) return true;
    return false;
}

// What the first input will most likely need, guessed from its name before it decodes (.hdr:
// RGBE lat-long; .exr: half lat-long; six faces or a forced cube layout: a cube), its size from
// its header.
PrepareHint first_input_hint(const Options& o, const BakeJob& first) {
    PrepareHint hint;
    hint.cube = !first.faces.empty() || expand_face_pattern(first.label).has_value() ||
                (!o.layout.empty() && o.layout != "equirect");
    if (!hint.cube) {
        hint.encoding = has_extension(first.label, ".hdr") ? TexelEncoding::Rgbe8 : TexelEncoding::Half;
        // A 2:1 header: the upload buffers can be made while the texels decode.
        if (const auto size = read_image_size(first.label); size && size->first == 2 * size->second) {
            hint.texel_count = static_cast<std::size_t>(size->first) * static_cast<std::size_t>(size->second);
            hint.width = size->first;
            hint.height = size->second;
            if (!o.specular.empty()) hint.specular_source_size = default_specular_source_size(size->first, o.specular_size);
        }
    }
    for (const std::string& out : first.outputs)
        if (!has_extension(out, ".json")) hint.cube_map = o.output_layout != "equirect";
    hint.exact_map = o.irradiance == "exact";
    hint.projected_order = kProjectedOrder;
    hint.map_order = o.order;
    return hint;
}

class App final : public BakeLog {
public:
    App(const Options& o, std::vector<std::string> warnings)
        : o_(o), settings_(bake_settings(o)), progress_(progress_mode(o)), run_warnings_(std::move(warnings)) {}
    int run();

    // BakeLog: the pipeline's messages.
    void stage(const char* name) override {
        throw_if_stop_requested();  // a stage boundary is a clean place to stop
        trace_event(name);
        progress_.stage(index_, job_count_, label_, name);
    }
    void warning(const std::string& line) override {
        if (!o_.quiet) print_line(line);
    }
    void result(const std::string& line) override { print_out(line); }
    void detail(const std::string& line) override {
        if (!o_.quiet) print_out(line);
    }

private:
    // Progress lines: asked for, or on a terminal (auto); never with --quiet.
    static Progress::Mode progress_mode(const Options& o) {
        if (o.quiet || o.progress == "never") return Progress::Mode::Off;
        if (::isatty(STDERR_FILENO)) return Progress::Mode::Terminal;
        return o.progress == "always" ? Progress::Mode::Log : Progress::Mode::Off;
    }
    void print_line(const std::string& line) { print(stderr, std::string(kTool) + ": " + one_line(line)); }
    void print_out(const std::string& line) { print(stdout, line); }
    void print(std::FILE* stream, std::string line) {
        if (held_) held_->emplace_back(stream, std::move(line));
        else progress_.print(stream, line);
    }

    // Work that is the GPU's under --device auto (devices.h says why), and whether a context is made.
    bool gpu_work() const { return !o_.specular.empty() || !o_.gltf.empty() || o_.irradiance == "exact" || large_batch_; }
    bool context_wanted() const { return o_.compare || o_.device == "gpu" || (o_.device == "auto" && gpu_work()); }
    // --jobs auto: decode 2 inputs ahead where the GPU bakes or the CPU stages have 8 threads or
    // more, none on small machines, where decoding ahead takes the cores the CPU stages use. Measured
    // (batches of SH bakes, default jobs): on 16 cores 2 ahead is 1.4-1.8x faster than none for 4-20
    // maps of 2k-4k; on 2 cores four 8k maps took 1.56 s with 2 ahead and 1.24 s with none.
    int default_jobs_ahead() const {
        const int threads = o_.threads > 0 ? o_.threads : static_cast<int>(std::thread::hardware_concurrency());
        return context_wanted() || threads >= 8 ? 2 : 0;
    }
    void open_devices();
    std::string bake_inputs(const std::vector<BakeJob>& jobs, class DecodeAhead& decode, RunReport& report);
    std::vector<bool> shard_members(const std::vector<BakeJob>& jobs, RunReport& report) const;
    std::optional<FileReport> unchanged(const BakeJob& job) const;
    void write_depfile(const RunReport& report) const;
    int finish(RunReport& report, const std::string& first_failure);

    // Lines printed while an earlier input is still in flight wait (Hold, InFlight::held), so that
    // stdout and stderr read as if the inputs had run one after the other.
    using Lines = std::vector<std::pair<std::FILE*, std::string>>;
    class Hold;
    // An input whose outputs are being written: in a batch on a writer thread while the next inputs
    // bake (at most two at a time, which bounds the memory held: bake_inputs), else on this thread
    // when retired. Inputs in flight are retired oldest first.
    struct InFlight {
        std::size_t index;                     // in the jobs and report.files
        std::unique_ptr<BakeOutcome> outcome;  // the writer's until `done` is ready
        std::shared_future<void> done;         // the writer's end (the next writer waits for it too)
        double compute_ms;                     // its stages on this thread
        Lines held;                            // its stages' lines, held while an earlier input was in flight
    };
    using Writing = std::deque<InFlight>;

    std::optional<BakeOutcome> compute_job(Bake& bake, const BakeJob& job, const std::function<LoadedInput()>& get_loaded,
                                           FileReport& rep);
    InFlight start_write(std::size_t i, const BakeJob& job, BakeOutcome outcome, double compute_ms, FileReport& rep,
                         std::launch policy, std::shared_future<void> previous) const;
    void retire_oldest(Bake& bake, const std::vector<BakeJob>& jobs, Writing& writing, RunReport& report,
                       std::string& first_failure);
    void retire_all(Bake& bake, const std::vector<BakeJob>& jobs, Writing& writing, RunReport& report, std::string& first_failure);
    void settle(const BakeJob& job, FileReport& rep, std::exception_ptr error);
    void report_input(const FileReport& rep, std::string& first_failure);
    void print_held(Lines& lines);
    void skip_for_fail_fast(FileReport& rep);

    const Options& o_;
    const BakeSettings settings_;
    Progress progress_;
    std::vector<std::string> run_warnings_;
    std::unique_ptr<Devices> devices_;
    int job_count_ = 0;
    int index_ = 0;       // the input being baked (for stage lines)
    std::string label_;
    Lines* held_ = nullptr;  // where lines wait (Hold), else null: printed at once
    bool large_batch_ = false;  // a batch the GPU bakes faster than the CPU (large_batch())
    std::vector<std::optional<FileReport>> unchanged_;  // --skip-unchanged: a job's report when it is skipped
    std::optional<FileGuard> guard_;  // every file of the run, checked before any work
};

// Holds the lines printed in its lifetime when `on`; release() prints them, else they are dropped.
class App::Hold {
public:
    Hold(App& app, bool on) : app_(app) {
        if (on) app_.held_ = &lines_;
    }
    ~Hold() { app_.held_ = nullptr; }
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;
    void pause() { app_.held_ = nullptr; }  // the input in flight prints its own lines now
    void release() {
        app_.held_ = nullptr;
        app_.print_held(lines_);
    }
    Lines take() {  // to be printed later (InFlight::held)
        app_.held_ = nullptr;
        return std::move(lines_);
    }

private:
    App& app_;
    Lines lines_;
};

void App::open_devices() {
    const DeviceMode mode = o_.compare || o_.device == "gpu" ? DeviceMode::Gpu
                            : o_.device == "cpu"             ? DeviceMode::Cpu
                                                             : DeviceMode::Auto;
    const GlBackend gl = o_.gl == "egl" ? GlBackend::Egl : o_.gl == "glfw" ? GlBackend::Glfw : GlBackend::Auto;
    devices_ = std::make_unique<Devices>(mode, gpu_work(), gl, o_.verbose, o_.threads, [this](const std::string& line) {
        if (!o_.quiet) print_line(line);
    });
    if (o_.verbose && devices_->gpu()) {
        const GlContextInfo& info = devices_->gpu()->info();
        print_line("OpenGL context: " + info.backend + ", renderer '" + info.renderer + "', version '" + info.version + "'");
    }
}

// Turns what ended a step of an input (null: nothing) into its status, exit code and error line
// (printed). Throws Interrupted, the report saying so, when a stop was asked for.
void App::settle(const BakeJob& job, FileReport& rep, std::exception_ptr error) {
    std::optional<std::pair<int, std::string>> failure;
    int stopped_by = 0;
    try {
        if (error) std::rethrow_exception(error);
    } catch (const Interrupted& stop) {
        stopped_by = stop.signal;
    } catch (const CheckFailed& failed) {
        failure = {failed.code, failed.line};
    } catch (const std::exception& e) {
        const auto [code, line] = refusal(e);
        failure = {code, code == kExitInput || code == kExitOutput ? line : job.label + ": " + line};
    }
    // A write that failed because the signal's cleanup removed its temporary is the interruption.
    if (!stopped_by && failure) stopped_by = stop_request().load();
    progress_.clear();
    if (stopped_by) {
        rep.status = "failed";
        rep.exit_code = 128 + stopped_by;
        rep.error = job.label + ": interrupted by " + signal_name(stopped_by);
        throw Interrupted{stopped_by};
    }
    rep.exit_code = failure ? failure->first : kExitOk;
    rep.status = failure ? "failed" : "ok";
    if (failure) {
        rep.error = failure->second;
        print_line(failure->second);
    }
}

// Runs an input's stages up to its outputs; a failure is its exit code and error line. Throws
// Interrupted.
std::optional<BakeOutcome> App::compute_job(Bake& bake, const BakeJob& job, const std::function<LoadedInput()>& get_loaded,
                                            FileReport& rep) {
    rep.index = index_ = job.index;
    rep.input = label_ = job.label;
    rep.order = o_.order;
    rep.files = {job.label};
    std::optional<BakeOutcome> outcome;
    std::exception_ptr error;
    try {
        outcome = bake.compute(job, get_loaded, rep);
    } catch (...) {
        error = std::current_exception();
    }
    settle(job, rep, error);
    return outcome;
}

// Hands the input's outcome to the writer: a thread of its own (std::launch::async) or this
// thread when retired (deferred). The writer touches only `rep` and the files, and frees the
// outcome's large parts once written. It commits its files only once `previous` (the write of
// the input before, if still in flight) has ended, so that inputs are committed in order: an
// interruption leaves a prefix of the inputs baked.
App::InFlight App::start_write(std::size_t i, const BakeJob& job, BakeOutcome outcome, double compute_ms, FileReport& rep,
                               std::launch policy, std::shared_future<void> previous) const {
    InFlight w{i, std::make_unique<BakeOutcome>(std::move(outcome)), {}, compute_ms, {}};
    auto write = [&job, &settings = settings_, o = w.outcome.get(), &rep, previous = std::move(previous)] {
        struct Release {
            BakeOutcome& o;
            ~Release() { release_written(o); }
        } release{*o};
        write_outcome(job, settings, *o, rep, [&previous] {
            if (previous.valid()) previous.wait();  // (its error is its own: wait() does not throw it)
        });
    };
    try {
        w.done = std::async(policy, write);
    } catch (const std::system_error&) {  // no thread to be had: written on this thread when retired
        w.done = std::async(std::launch::deferred, write);
    }
    return w;
}

// Waits for the outputs of the oldest input in flight, then finishes it as if it had just been
// baked: its checks, its status, its lines; then prints the lines the next one in flight held.
// Throws Interrupted (the report saying so) when its write was stopped.
void App::retire_oldest(Bake& bake, const std::vector<BakeJob>& jobs, Writing& writing, RunReport& report,
                        std::string& first_failure) {
    if (writing.empty()) return;
    InFlight w = std::move(writing.front());
    writing.pop_front();
    const BakeJob& job = jobs[w.index];
    FileReport& rep = report.files[w.index];
    progress_.stage(job.index, job_count_, job.label, "write");  // shown if the wait is long
    std::exception_ptr error;
    trace_event("wait for the write");  // the main thread idles from here until "retired"
    try {
        w.done.get();
        trace_event("retired");
        bake.conclude(job, *w.outcome, rep);
    } catch (...) {
        error = std::current_exception();
    }
    // Its own work: the stages here and the write on the writer's thread (report_input's lines).
    rep.timings.total = w.compute_ms + rep.timings.write.value_or(0);
    settle(job, rep, error);
    report_input(rep, first_failure);
    if (!writing.empty()) print_held(writing.front().held);
}

// Lines held back (Hold, InFlight::held), printed now and cleared.
void App::print_held(Lines& lines) {
    for (const auto& [stream, line] : lines) progress_.print(stream, line);
    lines.clear();
}

// Every input in flight, oldest first. After an interruption (the first retire throws), the
// others are settled too (their reports say so) before Interrupted goes on.
void App::retire_all(Bake& bake, const std::vector<BakeJob>& jobs, Writing& writing, RunReport& report, std::string& first_failure) {
    std::optional<Interrupted> stopped;
    while (!writing.empty()) {
        try {
            retire_oldest(bake, jobs, writing, report, first_failure);
        } catch (const Interrupted& stop) {
            if (!stopped) stopped = stop;
        }
    }
    if (stopped) throw *stopped;
}

// An input's lines once it is done (baked or failed), and the batch's first failure.
void App::report_input(const FileReport& rep, std::string& first_failure) {
    if (o_.timings) print_out(timings_line(rep));
    if (o_.batch() && !o_.quiet) print_out(summary_line(rep, job_count_));
    if (rep.status == "failed" && first_failure.empty()) first_failure = rep.input;
}

void App::skip_for_fail_fast(FileReport& rep) {
    rep.skip_reason = "--fail-fast";
    if (o_.batch() && !o_.quiet) print_out(summary_line(rep, job_count_));
}

// A benchmark's setting (the same binary timed both ways): $name when set to a number in [lo, hi],
// else `fallback`.
int bench_setting(const char* name, int lo, int hi, int fallback) {
    const char* v = std::getenv(name);
    if (!v || !*v) return fallback;
    const int n = std::atoi(v);
    return n >= lo && n <= hi ? n : fallback;
}

// Inputs decoding on worker threads (std::async) ahead of the one being baked: up to `ahead`
// next ones (--jobs); while the GL context is made, the first one and up to two more (launch_first).
class DecodeAhead {
public:
    DecodeAhead(const std::vector<BakeJob>& jobs, const BakeSettings& settings, int ahead)
        : jobs_(jobs), settings_(settings), ahead_(ahead), pending_(jobs.size()), done_(jobs.size()), failed_(jobs.size()) {}
    // Starts input i's decode; `cells_on_gpu` says whether its report cells are left to the GPU.
    void launch(std::size_t i, bool cells_on_gpu) {
        if (i < jobs_.size() && !pending_[i].valid())
            pending_[i] = std::async(std::launch::async, [this, i, cells_on_gpu] { return load_input(jobs_[i], settings_, cells_on_gpu); });
    }
    void launch_from(std::size_t current, bool cells_on_gpu) {
        for (std::size_t i = current; ahead_ > 0 && i < jobs_.size() && i <= current + static_cast<std::size_t>(ahead_); ++i)
            launch(i, cells_on_gpu);
    }
    // While the GL context is made: the first input and the next `more` (at most `ahead`).
    void launch_first(int more, bool cells_on_gpu) {
        for (int k = 0; k <= std::min(more, ahead_); ++k) launch(static_cast<std::size_t>(k), cells_on_gpu);
    }
    // Input i decoded: waited for when launched, else decoded now on this thread.
    LoadedInput get(std::size_t i, bool cells_on_gpu) {
        if (failed_[i]) std::rethrow_exception(std::exchange(failed_[i], nullptr));
        if (done_[i]) {
            LoadedInput loaded = std::move(*done_[i]);
            done_[i].reset();
            return loaded;
        }
        return pending_[i].valid() ? pending_[i].get() : load_input(jobs_[i], settings_, cells_on_gpu);
    }
    // Input i when its decode has finished (looked at, not taken: get(i) returns it); nullptr
    // while it decodes, when it was never launched, or when it failed (get(i) says so).
    const LoadedInput* ready(std::size_t i) {
        if (i >= jobs_.size()) return nullptr;
        if (!done_[i] && !failed_[i] && pending_[i].valid() &&
            pending_[i].wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
            try {
                done_[i].emplace(pending_[i].get());
            } catch (...) {
                failed_[i] = std::current_exception();
            }
        }
        return done_[i] ? &*done_[i] : nullptr;
    }

private:
    const std::vector<BakeJob>& jobs_;
    const BakeSettings& settings_;
    int ahead_;
    std::vector<std::future<LoadedInput>> pending_;  // their destructors wait for decodes still running
    std::vector<std::optional<LoadedInput>> done_;   // taken out of pending_ by ready()
    std::vector<std::exception_ptr> failed_;         // the same, for decodes that threw
};

int App::run() {
    const Stopwatch run_watch;
    const int jobs_ahead = o_.jobs >= 0 ? o_.jobs : default_jobs_ahead();
    RunReport report = new_report(o_, jobs_ahead);
    report.warnings = run_warnings_;
    std::vector<BakeJob> jobs;
    std::unique_ptr<DecodeAhead> decode;
    // Everything that can refuse the whole run, before any input is baked: usage errors found in
    // the names, output folders, the DFG table, the GPU when demanded. The report says why.
    try {
        std::vector<BakeJob> all = plan_jobs(o_);
        std::vector<bool> mine = o_.shard.empty() ? std::vector<bool>(all.size(), true) : shard_members(all, report);
        // --skip-unchanged decides before any work, so that the guard knows what is written now.
        std::vector<bool> bakes = mine;
        std::vector<std::optional<FileReport>> unchanged_all(all.size());
        if (o_.skip_unchanged)
            for (std::size_t i = 0; i < all.size(); ++i)
                if (mine[i] && (unchanged_all[i] = unchanged(all[i]))) bakes[i] = false;
        guard_ = run_files(o_, all, settings_, bakes);
        guard_->check(o_.no_clobber);
        guard_->make_folders();
        guard_->seal();
        for (std::size_t i = 0; i < all.size(); ++i)
            if (mine[i]) {
                jobs.push_back(std::move(all[i]));
                unchanged_.push_back(std::move(unchanged_all[i]));
            }
        job_count_ = static_cast<int>(jobs.size());
        large_batch_ = o_.device == "auto" && gpu_device_present() && large_batch(jobs);
        if (!o_.dfg.empty()) {
            write_dfg(o_.dfg, o_.dfg_size, o_.threads, settings_.ktx);
            report.outputs.push_back(o_.dfg);
        }
        decode = std::make_unique<DecodeAhead>(jobs, settings_, jobs_ahead);
        // The first input decodes on a worker while this thread makes the GL context and compiles
        // the programs: the two are independent, and each takes a good part of a small bake. In a
        // batch the next two as well, so that the first map finds the second decoded when it sends
        // it ahead (else copied on this thread: ~18 ms on the H200 machine); four more at once
        // delayed the context by ~40 ms, two did not (bench/NOTES.md). Not under --skip-unchanged,
        // whose inputs may need no decode at all. BAKE_EARLY_DECODES=N (0 to 8) sets how many.
        if (!jobs.empty() && context_wanted())
            decode->launch_first(o_.skip_unchanged ? 0 : bench_setting("BAKE_EARLY_DECODES", 0, 8, 2), o_.irradiance != "exact");
        if (!jobs.empty()) {
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
        PrepareHint hint = first_input_hint(o_, jobs[0]);
        if (hint.specular_source_size > 0) hint.specular = settings_.specular;
        gpu->prepare(hint);
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
        first_failure = bake_inputs(jobs, *decode, report);
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

// Bakes every input in turn (the next ones decoding ahead), printing a batch's lines; returns the
// first failed input's name. Throws Interrupted when a stop was asked for. In a batch, input i's
// outputs are written on a writer thread while the next inputs bake here: at most two writes in
// flight (one under --fail-fast); input i is retired (its lines, its status) once the input after
// the last one in flight has its stages done, before that input's outputs are handed over, oldest
// first. Lines of later inputs wait until every earlier one is retired. Under --fail-fast, when i
// fails to write, i+1 is skipped as it would have been: its outputs never written, its lines
// dropped. Two writes in flight: a batch's chains with --specular are written (~23 ms a map on the
// H200 machine, fsync included) about as fast as the GPU makes them (~20), and one at a time made
// the GL thread wait for each (bench/NOTES.md).
std::string App::bake_inputs(const std::vector<BakeJob>& jobs, DecodeAhead& decode, RunReport& report) {
    Bake bake(settings_, *devices_, *this);
    const bool cells_on_gpu = bake.cells_on_gpu(devices_->gpu() != nullptr);
    // The input after the one baking, once decoded: its texels go to the GPU while it works.
    std::size_t baking = 0;
    // BAKE_UPLOAD_AHEAD=0 turns it off (benchmarks: the same binary both ways).
    const char* ahead = std::getenv("BAKE_UPLOAD_AHEAD");
    if (jobs.size() > 1 && !(ahead && std::string(ahead) == "0"))
        bake.set_next_input([&decode, &baking] { return decode.ready(baking + 1); });
    // One input: nothing to overlap, its outputs are written on this thread.
    const std::launch writer = jobs.size() > 1 ? std::launch::async : std::launch::deferred;
    // BAKE_WRITES_IN_FLIGHT=N (1 to 8) sets how many.
    const std::size_t writes_in_flight = o_.fail_fast ? 1 : static_cast<std::size_t>(bench_setting("BAKE_WRITES_IN_FLIGHT", 1, 8, 2));
    Writing writing;
    std::string first_failure;
    auto stop_point = [&] {  // between inputs: the ones in flight first
        if (!stop_request().load()) return;
        retire_all(bake, jobs, writing, report, first_failure);
        throw_if_stop_requested();
    };
    try {
        for (std::size_t i = 0; i < jobs.size(); ++i) {
            FileReport& rep = report.files[i];
            if (!first_failure.empty() && o_.fail_fast) {
                skip_for_fail_fast(rep);
                continue;
            }
            if (unchanged_[i]) {
                retire_all(bake, jobs, writing, report, first_failure);
                if (!first_failure.empty() && o_.fail_fast) skip_for_fail_fast(rep);
                else {
                    rep = std::move(*unchanged_[i]);
                    if (o_.batch() && !o_.quiet) print_out(summary_line(rep, job_count_));
                }
                stop_point();
                continue;
            }
            FileReport baked = rep;
            Hold held(*this, !writing.empty());
            decode.launch_from(i, cells_on_gpu);
            baking = i;
            const Stopwatch watch;
            std::optional<BakeOutcome> outcome;
            try {
                outcome = compute_job(bake, jobs[i], [&, i] { return decode.get(i, cells_on_gpu); }, baked);
            } catch (const Interrupted&) {
                held.pause();
                retire_all(bake, jobs, writing, report, first_failure);  // throws if it was stopped too: then i never began
                held.release();
                rep = std::move(baked);
                throw;
            }
            const double compute_ms = watch.ms();
            decode.launch_from(i + 1, cells_on_gpu);  // (no-op when already running)
            held.pause();
            // Room for i's write; a failed input's lines come at once, after every earlier input's.
            if (outcome) {
                while (writing.size() >= writes_in_flight) retire_oldest(bake, jobs, writing, report, first_failure);
            } else {
                retire_all(bake, jobs, writing, report, first_failure);
            }
            if (!first_failure.empty() && o_.fail_fast) {  // the input before failed: i is not baked
                skip_for_fail_fast(rep);
                continue;
            }
            Lines lines_of_i;
            if (writing.empty()) held.release();  // every earlier input retired: i's lines now
            else lines_of_i = held.take();       // after the one still in flight
            rep = std::move(baked);
            if (outcome) {
                std::shared_future<void> previous = writing.empty() ? std::shared_future<void>() : writing.back().done;
                writing.push_back(start_write(i, jobs[i], std::move(*outcome), compute_ms, rep, writer, std::move(previous)));
                writing.back().held = std::move(lines_of_i);
            } else {
                rep.timings.total = compute_ms;
                report_input(rep, first_failure);
            }
            stop_point();
        }
        retire_all(bake, jobs, writing, report, first_failure);
    } catch (const Interrupted&) {
        try {
            retire_all(bake, jobs, writing, report, first_failure);  // (no-op when retired already)
        } catch (const Interrupted&) {
        }
        throw;
    }
    return first_failure;
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

// --depfile: one rule an input that has its outputs (baked now, or unchanged): they depend on
// every file read for it.
void App::write_depfile(const RunReport& report) const {
    std::vector<DepfileRule> rules;
    for (const FileReport& f : report.files) {
        if (f.outputs.empty()) continue;
        DepfileRule rule{f.outputs, f.files};
        if (!f.golden.is_null()) rule.prerequisites.push_back(f.golden.value("file", std::string()));
        rules.push_back(std::move(rule));
    }
    std::string text;
    try {
        text = depfile_text(rules);
    } catch (const std::invalid_argument& e) {
        throw OutputError(o_.depfile + ": " + e.what());
    }
    write_text_atomically(o_.depfile, text);
}

// The exit code (the first failed input's), the report, and a batch's total line.
int App::finish(RunReport& report, const std::string& first_failure) {
    int exit_code = kExitOk;
    for (const FileReport& r : report.files)
        if (r.status == "failed") {
            exit_code = *r.exit_code;
            break;
        }
    if (!o_.depfile.empty()) {
        try {
            write_depfile(report);
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
// run's (the first failed input's), 3 when the reports do not make one batch, 4 when OUT cannot be
// written.
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

int run_bake_app(int argc, char** argv, bool exiting) {
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
        auto bake_app = std::make_unique<App>(o, parsed.warnings);
        const int code = bake_app->run();
        if (exiting) (void)bake_app.release();  // its GL objects and context go with the process
        return code;
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
