// Batches through the real binary: several inputs, one corrupt, output name patterns, --jobs,
// --fail-fast, the exit-code rule, one GL context, progress only on a terminal, --timings.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <regex>

#include "cli_runner.h"
#include "errors.h"
#include "image_io.h"
#include "test_support.h"

using namespace bake;
using namespace bake::test;
namespace fs = std::filesystem;

namespace {

int count_of(const std::string& text, const std::string& needle) {
    int n = 0;
    for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
    return n;
}

// A copy of the warehouse cut in half: decodes partway, then fails.
std::string make_corrupt(const std::string& dir) {
    const std::string bytes = slurp(kWarehouse);
    const std::string path = dir + "/corrupt.exr";
    std::ofstream(path, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    return path;
}

// Runs the binary with stderr on a pseudo-terminal (stdout to /dev/null); returns what the
// terminal received.
std::string run_with_tty_stderr(const std::string& args, const std::string& env = "") {
    int master = -1, slave = -1;
    REQUIRE(openpty(&master, &slave, nullptr, nullptr, nullptr) == 0);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::close(master);
        const int null = ::open("/dev/null", O_RDWR);
        ::dup2(null, 0);
        ::dup2(null, 1);
        ::dup2(slave, 2);
        const std::string cmd = env + " exec " + BAKE_CLI_PATH + " " + with_sh_warning_off(args);
        ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::close(slave);
    std::string got;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(master, buf, sizeof buf);
        if (n <= 0) break;  // EIO once the child has closed its side
        got.append(buf, static_cast<size_t>(n));
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    ::close(master);
    return got;
}

}  // namespace

TEST_CASE("batch: a corrupt input fails alone, the others are baked as single runs bake them", "[cli][batch]") {
    const std::string dir = scratch("batch_corrupt");
    const std::string corrupt = make_corrupt(dir);
    const CliResult r = run_cli(kSample + " " + corrupt + " " + kWarehouse + " --out-dir " + dir +
                                "/out --name '{stem}_irr.exr' --name '{stem}.json' --device cpu --clamp-negative");
    INFO(r.out << r.err);
    CHECK(r.exit_code == kExitInput);

    // Outputs for the good inputs, none for the corrupt one, nothing temporary.
    CHECK(names_in(dir + "/out") == std::vector<std::string>{"pmndrs_warehouse.json", "pmndrs_warehouse_irr.exr",
                                                             "sample_sky.json", "sample_sky_irr.exr"});
    // The same bytes as single runs (the CPU path is deterministic).
    REQUIRE(run_cli(kSample + " -o " + dir + "/single_sample.json --device cpu --clamp-negative").exit_code == 0);
    REQUIRE(run_cli(kWarehouse + " -o " + dir + "/single_wh.json -o " + dir + "/single_wh.exr --device cpu --clamp-negative")
                .exit_code == 0);
    CHECK(slurp(dir + "/out/sample_sky.json") == slurp(dir + "/single_sample.json"));
    CHECK(slurp(dir + "/out/pmndrs_warehouse.json") == slurp(dir + "/single_wh.json"));
    CHECK(slurp(dir + "/out/pmndrs_warehouse_irr.exr") == slurp(dir + "/single_wh.exr"));

    // One summary line per input, in order, and a total.
    const std::vector<std::string> out = lines_of(r.out);
    REQUIRE(out.size() == 4);
    CHECK(out[0].rfind("[1/3] ok      " + kSample + " -> " + dir + "/out/sample_sky_irr.exr " + dir +
                           "/out/sample_sky.json (cpu, ",
                       0) == 0);
    CHECK(out[1].rfind("[2/3] FAILED  " + corrupt + " (exit 3): " + corrupt + ": ", 0) == 0);
    CHECK(out[2].rfind("[3/3] ok      " + kWarehouse, 0) == 0);
    CHECK(std::regex_match(out[3], std::regex(R"(total: 3 files, 2 ok, 1 failed, 0 skipped in [0-9.]+ s; exit 3 \(first failure: .*corrupt.exr\))")));
    // stderr: the corrupt file's error (one line naming it) and the warehouse's clamping warning.
    const std::vector<std::string> err = lines_of(r.err);
    CHECK(err.size() == 2);
    CHECK(std::count_if(err.begin(), err.end(), [&](const std::string& l) { return l.find(corrupt) != std::string::npos; }) == 1);
    CHECK(r.err.find("negative values") != std::string::npos);

    // --quiet: no summaries, the error line alone.
    const CliResult q = run_cli(kSample + " " + corrupt + " --out-dir " + dir + "/q --device cpu --quiet");
    CHECK(q.exit_code == kExitInput);
    CHECK(q.out.empty());
    CHECK(line_count(q.err) == 1);
    CHECK(names_in(dir + "/q") == std::vector<std::string>{"sample_sky_irr.exr"});  // the default --name
}

TEST_CASE("batch: --fail-fast stops at the first failure and skips the rest", "[cli][batch]") {
    const std::string dir = scratch("batch_failfast");
    const std::string corrupt = make_corrupt(dir);
    const CliResult r = run_cli(kSample + " " + corrupt + " " + kSky + " --out-dir " + dir +
                                "/out --name '{index}_{stem}.json' --device cpu --fail-fast --jobs 2 --report " + dir +
                                "/report.json");
    INFO(r.out << r.err);
    CHECK(r.exit_code == kExitInput);
    CHECK(names_in(dir + "/out") == std::vector<std::string>{"1_sample_sky.json"});
    CHECK(r.out.find("[3/3] skipped " + kSky + " (--fail-fast)") != std::string::npos);
    CHECK(r.out.find("1 ok, 1 failed, 1 skipped") != std::string::npos);
    const nlohmann::json rep = read_json(dir + "/report.json");
    CHECK(rep["files"][2]["status"] == "skipped");
    CHECK(rep["files"][2]["exit_code"].is_null());
    CHECK(rep["files"][1]["status"] == "failed");
    CHECK(rep["summary"]["skipped"] == 1);
}

TEST_CASE("batch: the exit code is the first failure's, in command-line order", "[cli][batch]") {
    const std::string dir = scratch("batch_exit");
    const std::string corrupt = make_corrupt(dir);
    fs::create_directories(dir + "/g");
    // A golden for the sample that does not match (another map's result).
    REQUIRE(run_cli(kWarehouse + " -o " + dir + "/g/sample_sky.json --device cpu -q").exit_code == 0);
    REQUIRE(run_cli(kSky + " -o " + dir + "/g/pmndrs_sky.json --device cpu -q").exit_code == 0);
    // sample: golden mismatch (7), corrupt: input (3), sky: passes.
    CliResult r = run_cli(kSample + " " + corrupt + " " + kSky + " --golden '" + dir + "/g/{stem}.json' --device cpu -q");
    INFO(r.out << r.err);
    CHECK(r.exit_code == kExitGoldenMismatch);
    CHECK(line_count(r.err) == 2);
    // The other order: the input error comes first.
    r = run_cli(corrupt + " " + kSample + " --golden '" + dir + "/g/{stem}.json' --device cpu -q");
    CHECK(r.exit_code == kExitInput);
    // All pass: 0.
    r = run_cli(kSky + " " + kSky + " --golden '" + dir + "/g/{stem}.json' --device cpu -q");
    CHECK(r.exit_code == 0);
}

TEST_CASE("batch: --jobs decodes ahead on worker threads and changes no byte of the results", "[cli][batch]") {
    const std::string dir = scratch("batch_jobs");
    const std::string corrupt = make_corrupt(dir);
    // The same map under several names, with a corrupt one in the middle.
    std::string inputs;
    for (int i = 0; i < 5; ++i) {
        const std::string p = dir + "/m" + std::to_string(i) + ".exr";
        fs::copy_file(i % 2 ? kSky : kWarehouse, p);
        inputs += " " + p;
        if (i == 2) inputs += " " + corrupt;
    }
    for (const int jobs : {0, 1, 3}) {
        const std::string out = dir + "/out" + std::to_string(jobs);
        const CliResult r = run_cli(inputs + " --out-dir " + out + " --name '{stem}.json' --device cpu -q --jobs " +
                                    std::to_string(jobs));
        INFO("jobs " << jobs << ": " << r.err);
        CHECK(r.exit_code == kExitInput);
        CHECK(line_count(r.err) == 1);
        CHECK(names_in(out).size() == 5);
        for (int i = 0; i < 5; ++i) {
            const std::string name = "/m" + std::to_string(i) + ".json";
            CHECK(slurp(out + name) == slurp(dir + "/out0" + name));
        }
    }
}

TEST_CASE("batch: one OpenGL context and one set of shaders serve every input", "[cli][batch][gpu]") {
    const std::string dir = scratch("batch_gl");
    const CliResult r = run_cli(kSample + " " + kSky + " " + kWarehouse + " --out-dir " + dir +
                                " --name '{stem}.json' --device gpu --verbose --report " + dir + "/r.json");
    if (r.exit_code == kExitGpuUnavailable && std::getenv("BAKE_ALLOW_NO_GL")) {
        WARN("no OpenGL 4.3 context: " << r.err);
        return;
    }
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(count_of(r.err, "OpenGL context:") == 1);
    const nlohmann::json rep = read_json(dir + "/r.json");
    for (const auto& f : rep["files"]) {
        CHECK(f["path"] == "gpu");
        CHECK(f["renderer"] == rep["gpu"]["renderer"]);
        CHECK(f["timings_ms"]["project"].is_number());
        CHECK(f["timings_ms"]["upload"].is_number());
    }
}

TEST_CASE("batch: usage errors are caught before any work", "[cli][batch][errors]") {
    const std::string dir = scratch("batch_usage");
    fs::create_directories(dir + "/a");
    fs::create_directories(dir + "/b");
    fs::copy_file(kSample, dir + "/a/sky.hdr");
    fs::copy_file(kSample, dir + "/b/sky.hdr");
    const std::string two = kSample + " " + kWarehouse;
    struct Case {
        std::string args, mention;
    };
    const Case cases[] = {
        {two + " -o " + dir + "/x.json", "--out-dir"},                                   // -o with several inputs
        {two + " --out-dir " + dir + " --name fixed.json", "same file for every input"},  // no placeholder
        {two + " --out-dir " + dir + " --name '{stem}.png'", "must end in .exr or .json"},
        {two + " --out-dir " + dir + " --name '{bogus}.json'", "unknown placeholder {bogus}"},
        {dir + "/a/sky.hdr " + dir + "/b/sky.hdr --out-dir " + dir + " --name '{stem}.json'", "written twice"},
        {two + " --preview " + dir + "/p.png", "same file for every input"},
        {two + " --golden " + dir + "/g.json", "same file for every input"},
        {two + " --emit glsl " + dir + "/s.glsl", "same file for every input"},
        {kSample + " --emit wgsl " + dir + "/s.wgsl", "not glsl or hlsl"},
        {kSample + " --preview " + dir + "/p.jpg", "must end in .png"},
        {two, "nothing to do"},
        {two + " --out-dir " + dir + " --name '{stem}.json' --report " + dir + "/sample_sky.json", "would be written twice"},
        {"--faces a b c d e f --out-dir " + dir, "--faces"},
    };
    for (const Case& c : cases) {
        const CliResult r = run_cli(c.args + " --device cpu");
        INFO(c.args << "\n" << r.err);
        CHECK(r.exit_code == kExitUsage);
        CHECK(line_count(r.err) == 1);
        CHECK(r.err.find(c.mention) != std::string::npos);
    }
    // Nothing was written anywhere.
    CHECK(names_in(dir) == std::vector<std::string>{"a", "b"});
}

TEST_CASE("batch: {face} inputs and name placeholders", "[cli][batch]") {
    const std::string dir = scratch("batch_faces");
    const Environment env = make_random_cube_env(4, 5u);
    static const char* const tags[6] = {"px", "nx", "py", "ny", "pz", "nz"};
    for (int f = 0; f < 6; ++f) write_exr(dir + "/cube_" + tags[f] + ".exr", env.cube.faces[static_cast<size_t>(f)], EnvmapHint::None);
    const CliResult r = run_cli(dir + "/cube_{face}.exr " + kSample + " --out-dir " + dir +
                                "/out --name '{index}-{stem}.json' --name '{name}.exr' --device cpu");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(names_in(dir + "/out") == std::vector<std::string>{"1-cube.json", "2-sample_sky.json", "cube_{face}.exr.exr",
                                                             "sample_sky.hdr.exr"});
    CHECK(read_json(dir + "/out/1-cube.json")["input"]["files"].size() == 6);
}

// Issue 18 #14: progress was shown for batches and files over 32 MB only, as stage names. Now any
// stage that runs longer than a second shows, with percent and time left where the stage knows
// its size. BAKE_TEST_PROGRESS_DELAY_MS=0 (a test hook) shows every stage at once.
TEST_CASE("progress: stage lines on a terminal only, never with --quiet or when redirected", "[cli][batch]") {
    const std::string dir = scratch("batch_progress");
    const std::string now = "BAKE_TEST_PROGRESS_DELAY_MS=0";
    const std::string args = kSample + " " + kSky + " --out-dir " + dir + " --device cpu";
    const std::string tty = run_with_tty_stderr(args, now);
    INFO(tty);
    CHECK(tty.find("\r\033[K[1/2] " + kSample + ": load") != std::string::npos);
    CHECK(tty.find("[2/2] " + kSky + ": project (cpu)") != std::string::npos);
    CHECK(tty.find("[2/2] " + kSky + ": write") != std::string::npos);
    // The line is erased at the end: the last thing on the terminal is the erase sequence.
    CHECK(tty.size() >= 4);
    CHECK(tty.substr(tty.size() - 4) == "\r\033[K");
    // A single small input too, whatever its file size.
    CHECK(run_with_tty_stderr(kSample + " -o " + dir + "/one.json --device cpu", now).find("[1/1] " + kSample + ": load") !=
          std::string::npos);
    // Without the hook, stages shorter than a second show nothing.
    CHECK(run_with_tty_stderr(kSample + " -o " + dir + "/one.json --device cpu").empty());
    // --quiet and --progress never on a terminal: nothing.
    CHECK(run_with_tty_stderr(args + " --quiet", now).empty());
    const std::string never = run_with_tty_stderr(args + " --progress never", now);
    CHECK(never.find('\033') == std::string::npos);  // (the warnings still come)
    CHECK(never.find("[1/2]") == std::string::npos);
    // Redirected stderr: no progress, no control characters at all.
    const CliResult r = run_cli(args, now);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find('\r') == std::string::npos);
    CHECK(r.err.find('\033') == std::string::npos);
    CHECK(r.out.find('\033') == std::string::npos);
    // --progress always to a log: plain lines, and a stage that knows its size (the CPU specular
    // chain, about 2 s here) gives its percent and the time left.
    const CliResult log = run_cli(kSample + " --specular " + dir + "/s.exr --specular-size 64 --device cpu --progress always", now);
    INFO(log.err);
    CHECK(log.exit_code == 0);
    CHECK(log.err.find('\r') == std::string::npos);
    CHECK(log.err.find('\033') == std::string::npos);
    CHECK(log.err.find("[1/1] " + kSample + ": load") != std::string::npos);
    CHECK(std::regex_search(log.err, std::regex(": specular [0-9]+%, [0-9.]+ s left \\([0-9.]+ s\\)\n")));
}

TEST_CASE("timings: --timings prints every stage that ran, per input", "[cli][batch]") {
    const std::string dir = scratch("batch_timings");
    CliResult r = run_cli(kSample + " -o " + dir + "/a.exr --device cpu --timings");
    CHECK(r.exit_code == 0);
    const std::regex cpu_line(R"(timings .*sample_sky.hdr: load [0-9.]+ ms, project [0-9.]+ ms, sh error [0-9.]+ ms, irradiance [0-9.]+ ms, write [0-9.]+ ms, total [0-9.]+ ms)");
    CHECK(std::regex_match(lines_of(r.out).at(0), cpu_line));
    r = run_cli(kSample + " -o " + dir + "/a.json --device cpu");
    CHECK(r.out.empty());  // no --timings: nothing on stdout for a single input
}

TEST_CASE("batch: the next input's texels (staged on a worker) and specular source go to the GPU while it makes a chain, "
          "and change no byte",
          "[cli][batch][gpu][specular]") {
    const std::string dir = scratch("batch_upload_ahead");
    const std::string corrupt = make_corrupt(dir);
    // RGBE, half and float-free inputs of three sizes, the corrupt one after a chain (its decode
    // fails where the upload ahead looks at it), the first map again at the end.
    const std::string inputs = kSample + " " + kSky + " " + corrupt + " " + kWarehouse + " " + dir + "/again.hdr";
    fs::copy_file(kSample, dir + "/again.hdr");
    auto bake = [&](const std::string& out, const std::string& env) {
        return run_cli(inputs + " --out-dir " + dir + "/" + out + " --name '{stem}.json' --specular '" + dir + "/" + out +
                           "/{stem}_s.exr' --specular-size 32 --device gpu --jobs 4",
                       env);
    };
    const CliResult ahead = bake("ahead", "BAKE_TRACE=1");
    if (ahead.exit_code == kExitGpuUnavailable && std::getenv("BAKE_ALLOW_NO_GL")) {
        WARN("no OpenGL 4.3 context: " << ahead.err);
        return;
    }
    // The reference: each input baked alone (no next input to hand over), into the same folder.
    CliResult plain;
    for (const std::string& input : {kSample, kSky, corrupt, kWarehouse, dir + "/again.hdr"}) {
        const CliResult alone = run_cli(input + " --out-dir " + dir + "/plain --name '{stem}.json' --specular '" + dir +
                                        "/plain/{stem}_s.exr' --specular-size 32 --device gpu");
        plain.err += alone.err;
        plain.exit_code = plain.exit_code > 0 ? plain.exit_code : alone.exit_code;
    }
    // A failed upload ahead is nobody's error: the next input sends its texels itself; so for a
    // failed source pass queued ahead.
    const CliResult failed = bake("failed", "BAKE_TEST_FAULT=upload-ahead");
    const CliResult failed_source = bake("failed_source", "BAKE_TEST_FAULT=source-ahead BAKE_TRACE=1");
    INFO(ahead.err << "\n" << plain.err << "\n" << failed.err << "\n" << failed_source.err);
    CHECK(ahead.exit_code == kExitInput);
    CHECK(plain.exit_code == kExitInput);
    CHECK(failed.exit_code == kExitInput);
    CHECK(failed_source.exit_code == kExitInput);
    CHECK(failed.err == plain.err);
    std::string errors;  // the lines that are not the trace's
    for (const std::string& line : lines_of(ahead.err))
        if (line.rfind("trace ", 0) != 0) errors += line + "\n";
    CHECK(errors == plain.err);
    // Sent ahead where the next input had decoded by then (four decoders for inputs that decode
    // in milliseconds, chains that take the GPU longer): the feature is on, and not by accident.
    CHECK(count_of(ahead.err, "next input sent ahead") >= 1);
    CHECK(count_of(ahead.err, "next input staged") >= 1);  // copied toward the GPU on a worker before that
    // Each source queued ahead was the next input's, and its own stage took it (not made twice).
    const int sources_ahead = count_of(ahead.err, "next specular source queued");
    CHECK(sources_ahead >= 1);
    CHECK(count_of(ahead.err, "specular source: queued ahead") == sources_ahead);
    CHECK(count_of(failed_source.err, "next input sent ahead") >= 1);
    CHECK(count_of(failed_source.err, "specular source: queued ahead") == 0);
    std::string failed_source_errors;
    for (const std::string& line : lines_of(failed_source.err))
        if (line.rfind("trace ", 0) != 0) failed_source_errors += line + "\n";
    CHECK(failed_source_errors == plain.err);
    const std::vector<std::string> names = names_in(dir + "/plain");
    CHECK(names.size() == 8);
    for (const char* run : {"ahead", "failed", "failed_source"}) {
        INFO(run);
        CHECK(names_in(dir + "/" + run) == names);
        for (const std::string& name : names) {
            INFO(name);
            CHECK(slurp(dir + "/" + run + "/" + name) == slurp(dir + "/plain/" + name));
        }
    }
}

TEST_CASE("batch: --device auto takes the GPU once the inputs' texels reach the batch limit", "[cli][batch][gpu]") {
    const std::string dir = scratch("batch_auto_gpu");
    const auto a = read_image_size(kSample), b = read_image_size(kSky);
    REQUIRE(a);
    REQUIRE(b);
    const std::uint64_t both = static_cast<std::uint64_t>(a->first) * a->second + static_cast<std::uint64_t>(b->first) * b->second;
    // llvmpipe stands for a GPU here (auto refuses a software rasterizer otherwise).
    auto paths = [&](const std::string& inputs, std::uint64_t limit) {
        const std::string report = dir + "/r" + std::to_string(limit) + std::to_string(inputs.size()) + ".json";
        const CliResult r = run_cli(inputs + " --out-dir " + dir + " --name '{stem}.json' --report " + report,
                                    "BAKE_TEST_SOFTWARE_GL_IS_GPU=1 BAKE_TEST_GPU_BATCH_TEXELS=" + std::to_string(limit));
        std::vector<std::string> out;
        if (r.exit_code != 0) {
            UNSCOPED_INFO("exit " << r.exit_code << ": " << r.err);
            return out;
        }
        const nlohmann::json rep = read_json(report);
        for (const auto& f : rep["files"]) out.push_back(f["path"].get<std::string>());
        return out;
    };
    const std::vector<std::string> reached = paths(kSample + " " + kSky, both);
    if (reached.empty() && std::getenv("BAKE_ALLOW_NO_GL")) {
        WARN("no OpenGL 4.3 context");
        return;
    }
    CHECK(reached == std::vector<std::string>{"gpu", "gpu"});
    CHECK(paths(kSample + " " + kSky, both + 1) == std::vector<std::string>{"cpu", "cpu"});
    CHECK(paths(kSample, 1) == std::vector<std::string>{"cpu"});  // one input is never a batch
    // A machine with no GPU device node (the 2-core VM): not even a context is tried, so no notice
    // about a software rasterizer, and the CPU bakes as before.
    std::error_code ec;
    if (!fs::exists("/dev/nvidiactl", ec) && !fs::exists("/dev/dri", ec)) {
        const CliResult r = run_cli(kSample + " " + kSky + " --out-dir " + dir + " --name '{stem}.json'",
                                    "BAKE_TEST_GPU_BATCH_TEXELS=" + std::to_string(both));
        INFO(r.err);
        CHECK(r.exit_code == 0);
        CHECK(r.err.find("notice") == std::string::npos);
    }
}
