// All or nothing through the binary (issue 18): an input's outputs are all new or all as they
// were when a rename fails or the disk is full, and a run stopped by SIGINT, SIGTERM or SIGHUP
// leaves no temporary behind, exits 128 + n, and a batch still prints its total and report.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_runner.h"
#include "errors.h"
#include "test_support.h"

using namespace bake;
using namespace bake::test;
namespace fs = std::filesystem;

namespace {

// Starts the binary (stdout, stderr to files), returns its pid.
pid_t start_cli(const std::string& args, const std::string& out, const std::string& err) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        const std::string cmd = std::string("exec ") + BAKE_CLI_PATH + " " + with_sh_warning_off(args) + " >" + out + " 2>" + err;
        ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    return pid;
}

// Waits (at most 60 s) until a temporary of an output shows in `dir`.
bool wait_for_temporary(const std::string& dir) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < until) {
        for (const auto& e : fs::directory_iterator(dir))
            if (e.path().filename().string().find(".tmp-") != std::string::npos) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
}

int exit_status(pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

TEST_CASE("outputs: a rename failing half way through an input's set changes none of them", "[cli][outputs]") {
    const std::string dir = scratch("outputs_rename_fault");
    std::ofstream(dir + "/a.json") << "old";
    const std::string args = kSample + " -o " + dir + "/a.json -o " + dir + "/b.exr --size 4 --preview " + dir +
                             "/p.png --emit glsl " + dir + "/s.glsl --device cpu";
    for (int k = 1; k <= 4; ++k) {
        INFO("rename " << k);
        const CliResult r = run_cli(args, "BAKE_TEST_FAULT=rename:" + std::to_string(k));
        INFO(r.err);
        CHECK(r.exit_code == kExitOutput);
        CHECK(line_count(r.err) == 1);
        CHECK(r.err.find("none of this input's outputs was changed") != std::string::npos);
        CHECK(names_in(dir) == std::vector<std::string>{"a.json"});
        CHECK(slurp(dir + "/a.json") == "old");
    }
    REQUIRE(run_cli(args).exit_code == 0);  // without the fault: all four
    CHECK(names_in(dir) == std::vector<std::string>{"a.json", "b.exr", "p.png", "s.glsl"});
}

TEST_CASE("outputs: a full disk (a file size limit) writes none of an input's outputs", "[cli][outputs]") {
    const std::string dir = scratch("outputs_full_disk");
    // ulimit -f 40: 20 KiB a file. The JSON fits, the 6 x 128^2 float map does not.
    const std::string limit = "ulimit -f 40;";
    CliResult r = run_cli(kSample + " -o " + dir + "/a.json -o " + dir + "/big.exr --size 128 --device cpu", limit);
    INFO(r.err);
    CHECK(r.exit_code == kExitOutput);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find(dir + "/big.exr: ") != std::string::npos);
    CHECK(r.err.find("File too large") != std::string::npos);
    CHECK(fs::is_empty(dir));
    // A batch: each input's pair, or nothing of it.
    r = run_cli(kSample + " " + kSky + " --out-dir " + dir + " --name '{stem}.json' --name '{stem}.exr' --size 128 --device cpu",
                limit);
    CHECK(r.exit_code == kExitOutput);
    CHECK(fs::is_empty(dir));
}

TEST_CASE("signals: SIGINT, SIGTERM and SIGHUP leave no temporary and exit 128 + n", "[cli][signals]") {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        INFO("signal " << sig);
        const std::string dir = scratch("signals_" + std::to_string(sig));
        fs::create_directories(dir + "/t");
        // A 6 x 1024^2 map: its temporary takes a while to write.
        const pid_t pid = start_cli(kSample + " -o " + dir + "/t/big.exr -o " + dir + "/t/big.json --size 1024 --device cpu",
                                    dir + "/out", dir + "/err");
        REQUIRE(wait_for_temporary(dir + "/t"));
        ::kill(pid, sig);
        CHECK(exit_status(pid) == 128 + sig);
        CHECK(fs::is_empty(dir + "/t"));
        const std::string err = slurp(dir + "/err");
        INFO(err);
        CHECK(line_count(err) == 1);
        CHECK(err.find("interrupted by SIG") != std::string::npos);
    }
}

TEST_CASE("signals: an interrupted batch prints its total, writes its report and keeps what it baked", "[cli][signals]") {
    const std::string dir = scratch("signals_batch");
    std::string inputs;
    for (const char* name : {"a", "b", "c", "d"}) {
        fs::copy_file(kSample, dir + "/" + name + ".hdr", fs::copy_options::overwrite_existing);
        inputs += " " + dir + "/" + name + ".hdr";
    }
    const pid_t pid = start_cli(inputs + " --out-dir " + dir + "/out --name '{stem}.json' --name '{stem}.exr' --size 512 "
                                         "--device cpu --report " + dir + "/r.json",
                                dir + "/stdout", dir + "/stderr");
    fs::create_directories(dir + "/out");
    REQUIRE(wait_for_temporary(dir + "/out"));
    ::kill(pid, SIGINT);
    CHECK(exit_status(pid) == 130);
    CHECK_FALSE(has_hidden_file(dir + "/out"));
    const std::string out = slurp(dir + "/stdout");
    INFO(out << slurp(dir + "/stderr"));
    CHECK(out.find("total: 4 files") != std::string::npos);
    const nlohmann::json rep = read_json(dir + "/r.json");
    CHECK(rep["interrupted"] == "SIGINT");
    CHECK(rep["exit_code"] == 130);
    // Whatever was baked before the signal is whole: both files of an input, or neither.
    for (const char* name : {"a", "b", "c", "d"})
        CHECK(fs::exists(dir + "/out/" + name + ".json") == fs::exists(dir + "/out/" + name + ".exr"));
}

TEST_CASE("signals: a SIGHUP ignored when the tool starts (nohup) stays ignored", "[cli][signals]") {
    const std::string dir = scratch("signals_nohup");
    fs::create_directories(dir + "/t");
    const std::string cmd = std::string("trap '' HUP; exec ") + BAKE_CLI_PATH + " " + kSample + " -o " + dir +
                            "/t/big.exr --size 1024 --device cpu --warn-error 1e300";
    const pid_t child = ::fork();
    if (child == 0) {
        ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    REQUIRE(wait_for_temporary(dir + "/t"));
    ::kill(child, SIGHUP);
    CHECK(exit_status(child) == 0);
    CHECK(names_in(dir + "/t") == std::vector<std::string>{"big.exr"});
}
