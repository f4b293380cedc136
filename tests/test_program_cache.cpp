// The program binary cache (src/gpu/program_cache.h), through the binary: a second run loads
// what the first compiled and computes the same bits; damaged, foreign or unwritable entries
// cost a compile and nothing else.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.h"

using namespace bake::test;
namespace fs = std::filesystem;

namespace {

// "GPU programs: N compiled, M loaded from the program cache (...)" from --verbose.
struct Stats {
    int compiled = -1, cached = -1;
    std::string folder;
};

Stats stats_of(const std::string& err) {
    Stats s;
    const auto at = err.find("GPU programs: ");
    if (at == std::string::npos) return s;
    std::sscanf(err.c_str() + at, "GPU programs: %d compiled, %d loaded", &s.compiled, &s.cached);
    const auto open = err.find('(', at), close = err.find(')', at);
    if (open != std::string::npos && close != std::string::npos) s.folder = err.substr(open + 1, close - open - 1);
    return s;
}

std::vector<fs::path> entries_in(const std::string& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) out.push_back(e.path());
    return out;
}

// An entry's header and key (program_cache.cpp's layout: magic, format, key length, key), without
// the driver's binary; empty when the entry is too short.
std::string entry_key(const std::string& bytes) {
    const std::size_t header = 8 + 4 + 8;
    if (bytes.size() < header) return {};
    std::uint64_t key_length = 0;
    std::memcpy(&key_length, bytes.data() + 12, 8);
    if (key_length > bytes.size() - header) return {};
    return bytes.substr(0, header + static_cast<std::size_t>(key_length));
}

bool gpu_available(const CliResult& r) {
    if (r.exit_code == 0) return true;
    if (!std::getenv("BAKE_ALLOW_NO_GL")) FAIL("no working GPU path (set BAKE_ALLOW_NO_GL=1 to allow): " << r.err);
    return false;
}

}  // namespace

TEST_CASE("program cache: a repeat run loads every program and computes the same bits", "[gpu][cli][cache]") {
    const std::string dir = scratch("program_cache_repeat");
    const std::string cache = fs::absolute(dir + "/cache").string();
    const std::string env = "BAKE_PROGRAM_CACHE=" + cache;
    const std::string args = kSky + " -o " + dir + "/a.json -o " + dir + "/a.exr --device gpu --verbose --order 5";
    const CliResult first = run_cli(args, env);
    if (!gpu_available(first)) return;
    const Stats s1 = stats_of(first.err);
    INFO(first.err);
    if (s1.folder == "off") {
        WARN("this driver keeps no program binaries (GL_NUM_PROGRAM_BINARY_FORMATS = 0): cache not tested");
        return;
    }
    CHECK(s1.folder == cache);
    CHECK(s1.compiled >= 3);  // projection, reduction, irradiance map
    CHECK(s1.cached == 0);
    CHECK(entries_in(cache).size() == static_cast<std::size_t>(s1.compiled));

    const CliResult second = run_cli(kSky + " -o " + dir + "/b.json -o " + dir + "/b.exr --device gpu --verbose --order 5", env);
    REQUIRE(second.exit_code == 0);
    const Stats s2 = stats_of(second.err);
    CHECK(s2.compiled == 0);
    CHECK(s2.cached == s1.compiled);
    CHECK(slurp(dir + "/b.exr") == slurp(dir + "/a.exr"));
    // The JSONs differ only in their output-independent parts: compare the coefficients' text.
    const std::string a = slurp(dir + "/a.json"), b = slurp(dir + "/b.json");
    CHECK(a.substr(a.find("\"radiance\"")) == b.substr(b.find("\"radiance\"")));

    SECTION("damaged entries are recompiled and replaced") {
        for (const fs::path& p : entries_in(cache)) fs::resize_file(p, fs::file_size(p) / 2);
        const CliResult r = run_cli(kSky + " -o " + dir + "/c.exr --device gpu --verbose --order 5", env);
        REQUIRE(r.exit_code == 0);
        CHECK(stats_of(r.err).cached == 0);
        CHECK(stats_of(r.err).compiled == s1.compiled);
        CHECK(slurp(dir + "/c.exr") == slurp(dir + "/a.exr"));
        const CliResult again = run_cli(kSky + " -o " + dir + "/d.exr --device gpu --verbose --order 5", env);
        CHECK(stats_of(again.err).cached == s1.compiled);
    }
    SECTION("an entry under another program's name is not loaded") {
        std::vector<fs::path> files = entries_in(cache);
        REQUIRE(files.size() >= 2);
        const std::string first_bytes = slurp(files[0].string());
        fs::copy_file(files[1], files[0], fs::copy_options::overwrite_existing);
        const CliResult r = run_cli(kSky + " -o " + dir + "/e.exr --device gpu --verbose --order 5", env);
        REQUIRE(r.exit_code == 0);
        CHECK(stats_of(r.err).compiled == 1);
        CHECK(slurp(dir + "/e.exr") == slurp(dir + "/a.exr"));
        // Rewritten with its own program: its own key again. Not its old bytes: NVIDIA's driver
        // (580, H200) does not always give the same binary for the same program twice.
        CHECK(entry_key(slurp(files[0].string())) == entry_key(first_bytes));
        CHECK(entry_key(slurp(files[0].string())) != entry_key(slurp(files[1].string())));
    }
}

TEST_CASE("program cache: off, or a folder that cannot be made, costs a compile and nothing else", "[gpu][cli][cache]") {
    const std::string dir = scratch("program_cache_off");
    const CliResult off = run_cli(kSky + " -o " + dir + "/off.json --device gpu --verbose", "BAKE_PROGRAM_CACHE=off");
    if (!gpu_available(off)) return;
    CHECK(stats_of(off.err).folder == "off");
    CHECK(stats_of(off.err).cached == 0);
    // A file where the folder would be: every store fails, silently.
    { std::ofstream(dir + "/blocker") << "x"; }
    const CliResult blocked = run_cli(kSky + " -o " + dir + "/blocked.json --device gpu --verbose",
                                      "BAKE_PROGRAM_CACHE=" + dir + "/blocker/cache");
    INFO(blocked.err);
    CHECK(blocked.exit_code == 0);
    CHECK(line_count(blocked.err) == line_count(off.err));  // not a word more than without a cache
    CHECK(stats_of(blocked.err).cached == 0);
    CHECK(fs::is_regular_file(dir + "/blocker"));
}
