#pragma once
// One input's bake as a pipeline of stages over the backends of Devices (devices.h):
//   load -> project SH -> analyse (SH error report, window) -> compare (--compare) ->
//   irradiance map -> specular chain -> outputs (all or none) -> golden check (--golden).
// The CLI plans the jobs and prints; the benchmark and the tests can run a bake the same way
// without going through argv.
#include <functional>
#include <string>

#include "bake_settings.h"
#include "devices.h"
#include "load_input.h"
#include "run_report.h"

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

class Bake {
public:
    Bake(const BakeSettings& settings, Devices& devices, BakeLog& log) : s_(settings), devices_(devices), log_(log) {}

    // Whether the report's cells of this input are left to the GPU, which sums them from the
    // texels it uploads (decided when its decode is launched: load_input's cells_on_gpu).
    bool cells_on_gpu(bool gpu_there) const;

    // Bakes `job`, filling `rep` as it goes. `get_loaded` gives its decoded input (decoded ahead, or
    // now); it is called after the golden is read, so that a bad golden fails before any work.
    // Throws InputError, OutputError, GpuError (the GPU demanded and failing) or CheckFailed.
    void run(const BakeJob& job, const std::function<LoadedInput()>& get_loaded, FileReport& rep);

private:
    struct State;  // what the stages of one input make (bake.cpp)
    void project(State& st);
    void analyse(State& st);
    void compare(State& st);
    void irradiance_map(State& st);
    void specular(State& st);
    void check(State& st, const CoefficientsDocument& golden);
    AnalysisCells analysis_cells(const Environment& env, const std::string& label);

    const BakeSettings& s_;
    Devices& devices_;
    BakeLog& log_;
};

}  // namespace bake
