// Issue 33, "Nothing lost": every file a run reads or writes goes through one guard (file_guard.h).
// Each case is a row of the issue's table, run through the real binary; the walk at the end takes
// every option that names a file from --help, so that an option added later is checked too.
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "atomic_file.h"
#include "cli_runner.h"
#include "errors.h"
#include "file_guard.h"
#include "image_io.h"
#include "shard.h"
#include "specular_prefilter.h"
#include "stage_progress.h"
#include "test_support.h"

using namespace bake;
using namespace bake::test;
namespace fs = std::filesystem;

namespace {

// The bytes of every file under `dir`, by path: what a refused run must leave as it was.
std::map<std::string, std::string> snapshot(const std::string& dir) {
    std::map<std::string, std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file()) files[e.path().string()] = slurp(e.path().string());
    return files;
}

void check_refused_untouched(const CliResult& r, int code, const std::string& dir,
                             const std::map<std::string, std::string>& before) {
    INFO(r.err);
    CHECK(r.exit_code == code);
    CHECK(line_count(r.err) == 1);
    CHECK(snapshot(dir) == before);
}

std::string copy_sample(const std::string& dir, const std::string& name) {
    fs::copy_file(kSample, dir + "/" + name, fs::copy_options::overwrite_existing);
    return dir + "/" + name;
}

}  // namespace

// #1: a depfile (or a report, a manifest) named like a file the run reads or writes replaced it.
TEST_CASE("guard: the depfile, report and manifest never replace a file the run reads or writes", "[cli][guard]") {
    const std::string dir = scratch("guard_depfile");
    const std::string in = copy_sample(dir, "same.hdr");
    std::ofstream(dir + "/x.json") << "kept";
    std::ofstream(dir + "/r.gltf") << "kept";
    const auto before = snapshot(dir);
    for (const std::string& args :
         {in + " -o " + dir + "/x.json --depfile " + in, in + " -o " + dir + "/x.json --depfile " + dir + "/x.json",
          in + " --gltf " + dir + "/r.gltf --depfile " + dir + "/r.gltf",
          in + " -o " + dir + "/x.json --depfile " + dir + "/y.d --report " + dir + "/y.d",
          in + " -o " + dir + "/x.json --depfile " + dir + "/x.json.bake.json --skip-unchanged",
          // through the guard itself: names each option accepts
          in + " -o " + dir + "/x.json --emit glsl " + dir + "/y.d --depfile " + dir + "/./y.d",
          in + " -o " + dir + "/x.json --skip-unchanged --emit glsl " + dir + "/x.json.bake.json",
          in + " -o " + dir + "/x.json --report " + dir + "/../" + fs::path(dir).filename().string() + "/x.json"}) {
        INFO(args);
        check_refused_untouched(run_cli(args + " --device cpu"), kExitUsage, dir, before);
    }
    // The messages say which file and why.
    const CliResult r = run_cli(in + " -o " + dir + "/x.json --emit glsl " + dir + "/y.d --depfile " + dir + "/y.d --device cpu");
    CHECK(r.err.find("--depfile: '" + dir + "/y.d' would be written twice (by --emit of '" + in + "' and --depfile)") !=
          std::string::npos);
    const CliResult m = run_cli(in + " -o " + dir + "/x.json --skip-unchanged --emit glsl " + dir + "/x.json.bake.json");
    CHECK(m.err.find("is the --skip-unchanged manifest of '" + in + "'") != std::string::npos);
}

// #2: the merged report overwrote one of the reports it joins.
TEST_CASE("guard: --merge-reports never writes over one of its inputs", "[cli][guard][farm]") {
    const std::string dir = scratch("guard_merge_out");
    const std::string in = copy_sample(dir, "a.hdr");
    for (int k = 0; k < 2; ++k)
        REQUIRE(run_cli(in + " -o " + dir + "/a.json --device cpu --shard " + std::to_string(k) +
                        "/2 --report " + dir + "/t" + std::to_string(k) + ".json")
                    .exit_code == 0);
    const auto before = snapshot(dir);
    const CliResult r = run_cli("--merge-reports " + dir + "/t0.json " + dir + "/t0.json " + dir + "/t1.json");
    check_refused_untouched(r, kExitUsage, dir, before);
    CHECK(r.err.find("is also read by this run") != std::string::npos);
    CHECK(run_cli("--merge-reports " + dir + "/m.json " + dir + "/t0.json " + dir + "/t1.json").exit_code == 0);
}

// #4: a second --skip-unchanged --no-clobber run, nothing changed, was refused (exit 4).
TEST_CASE("guard: --skip-unchanged with --no-clobber skips what is unchanged", "[cli][guard][farm]") {
    const std::string dir = scratch("guard_skip_noclobber");
    const std::string in = copy_sample(dir, "a.hdr");
    const std::string args = in + " -o " + dir + "/a.json -o " + dir + "/a.exr --device cpu --skip-unchanged --no-clobber";
    REQUIRE(run_cli(args).exit_code == 0);
    const auto before = snapshot(dir);
    const CliResult r = run_cli(args + " --report " + dir + "/r.json");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(read_json(dir + "/r.json")["files"][0]["status"] == "skipped");
    fs::remove(dir + "/r.json");
    CHECK(snapshot(dir) == before);
    // A changed input with --no-clobber: its outputs exist, so it is refused before any work.
    std::ofstream(in, std::ios::app) << " ";
    CHECK(run_cli(args).exit_code == kExitOutput);
}

// #5: a depfile or report in a folder no file can be made in failed only after every input baked.
TEST_CASE("guard: an unwritable depfile or report folder refuses the run before any work", "[cli][guard]") {
    const std::string dir = scratch("guard_readonly");
    const std::string in = copy_sample(dir, "a.hdr");
    // Root may write into a 0555 folder; sysfs refuses new files to everyone (test_hostile_inputs.cpp).
    std::vector<std::string> folders;
    if (fs::is_directory("/sys")) folders.push_back("/sys");
    if (::geteuid() != 0) {
        fs::create_directories(dir + "/ro");
        fs::permissions(dir + "/ro", fs::perms::owner_read | fs::perms::owner_exec);
        folders.push_back(dir + "/ro");
    }
    if (folders.empty()) WARN("no folder that refuses new files to this user: the case is not run");
    for (const std::string& ro : folders)
        for (const std::string& option : {"--depfile " + ro + "/x.d", "--report " + ro + "/r.json"}) {
            INFO(option);
            const CliResult r = run_cli(in + " -o " + dir + "/out/a.json --device cpu " + option);
            INFO(r.err);
            CHECK(r.exit_code == kExitOutput);
            CHECK(r.err.find("cannot create a file in folder '" + ro + "'") != std::string::npos);
            CHECK_FALSE(fs::exists(dir + "/out"));  // not even the output's folder was made
        }
    if (::geteuid() != 0) fs::permissions(dir + "/ro", fs::perms::owner_all);
}

// #6: reports of another command (another window, other output names) were merged.
TEST_CASE("guard: --merge-reports refuses a report of another command, naming it", "[cli][guard][farm]") {
    const std::string dir = scratch("guard_merge_other");
    std::string inputs;
    for (const char* name : {"a", "b", "c"}) inputs += " " + copy_sample(dir, std::string(name) + ".hdr");
    const std::string base = inputs + " --out-dir " + dir + "/out --device cpu";
    REQUIRE(run_cli(base + " --name '{stem}.json' --shard 0/2 --report " + dir + "/t0.json").exit_code == 0);
    REQUIRE(run_cli(base + " --name '{stem}.json' --shard 1/2 --window hann --report " + dir + "/hann.json").exit_code == 0);
    REQUIRE(run_cli(base + " --name '{stem}_x.json' --shard 1/2 --report " + dir + "/names.json").exit_code == 0);
    REQUIRE(run_cli(base + " --name '{stem}.json' --shard 1/2 --report " + dir + "/t1.json --jobs 1").exit_code == 0);
    for (const char* other : {"hann.json", "names.json"}) {
        const CliResult r = run_cli("--merge-reports " + dir + "/m.json " + dir + "/t0.json " + dir + "/" + other);
        INFO(r.err);
        CHECK(r.exit_code == kExitInput);
        CHECK(r.err.find(dir + "/" + other + " is the report of another command") != std::string::npos);
        CHECK_FALSE(fs::exists(dir + "/m.json"));
    }
    // The same command on a task that resolved --jobs otherwise (another node) is one command.
    CHECK(run_cli("--merge-reports " + dir + "/m.json " + dir + "/t0.json " + dir + "/t1.json").exit_code == 0);
}

// #7, #8, #17, #18: options that would do less than asked, or write under a wrong name.
TEST_CASE("guard: a one-level glTF chain, order 5 in order-3 layouts, and wrong extensions are said", "[cli][guard]") {
    const std::string dir = scratch("guard_rules");
    for (const char* size : {"8", "16"}) {
        const CliResult r = run_cli(kSample + " --gltf " + dir + "/s.glb --specular-size " + size + " --device cpu");
        INFO(r.err);
        CHECK(r.exit_code == kExitUsage);
        CHECK(r.err.find("give 32 or more") != std::string::npos);
    }
    CHECK(run_cli("--help").out.find("16x16") != std::string::npos);
    CHECK(run_cli(kSample + " --sh-format babylon " + dir + "/b.exr --device cpu").exit_code == kExitUsage);
    CHECK(run_cli(kSample + " --sh-format filament " + dir + "/sh.json --device cpu").exit_code == kExitUsage);
    CHECK(run_cli("--merge-reports " + dir + "/m.txt " + dir + "/a.json").exit_code == kExitUsage);
    CHECK(fs::is_empty(dir));
    const CliResult size = run_cli(kSample + " -o " + dir + "/irr.json --size 64 --device cpu");
    CHECK(size.exit_code == kExitUsage);
    CHECK(size.err.find(".exr, .ktx2 or .dds output") != std::string::npos);
    const CliResult o5 = run_cli(kSample + " --order 5 -o " + dir + "/c.json --sh-format threejs " + dir + "/p.json --device cpu");
    CHECK(o5.exit_code == 0);
    CHECK(o5.err.find("warning: --sh-format threejs takes order 3") != std::string::npos);
}

// #9: a CPU chain's progress stood still for a whole level (a minute at 1024^2).
TEST_CASE("guard: the specular chain's progress moves within a level", "[specular][progress]") {
    const Environment env = make_equirect_env(256, 128, smooth_radiance);
    SpecularSettings settings;
    settings.base_size = 32;
    settings.samples = 256;
    settings.source_size = 64;
    const SpecularInput input = prepare_specular_input(env, settings.source_size, 2);
    stage_progress::begin(settings.levels() * kSpecularProgressUnits);
    std::atomic<bool> done{false};
    std::set<double> seen;
    std::thread watch([&] {
        while (!done) seen.insert(stage_progress::fraction());
    });
    prefilter_specular_sampled(input, settings, 2);
    done = true;
    watch.join();
    // Levels alone would show at most `levels` values; rows show many more, and end at all but the source.
    CHECK(static_cast<int>(seen.size()) > 3 * settings.levels());
    CHECK(stage_progress::fraction() == Approx(1.0 - 1.0 / settings.levels()));
}

// #10, #12: manifests named files by the working folder's paths, and stayed behind when moved.
TEST_CASE("guard: manifests hold absolute paths and follow the first output", "[cli][guard][farm]") {
    const std::string dir = fs::absolute(scratch("guard_manifest")).string();
    copy_sample(dir, "a.hdr");
    const std::string tool = BAKE_CLI_PATH;
    auto in_dir = [&](const std::string& cwd, const std::string& args) {
        return std::system(("cd '" + cwd + "' && '" + tool + "' " + args + " --device cpu --warn-error 1e300 >" + dir +
                            "/log 2>&1").c_str());
    };
    REQUIRE(in_dir(dir, "a.hdr -o out/a.json --skip-unchanged --report r.json") == 0);
    // The same files from elsewhere, spelled otherwise: unchanged.
    fs::create_directories(dir + "/sub");
    REQUIRE(in_dir(dir + "/sub", "../a.hdr -o " + dir + "/out/a.json --skip-unchanged --report " + dir + "/r.json") == 0);
    CHECK(read_json(dir + "/r.json")["files"][0]["status"] == "skipped");
    REQUIRE(in_dir("/", dir + "/a.hdr -o " + dir + "/out/./a.json --skip-unchanged --report " + dir + "/r.json") == 0);
    CHECK(read_json(dir + "/r.json")["files"][0]["status"] == "skipped");
    // An output added before it: the manifest moves beside the new first output; the old one goes.
    REQUIRE(in_dir(dir, "a.hdr --specular out/s.exr --specular-size 8 -o out/a.json --skip-unchanged") == 0);
    CHECK(fs::exists(dir + "/out/s.exr.bake.json"));
    CHECK_FALSE(fs::exists(dir + "/out/a.json.bake.json"));
    REQUIRE(in_dir(dir, "a.hdr --specular out/s.exr --specular-size 8 -o out/a.json --skip-unchanged --report r.json") == 0);
    CHECK(read_json(dir + "/r.json")["files"][0]["status"] == "skipped");
}

// #13: inputs an interruption never reached read "skipped" with no reason, like an unchanged one.
TEST_CASE("guard: inputs never reached before a signal are skipped as interrupted", "[cli][guard][signals]") {
    const std::string dir = scratch("guard_interrupted");
    std::string inputs;
    for (const char* name : {"a", "b", "c", "d", "e"}) inputs += " " + copy_sample(dir, std::string(name) + ".hdr");
    const pid_t pid = ::fork();
    if (pid == 0) {
        const std::string cmd = std::string("exec ") + BAKE_CLI_PATH + " " + inputs + " --out-dir " + dir +
                                "/out --name '{stem}.exr' --size 768 --device cpu --warn-error 1e300 --report " + dir +
                                "/r.json >/dev/null 2>&1";
        ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    fs::create_directories(dir + "/out");
    bool writing = false;
    for (int i = 0; i < 12000 && !writing; ++i) {
        for (const auto& e : fs::directory_iterator(dir + "/out")) writing |= e.path().filename().string().find(".tmp-") != std::string::npos;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    REQUIRE(writing);
    ::kill(pid, SIGINT);
    int status = 0;
    ::waitpid(pid, &status, 0);
    const nlohmann::json rep = read_json(dir + "/r.json");
    int skipped = 0;
    for (const nlohmann::json& f : rep["files"])
        if (f["status"] == "skipped") {
            ++skipped;
            CHECK(f["skip_reason"] == "interrupted");
        }
    CHECK(skipped >= 1);
}

// #14: shard numbers: one rule for signs and spaces, one prefix, a message that fits.
TEST_CASE("guard: --shard's values are refused with one rule and one message each", "[cli][guard][farm]") {
    auto none = [](const char*) -> std::optional<std::string> { return std::nullopt; };
    CHECK_THROWS_WITH(parse_shard("-1/4", none), Catch::Contains("'-1' must be 0 or more"));
    CHECK_THROWS_WITH(parse_shard("3/2", none), Catch::Contains("shard 3 of 2 does not exist"));
    CHECK_THROWS_WITH(parse_shard(" 1/2", none), Catch::Contains("no spaces"));
    CHECK_THROWS_WITH(parse_shard("1/4 ", none), Catch::Contains("no spaces"));
    auto zero = [](const char* name) -> std::optional<std::string> {
        if (std::string(name) == "SLURM_ARRAY_TASK_ID") return std::string("0");
        if (std::string(name) == "SLURM_ARRAY_TASK_COUNT") return std::string("0");
        return std::nullopt;
    };
    CHECK_THROWS_WITH(parse_shard("auto", zero), Catch::Contains("an array has at least one task"));
    CHECK_THROWS_WITH(parse_shard("auto", zero), !Catch::Contains("--array=0-"));
    const CliResult r = run_cli(kSample + " -o x.json --device cpu --shard 3/2");
    CHECK(r.exit_code == kExitUsage);
    CHECK(r.err.find("--shard: '3/2': shard 3 of 2") != std::string::npos);
    CHECK(r.err.find("--shard", r.err.find("--shard") + 1) == std::string::npos);  // one prefix
}

// #15, #19: reports to merge that are a folder or cut short, in our words; the first failure named.
TEST_CASE("guard: --merge-reports names a folder, a truncated report and the first failure", "[cli][guard][farm]") {
    const std::string dir = scratch("guard_merge_words");
    const std::string good = copy_sample(dir, "good.hdr");
    std::ofstream(dir + "/broken.hdr") << "#?RADIANCE\nnot a map";
    const std::string inputs = good + " " + dir + "/broken.hdr";
    for (int k = 0; k < 2; ++k)
        run_cli(inputs + " --out-dir " + dir + "/out --name '{stem}.json' --device cpu --shard " + std::to_string(k) +
                "/2 --report " + dir + "/t" + std::to_string(k) + ".json");
    const CliResult merged = run_cli("--merge-reports " + dir + "/m.json " + dir + "/t0.json " + dir + "/t1.json");
    INFO(merged.out << merged.err);
    CHECK(merged.exit_code == kExitInput);
    CHECK(merged.out.find("(first failure: " + dir + "/broken.hdr)") != std::string::npos);
    fs::create_directories(dir + "/adir");
    const CliResult folder = run_cli("--merge-reports " + dir + "/m2.json " + dir + "/t0.json " + dir + "/adir");
    CHECK(folder.exit_code == kExitInput);
    CHECK(folder.err.find(dir + "/adir: is a folder") != std::string::npos);
    const std::string text = slurp(dir + "/t1.json");
    write_text(dir + "/cut.json", text.substr(0, text.size() / 2));
    const int lines = line_count(text.substr(0, text.size() / 2)) + 1;
    const CliResult cut = run_cli("--merge-reports " + dir + "/m3.json " + dir + "/t0.json " + dir + "/cut.json");
    INFO(cut.err);
    CHECK(cut.exit_code == kExitInput);
    CHECK(cut.err.find(dir + "/cut.json: truncated after line " + std::to_string(lines)) != std::string::npos);
    CHECK(cut.err.find("json.exception") == std::string::npos);
}

// #16: --help listed .exr and .json for -o (.ktx2 works too) and ran to 348 columns.
TEST_CASE("guard: --help names every accepted extension and fits the terminal", "[cli][guard]") {
    for (int width : {80, 100, 132}) {
        const CliResult r = run_cli("--help", "COLUMNS=" + std::to_string(width));
        REQUIRE(r.exit_code == 0);
        for (const std::string& line : lines_of(r.out)) {
            INFO(line);
            CHECK(static_cast<int>(line.size()) <= width);
        }
        const std::string flat = std::regex_replace(r.out, std::regex("\\s+"), " ");
        for (const char* said : {".exr: irradiance map", ".json: SH coefficients", ".ktx2: irradiance map",
                                 ".dds: irradiance map", "one .exr a level with {level} in the name, a .ktx2 or a .dds",
                                 ".d or .dep", "DFG table: .exr (float), .png (16-bit), .ktx2 or .dds"})
            CHECK(flat.find(said) != std::string::npos);
    }
}

// The guard itself: once sealed, a write nobody declared is an internal error, not a lost file.
TEST_CASE("guard: a sealed guard refuses an undeclared write", "[guard]") {
    const std::string dir = fs::absolute(scratch("guard_seal")).string();
    FileGuard guard;
    guard.write(dir + "/declared.txt", "--test");
    guard.check(false);
    guard.seal();
    CHECK_NOTHROW(write_text_atomically(dir + "/./declared.txt", "ok"));
    CHECK_THROWS_AS(write_text_atomically(dir + "/other.txt", "lost"), std::logic_error);
    allow_writes_under(dir + "/cache");
    fs::create_directories(dir + "/cache");
    CHECK_NOTHROW(write_text_atomically(dir + "/cache/entry", "ok"));
    reset_seal();
    CHECK_NOTHROW(write_text_atomically(dir + "/other.txt", "ok"));
    CHECK(names_in(dir) == std::vector<std::string>{"cache", "declared.txt", "other.txt"});
}

// Every option that names a file (from --help: its value is FILE), pointed at a file the run reads
// or writes already: exit 2, and not a byte of any file changed, whichever rule refuses it.
TEST_CASE("guard: every option that names a file is refused on a file the run reads or writes", "[cli][guard]") {
    const std::string dir = scratch("guard_walk");
    const std::string in = copy_sample(dir, "in.hdr");
    std::ofstream(dir + "/g.json") << "{}";
    // One more output of every extension the options take, written by --emit (it takes any name).
    const std::vector<std::string> others = {"e.exr", "e.json", "e.png", "e.ktx2", "e.d", "e.txt", "e.glb", "e.gltf"};
    const std::string help = run_cli("--help", "COLUMNS=1000").out;
    const std::regex option_line(R"(^  (?:-\w,)?(--[a-z-]+) ((?:[A-Z]+ )?FILE)\b)");
    std::vector<std::pair<std::string, std::string>> options;  // option, its value before FILE ("" or "glsl", "threejs")
    for (const std::string& line : lines_of(help)) {
        std::smatch m;
        if (!std::regex_search(line, m, option_line)) continue;
        const std::string name = m[1];
        if (name == "--faces" || name == "--golden" || name == "--merge-reports") continue;  // read, or its own mode
        const std::string kind = m[2];
        options.emplace_back(name, kind.rfind("LANG", 0) == 0 ? "glsl " : kind.rfind("ENGINE", 0) == 0 ? "threejs " : "");
    }
    REQUIRE(options.size() >= 9);  // -o, --report, --preview, --emit, --specular, --dfg, --gltf, --sh-format, --depfile
    const auto before = snapshot(dir);
    for (const auto& [option, value] : options) {
        std::vector<std::string> victims = {in, dir + "/g.json", dir + "/./in.hdr"};
        for (const std::string& o : others) victims.push_back(dir + "/" + o);
        for (const std::string& victim : victims) {
            const std::string emit = victim.find("/e.") != std::string::npos ? " --emit hlsl " + victim : "";
            const std::string args = in + " --golden " + dir + "/g.json" + emit + " " + option + " " + value + victim;
            INFO(args);
            check_refused_untouched(run_cli(args + " --device cpu"), kExitUsage, dir, before);
        }
    }
}

// #3: a sun of 3e5 in one texel was cut to 255 in the glTF's RGBD PNGs without a word.
TEST_CASE("guard: a sun the glTF's RGBD cannot hold is warned about, naming the file", "[cli][guard][gltf]") {
    const std::string dir = scratch("guard_sun_gltf");
    Image sky(64, 32);
    for (std::size_t i = 0; i < sky.rgb.size(); ++i) sky.rgb[i] = 0.5f;
    for (int c = 0; c < 3; ++c) sky.at(10, 20)[c] = 3e5f;
    write_exr(dir + "/sun.exr", sky, EnvmapHint::None);
    const CliResult r = run_cli(dir + "/sun.exr --gltf " + dir + "/sun.glb --specular-size 32 --device cpu");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("warning: " + dir + "/sun.glb: RGBD PNGs hold values up to 255") != std::string::npos);
    // A sky RGBD holds says nothing.
    for (int c = 0; c < 3; ++c) sky.at(10, 20)[c] = 200.0f;
    write_exr(dir + "/calm.exr", sky, EnvmapHint::None);
    const CliResult calm = run_cli(dir + "/calm.exr --gltf " + dir + "/calm.glb --specular-size 32 --device cpu");
    CHECK(calm.exit_code == 0);
    CHECK(calm.err.find("RGBD") == std::string::npos);
}
