// OutputSet (atomic_file.h): the outputs of one input all new or all as they were, nothing left
// behind; and pending files (pending_files.h), which a signal handler removes. Issue 18: each
// output was atomic, but a failure half way through a set left some new and some old.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "atomic_file.h"
#include "errors.h"
#include "pending_files.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace bake;
using bake::test::names_in;
using bake::test::scratch;
using bake::test::slurp;

namespace {

void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// Sets BAKE_TEST_FAULT for one scope.
struct FaultHook {
    explicit FaultHook(const std::string& value) { ::setenv("BAKE_TEST_FAULT", value.c_str(), 1); }
    ~FaultHook() { ::unsetenv("BAKE_TEST_FAULT"); }
};

// Writes "new <name>" to each of the names (in `dir`) as one set, with `between` run after the writes.
void write_set(const std::string& dir, const std::vector<std::string>& names) {
    OutputSet set;
    {
        const OutputSet::Scope scope(set);
        for (const std::string& n : names) write_text_atomically(dir + "/" + n, "new " + n);
    }
    set.commit();
}

}  // namespace

TEST_CASE("output set: every file replaced at once, nothing else left", "[output_set]") {
    const std::string dir = scratch("output_set_ok");
    put(dir + "/a.json", "old a");
    write_set(dir, {"a.json", "b.exr", "c.png"});
    CHECK(names_in(dir) == std::vector<std::string>{"a.json", "b.exr", "c.png"});
    CHECK(slurp(dir + "/a.json") == "new a.json");
    CHECK(slurp(dir + "/c.png") == "new c.png");
}

TEST_CASE("output set: nothing is renamed before commit, and an uncommitted set leaves nothing", "[output_set]") {
    const std::string dir = scratch("output_set_uncommitted");
    put(dir + "/a.json", "old a");
    {
        OutputSet set;
        const OutputSet::Scope scope(set);
        write_text_atomically(dir + "/a.json", "new a");
        write_text_atomically(dir + "/b.json", "new b");
        CHECK(slurp(dir + "/a.json") == "old a");  // staged, not renamed
        CHECK(set.targets().size() == 2);
    }
    CHECK(names_in(dir) == std::vector<std::string>{"a.json"});
    CHECK(slurp(dir + "/a.json") == "old a");
}

TEST_CASE("output set: a rename failing at any place leaves every target as it was", "[output_set]") {
    const std::vector<std::string> names = {"a.json", "b.exr", "c.png", "d.glsl"};
    for (int k = 1; k <= 4; ++k) {
        INFO("rename " << k << " fails");
        const std::string dir = scratch("output_set_fault_" + std::to_string(k));
        put(dir + "/a.json", "old a");  // two targets exist, two are new
        put(dir + "/c.png", "old c");
        const FaultHook hook("rename:" + std::to_string(k));
        try {
            write_set(dir, names);
            FAIL("no error");
        } catch (const OutputError& e) {
            const std::string what = e.what();
            CHECK(what.find(dir + "/" + names[static_cast<std::size_t>(k - 1)] + ": cannot replace the file") == 0);
            CHECK(what.find("none of this input's outputs was changed") != std::string::npos);
        }
        CHECK(names_in(dir) == std::vector<std::string>{"a.json", "c.png"});  // no temporary, no backup
        CHECK(slurp(dir + "/a.json") == "old a");
        CHECK(slurp(dir + "/c.png") == "old c");
    }
}

TEST_CASE("output set: a failure while writing one file leaves the others unwritten", "[output_set]") {
    const std::string dir = scratch("output_set_write_fails");
    put(dir + "/a.json", "old a");
    try {
        OutputSet set;
        const OutputSet::Scope scope(set);
        write_text_atomically(dir + "/a.json", "new a");
        write_atomically(dir + "/b.exr", [](const std::string&) { throw std::runtime_error("disk full"); });
        FAIL("no error");
    } catch (const OutputError& e) {
        CHECK(std::string(e.what()).find(dir + "/b.exr: disk full") == 0);
    }
    CHECK(names_in(dir) == std::vector<std::string>{"a.json"});
    CHECK(slurp(dir + "/a.json") == "old a");
}

TEST_CASE("output set: a set opened inside another joins it", "[output_set]") {
    const std::string dir = scratch("output_set_nested");
    OutputSet outer;
    {
        const OutputSet::Scope scope(outer);
        write_set(dir, {"inner.exr"});  // its own commit has nothing to do
        CHECK(names_in(dir).size() == 1);  // still only the staged temporary
    }
    CHECK(outer.targets() == std::vector<std::string>{dir + "/inner.exr"});
    outer.commit();
    CHECK(names_in(dir) == std::vector<std::string>{"inner.exr"});
}

TEST_CASE("pending files: removed by remove_all_pending_files until released", "[output_set]") {
    const std::string dir = scratch("pending_files");
    put(dir + "/a.tmp", "a");
    put(dir + "/b.tmp", "b");
    PendingFile a(dir + "/a.tmp"), b(dir + "/b.tmp");
    b.release();
    remove_all_pending_files();
    CHECK(names_in(dir) == std::vector<std::string>{"b.tmp"});
}
