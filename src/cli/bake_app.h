#pragma once

namespace bake {

// The command-line tool: parses options, runs load -> project -> irradiance -> write, and
// returns the process exit code (ExitCode in errors.h).
int run_bake_app(int argc, char** argv);

}  // namespace bake
