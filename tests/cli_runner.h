#pragma once
// Runs the real bake-irradiance binary and captures its exit code, stdout and stderr.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "test_support.h"

namespace bake::test {

// Inputs most CLI tests bake: the bundled sample and the real maps of tests/data.
inline const std::string kSample = std::string(BAKE_ASSETS_DIR) + "/sample_sky.hdr";
inline const std::string kWarehouse = std::string(BAKE_TEST_DATA_DIR) + "/pmndrs_warehouse.exr";
inline const std::string kSky = std::string(BAKE_TEST_DATA_DIR) + "/pmndrs_sky.exr";

struct CliResult {
    int exit_code = -1;
    std::string out, err;
};

inline bool file_exists(const std::string& path) { return std::ifstream(path).good(); }

// The SH error warning (--warn-error, default 5%) fires on most real maps. Tests about other
// stderr lines turn it off, unless their arguments set --warn-error themselves
// (test_cli_sh_error.cpp tests the warning).
// A run of --dfg or --sheen-lut alone (args starting with them) bakes no environment, and
// --merge-reports joins reports: there --warn-error would be a usage error (an option without effect).
inline std::string with_sh_warning_off(const std::string& args) {
    for (const char* alone : {"--dfg ", "--sheen-lut ", "--merge-reports "})
        if (args.rfind(alone, 0) == 0) return args;
    return args.find("--warn-error") == std::string::npos ? args + " --warn-error 1e300" : args;
}

// args is appended verbatim to the command line (quote paths with spaces yourself).
inline CliResult run_cli(const std::string& args, const std::string& env_prefix = "") {
    static int counter = 0;
    const std::string tag = "cli_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
    const std::string cmd = env_prefix + " " + BAKE_CLI_PATH + " " + with_sh_warning_off(args) + " >" + tag + ".out 2>" +
                            tag + ".err </dev/null";
    const int status = std::system(cmd.c_str());
    CliResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(tag + ".out");
    r.err = slurp(tag + ".err");
    std::remove((tag + ".out").c_str());
    std::remove((tag + ".err").c_str());
    return r;
}

inline int line_count(const std::string& s) {
    int n = 0;
    for (char c : s) n += c == '\n';
    return n;
}

}  // namespace bake::test
