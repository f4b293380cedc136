#include "batch.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <new>
#include <system_error>

#include "environment_loader.h"
#include "errors.h"
#include "file_names.h"
#include "image_io.h"
#include "stop_request.h"
#include "stopwatch.h"
#include "trace.h"

namespace bake {

std::pair<int, std::string> failure_of(const std::exception& e) {
    if (dynamic_cast<const UsageError*>(&e)) return {kExitUsage, one_line(e.what()) + " (see --help)"};
    if (dynamic_cast<const InputError*>(&e)) return {kExitInput, one_line(e.what())};
    if (dynamic_cast<const OutputError*>(&e)) return {kExitOutput, one_line(e.what())};
    if (dynamic_cast<const GpuError*>(&e)) return {kExitGpuUnavailable, "GPU path failed: " + one_line(e.what())};
    if (dynamic_cast<const std::bad_alloc*>(&e)) return {kExitFailure, "out of memory"};
    return {kExitFailure, "internal error: " + one_line(e.what())};
}

// Inputs decoding on worker threads (std::async) ahead of the one being baked.
class Batch::Decoding {
public:
    Decoding(const std::vector<BakeJob>& jobs, const BakeSettings& settings, int ahead, std::vector<bool> wanted)
        : jobs_(jobs), settings_(settings), ahead_(ahead), wanted_(std::move(wanted)), pending_(jobs.size()),
          done_(jobs.size()), failed_(jobs.size()) {}

    // Input i's decode from now (not for an input skipped as unchanged).
    void launch(std::size_t i, bool cells_on_gpu) {
        if (i < jobs_.size() && wanted_[i] && !pending_[i].valid())
            pending_[i] = std::async(std::launch::async, [this, i, cells_on_gpu] { return load_input(jobs_[i], settings_, cells_on_gpu); });
    }
    // Input `current` and up to `ahead` after it (none ahead with --jobs 0).
    void launch_from(std::size_t current, bool cells_on_gpu) {
        for (std::size_t i = current; ahead_ > 0 && i < jobs_.size() && i <= current + static_cast<std::size_t>(ahead_); ++i)
            launch(i, cells_on_gpu);
    }
    // The first wanted input and the next `more` (at most `ahead`).
    void launch_first(int more, bool cells_on_gpu) {
        int launched = 0;
        for (std::size_t i = 0; i < jobs_.size() && launched <= std::min(more, ahead_); ++i)
            if (wanted_[i]) {
                launch(i, cells_on_gpu);
                ++launched;
            }
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
    // Input i when its decode has finished (looked at, not taken: get(i) returns it); nullptr while
    // it decodes, when it was never launched, or when it failed (get(i) says so).
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
    std::vector<bool> wanted_;
    std::vector<std::future<LoadedInput>> pending_;  // their destructors wait for decodes still running
    std::vector<std::optional<LoadedInput>> done_;   // taken out of pending_ by ready()
    std::vector<std::exception_ptr> failed_;         // the same, for decodes that threw
};

namespace {

// The batch's log, holding an input's lines while an earlier input is still being written
// (hold(): from then until take() or release()), so that lines come in input order.
class HeldLog final : public BatchLog {
public:
    using Lines = std::vector<std::function<void()>>;
    explicit HeldLog(BatchLog& out) : out_(out) {}

    void hold(bool on) { holding_ = on; }
    // The lines held, to be printed later (or now: print(take())).
    Lines take() {
        holding_ = false;
        return std::exchange(held_, {});
    }
    void print(Lines lines) {
        for (const auto& line : lines) line();
    }

    void stage(const char* name) override { out_.stage(name); }
    void input(const BakeJob& job) override { out_.input(job); }
    void writing(const BakeJob& job) override { out_.writing(job); }
    void stages_done() override { out_.stages_done(); }
    void finished(const FileReport& rep) override { out_.finished(rep); }
    void warning(const std::string& line) override { line_of([this, line] { out_.warning(line); }); }
    void result(const std::string& line) override { line_of([this, line] { out_.result(line); }); }
    void detail(const std::string& line) override { line_of([this, line] { out_.detail(line); }); }
    void error(const std::string& line) override { line_of([this, line] { out_.error(line); }); }

private:
    void line_of(std::function<void()> print) {
        if (holding_) held_.push_back(std::move(print));
        else print();
    }
    BatchLog& out_;
    bool holding_ = false;
    Lines held_;
};

}  // namespace

// One call of Batch::run: the inputs in flight and what the batch has said so far.
class Batch::Run {
public:
    Run(Batch& batch, Devices& devices, BatchLog& log, std::vector<FileReport>& reports)
        : b_(batch), log_(log), reports_(reports), bake_(batch.settings_, devices, log_),
          cells_on_gpu_(bake_.cells_on_gpu(devices.gpu() != nullptr)) {}

    std::string all();

private:
    // An input whose outputs are being written (on a writer thread, or on this one when retired).
    struct InFlight {
        std::size_t index;
        std::unique_ptr<BakeOutcome> outcome;  // the writer's until `done` is ready
        std::shared_future<void> done;         // the writer's end (the next writer waits for it too)
        double compute_ms;                     // its stages on this thread
        HeldLog::Lines held;                   // its stages' lines, held while an earlier input was in flight
    };

    std::optional<BakeOutcome> compute(std::size_t i, FileReport& rep);
    void settle(const BakeJob& job, FileReport& rep, std::exception_ptr error);
    void start_write(std::size_t i, BakeOutcome outcome, double compute_ms, HeldLog::Lines held);
    void retire_oldest();
    void retire_all();
    void finish(const FileReport& rep);
    void skip_for_fail_fast(FileReport& rep);
    bool stopped_by_fail_fast() const { return b_.batch_.fail_fast && !first_failure_.empty(); }

    Batch& b_;
    HeldLog log_;
    std::vector<FileReport>& reports_;
    Bake bake_;
    const bool cells_on_gpu_;
    std::deque<InFlight> writing_;
    std::size_t baking_ = 0;
    std::string first_failure_;
};

Batch::Batch(const std::vector<BakeJob>& jobs, const BakeSettings& settings, BatchSettings batch,
             std::vector<std::optional<FileReport>> skipped)
    : jobs_(jobs), settings_(settings), batch_(batch), skipped_(std::move(skipped)) {
    skipped_.resize(jobs.size());
    std::vector<bool> wanted;
    for (const auto& s : skipped_) wanted.push_back(!s);
    decoding_ = std::make_unique<Decoding>(jobs, settings, batch.decode_ahead, std::move(wanted));
}

Batch::~Batch() = default;

void Batch::decode_first(int more, bool cells_on_gpu) { decoding_->launch_first(more, cells_on_gpu); }

PrepareHint Batch::first_input_hint() const {
    PrepareHint hint;
    std::size_t first = 0;
    while (first < jobs_.size() && skipped_[first]) ++first;
    if (first == jobs_.size()) return hint;
    const BakeJob& job = jobs_[first];
    hint.cube = !job.faces.empty() || expand_face_pattern(job.label).has_value() ||
                (settings_.load.layout && *settings_.load.layout != Layout::Equirect);
    if (!hint.cube) {
        hint.encoding = has_extension(job.label, ".hdr") ? TexelEncoding::Rgbe8 : TexelEncoding::Half;
        // A 2:1 header: the upload buffers can be made while the texels decode.
        if (const auto size = read_image_size(job.label); size && size->first == 2 * size->second) {
            hint.texel_count = static_cast<std::size_t>(size->first) * static_cast<std::size_t>(size->second);
            hint.width = size->first;
            hint.height = size->second;
            if (!job.specular.empty()) {
                hint.specular_source_size = default_specular_source_size(size->first, settings_.specular.base_size);
                hint.specular = settings_.specular;
            }
        }
    }
    for (const std::string& out : job.outputs)
        if (!has_extension(out, ".json")) hint.cube_map = !settings_.map.equirect;
    hint.exact_map = settings_.exact_map;
    hint.projected_order = kProjectedOrder;
    hint.map_order = settings_.order;
    return hint;
}

std::string Batch::run(Devices& devices, BatchLog& log, std::vector<FileReport>& reports) {
    Run run(*this, devices, log, reports);
    return run.all();
}

std::string Batch::Run::all() {
    const std::vector<BakeJob>& jobs = b_.jobs_;
    Decoding& decoding = *b_.decoding_;
    // The input after the one baking, once decoded: the backend sends it while it works.
    if (jobs.size() > 1) bake_.set_next_input([&decoding, this] { return decoding.ready(baking_ + 1); });
    auto stop_point = [&] {  // between inputs: the ones in flight first
        if (!stop_request().load()) return;
        retire_all();
        throw_if_stop_requested();
    };
    try {
        for (std::size_t i = 0; i < jobs.size(); ++i) {
            FileReport& rep = reports_[i];
            if (stopped_by_fail_fast()) {
                skip_for_fail_fast(rep);
                continue;
            }
            if (b_.skipped_[i]) {
                retire_all();
                if (stopped_by_fail_fast()) {
                    skip_for_fail_fast(rep);
                } else {
                    rep = std::move(*b_.skipped_[i]);
                    finish(rep);
                }
                stop_point();
                continue;
            }
            FileReport baked = rep;
            log_.hold(!writing_.empty());
            decoding.launch_from(i, cells_on_gpu_);
            baking_ = i;
            const Stopwatch watch;
            std::optional<BakeOutcome> outcome;
            try {
                outcome = compute(i, baked);
            } catch (const Interrupted&) {
                HeldLog::Lines lines = log_.take();
                retire_all();  // throws if it was stopped too: then i never began
                log_.print(std::move(lines));
                rep = std::move(baked);
                throw;
            }
            const double compute_ms = watch.ms();
            decoding.launch_from(i + 1, cells_on_gpu_);  // (no-op when already running)
            HeldLog::Lines lines = log_.take();
            // Room for i's write; a failed input's lines come at once, after every earlier input's.
            if (outcome) {
                const std::size_t in_flight = b_.batch_.fail_fast ? 1 : 2;
                while (writing_.size() >= in_flight) retire_oldest();
            } else {
                retire_all();
            }
            if (stopped_by_fail_fast()) {  // the input before failed: i is not baked
                skip_for_fail_fast(rep);
                continue;
            }
            rep = std::move(baked);
            if (writing_.empty()) log_.print(std::exchange(lines, {}));  // every earlier input retired: i's lines now
            if (outcome) {
                start_write(i, std::move(*outcome), compute_ms, std::move(lines));  // else after the one in flight
            } else {
                rep.timings.total = compute_ms;
                finish(rep);
            }
            stop_point();
        }
        retire_all();
    } catch (const Interrupted&) {
        try {
            retire_all();  // (no-op when retired already)
        } catch (const Interrupted&) {
        }
        throw;
    }
    return first_failure_;
}

// Input i's stages up to its outputs; a failure is its exit code and error line. Throws Interrupted.
std::optional<BakeOutcome> Batch::Run::compute(std::size_t i, FileReport& rep) {
    const BakeJob& job = b_.jobs_[i];
    rep.index = job.index;
    rep.input = job.label;
    rep.order = b_.settings_.order;
    rep.files = {job.label};
    log_.input(job);
    std::optional<BakeOutcome> outcome;
    std::exception_ptr error;
    try {
        outcome = bake_.compute(job, [this, i] { return b_.decoding_->get(i, cells_on_gpu_); }, rep);
    } catch (...) {
        error = std::current_exception();
    }
    settle(job, rep, error);
    return outcome;
}

// Turns what ended a step of an input (null: nothing) into its status, exit code and error line
// (said). Throws Interrupted, the report saying so, when a stop was asked for.
void Batch::Run::settle(const BakeJob& job, FileReport& rep, std::exception_ptr error) {
    std::optional<std::pair<int, std::string>> failure;
    int stopped_by = 0;
    try {
        if (error) std::rethrow_exception(error);
    } catch (const Interrupted& stop) {
        stopped_by = stop.signal;
    } catch (const CheckFailed& failed) {
        failure = {failed.code, failed.line};
    } catch (const std::exception& e) {
        const auto [code, line] = failure_of(e);
        failure = {code, code == kExitInput || code == kExitOutput ? line : job.label + ": " + line};
    }
    // A write that failed because the signal's cleanup removed its temporary is the interruption.
    if (!stopped_by && failure) stopped_by = stop_request().load();
    log_.stages_done();
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
        log_.error(failure->second);
    }
}

// Hands input i's outcome to a writer: a thread of its own, or this thread when retired (a single
// input, or no thread to be had). The writer touches only the report and the files, frees the
// outcome's large parts once written, and commits its files only once the write before it has
// ended, so that inputs are committed in order.
void Batch::Run::start_write(std::size_t i, BakeOutcome outcome, double compute_ms, HeldLog::Lines held) {
    std::shared_future<void> previous = writing_.empty() ? std::shared_future<void>() : writing_.back().done;
    InFlight w{i, std::make_unique<BakeOutcome>(std::move(outcome)), {}, compute_ms, std::move(held)};
    auto write = [&job = b_.jobs_[i], &settings = b_.settings_, o = w.outcome.get(), &rep = reports_[i],
                  previous = std::move(previous)] {
        struct Release {
            BakeOutcome& o;
            ~Release() { release_written(o); }
        } release{*o};
        write_outcome(job, settings, *o, rep, [&previous] {
            if (previous.valid()) previous.wait();  // (its error is its own: wait() does not throw it)
        });
    };
    const std::launch policy = b_.jobs_.size() > 1 ? std::launch::async : std::launch::deferred;
    try {
        w.done = std::async(policy, write);
    } catch (const std::system_error&) {
        w.done = std::async(std::launch::deferred, write);
    }
    writing_.push_back(std::move(w));
}

// Waits for the oldest input in flight, then finishes it as if it had just been baked: its checks,
// status and lines; then the lines the next one in flight held. Throws Interrupted (the report
// saying so) when its write was stopped.
void Batch::Run::retire_oldest() {
    if (writing_.empty()) return;
    InFlight w = std::move(writing_.front());
    writing_.pop_front();
    const BakeJob& job = b_.jobs_[w.index];
    FileReport& rep = reports_[w.index];
    log_.writing(job);  // shown if the wait is long
    std::exception_ptr error;
    trace_event("wait for the write");  // the calling thread idles from here until "retired"
    try {
        w.done.get();
        trace_event("retired");
        bake_.conclude(job, *w.outcome, rep);
    } catch (...) {
        error = std::current_exception();
    }
    // Its own work: the stages here and the write on the writer's thread.
    rep.timings.total = w.compute_ms + rep.timings.write.value_or(0);
    settle(job, rep, error);
    finish(rep);
    if (!writing_.empty()) log_.print(std::exchange(writing_.front().held, {}));
}

// Every input in flight, oldest first. After an interruption (the first retire throws), the others
// are settled too (their reports say so) before Interrupted goes on.
void Batch::Run::retire_all() {
    std::optional<Interrupted> stopped;
    while (!writing_.empty()) {
        try {
            retire_oldest();
        } catch (const Interrupted& stop) {
            if (!stopped) stopped = stop;
        }
    }
    if (stopped) throw *stopped;
}

void Batch::Run::finish(const FileReport& rep) {
    log_.finished(rep);
    if (rep.status == "failed" && first_failure_.empty()) first_failure_ = rep.input;
}

void Batch::Run::skip_for_fail_fast(FileReport& rep) {
    rep.skip_reason = "--fail-fast";
    log_.finished(rep);
}

}  // namespace bake
