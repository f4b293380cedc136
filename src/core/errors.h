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

// Any text as one line, for the one-line error messages: line breaks and tabs become spaces, runs
// of spaces one space, and no space trails.
inline std::string one_line(const std::string& s) {
    std::string out;
    bool space = false;
    for (char c : s) {
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
        if (c == ' ') {
            if (!space && !out.empty()) out += ' ';
            space = true;
        } else {
            out += c;
            space = false;
        }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

// Throws InputError("<path>: <problem on one line>").
[[noreturn]] inline void input_error(const std::string& path, const std::string& problem) {
    throw InputError(path + ": " + one_line(problem));
}

}  // namespace bake
