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

// A command line that cannot run as written (exit 2); what() is one line: "<option>: <problem>".
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A problem with an input file; what() is one line: "<file>: <problem>".
struct InputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A problem writing an output file; what() is one line: "<file>: <problem>".
struct OutputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Length of the valid UTF-8 sequence at s[i] (1 to 4 bytes), or 0 if the bytes there are not one.
inline std::size_t utf8_sequence_length(const std::string& s, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char b = byte(i);
    const std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xe ? 3 : (b >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((byte(i + k) >> 6) != 0x2) return 0;
    return n;
}

// Any text as one printable line, for the one-line error messages: line breaks and tabs become
// spaces, runs of spaces one space, and no space trails; other control bytes and bytes that are
// not UTF-8 (a corrupt file's attribute name, say) are written as \xNN, so that a terminal shows
// the line as it is.
inline std::string one_line(const std::string& s) {
    std::string out;
    bool space = false;
    for (std::size_t i = 0; i < s.size();) {
        char c = s[i];
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
        if (c == ' ') {
            if (!space && !out.empty()) out += ' ';
            space = true;
            ++i;
            continue;
        }
        space = false;
        const std::size_t n = utf8_sequence_length(s, i);
        const unsigned char b = static_cast<unsigned char>(c);
        if (n == 0 || (n == 1 && (b < 0x20 || b == 0x7f))) {
            static const char* const hex = "0123456789abcdef";
            out += "\\x";
            out += hex[b >> 4];
            out += hex[b & 0xf];
            ++i;
        } else {
            out.append(s, i, n);
            i += n;
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
