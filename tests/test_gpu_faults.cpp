// GPU failures forced through the test hook BAKE_TEST_FAULT (src/gpu/gl_context.cpp,
// src/gpu/gpu_projector.cpp), through the real binary:
//   context         GlContext::create fails as if no backend worked;
//   shader-compile  every compute shader fails to compile (a real driver compile error);
//   dispatch        an invalid dispatch after the first projection pass trips the GL error check.
// Documented behaviour (README exit codes, --help): --device gpu and --compare demand the GPU and
// exit 5 on any GPU failure; --device auto uses the GPU if an OpenGL 4.3 context exists, else the
// CPU with one notice line. Every failure is one stderr line and leaves no output behind.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "cli_runner.h"
#include "errors.h"
#include "test_support.h"

using namespace bake;
using namespace bake::test;
namespace fs = std::filesystem;

namespace {



std::size_t entries(const std::string& dir) {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

std::string fault(const char* what) { return std::string("BAKE_TEST_FAULT=") + what; }

// Whether the GPU path works here at all (a context and compute shaders); without it only the
// context fault can be tested.
bool gpu_works() {
    static const int works = [] {
        const std::string dir = scratch("gpu_faults_probe");
        const CliResult r = run_cli(kSample + " -o " + dir + "/p.json --device gpu --size 2");
        if (r.exit_code != 0) WARN("no working GPU path here (" << r.err << "): shader/dispatch faults not run");
        return r.exit_code == 0 ? 1 : 0;
    }();
    return works == 1;
}

void check_gpu_failure(const CliResult& r, const std::string& mention, const std::string& out_dir) {
    INFO("stderr: " << r.err);
    CHECK(r.exit_code == kExitGpuUnavailable);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.rfind("bake-irradiance: GPU path failed: ", 0) == 0);
    CHECK(r.err.find(mention) != std::string::npos);
    CHECK(entries(out_dir) == 0);
}

}  // namespace

TEST_CASE("gpu faults: no context: --device gpu and --compare exit 5 / auto falls back with one notice",
          "[gpu][fault][cli]") {
    const std::string dir = scratch("gpu_faults_context");
    const std::string out = dir + "/out";
    fs::create_directories(out);
    const std::string outputs = " -o " + out + "/irr.json -o " + out + "/irr.exr --size 4";

    check_gpu_failure(run_cli(kSample + outputs + " --device gpu", fault("context")),
                      "no OpenGL 4.3 context: forced by BAKE_TEST_FAULT=context", out);
    check_gpu_failure(run_cli(kSample + outputs + " --compare", fault("context")), "BAKE_TEST_FAULT=context", out);
    check_gpu_failure(run_cli(kSample + outputs + " --device cpu --compare", fault("context")),
                      "BAKE_TEST_FAULT=context", out);

    // auto: one notice line, exit 0, and exactly what --device cpu writes.
    CliResult r = run_cli(kSample + outputs + " --device auto", fault("context"));
    INFO("stderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find("notice: no usable OpenGL 4.3 context") != std::string::npos);
    CHECK(r.err.find("using the CPU path") != std::string::npos);
    CHECK(read_json(out + "/irr.json").at("computed_by").at("path") == "cpu");
    const std::string ref = dir + "/ref";
    fs::create_directories(ref);
    REQUIRE(run_cli(kSample + " -o " + ref + "/irr.json -o " + ref + "/irr.exr --size 4 --device cpu").exit_code == 0);
    CHECK(slurp(out + "/irr.json") == slurp(ref + "/irr.json"));
    CHECK(slurp(out + "/irr.exr") == slurp(ref + "/irr.exr"));
    CHECK(entries(out) == 2);

    // --quiet silences the notice; --device cpu never asks for a context.
    r = run_cli(kSample + outputs + " --device auto --quiet", fault("context"));
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    r = run_cli(kSample + outputs + " --device cpu", fault("context"));
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
}

TEST_CASE("gpu faults: shader compile failure exits 5 with the driver's log in one line", "[gpu][fault][cli]") {
    if (!gpu_works()) return;
    const std::string out = scratch("gpu_faults_compile");
    const std::string outputs = " -o " + out + "/irr.json -o " + out + "/irr.exr --size 4";
    for (const char* device : {" --device gpu", " --compare", " --device auto"}) {
        INFO(device);
        // auto: a context exists, so the GPU path is taken and its failure is an error (exit 5),
        // not a silent fallback (README: auto falls back only when no context can be created).
        const CliResult r = run_cli(kSample + outputs + device, fault("shader-compile"));
        check_gpu_failure(r, "failed to compile", out);
        CHECK(r.err.find("BAKE_TEST_FAULT=shader-compile") != std::string::npos);  // the log quotes #error
    }
}

TEST_CASE("gpu faults: a GL error after a dispatch exits 5 / nothing written", "[gpu][fault][cli]") {
    if (!gpu_works()) return;
    const std::string out = scratch("gpu_faults_dispatch");
    const std::string outputs = " -o " + out + "/irr.json -o " + out + "/irr.exr --size 4";
    for (const char* device : {" --device gpu", " --compare", " --device auto"}) {
        INFO(device);
        check_gpu_failure(run_cli(kSample + outputs + device, fault("dispatch")),
                          "OpenGL error after the projection pass", out);
    }
    // The hook is exact: an unknown value changes nothing.
    const CliResult r = run_cli(kSample + outputs + " --device gpu", fault("nonsense"));
    CHECK(r.exit_code == 0);
    CHECK(entries(out) == 2);
}
