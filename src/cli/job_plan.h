#pragma once
// A run's jobs: one per input, every output name expanded, and the checks that need all of them at
// once (a file written twice, an output that is also read, output folders).
#include <string>
#include <vector>

#include "bake_settings.h"
#include "options.h"

namespace bake {

// What a path resolves to (links, "./", ".."), to tell when two spellings name one file.
std::string path_key(const std::string& path);

// One job per input (the first face file stands for --faces). Throws CLI::ValidationError for a
// name that cannot be expanded, one output for several inputs, a file written twice, or an output
// that is also read.
std::vector<BakeJob> plan_jobs(const Options& o);

// Every output's folder, before any work: a file where a folder should be, or a folder where the
// file should be, refuses the run having written nothing (and --no-clobber an existing output);
// missing folders are then made, as mkdir -p would (for -o as for --out-dir). Throws OutputError.
void prepare_output_folders(const Options& o, const std::vector<BakeJob>& jobs);

}  // namespace bake
