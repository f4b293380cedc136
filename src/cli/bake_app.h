#pragma once

namespace bake {

// The command-line tool: parses options, runs load -> project -> irradiance -> write, and
// returns the process exit code (ExitCode in errors.h).
// exiting: the caller ends the process right after (std::_Exit), so the GL context and its
// objects are left to the kernel instead of being torn down one by one (~3 ms on the GPU machine).
int run_bake_app(int argc, char** argv, bool exiting = false);

}  // namespace bake
