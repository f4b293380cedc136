// A batch writes input i's outputs on a writer thread while input i+1 bakes (issue 19, "Writing").
// Through the real binary: the same bytes as each input baked alone; the lines and the report as
// if the inputs had run one after the other, each input's "ok" line after its outputs are in
// place; a failed write fails its input alone with the message a single run gives, and under
// --fail-fast the input baked meanwhile is skipped, nothing of it written; a signal leaves each
// input's outputs whole or absent, the inputs baked a prefix, and no temporary.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <sstream>
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

// Copies of the sample under the given stems, in `dir`; returns their paths.
std::vector<std::string> sample_copies(const std::string& dir, const std::vector<std::string>& stems) {
    std::vector<std::string> paths;
    for (const std::string& stem : stems) {
        paths.push_back(dir + "/" + stem + ".hdr");
        fs::copy_file(kSample, paths.back(), fs::copy_options::overwrite_existing);
    }
    return paths;
}

std::string joined(const std::vector<std::string>& words) {
    std::string s;
    for (const std::string& w : words) s += " " + w;
    return s;
}

// A stem whose outputs' names fit (240 bytes) but whose atomic write's temporary name (the target's
// plus ".tmp-PID-TAG" and the extension) exceeds NAME_MAX: the write itself fails, on any account
// (root included), after the planning checks passed.
const std::string kLongStem = std::string(235, 'l');

}  // namespace

TEST_CASE("write overlap: a batch writes the bytes each input writes alone", "[cli][batch][overlap]") {
    const std::string dir = scratch("overlap_bytes");
    const std::vector<std::string> in = sample_copies(dir, {"a", "b", "c"});
    const std::string outputs = " --specular-size 16 --size 8 --device cpu --preview-width 64";
    const CliResult r = run_cli(joined(in) + " --out-dir " + dir + "/batch --name '{stem}.json' --name '{stem}_irr.exr'" +
                                " --specular '" + dir + "/batch/{stem}_spec.exr' --preview '" + dir + "/batch/{stem}.png'" +
                                " --emit glsl '" + dir + "/batch/{stem}.glsl' --sh-format threejs '" + dir +
                                "/batch/{stem}_probe.json'" + outputs);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const std::vector<std::string> kinds = {".json", "_irr.exr", "_spec.exr", ".png", ".glsl", "_probe.json"};
    for (std::size_t i = 0; i < in.size(); ++i) {
        const std::string stem = std::string(1, static_cast<char>('a' + i));
        const std::string alone = dir + "/alone_" + stem;
        fs::create_directories(alone);
        REQUIRE(run_cli(in[i] + " -o " + alone + "/" + stem + ".json -o " + alone + "/" + stem + "_irr.exr --specular " +
                        alone + "/" + stem + "_spec.exr --preview " + alone + "/" + stem + ".png --emit glsl " + alone + "/" +
                        stem + ".glsl --sh-format threejs " + alone + "/" + stem + "_probe.json" + outputs)
                    .exit_code == 0);
        for (const std::string& kind : kinds) {
            INFO(stem + kind);
            const std::vector<char> batch = read_bytes(dir + "/batch/" + stem + kind);
            CHECK(!batch.empty());
            CHECK(batch == read_bytes(alone + "/" + stem + kind));
        }
    }
    CHECK_FALSE(has_hidden_file(dir + "/batch"));
}

TEST_CASE("write overlap: lines in input order, each ok line after its outputs are in place", "[cli][batch][overlap]") {
    const std::string dir = scratch("overlap_order");
    const std::vector<std::string> in = sample_copies(dir, {"a", "b", "c", "d"});
    // stdout and stderr in one pipe, read as the tool prints: the sample warns (its SH error) on
    // stderr while it bakes, and each input's --timings and summary lines come once it is written.
    const std::string cmd = std::string(BAKE_CLI_PATH) + joined(in) + " --out-dir " + dir +
                            "/out --name '{stem}.json' --name '{stem}.exr' --size 256 --device cpu --timings --report " +
                            dir + "/r.json 2>&1";
    FILE* pipe = ::popen(cmd.c_str(), "r");
    REQUIRE(pipe);
    std::vector<std::string> lines;
    std::vector<std::string> missing_at_ok;  // outputs absent when their ok line was read
    char buf[8192];
    while (std::fgets(buf, sizeof buf, pipe)) {
        std::string line(buf);
        if (!line.empty() && line.back() == '\n') line.pop_back();
        lines.push_back(line);
        for (const char* stem : {"a", "b", "c", "d"})
            if (line.find("ok      " + dir + "/" + stem + ".hdr") != std::string::npos)
                for (const char* ext : {".json", ".exr"})
                    if (!fs::exists(dir + "/out/" + stem + ext)) missing_at_ok.push_back(std::string(stem) + ext);
    }
    const int status = ::pclose(pipe);
    INFO(joined(lines));
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(missing_at_ok.empty());
    // Each input's warning, timings and summary together, inputs in order: as one after the other.
    REQUIRE(lines.size() == 13);
    for (int i = 0; i < 4; ++i) {
        const std::string input = in[static_cast<std::size_t>(i)];
        INFO("input " << input);
        CHECK(lines[3 * i].rfind("bake-irradiance: warning: " + input + ": ", 0) == 0);
        CHECK(lines[3 * i + 1].rfind("timings " + input + ": load ", 0) == 0);
        CHECK(lines[3 * i + 2].rfind("[" + std::to_string(i + 1) + "/4] ok      " + input + " -> ", 0) == 0);
    }
    CHECK(lines[12].rfind("total: 4 files, 4 ok, 0 failed, 0 skipped", 0) == 0);
    // The report: inputs in order, each with its outputs and its write time, which the total holds
    // (the write ran on the writer thread: the input's stages plus its write).
    const nlohmann::json rep = read_json(dir + "/r.json");
    REQUIRE(rep["files"].size() == 4);
    for (std::size_t i = 0; i < 4; ++i) {
        const nlohmann::json& f = rep["files"][i];
        CHECK(f["input"] == in[i]);
        CHECK(f["status"] == "ok");
        CHECK(f["outputs"].size() == 2);
        REQUIRE(f["timings_ms"]["write"].is_number());
        CHECK(f["timings_ms"]["write"].get<double>() > 0);
        CHECK(f["timings_ms"]["total"].get<double>() >= f["timings_ms"]["write"].get<double>());
    }
}

// Two writes may be in flight; the later one commits only after the earlier one has ended. The
// first input's commit is held 2 s (BAKE_TEST_FAULT=slow-commit): the second's files, written
// meanwhile, must still appear after the first's.
TEST_CASE("write overlap: inputs are committed in order while two are written at once", "[cli][batch][overlap]") {
    const std::string dir = scratch("overlap_commit_order");
    const std::vector<std::string> stems = {"a", "b", "c"};
    const std::vector<std::string> in = sample_copies(dir, stems);
    fs::create_directories(dir + "/out");
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::setenv("BAKE_TEST_FAULT", "slow-commit:a.hdr", 1);
        const std::string cmd = std::string("exec ") + BAKE_CLI_PATH + joined(in) + " --out-dir " + dir +
                                "/out --name '{stem}.json' --name '{stem}.exr' --size 64 --device cpu --warn-error 1e300 >" +
                                dir + "/stdout 2>" + dir + "/stderr";
        ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    // The order in which the inputs' files appear under their final names.
    std::vector<std::string> appeared;
    int status = 0;
    for (bool done = false; !done;) {
        done = ::waitpid(pid, &status, WNOHANG) == pid;
        for (const std::string& stem : stems)
            if (std::find(appeared.begin(), appeared.end(), stem) == appeared.end() &&
                (fs::exists(dir + "/out/" + stem + ".json") || fs::exists(dir + "/out/" + stem + ".exr")))
                appeared.push_back(stem);
        if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    INFO(slurp(dir + "/stdout") << slurp(dir + "/stderr"));
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(appeared == stems);
}

TEST_CASE("write overlap: a failed write fails its input alone as a single run does, and under --fail-fast nothing after it",
          "[cli][batch][overlap]") {
    const std::string dir = scratch("overlap_write_fails");
    const std::vector<std::string> in = sample_copies(dir, {kLongStem, "b", "c"});
    const std::string names = " --name '{stem}.json' --name '{stem}_irr.exr' --size 64 --device cpu --warn-error 0.05";
    // The long stem alone (into the same folder, which it leaves empty): its message and exit code.
    const CliResult alone = run_cli(in[0] + " --out-dir " + dir + "/out" + names);
    REQUIRE(alone.exit_code == kExitOutput);
    const std::vector<std::string> alone_err = lines_of(alone.err);
    REQUIRE(alone_err.size() == 2);  // the sample's SH warning, then the error
    CHECK(alone_err[1].find("File name too long") != std::string::npos);
    CHECK(names_in(dir + "/out").empty());

    SECTION("without --fail-fast the others are written") {
        const CliResult r = run_cli(joined(in) + " --out-dir " + dir + "/out" + names + " --report " + dir + "/r.json");
        INFO(r.out << r.err);
        CHECK(r.exit_code == kExitOutput);
        CHECK(names_in(dir + "/out") == std::vector<std::string>{"b.json", "b_irr.exr", "c.json", "c_irr.exr"});
        const std::vector<std::string> err = lines_of(r.err);
        REQUIRE(err.size() == 4);  // a warning an input, the error in its place after the first's
        CHECK(err[1] == alone_err[1]);
        CHECK(err[2].find(in[1]) != std::string::npos);
        const nlohmann::json rep = read_json(dir + "/r.json");
        CHECK(rep["files"][0]["status"] == "failed");
        CHECK(rep["files"][0]["exit_code"] == kExitOutput);
        CHECK(rep["files"][0]["outputs"].empty());
        CHECK("bake-irradiance: " + rep["files"][0]["error"].get<std::string>() == err[1]);
        CHECK(rep["files"][1]["status"] == "ok");
        CHECK(rep["files"][2]["status"] == "ok");
        CHECK(lines_of(r.out).at(0).rfind("[1/3] FAILED  " + in[0] + " (exit 4): ", 0) == 0);
    }
    SECTION("--fail-fast: the input baked while the first was written is skipped, its lines and outputs dropped") {
        const CliResult r =
            run_cli(joined(in) + " --out-dir " + dir + "/out" + names + " --fail-fast --report " + dir + "/r.json");
        INFO(r.out << r.err);
        CHECK(r.exit_code == kExitOutput);
        CHECK(names_in(dir + "/out").empty());
        CHECK(lines_of(r.err) == alone_err);  // b's warning is not printed: b was never baked
        const std::vector<std::string> out = lines_of(r.out);
        REQUIRE(out.size() == 4);
        CHECK(out[1] == "[2/3] skipped " + in[1] + " (--fail-fast)");
        CHECK(out[2] == "[3/3] skipped " + in[2] + " (--fail-fast)");
        const nlohmann::json rep = read_json(dir + "/r.json");
        for (std::size_t i : {1, 2}) {
            const nlohmann::json& f = rep["files"][i];
            CHECK(f["status"] == "skipped");
            CHECK(f["skip_reason"] == "--fail-fast");
            CHECK(f["exit_code"].is_null());
            CHECK(f["outputs"].empty());
            CHECK(f["warnings"].empty());
            CHECK(f["path"].is_null());
            CHECK(f["timings_ms"]["total"].is_null());
        }
    }
}

TEST_CASE("write overlap: a signal while one input writes and the next bakes leaves each input whole or absent",
          "[cli][batch][overlap][signals]") {
    const std::vector<std::string> stems = {"a", "b", "c", "d"};
    // The signal when the writer has a temporary of input k (the main thread is then baking k+1).
    for (std::size_t k = 0; k < 3; ++k) {
        const int sig = k % 2 ? SIGTERM : SIGINT;
        INFO("signal " << sig << " while " << stems[k] << " is written");
        const std::string dir = scratch("overlap_signal_" + std::to_string(k));
        const std::vector<std::string> in = sample_copies(dir, stems);
        fs::create_directories(dir + "/out");
        const pid_t pid = ::fork();
        if (pid == 0) {
            const std::string cmd = std::string("exec ") + BAKE_CLI_PATH + joined(in) + " --out-dir " + dir +
                                    "/out --name '{stem}.json' --name '{stem}.exr' --size 512 --device cpu --warn-error "
                                    "1e300 --report " + dir + "/r.json >" + dir + "/stdout 2>" + dir + "/stderr";
            ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        const std::string prefix = "." + stems[k] + ".";  // a temporary of input k: ".k.exr.tmp-..."
        bool seen = false;
        for (const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
             !seen && std::chrono::steady_clock::now() < until;) {
            for (const auto& e : fs::directory_iterator(dir + "/out"))
                seen = seen || e.path().filename().string().rfind(prefix, 0) == 0;
            if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        REQUIRE(seen);
        ::kill(pid, sig);
        int status = 0;
        ::waitpid(pid, &status, 0);
        REQUIRE(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 128 + sig);
        CHECK_FALSE(has_hidden_file(dir + "/out"));
        const std::string out = slurp(dir + "/stdout");
        INFO(out << slurp(dir + "/stderr"));
        const nlohmann::json rep = read_json(dir + "/r.json");
        CHECK(rep["exit_code"] == 128 + sig);
        // Inputs before k - 1 were baked before the signal (two writes may be in flight: k - 1's
        // and k's); an input is ok exactly when both its files are there and its ok line was
        // printed; the inputs baked are a prefix (a writer commits only after the one before it).
        int ok = 0;
        bool after_gap = false;
        for (std::size_t i = 0; i < stems.size(); ++i) {
            INFO("input " << stems[i]);
            const bool has_json = fs::exists(dir + "/out/" + stems[i] + ".json");
            const bool has_exr = fs::exists(dir + "/out/" + stems[i] + ".exr");
            const bool is_ok = rep["files"][i]["status"] == "ok";
            CHECK(has_json == has_exr);
            CHECK(has_json == is_ok);
            CHECK((out.find("ok      " + in[i]) != std::string::npos) == is_ok);
            if (i + 1 < k) CHECK(is_ok);
            CHECK(!(is_ok && after_gap));
            after_gap = after_gap || !is_ok;
            ok += is_ok;
        }
        CHECK(slurp(dir + "/stderr").find(std::to_string(ok) + " of 4 inputs baked") != std::string::npos);
    }
}
