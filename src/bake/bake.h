#pragma once
// One input's bake as a pipeline of stages over the backends of Devices (devices.h):
//   load -> project SH -> analyse (SH error report, window) -> compare (--compare) ->
//   irradiance map -> specular chain -> outputs (all or none) -> golden check (--golden).
// Without --compare the specular chain runs beside the analysis' CPU half (Bake::compute).
// The CLI plans the jobs and prints; the benchmark and the tests can run a bake the same way
// without going through argv. The outputs are a step of their own (write_outcome), so that a
// batch can write one input's while the next one bakes.
#include <functional>
#include <optional>
#include <string>

#include "bake_settings.h"
#include "devices.h"
#include "load_input.h"
#include "run_report.h"
#include "specular_stage.h"

namespace bake {

// Where a bake's messages go (the CLI: stderr, stdout, the progress line).
class BakeLog {
public:
    virtual ~BakeLog() = default;
    virtual void stage(const char* name) = 0;              // a stage begins
    virtual void warning(const std::string& line) = 0;     // a whole warning line, already in the report
    virtual void result(const std::string& line) = 0;      // stdout, always (--compare's tables, failed checks)
    virtual void detail(const std::string& line) = 0;      // stdout unless --quiet (a golden that passed)
};

// A check (--compare, --golden) failed: the outputs are written, the exit code says so.
struct CheckFailed {
    int code;
    std::string line;
};

// What one input's stages made: everything its outputs and its checks are made from, owned, so
// that it can be handed to a writer thread (a batch writes it while the next input bakes).
struct BakeOutcome {
    BakeRecord record;
    std::optional<Environment> env;  // kept for --preview only, which draws the input
    std::optional<Image> map;        // the irradiance map, when an output needs one
    std::optional<SpecularBake> specular, gltf_chain, sheen;
    std::optional<CoefficientsDocument> golden;  // read before any work, checked after the outputs
    std::optional<CheckFailed> failed_compare;
    std::optional<Sun> sun;  // --extract-sun: the sun taken out, for the glTF and --sun-format
};

// Writes every output of `job` from `outcome`, all or none (outputs.h's write_outputs), and
// rep.timings.write. Uses no GPU and no BakeLog: it may run on any thread, touching only `rep`
// and the files. Throws OutputError (or Interrupted: a stop asked for before the set commits).
// before_commit (if any) runs once every file is staged, before the renames: a batch's writer
// waits there for the input before it, so that inputs are committed in order.
void write_outcome(const BakeJob& job, const BakeSettings& settings, const BakeOutcome& outcome, FileReport& rep,
                   const std::function<void()>& before_commit = {});

// Frees the outcome's large parts (maps, chains, the input) once written, on the thread that
// wrote them; the record and the checks' parts stay for conclude().
void release_written(BakeOutcome& outcome);

class Bake {
public:
    Bake(const BakeSettings& settings, Devices& devices, BakeLog& log) : s_(settings), devices_(devices), log_(log) {}
    ~Bake();  // the next input let go (Backend::set_next_input): its texels may go after this
    Bake(const Bake&) = delete;
    Bake& operator=(const Bake&) = delete;

    // Whether the report's cells of this input are left to the GPU, which sums them from the
    // texels it uploads (decided when its decode is launched: load_input's cells_on_gpu).
    bool cells_on_gpu(bool gpu_there) const;

    // Runs the stages of `job` up to its outputs, filling `rep` as it goes. `get_loaded` gives its
    // decoded input (decoded ahead, or now); it is called after the golden is read, so that a bad
    // golden fails before any work. Throws InputError, GpuError (the GPU demanded and failing).
    BakeOutcome compute(const BakeJob& job, const std::function<LoadedInput()>& get_loaded, FileReport& rep);

    // After write_outcome succeeded, on the thread of the BakeLog: the golden check (its lines)
    // and the checks' verdicts. Throws CheckFailed: the outputs are written, the exit code says so.
    void conclude(const BakeJob& job, const BakeOutcome& outcome, FileReport& rep);

    // In a batch: the next input once decoded (nullptr while it decodes, or when there is none),
    // looked at without waiting. It is handed to the backend of the specular chain at each input's
    // start (Backend::set_next_input), unless something after the chain still reads this input's
    // texels or source there (--compare, --gltf).
    void set_next_input(std::function<const LoadedInput*()> next) { next_input_ = std::move(next); }

private:
    struct State;  // what the stages of one input make (bake.cpp)
    void project(State& st);
    void analyse(State& st, bool beside);
    void finish_analysis(State& st);
    void compare(State& st);
    void irradiance_map(State& st);
    void specular(State& st);
    AnalysisCells analysis_cells(const Environment& env, const std::string& label);
    bool sends_ahead(const BakeJob& job) const;

    const BakeSettings& s_;
    Devices& devices_;
    BakeLog& log_;
    std::function<const LoadedInput*()> next_input_;
};

}  // namespace bake
