// Reading what the whole-process section's commands wrote (coefficients JSON, cmgen's SH text,
// --report JSON) and the table cells made of measured commands.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "process_runner.h"

namespace bench {

// Radiance coefficients of a bake-irradiance JSON ([k][channel]); empty when unreadable.
std::vector<double> radiance_of(const std::string& path);

// max |a - b| / max |b|: the gpu/cpu agreement measure (b = the CPU double path). NaN if unreadable.
double rel_diff(const std::vector<double>& a, const std::vector<double>& b);

// cmgen --sh-output: lines "( r, g, b); // L00". Its L00 over ours, per channel: only a loose
// check (cmgen resamples to a cube map first and its normalization may differ). Empty if absent.
std::vector<double> cmgen_l00(const std::string& path);

// Stage times of one input from a --report JSON (ms, null for stages not run).
nlohmann::json stages_of_report(const std::string& path);

// Table cells: "median (min)" seconds, or why not; a ratio of medians; peak MB; agreement.
std::string cell_time(const Command& c);
std::string cell_ratio(const Command& num, const Command& den);
std::string cell_mb(const Command& c);
std::string cell_agree(double rel);

// The failures of a table, each with its stderr's first line, after the table.
std::string failure_lines(const std::vector<const Command*>& cmds);

}  // namespace bench
