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

// The path ("cpu" or "gpu") that computed the first input's coefficients (or, with `specular`, its
// specular chain), from a --report JSON; "?" when unreadable.
std::string path_of_report(const std::string& path, bool specular);

// Two specular chains (tiled mip-mapped EXRs of bake-irradiance --specular): the largest over the
// levels of max |a - b| / max |b| of the level (b = the CPU path). NaN if either is unreadable or
// their sizes differ.
double chain_rel_diff(const std::string& a, const std::string& b);

// Table cells: "median (min)" seconds and " n=K" when fewer runs than asked, or why not
// ("input missing", "n/a", "FAILED exit N", "skipped (time)"); a ratio of medians; peak MB;
// agreement against `limit`.
std::string cell_time(const Command& c);
std::string cell_ratio(const Command& num, const Command& den);
std::string cell_mb(const Command& c);
std::string cell_agree(double rel, double limit = 1e-4);

// The issue table's cell: "median s [min, max]", or with maps > 0 "median maps/s [min, max]"
// (maps over each run's time); " n=K" when fewer runs than asked; why not, as cell_time.
std::string cell_spread(const Command& c, int maps = 0);

// The failures of a table, each with its stderr's first line, after the table.
std::string failure_lines(const std::vector<const Command*>& cmds);

}  // namespace bench
