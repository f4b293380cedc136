#pragma once
// A Make/Ninja depfile (the gcc -MD format): one rule a baked input,
//     out1.exr out1.json: in.exr
// so that a build system rebuilds exactly the outputs whose inputs changed. Escaping, as GNU make
// and Ninja read it: a space and '#' take a backslash, '$' is doubled, a backslash before them is
// doubled, and a name holding a newline cannot be written (refused).
#include <string>
#include <utility>
#include <vector>

#include "run_report.h"

namespace bake {

struct DepfileRule {
    std::vector<std::string> targets;  // the files written
    std::vector<std::string> prerequisites;  // every file read (six faces, a golden)
};

// One name as the depfile spells it. Throws std::invalid_argument for a newline.
std::string depfile_escape(const std::string& name);

// The depfile's text: one rule a line.
std::string depfile_text(const std::vector<DepfileRule>& rules);

// --depfile: one rule for each input of the report that has its outputs (baked now, or unchanged):
// they depend on every file read for it. Written atomically; throws OutputError naming the file.
void write_depfile(const std::string& path, const RunReport& report);

}  // namespace bake
