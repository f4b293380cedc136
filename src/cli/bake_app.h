#pragma once

namespace bake {

// The command-line tool: parses the options, plans the run, bakes it (src/bake) and prints;
// returns the process exit code (ExitCode in errors.h).
int run_bake_app(int argc, char** argv);

}  // namespace bake
