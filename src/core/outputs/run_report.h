#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bake {

// Wall-clock or GPU-timer milliseconds per stage of one file; unset: the stage did not run.
//   load        decode + texel checks (on a worker thread with --jobs)
//   upload      GPU: texels to the GPU (finished)        project  GPU timer / CPU wall clock
//   reduce      GPU: reduction passes                    irradiance  the irradiance map (GPU timer / CPU)
//   specular    source cube (CPU) + chain (GPU timer / CPU)
//   write       all outputs of the file                  total    the whole file, wall clock
struct StageTimings {
    std::optional<double> load, upload, project, reduce, sh_error, irradiance, specular, write, total;
    // --timings only (not in the report): the specular stage's parts, "split 12, average 300, ...".
    std::string specular_parts;
};

// One input's outcome, as the report states it (docs/report.schema.json, "file").
struct FileReport {
    int index = 0;                     // position on the command line, from 1
    std::string input;                 // as given
    std::vector<std::string> files;    // files read (six for faces)
    std::vector<std::string> outputs;  // files written (irradiance maps, JSON, preview, snippets)
    std::string status = "skipped";    // "ok", "failed" or "skipped" (after --fail-fast)
    std::optional<int> exit_code;      // the exit code this file alone would give; unset if skipped
    std::string error;                 // the error line, empty if none
    std::string skip_reason;           // why it was skipped (--fail-fast, --skip-unchanged), empty otherwise
    std::vector<std::string> warnings;
    int order = 0;
    std::string path;                  // "cpu", "gpu", or empty when not reached
    std::string renderer;              // GL_RENDERER for the GPU path
    std::string layout;                // input layout, empty when not loaded
    std::optional<int> width, height;
    StageTimings timings;
    nlohmann::json compare;            // null or {passed, tolerance, max_abs_diff, max_rel_diff}
    nlohmann::json golden;             // null or golden_to_json(...)
    nlohmann::json preview;            // null or {file, exposure}
    nlohmann::json emitted = nlohmann::json::array();  // [{language, file}]
    nlohmann::json window;             // null or window_json(...) (src/bake/analysis.h)
    nlohmann::json sh_error;           // null or the SH error report (sh_error.h)
    nlohmann::json specular;           // null or specular_json(...) (src/bake/specular_stage.h)
    nlohmann::json sheen;              // null or specular_json(...) of the --sheen chain
    nlohmann::json sun;                // --extract-sun: the sun taken out (sun_lights.h's sun_json), else null
};

struct RunReport {
    std::string version;               // the tool's version
    int exit_code = 0;
    nlohmann::json settings;           // {order, device, output_layout, size, tolerance, abs_tolerance, jobs, fail_fast}
    nlohmann::json command;            // what shapes the outputs: the options and output names (--merge-reports
                                       // joins only the reports of one command)
    std::string gpu_backend, gpu_renderer, gpu_version;  // empty when no context was opened
    double total_ms = 0;
    std::string interrupted;            // the signal that stopped the run ("SIGINT"), empty if none
    std::string error;                  // why the run stopped before baking its inputs (usage, an output
                                        // folder, no GPU), empty if it did not
    std::vector<std::string> warnings;  // the run's own warnings (options), not an input's
    std::vector<std::string> outputs;   // files written for the run as a whole (--dfg, --depfile)
    nlohmann::json shard;               // null, or {index, count, inputs}: this task's shard (--shard) of a command of `inputs` inputs
    std::vector<FileReport> files;
};

nlohmann::json timings_to_json(const StageTimings& t);
nlohmann::json to_json(const FileReport& file);
nlohmann::json to_json(const RunReport& report);

// Atomically; keys sorted (nlohmann's objects are ordered maps), so the text is stable.
// Throws OutputError("<path>: <problem>").
void write_run_report(const std::string& path, const RunReport& report);

}  // namespace bake
