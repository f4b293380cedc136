// Farm scale (issue 22): shards cover every input once, depfiles escape names as make and ninja
// read them, merged reports catch missing and doubled inputs, and --skip-unchanged skips exactly
// what would bake the same.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "bake_manifest.h"
#include "cli_runner.h"
#include "depfile.h"
#include "errors.h"
#include "shard.h"
#include "test_support.h"

using namespace bake;
using namespace bake::test;
namespace fs = std::filesystem;

namespace {

std::optional<std::string> no_env(const char*) { return std::nullopt; }

}  // namespace

TEST_CASE("farm: N shards of one batch cover every input exactly once, N = 1..8", "[farm]") {
    std::vector<std::string> inputs;
    for (int i = 0; i < 100; ++i) inputs.push_back("/library/maps/" + std::string(i % 3 ? "outdoor" : "studio") + "/sky" + std::to_string(i) + ".exr");
    const std::string root = common_root(inputs);
    CHECK(root == "/library/maps");
    for (int n = 1; n <= 8; ++n) {
        std::map<std::string, int> seen;
        std::vector<int> sizes(static_cast<std::size_t>(n), 0);
        for (int k = 0; k < n; ++k)
            for (const std::string& in : inputs)
                if (shard_of(in, root, n) == k) {
                    ++seen[in];
                    ++sizes[static_cast<std::size_t>(k)];
                }
        CHECK(seen.size() == inputs.size());
        for (const auto& [in, times] : seen) CHECK(times == 1);
        for (int size : sizes) CHECK(size >= 100 / n / 3);  // no shard left nearly empty
    }
    // The same library under another mount point shards the same way.
    for (const std::string& in : inputs)
        CHECK(shard_of(in, root, 5) == shard_of("/mnt/farm" + in, "/mnt/farm/library/maps", 5));
}

TEST_CASE("farm: --shard K/N and auto from Slurm's and Kubernetes' environment", "[farm]") {
    CHECK(parse_shard("2/5", no_env).index == 2);
    CHECK(parse_shard("2/5", no_env).count == 5);
    for (const char* bad : {"5/5", "-1/3", "1/0", "a/3", "3", ""}) CHECK_THROWS_AS(parse_shard(bad, no_env), std::invalid_argument);
    std::map<std::string, std::string> env = {{"SLURM_ARRAY_TASK_ID", "7"}, {"SLURM_ARRAY_TASK_MIN", "4"}, {"SLURM_ARRAY_TASK_COUNT", "4"}};
    auto lookup = [&](const char* name) -> std::optional<std::string> {
        const auto it = env.find(name);
        return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    const Shard slurm = parse_shard("auto", lookup);
    CHECK(slurm.index == 3);
    CHECK(slurm.count == 4);
    env = {{"JOB_COMPLETION_INDEX", "1"}};
    CHECK_THROWS_WITH(parse_shard("auto", lookup), Catch::Contains("BAKE_SHARD_COUNT"));
    env["BAKE_SHARD_COUNT"] = "3";
    CHECK(parse_shard("auto", lookup).index == 1);
    CHECK_THROWS_AS(parse_shard("auto", no_env), std::invalid_argument);
}

// What slurmd 22.05 (Debian bookworm) really exported to the tasks, as scripts/test-slurm saw it.
TEST_CASE("farm: --shard auto under Slurm's stepped arrays and index lists", "[farm]") {
    using Env = std::map<std::string, std::string>;
    auto task = [](const std::string& id, const std::string& min, const std::string& max, const std::string& step,
                   const std::string& count) {
        return Env{{"SLURM_ARRAY_TASK_ID", id},   {"SLURM_ARRAY_TASK_MIN", min},    {"SLURM_ARRAY_TASK_MAX", max},
                   {"SLURM_ARRAY_TASK_STEP", step}, {"SLURM_ARRAY_TASK_COUNT", count}};
    };
    auto shard_in = [](const Env& env) {
        return parse_shard("auto", [&](const char* name) -> std::optional<std::string> {
            const auto it = env.find(name);
            return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
        });
    };
    // --array=0-6:2: tasks 0 2 4 6 are shards 0 1 2 3 of 4 (each shard once, none refused).
    for (int k = 0; k < 4; ++k) {
        const Shard s = shard_in(task(std::to_string(2 * k), "0", "6", "2", "4"));
        CHECK(s.index == k);
        CHECK(s.count == 4);
    }
    // --array=1-16 and --array=0-15%4 (a throttle changes nothing): the plain case.
    CHECK(shard_in(task("16", "1", "16", "1", "16")).index == 15);
    CHECK(shard_in(task("5", "0", "15", "1", "16")).index == 5);
    // --array=1,3,8: COUNT=3 MIN=1 MAX=8 STEP=1 in every task. No task may bake a shard (task 1
    // and 3 took shards 0 and 2 of 3, task 8 was refused, shard 1 was baked by no one).
    for (const char* id : {"1", "3", "8"})
        CHECK_THROWS_WITH(shard_in(task(id, "1", "8", "1", "3")), Catch::Contains("evenly stepped"));
    // A list that happens to be evenly spaced but is not written as a range (0,2,4,6: STEP=1).
    CHECK_THROWS_AS(shard_in(task("2", "0", "6", "1", "4")), std::invalid_argument);
    // Inconsistent numbers are refused, not guessed at.
    CHECK_THROWS_AS(shard_in(task("3", "0", "6", "2", "4")), std::invalid_argument);  // off the step
    CHECK_THROWS_AS(shard_in(task("8", "0", "6", "2", "4")), std::invalid_argument);  // past MAX
    CHECK_THROWS_AS(shard_in(task("1", "0", "6", "0", "4")), std::invalid_argument);  // step 0
    // Older Slurm without _MAX/_STEP: MIN and COUNT alone, as before.
    CHECK(shard_in(Env{{"SLURM_ARRAY_TASK_ID", "7"}, {"SLURM_ARRAY_TASK_MIN", "4"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}).index == 3);
}

TEST_CASE("farm: depfile names escaped as make and ninja read them", "[farm]") {
    CHECK(depfile_escape("out/a b.json") == "out/a\\ b.json");
    CHECK(depfile_escape("cost$1.exr") == "cost$$1.exr");
    CHECK(depfile_escape("x#y") == "x\\#y");
    CHECK(depfile_escape("dir\\ x") == "dir\\\\\\ x");  // a backslash before an escaped space doubles
    CHECK_THROWS_AS(depfile_escape("a\nb"), std::invalid_argument);
    CHECK(depfile_text({{{"a.json", "a b.exr"}, {"in.exr", "g$.json"}}}) == "a.json a\\ b.exr: in.exr g$$.json\n");
}

TEST_CASE("farm: a Makefile rebuilds from the tool's depfile what changed, and only that", "[farm][cli]") {
    if (std::system("command -v make >/dev/null 2>&1") != 0) {
        WARN("make not installed: the depfile's make check is not run");
        return;
    }
    const std::string dir = scratch("farm_depfile_make");
    fs::copy_file(kSample, dir + "/sky map.hdr", fs::copy_options::overwrite_existing);
    const std::string tool = BAKE_CLI_PATH;
    std::ofstream(dir + "/Makefile") << "out.json: \n\t" << tool
                                     << " 'sky map.hdr' -o out.json --device cpu --depfile out.d\n-include out.d\n";
    REQUIRE(std::system(("cd " + dir + " && make -s >/dev/null 2>&1").c_str()) == 0);
    CHECK(slurp(dir + "/out.d") == "out.json: sky\\ map.hdr\n");
    const auto first = fs::last_write_time(dir + "/out.json");
    // Up to date: make runs nothing.
    CHECK(std::system(("cd " + dir + " && make -q").c_str()) == 0);
    // The input touched: out of date.
    fs::last_write_time(dir + "/sky map.hdr", first + std::chrono::seconds(5));
    CHECK(std::system(("cd " + dir + " && make -q").c_str()) != 0);
}

TEST_CASE("farm: sharded batches merge into the single batch's report, missing and doubled shards refused", "[farm][cli]") {
    const std::string dir = scratch("farm_shards");
    std::string inputs;
    for (int i = 0; i < 9; ++i) {
        fs::copy_file(kSample, dir + "/m" + std::to_string(i) + ".hdr", fs::copy_options::overwrite_existing);
        inputs += " " + dir + "/m" + std::to_string(i) + ".hdr";
    }
    REQUIRE(run_cli(inputs + " --out-dir " + dir + "/single --name '{stem}.json' --device cpu").exit_code == 0);
    std::string reports;
    for (int k = 0; k < 3; ++k) {
        const std::string r = dir + "/r" + std::to_string(k) + ".json";
        REQUIRE(run_cli(inputs + " --out-dir " + dir + "/sharded --name '{stem}.json' --device cpu --shard " +
                        std::to_string(k) + "/3 --report " + r).exit_code == 0);
        reports += " " + r;
    }
    // Sharded outputs are the single batch's, bit for bit.
    for (int i = 0; i < 9; ++i) {
        const std::string name = "/m" + std::to_string(i) + ".json";
        CHECK(slurp(dir + "/single" + name) == slurp(dir + "/sharded" + name));
    }
    CliResult r = run_cli("--merge-reports " + dir + "/merged.json" + reports);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    const nlohmann::json merged = read_json(dir + "/merged.json");
    CHECK(merged["summary"]["files"] == 9);
    CHECK(merged["summary"]["ok"] == 9);
    for (int i = 0; i < 9; ++i) CHECK(merged["files"][static_cast<std::size_t>(i)]["index"] == i + 1);
    r = run_cli("--merge-reports " + dir + "/m2.json " + dir + "/r0.json " + dir + "/r2.json");
    CHECK(r.exit_code == kExitInput);
    CHECK(r.err.find("shard 1 of 3 has no report") != std::string::npos);
    r = run_cli("--merge-reports " + dir + "/m3.json" + reports + " " + dir + "/r1.json");
    CHECK(r.exit_code == kExitInput);
    CHECK(r.err.find("twice") != std::string::npos);
    CHECK_FALSE(file_exists(dir + "/m2.json"));
    // --merge-reports takes nothing else.
    CHECK(run_cli("--merge-reports " + dir + "/m4.json" + reports + " --order 5").exit_code == kExitUsage);
}

// The KTX2 and engine-SH options shape their files too: each change bakes again (the manifest's
// fingerprint left them out, so a changed --ktx-format kept the old texels).
TEST_CASE("farm: --skip-unchanged bakes again when a .ktx2 or --sh-format option changes", "[farm][cli]") {
    const std::string dir = scratch("farm_skip_ktx");
    fs::copy_file(kSample, dir + "/a.hdr", fs::copy_options::overwrite_existing);
    const std::string batch = dir + "/a.hdr --out-dir " + dir + "/out --name '{stem}.ktx2' --size 4 --device cpu " +
                              "--skip-unchanged --report " + dir + "/r.json";
    auto status = [&] { return read_json(dir + "/r.json")["files"][0]["status"].get<std::string>(); };
    const std::string sh = " --sh-format threejs '" + dir + "/out/{stem}_sh.json'";
    REQUIRE(run_cli(batch + sh).exit_code == 0);
    REQUIRE(run_cli(batch + sh).exit_code == 0);
    CHECK(status() == "skipped");
    for (const std::string& change : {std::string(" --ktx-format rgba32f"), std::string(" --ktx-zstd 3"),
                                      std::string(" --ktx-convention bevy"),
                                      " --sh-format babylon '" + dir + "/out/{stem}_sh.json'"}) {
        INFO(change);
        const std::string args = batch + (change.find("--sh-format") == std::string::npos ? sh : "") + change;
        REQUIRE(run_cli(args).exit_code == 0);
        CHECK(status() == "ok");
        REQUIRE(run_cli(args).exit_code == 0);
        CHECK(status() == "skipped");
        REQUIRE(run_cli(batch + sh).exit_code == 0);  // back to the first bake
        CHECK(status() == "ok");
    }
}

TEST_CASE("farm: --skip-unchanged skips what would bake the same, and bakes again on any change", "[farm][cli]") {
    const std::string dir = scratch("farm_skip");
    fs::copy_file(kSample, dir + "/a.hdr", fs::copy_options::overwrite_existing);
    fs::copy_file(kSample, dir + "/b.hdr", fs::copy_options::overwrite_existing);
    const std::string batch = dir + "/a.hdr " + dir + "/b.hdr --out-dir " + dir + "/out --name '{stem}.json' --name '{stem}.exr' "
                              "--device cpu --skip-unchanged --report " + dir + "/r.json";
    auto statuses = [&] {
        const nlohmann::json rep = read_json(dir + "/r.json");
        return std::vector<std::string>{rep["files"][0]["status"], rep["files"][1]["status"]};
    };
    REQUIRE(run_cli(batch).exit_code == 0);
    CHECK(statuses() == std::vector<std::string>{"ok", "ok"});
    REQUIRE(run_cli(batch).exit_code == 0);
    CHECK(statuses() == std::vector<std::string>{"skipped", "skipped"});
    CHECK(read_json(dir + "/r.json")["files"][0]["skip_reason"].get<std::string>().find("--skip-unchanged") == 0);
    // An input's bytes change: that input bakes again.
    std::ofstream(dir + "/b.hdr", std::ios::app) << "\n";
    REQUIRE(run_cli(batch).exit_code == 0);
    CHECK(statuses() == std::vector<std::string>{"skipped", "ok"});
    // An output damaged or gone: baked again.
    std::ofstream(dir + "/out/a.exr", std::ios::app) << "x";
    REQUIRE(run_cli(batch).exit_code == 0);
    CHECK(statuses() == std::vector<std::string>{"ok", "skipped"});
    fs::remove(dir + "/out/b.json");
    REQUIRE(run_cli(batch).exit_code == 0);
    CHECK(statuses() == std::vector<std::string>{"skipped", "ok"});
    // An option that shapes the outputs: everything again.
    REQUIRE(run_cli(batch + " --order 5").exit_code == 0);
    CHECK(statuses() == std::vector<std::string>{"ok", "ok"});
    // Another version of the tool (its manifest edited to say so): again.
    const std::string manifest = dir + "/out/a.json.bake.json";
    nlohmann::json m = read_json(manifest);
    m["generator"] = "bake-irradiance 0.0.1";
    std::ofstream(manifest) << m.dump();
    REQUIRE(run_cli(batch + " --order 5").exit_code == 0);
    CHECK(statuses() == std::vector<std::string>{"ok", "skipped"});
}
