#pragma once
// The command line of bake-irradiance: every option, its default and the rules that tie options
// together. Parsing only: nothing here reads an input or writes a file.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bake_settings.h"
#include "image_io.h"

namespace bake {

struct Options {
    std::vector<std::string> inputs;
    std::vector<std::string> faces;
    std::vector<std::string> outputs;
    std::string out_dir;
    std::vector<std::string> names;
    int order = 3;
    int size = 32;
    std::string irradiance = "sh";
    std::string window = "none";
    double window_cutoff = 0;
    double warn_error = 0.05;
    std::string layout;
    std::string output_layout = "cube";
    std::string device = "auto";
    std::string gl = "auto";
    bool compare = false;
    double tolerance = 1e-5;
    std::optional<double> abs_tolerance;
    bool tolerance_given = false;
    std::string golden;
    std::string report;
    std::string preview;
    int preview_width = 512;
    double preview_exposure = 0;
    std::vector<std::pair<std::string, std::string>> emits;
    std::string specular;
    int specular_size = 256;
    int specular_samples = 1024;
    std::string dfg;
    int dfg_size = 128;
    std::string sheen;                                             // --sheen FILE: the Charlie chain
    std::string sheen_lut;                                         // --sheen-lut FILE
    double rotate = 0;                                             // --rotate DEG
    int specular_levels = 0;                                       // --specular-levels N (0: the full chain)
    int specular_min_size = 0;                                     // --specular-min-size S (0: 1)
    std::string gltf;                                              // --gltf FILE.gltf|.glb
    std::vector<std::pair<std::string, std::string>> sh_formats;   // --sh-format ENGINE FILE
    bool extract_sun = false;                                      // --extract-sun
    std::vector<std::pair<std::string, std::string>> sun_formats;  // --sun-format ENGINE FILE
    std::string texture_format = "rgba16f";                        // --texture-format (KTX2 and DDS)
    std::string ktx_format;                                        // --ktx-format: the same, its older name
    std::string bc6h_quality = "default";                          // --bc6h-quality default|thorough
    int ktx_zstd = 0;
    std::string ktx_convention = "gl";                             // --ktx-convention gl|bevy
    // Inputs decoded ahead on worker threads; -1 (auto): 2 where the GPU bakes (the CPU is free
    // then), 0 on the CPU path, whose stages already use every core: 4 8k maps on 2 cores took
    // 1.56 s and 408 MB with 2 ahead, 1.24 s and 148 MB with none (issue 18 #19).
    int jobs = -1;
    bool fail_fast = false;
    bool timings = false;
    bool no_clobber = false;
    bool clamp_negative = false;
    bool replace_nonfinite = false;
    std::uint64_t max_pixels = kDefaultMaxPixels;
    int threads = 0;
    std::string progress = "auto";
    std::string shard;          // "K/N" or "auto": bake only this task's shard of the inputs
    std::string merge_reports;  // --merge-reports OUT.json: join the shards' reports given as inputs
    std::string depfile;        // a Make/Ninja depfile of what was written and read
    bool skip_unchanged = false;
    bool verbose = false;
    bool quiet = false;

    bool batch() const { return inputs.size() > 1 || !out_dir.empty() || !names.empty(); }
    bool has_input() const { return !inputs.empty() || !faces.empty(); }
};

// What parsing decided: run with `options`, or exit at once with `exit_code` (help, version,
// a usage error: the line was printed). `warnings` are printed before the run, one line each.
struct ParsedCommandLine {
    Options options;
    std::optional<int> exit_code;
    std::vector<std::string> warnings;
    std::string usage_error;  // a usage error found after parsing, its line without the tool's name (empty: none)
};

// Parses argv. Usage errors CLI11 finds while parsing print their line and set exit_code = 2 (no
// report can be written: the options are not known); errors in how parsed options fit together
// set usage_error and exit_code = 2 with the options filled in, so that the caller can still
// write the run's report.
ParsedCommandLine parse_command_line(int argc, char** argv);

// What shapes the outputs of a run, as the report states it: the options that change them and
// every output name as given (not --shard, --report, --jobs, --threads): the tasks of one sharded
// command state the same.
nlohmann::json command_json(const Options& o);

// What the options ask of each bake.
BakeSettings bake_settings(const Options& o);

}  // namespace bake
