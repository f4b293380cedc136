#pragma once
#include <stdexcept>
#include <string>

namespace bake {

// Exit codes of the command-line tool (documented in README.md and --help).
enum ExitCode : int {
    kExitOk = 0,
    kExitFailure = 1,          // unexpected internal error
    kExitUsage = 2,            // bad command line
    kExitInput = 3,            // input missing, unreadable, malformed or unsupported
    kExitOutput = 4,           // output could not be written
    kExitGpuUnavailable = 5,   // --device gpu but no OpenGL 4.3 context / GPU failure
    kExitCompareMismatch = 6,  // --compare: GPU and CPU differ beyond tolerance
    kExitGoldenMismatch = 7,   // --golden: result differs from the golden file beyond tolerance
};

// A problem with an input file; what() is one line: "<file>: <problem>".
struct InputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A problem writing an output file; what() is one line: "<file>: <problem>".
struct OutputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace bake
