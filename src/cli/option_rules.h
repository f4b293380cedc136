#pragma once
// The rules that tie parsed options together (options.h): what each output name may be, which
// options would do nothing in this run, what --merge-reports takes. Each throws
// CLI::ValidationError naming the option; parse_command_line turns it into a usage error.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "options.h"

namespace bake {

void check_inputs_and_outputs(const Options& o);
void check_output_names(const Options& o);
// `warnings`: lines for options that are only warned about (--jobs with a single input, ...).
void check_option_effects(const CLI::App& app, const Options& o, std::vector<std::string>& warnings);
void check_merge_mode(const CLI::App& app, const Options& o);

}  // namespace bake
