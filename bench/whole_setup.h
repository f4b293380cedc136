// What the parts of bake-bench's `--whole-process` section share: the tools and what their CLI
// offers, the plan of inputs (issue 19's table), and a table row of one input measured on every
// path: bake-irradiance --device auto, gpu and cpu, and Filament's cmgen. Seconds, MB (10^6 bytes).
#pragma once

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "end_to_end.h"
#include "process_runner.h"
#include "whole_inputs.h"

namespace bench {

// The tools, what the CLI offers (so that an older or newer binary is measured with what it has,
// and every command it is given is one it accepts), the scratch folder and the notes printed
// above the tables.
struct Setup {
    WholeProcessOptions opt;
    std::filesystem::path dir;
    Runner run;
    std::string tool, sky, cmgen, version, notes;
    bool sky_ok = false, cmgen_ok = false;
    bool has_jobs = false, has_timings = false, has_report = false, has_auto = false, has_specular = false;
    double grain = 0;

    // DIR/out/name: every output of the measured commands.
    std::string out(const std::string& name) const { return (dir / "out" / name).string(); }
};

// The inputs and sizes of issue 19's table, or their small variant (--quick, a CPU machine).
struct Plan {
    std::vector<Input> singles;     // order-3 SH bakes, one a row
    std::vector<int> specular_of;   // singles that are also baked with --specular (8k, 4k)
    int specular_size = 256;        // --specular-size, cmgen --size
    std::vector<Input> batch;       // different maps of one size, all in one process
    std::filesystem::path batch_dir;
    int batch_count = 0, batch_width = 0;
    std::vector<int> batch_jobs{0};  // --jobs of the SH batch rows on gpu and cpu
    int issue_jobs = 4;              // --jobs of the issue's batch rows (auto, gpu, cpu)
};

// The columns of the issue's table.
enum Col { kAuto, kGpu, kCpu, kCmgen, kCols };
inline const char* col_name(int c) {
    static const char* const names[kCols] = {"auto", "gpu", "cpu", "cmgen"};
    return names[c];
}

// One input on every path: an order-3 SH bake to JSON, or (specular > 0) a --specular bake of
// that base size beside cmgen --ibl-ld.
struct Row {
    Input in;
    int specular = 0;
    Command c[kCols];
    double agree = NAN;       // gpu against cpu (coefficients, or the specular chain)
    double auto_agree = NAN;  // auto against cpu
    std::vector<double> l00_ratio;  // cmgen's L00 over ours (SH rows)
    nlohmann::json timings;         // one --timings --report run a path
    std::string auto_path = "?";    // the path --device auto took, from its report
};

// whole_singles.cpp: the rows, measured (interleaved, after a warm-up each), and their tables.
Row measure_sh_row(Setup& s, const Input& in);
Row measure_specular_row(Setup& s, const Input& in, int size);
std::string sh_table(const Setup& s, const std::vector<Row>& rows, nlohmann::json* jrows,
                     std::vector<const Command*>* all);
std::string specular_table(const Setup& s, const std::vector<Row>& rows, nlohmann::json* jrows,
                           std::vector<const Command*>* all);

// One run of a batch: every file as an argument of one bake-irradiance process (or cmgen, one
// process per map), its outputs in out_dir.
struct BatchRun {
    Command cmd;
    std::string device;  // auto, gpu, cpu, or cmgen
    int jobs = -1;       // --jobs, -1: not given
    bool specular = false;
    std::string out_dir;
};

struct Batch {
    std::vector<std::string> files;
    std::vector<BatchRun> runs;
    std::vector<Command*> commands();
    const BatchRun* find(const std::string& device, int jobs, bool specular) const;
};

// whole_batch.cpp: the batch's commands (SH at every --jobs of the plan, the issue's rows with
// and without --specular), measured, and its table.
// The single rows give each batch command its expected time (for the deadline): maps x the
// single run of the same path on the batch's size, or on the nearest size.
Batch batch_commands(const Setup& s, const Plan& p, const std::vector<Row>& sh, const std::vector<Row>& spec);
void measure_batch(Setup& s, const Plan& p, Batch& b);
std::string batch_table(const Setup& s, const Plan& p, const Batch& b, nlohmann::json* jruns,
                        std::vector<const Command*>* all);

// issue19_table.cpp: issue 19's table in markdown (printed last) and as JSON.
std::string issue_table(const Setup& s, const Plan& p, const std::vector<Row>& sh, const std::vector<Row>& spec,
                        const Batch& b, nlohmann::json* out);

}  // namespace bench
