#pragma once
// One report from the reports of a sharded batch's tasks (--shard K/N; docs/report.schema.json):
// every input once, in command-line order, with the totals. Each task's report states its shard
// and the number of inputs of the whole command, so a missing task, an input baked twice or a
// report of another command is found without being told the inputs.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bake {

// Throws InputError("<file>: <problem>") for a report that cannot be read or is not a shard's,
// and std::runtime_error (one line) when the reports do not make one batch: a shard missing or
// given twice, an input in two reports or in none, different commands (settings, counts).
// The merged report: files by position, summary, exit_code of the first failed input (then 0),
// total_ms the longest task's (they run side by side), shard {index: null, count, inputs},
// merged_from the files read.
nlohmann::json merge_reports(const std::vector<std::string>& paths);

}  // namespace bake
