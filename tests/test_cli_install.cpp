// `cmake --install` into a temporary prefix: the binary and the man page land in place, the
// installed binary bakes the sample from a folder outside the source and build trees (shaders
// are embedded), and the man page documents every option --help lists.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <regex>
#include <set>

#include "cli_runner.h"
#include "test_support.h"

using namespace bake::test;
namespace fs = std::filesystem;

namespace {


// The build tree holding the binary under test, and the cmake that configured it.
fs::path build_dir() { return fs::path(BAKE_CLI_PATH).parent_path(); }

std::string cmake_command() {
    std::ifstream cache(build_dir() / "CMakeCache.txt");
    for (std::string line; std::getline(cache, line);)
        if (line.rfind("CMAKE_COMMAND:INTERNAL=", 0) == 0) return line.substr(line.find('=') + 1);
    return "cmake";
}

struct Shell {
    int exit_code;
    std::string out;
};

Shell shell(const std::string& cmd) {
    const std::string tag = "install_" + std::to_string(::getpid()) + ".out";
    const int status = std::system((cmd + " >" + tag + " 2>&1 </dev/null").c_str());
    Shell s{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(tag)};
    std::remove(tag.c_str());
    return s;
}

}  // namespace

TEST_CASE("install: binary and man page in a prefix, run from outside the source tree", "[cli][install]") {
    const fs::path root = fs::temp_directory_path() / ("bake_install_" + std::to_string(::getpid()));
    fs::remove_all(root);
    const fs::path prefix = root / "prefix", work = root / "work";
    fs::create_directories(work);

    const Shell inst = shell("'" + cmake_command() + "' --install '" + build_dir().string() + "' --prefix '" +
                             prefix.string() + "'");
    INFO(inst.out);
    REQUIRE(inst.exit_code == 0);
    const fs::path bin = prefix / "bin" / "bake-irradiance";
    const fs::path man = prefix / "share" / "man" / "man1" / "bake-irradiance.1";
    REQUIRE(fs::exists(bin));
    CHECK((fs::status(bin).permissions() & fs::perms::owner_exec) != fs::perms::none);
    REQUIRE(fs::exists(man));
    // Issue 18 #20: --help points to the convention, which was not installed.
    const fs::path convention = prefix / "share" / "doc" / "bake-irradiance" / "CONVENTION.md";
    CHECK(fs::exists(convention));
    CHECK(fs::exists(prefix / "share" / "doc" / "bake-irradiance" / "report.schema.json"));

    // From a folder outside the source and build trees, on a copy of the sample: GPU path when a
    // context exists (embedded shaders), CPU otherwise; both agree with the build tree's binary.
    fs::copy_file(kSample, work / "sky.hdr");
    const std::string cd = "cd '" + work.string() + "' && ";
    Shell run = shell(cd + "'" + bin.string() + "' sky.hdr -o irr.exr -o irr.json --device cpu");
    INFO(run.out);
    CHECK(run.exit_code == 0);
    CHECK(fs::file_size(work / "irr.exr") > 0);
    CHECK(read_json((work / "irr.json").string()).at("order") == 3);
    run = shell(cd + "'" + bin.string() + "' sky.hdr -o gpu.json --device gpu");
    if (run.exit_code == 5 && std::getenv("BAKE_ALLOW_NO_GL")) {
        WARN("no OpenGL context: " << run.out);
    } else {
        INFO(run.out);
        CHECK(run.exit_code == 0);
        CHECK(read_json((work / "gpu.json").string()).at("computed_by").at("path") == "gpu");
    }
    run = shell("'" + bin.string() + "' --version");
    CHECK(run.exit_code == 0);
    CHECK(run.out.find("bake-irradiance 0.") == 0);

    // Every long option of --help appears in the man page (roff writes '-' as '\-').
    const Shell help = shell("'" + bin.string() + "' --help");
    REQUIRE(help.exit_code == 0);
    // (wrapped to the terminal: compared with its line breaks as spaces)
    CHECK(std::regex_replace(help.out, std::regex("\\s+"), " ").find("CONVENTION.md in share/doc/bake-irradiance/") !=
          std::string::npos);
    std::string page = slurp(man.string());
    page = std::regex_replace(page, std::regex(R"(\\-)"), "-");
    std::set<std::string> options;
    const std::regex option(R"(--[a-z][a-z-]*)");
    for (auto it = std::sregex_iterator(help.out.begin(), help.out.end(), option); it != std::sregex_iterator(); ++it)
        options.insert(it->str());
    CHECK(options.size() >= 30);
    for (const std::string& o : options) {
        INFO(o);
        CHECK(page.find(o) != std::string::npos);
    }
    fs::remove_all(root);
}
