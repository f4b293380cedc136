// write_atomically: the target appears complete or not at all; nothing is left behind on failure.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "atomic_file.h"
#include "errors.h"
#include "test_support.h"

namespace fs = std::filesystem;
using bake::OutputError;
using bake::write_atomically;
using bake::test::names_in;
using bake::test::scratch;
using bake::test::slurp;

namespace {

void put(const std::string& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) throw std::runtime_error("cannot write " + path);
}

// Runs write_atomically expecting an OutputError that is one line starting with "<path>: ".
std::string require_output_error(const std::string& path,
                                 const std::function<void(const std::string&)>& write) {
    try {
        write_atomically(path, write);
    } catch (const OutputError& e) {
        const std::string msg = e.what();
        INFO(msg);
        CHECK(msg.rfind(path + ": ", 0) == 0);
        CHECK(msg.find('\n') == std::string::npos);
        return msg;
    } catch (const std::exception& e) {
        FAIL("not an OutputError: " << e.what());
    }
    FAIL("no error writing " << path);
    return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("atomic_file: writes through a hidden temporary in the same folder, then renames", "[atomic_file]") {
    const std::string dir = scratch("atomic_ok");
    const std::string path = dir + "/result.json";
    std::string seen_tmp;
    write_atomically(path, [&](const std::string& tmp) {
        seen_tmp = tmp;
        CHECK_FALSE(fs::exists(path));  // the target does not exist while being written
        CHECK(fs::exists(tmp));         // the temporary is already created (and ours)
        put(tmp, "complete");
    });
    CHECK(slurp(path) == "complete");
    // Same folder, hidden, keeps the extension (writers that dispatch on it still work).
    CHECK(fs::path(seen_tmp).parent_path() == fs::path(dir));
    const std::string tmp_name = fs::path(seen_tmp).filename().string();
    CHECK(tmp_name.rfind(".result.json.tmp-", 0) == 0);
    CHECK(fs::path(seen_tmp).extension() == ".json");
    CHECK(names_in(dir) == std::vector<std::string>{"result.json"});

    // Normal permissions (0666 less the umask), not mkstemp's 0600.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == (0666 & ~mask));

    // Overwrite: replaced as a whole.
    write_atomically(path, [](const std::string& tmp) { put(tmp, "second version"); });
    CHECK(slurp(path) == "second version");
    CHECK(names_in(dir) == std::vector<std::string>{"result.json"});

    // A bare file name lives in the current folder.
    const std::string bare = "atomic_ok_bare_name.txt";
    fs::remove(bare);
    write_atomically(bare, [](const std::string& tmp) { put(tmp, "bare"); });
    CHECK(slurp(bare) == "bare");
    fs::remove(bare);
}

TEST_CASE("atomic_file: a failing writer leaves the old target untouched and no temporary", "[atomic_file]") {
    const std::string dir = scratch("atomic_fail");
    const std::string path = dir + "/out.exr";
    put(path, "old content");

    SECTION("std::exception after writing half") {
        const std::string msg = require_output_error(path, [](const std::string& tmp) {
            put(tmp, "half a fi");
            throw std::runtime_error("disk on fire");
        });
        CHECK(contains(msg, "disk on fire"));
    }
    SECTION("OutputError passes through unchanged") {
        const std::string msg = require_output_error(path, [&](const std::string& tmp) {
            put(tmp, "partial");
            throw OutputError(path + ": encoder said no");
        });
        CHECK(msg == path + ": encoder said no");
    }
    SECTION("a non-standard exception") {
        require_output_error(path, [](const std::string& tmp) {
            put(tmp, "partial");
            throw 42;
        });
    }
    SECTION("the writer removes its temporary") {
        require_output_error(path, [](const std::string& tmp) { fs::remove(tmp); });
    }
    CHECK(slurp(path) == "old content");
    CHECK(names_in(dir) == std::vector<std::string>{"out.exr"});
}

TEST_CASE("atomic_file: unusable destinations", "[atomic_file]") {
    const std::string dir = scratch("atomic_dest");
    bool called = false;
    auto writer = [&](const std::string& tmp) {
        called = true;
        put(tmp, "x");
    };

    SECTION("missing folder") {
        CHECK(contains(require_output_error(dir + "/nope/out.exr", writer), "does not exist"));
        CHECK_FALSE(called);
    }
    SECTION("a regular file used as a folder") {
        put(dir + "/file", "i am a file");
        CHECK(contains(require_output_error(dir + "/file/out.exr", writer), "not a folder"));
        CHECK_FALSE(called);
        CHECK(slurp(dir + "/file") == "i am a file");
    }
    SECTION("the target is a directory") {
        fs::create_directories(dir + "/out.exr/inner");
        CHECK(contains(require_output_error(dir + "/out.exr", writer), "directory"));
        CHECK_FALSE(called);
        CHECK(fs::is_directory(dir + "/out.exr/inner"));
    }
    SECTION("a folder nobody can create files in, even root (procfs)") {
        require_output_error("/proc/bake_atomic_test.exr", writer);
        CHECK_FALSE(called);
    }
    SECTION("read-only folder") {
        const std::string ro = dir + "/ro";
        fs::create_directories(ro);
        put(ro + "/out.exr", "old");
        REQUIRE(::chmod(ro.c_str(), 0555) == 0);
        // Root (as in our CI containers) ignores directory permissions: probe, and skip if so.
        const std::string probe = ro + "/probe";
        const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd >= 0) {
            ::close(fd);
            ::unlink(probe.c_str());
            WARN("running with permission to write into a 0555 folder (root?): read-only case skipped");
        } else {
            CHECK(contains(require_output_error(ro + "/out.exr", writer), "ro"));
            CHECK_FALSE(called);
            CHECK(slurp(ro + "/out.exr") == "old");
            CHECK(names_in(ro) == std::vector<std::string>{"out.exr"});
        }
        ::chmod(ro.c_str(), 0755);
    }
    SECTION("empty path and a path ending in a slash") {
        require_output_error("", writer);
        require_output_error(dir + "/", writer);
        CHECK_FALSE(called);
    }
}

TEST_CASE("atomic_file: concurrent writers to one target: one complete version wins", "[atomic_file]") {
    const std::string dir = scratch("atomic_race");
    const std::string path = dir + "/same.txt";
    const std::string a(100000, 'a'), b(100000, 'b');
    std::thread t1([&] { for (int i = 0; i < 20; ++i) write_atomically(path, [&](const std::string& t) { put(t, a); }); });
    std::thread t2([&] { for (int i = 0; i < 20; ++i) write_atomically(path, [&](const std::string& t) { put(t, b); }); });
    t1.join();
    t2.join();
    const std::string got = slurp(path);
    CHECK((got == a || got == b));
    CHECK(names_in(dir) == std::vector<std::string>{"same.txt"});
}
