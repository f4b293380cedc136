#pragma once
// A run's jobs: one per input, every output name expanded; and every file the run touches,
// declared to the one guard (file_guard.h).
#include <string>
#include <vector>

#include "bake_settings.h"
#include "file_guard.h"
#include "options.h"

namespace bake {

// One job per input (the first face file stands for --faces). Throws CLI::ValidationError for a
// name that cannot be expanded, or one output named for several inputs.
std::vector<BakeJob> plan_jobs(const Options& o);

// Every file of the run declared to a guard: each job's (outputs.h's job_files), and the run's
// own: --report, --depfile, --dfg. bakes[i]: whether job i writes its outputs now (false: another
// shard's input, or an unchanged one; its files are still declared, so that nothing else writes
// over them).
FileGuard run_files(const Options& o, const std::vector<BakeJob>& jobs, const BakeSettings& settings,
                    const std::vector<bool>& bakes);

}  // namespace bake
