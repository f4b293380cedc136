// The whole-process section of bake-bench (`--whole-process DIR`): bake-irradiance on every path
// (--device auto, gpu, cpu) and Filament's cmgen timed as a user runs them, one process per bake,
// fork..wait4: order-3 SH bakes, --specular bakes and batches, ending with issue 19's table.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace bench {

struct WholeProcessOptions {
    std::string dir;       // scratch: generated inputs, outputs, per-command logs
    std::string tool;      // bake-irradiance; empty: next to this executable
    std::string sky_tool;  // make-sample-sky; empty: next to this executable
    std::string cmgen;     // empty: /usr/bin/cmgen if executable, else no cmgen column
    int repeats = 3;       // timed runs per command, after one untimed warm-up
    bool quick = false;    // small inputs (llvmpipe, CI smoke)
    double grain = 0.02;   // make-sample-sky --grain: texel noise, so .hdr files are as dense as real ones
    // Seconds the section may take (0: no limit): no run starts that would end later (its expected
    // time: its command's last run, or the single runs' for a batch); what is left out shows as
    // skipped. 540: one 10-minute device command, with time for the script around the bench.
    double budget_s = 540;
};

// Prints progress and the tables (the last of the output), fills *out; returns the exit code.
int run_whole_process(const WholeProcessOptions& opt, nlohmann::json* out);

}  // namespace bench
