// Issue 11 through the real binary: --specular (one mip-mapped EXR or a file a level), --compare
// and --report on it, and --dfg with or without an input.
#include <catch2/catch.hpp>

#include "cli_runner.h"
#include "dfg.h"
#include "environment_loader.h"
#include "ggx.h"
#include "image_io.h"
#include "specular_io.h"
#include "specular_prefilter.h"
#include "test_support.h"

using namespace bake;
using namespace bake::test;

namespace {

// The chain the CPU path computes, restated from the core: source cube at the default size, its
// mips and the bright split over the input, the estimator.
std::vector<CubeMap> cpu_chain(const std::string& input, int base, int samples) {
    const Environment env = load_environment(input);
    SpecularSettings s;
    s.base_size = base;
    s.samples = samples;
    return prefilter_specular_sampled(prepare_specular_input(env, default_specular_source_size(env, base)), s);
}

double max_diff(const CubeMap& a, const CubeMap& b) {
    double m = 0;
    for (int f = 0; f < 6; ++f)
        for (std::size_t i = 0; i < a.faces[f].rgb.size(); ++i)
            m = std::max(m, std::fabs(static_cast<double>(a.faces[f].rgb[i]) - b.faces[f].rgb[i]));
    return m;
}

// A big-endian 32-bit field of a PNG file (IHDR: width at 16, height at 20).
std::uint32_t png_dimension(const std::string& png, std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = v << 8 | static_cast<unsigned char>(png[at + i]);
    return v;
}

double max_abs(const CubeMap& a) {
    double m = 0;
    for (const Image& f : a.faces)
        for (float v : f.rgb) m = std::max(m, std::fabs(static_cast<double>(v)));
    return m;
}

}  // namespace

TEST_CASE("specular: the CPU path writes the estimator's chain, bit for bit, with the report stating it",
          "[cli][specular]") {
    const std::string dir = scratch("specular_cpu");
    const CliResult r = run_cli(kWarehouse + " --device cpu --specular " + dir + "/spec.exr --specular-size 16 " +
                                "--specular-samples 64 --report " + dir + "/report.json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    SpecularChainInfo info;
    const std::vector<CubeMap> chain = read_specular_exr(dir + "/spec.exr", &info);
    const std::vector<CubeMap> expected = cpu_chain(kWarehouse, 16, 64);
    REQUIRE(chain.size() == 5);
    REQUIRE(info.roughness.size() == 5);
    for (std::size_t i = 0; i < chain.size(); ++i) {
        CHECK(chain[i].size == (16 >> i));
        CHECK(max_diff(chain[i], expected[i]) == 0);
        CHECK(info.roughness[i] == Approx(i / 4.0));
    }
    const nlohmann::json file = read_json(dir + "/report.json")["files"][0];
    CHECK(file["timings_ms"]["specular"].get<double>() > 0);
    const nlohmann::json sp = file["specular"];
    CHECK(sp["computed_by"] == "cpu");
    CHECK(sp["levels"] == 5);
    CHECK(sp["source_size"] == 32);  // a 512-wide lat-long: 128 a face, at most twice the base
    CHECK(sp["files"][0] == dir + "/spec.exr");
    CHECK(sp["compare"].is_null());
}

TEST_CASE("specular: the GPU path agrees with the CPU estimator, and {level} writes a file a level",
          "[cli][specular][gpu]") {
    const std::string dir = scratch("specular_gpu");
    const CliResult r = run_cli(kSample + " --device gpu --specular " + dir + "/spec_{level}.exr --specular-size 16 " +
                                "--specular-samples 64 -o " + dir + "/irr.json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const std::vector<CubeMap> expected = cpu_chain(kSample, 16, 64);
    for (int level = 0; level < 5; ++level) {
        // Each level file is a vertical strip, faces +X -X +Y -Y +Z -Z top to bottom.
        const Image strip = load_image(dir + "/spec_" + std::to_string(level) + ".exr").image;
        const int n = 16 >> level;
        REQUIRE(strip.width == n);
        REQUIRE(strip.height == 6 * n);
        CubeMap got(n);
        for (int f = 0; f < 6; ++f)
            for (int row = 0; row < n; ++row) std::copy_n(strip.at(f * n + row, 0), 3 * n, got.faces[f].at(row, 0));
        // Float sums (1e-6 on llvmpipe) and, on NVIDIA, filter weights of 8-bit fractions: next to
        // a sun a weight's rounding moves a read by up to ~1/512 of the sun (measured 1.1e-3 of
        // the level's max on an 8k sun sky, bench/NOTES.md).
        INFO("level " << level);
        CHECK(max_diff(got, expected[level]) <= 3e-3 * max_abs(expected[level]));
    }
}

// --gltf's chain beside --specular's is made from the source the first chain left on the GPU (its
// status already read, so its level 0 is read the plain way: GpuSpecularSource::take_queued_level's
// fallback): the same file as --gltf alone, whose own source is made, checked and read anew.
TEST_CASE("specular: --gltf beside --specular on the GPU writes what --gltf alone does", "[cli][specular][gpu]") {
    const std::string both = scratch("specular_gltf_both"), alone = scratch("specular_gltf_alone");
    const CliResult r = run_cli(kSample + " --device gpu --specular " + both + "/spec.exr --gltf " + both +
                                "/ibl.gltf --specular-size 32 --report " + both + "/report.json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(read_json(both + "/report.json")["files"][0]["specular"]["computed_by"] == "gpu");
    REQUIRE(run_cli(kSample + " --device gpu --gltf " + alone + "/ibl.gltf --specular-size 32").exit_code == 0);
    const std::string gltf = slurp(alone + "/ibl.gltf");
    CHECK(gltf.find("specularImages") != std::string::npos);
    CHECK(slurp(both + "/ibl.gltf") == gltf);
}

TEST_CASE("specular: --compare reports the chain against the brute force and the estimator", "[cli][specular][gpu]") {
    const std::string dir = scratch("specular_compare");
    const CliResult r = run_cli(kWarehouse + " --compare --specular " + dir + "/spec.exr --specular-size 8 " +
                                "-o " + dir + "/irr.json --report " + dir + "/report.json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("specular level 3 (roughness 1.000): against the brute force") != std::string::npos);
    const nlohmann::json cmp = read_json(dir + "/report.json")["files"][0]["specular"]["compare"];
    REQUIRE(cmp["reference"].size() == 4);
    REQUIRE(cmp["estimator"].size() == 4);
    CHECK(cmp["reference"][0]["max_rel_to_max"] == 0.0);  // level 0 is the source's own average
    for (const auto& d : cmp["reference"]) CHECK(d["max_rel_to_max"].get<double>() <= 6e-2);
    for (const auto& d : cmp["estimator"]) CHECK(d["max_rel_to_max"].get<double>() <= 3e-3);
}

TEST_CASE("dfg: written alone or beside a bake, as EXR and 16-bit PNG", "[cli][dfg]") {
    const std::string dir = scratch("dfg_cli");
    const CliResult alone = run_cli("--dfg " + dir + "/dfg.exr --dfg-size 16");
    INFO(alone.err);
    REQUIRE(alone.exit_code == 0);
    const Image got = load_image(dir + "/dfg.exr").image;
    const Image expected = compute_dfg_table(16);
    REQUIRE(got.width == 16);
    REQUIRE(got.height == 16);
    for (std::size_t i = 0; i < got.rgb.size(); ++i) CHECK(got.rgb[i] == expected.rgb[i]);
    const CliResult beside = run_cli(kSample + " -o " + dir + "/irr.json --dfg " + dir + "/dfg.png --dfg-size 8");
    INFO(beside.err);
    REQUIRE(beside.exit_code == 0);
    CHECK(file_exists(dir + "/dfg.png"));
    CHECK(file_exists(dir + "/irr.json"));
}

TEST_CASE("specular and dfg: bad options are usage errors naming the option", "[cli][specular]") {
    const std::string dir = scratch("specular_usage");
    for (const std::string& args : {kSample + " --specular " + dir + "/spec.png", kSample + " --specular " + dir +
                                    "/s.exr --specular-size 100", "--dfg " + dir + "/dfg.tga",
                                    kSample + " --specular " + dir + "/s.exr --specular-samples 0"}) {
        const CliResult r = run_cli(args);
        INFO(args << "\n" << r.err);
        CHECK(r.exit_code == 2);
        CHECK(line_count(r.err) == 1);
    }
    CHECK_FALSE(file_exists(dir + "/s.exr"));
    CHECK_FALSE(file_exists(dir + "/spec.png"));
}

TEST_CASE("specular: batches name a chain an input, and --preview adds the row of rough spheres", "[cli][specular]") {
    const std::string dir = scratch("specular_batch");
    const CliResult r = run_cli(kSample + " " + kWarehouse + " --device cpu --out-dir " + dir + " --name '{stem}.json' " +
                                "--specular " + dir + "/{stem}_spec.exr --specular-size 8 --specular-samples 16 " +
                                "--preview " + dir + "/{stem}.png --preview-width 64 -q");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    for (const std::string stem : {"sample_sky", "pmndrs_warehouse"}) {
        CHECK(read_specular_exr(dir + "/" + stem + "_spec.exr").size() == 4);
        // The preview is 2P wide, and 3P/2 high with the specular row (P/2 without it).
        const std::string png = slurp(dir + "/" + stem + ".png");
        REQUIRE(png.size() > 24);
        CHECK(png_dimension(png, 16) == 128);  // IHDR width
        CHECK(png_dimension(png, 20) == 96);   // IHDR height
    }
    // One pattern for several inputs must name a file an input.
    const CliResult same = run_cli(kSample + " " + kWarehouse + " --out-dir " + dir + " --specular " + dir + "/spec.exr");
    CHECK(same.exit_code == 2);
    CHECK(same.err.find("--specular") != std::string::npos);
}
