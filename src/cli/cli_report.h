#pragma once
// The run report as the CLI makes it (run_report.h holds its format), and the lines it prints
// about each input.
#include <string>

#include "file_guard.h"
#include "options.h"
#include "run_report.h"

namespace bake {

// The report's frame: version and settings (jobs_ahead: --jobs as resolved), before any input.
RunReport new_report(const Options& o, int jobs_ahead);

// A run refused before baking: every input failed with the run's error, which the report states too.
void fail_every_input(RunReport& report, const Options& o, int code, const std::string& line);

// Writes the report of a run that stopped early, unless the guard (the run's, once made; else one
// of the inputs and goldens) says writing it breaks a rule: it would overwrite a file the run
// reads or writes, or one --no-clobber keeps. Best effort: the error line is out already.
void write_report_of_refusal(const std::string& path, const Options& o, const RunReport& report,
                             const FileGuard* guard = nullptr);

// "[2/5] ok      sky.exr -> out/sky.json (gpu, 16.6 ms)", "[3/5] FAILED  ...", "[4/5] skipped ...".
std::string summary_line(const FileReport& rep, int count);

// --timings: "timings sky.exr: load 12.0 ms, ..., total 40.1 ms".
std::string timings_line(const FileReport& rep);

// "12.3 ms".
std::string format_ms(double ms);

}  // namespace bake
