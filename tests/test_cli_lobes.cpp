// --rotate, --sheen, --sheen-lut and the chain's length through the binary (issue 36).
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <string>

#include "cli_runner.h"
#include "errors.h"
#include "image_io.h"
#include "sheen_lut.h"
#include "test_support.h"

using namespace bake;
using namespace bake::test;

// A turn about +Y acts on SH band 1 as on a vector: (L11, L1-1, L10) is proportional to the
// integral of L(d) (x, y, z), so turning the map by R turns it by R. R(90°) takes +X to -Z:
// x' = z... as the coordinates of the turned integral: (x', y', z') = R (x, y, z) = (z, y, -x).
TEST_CASE("lobes: --rotate turns the coefficients as the rotation turns band 1", "[cli][rotate]") {
    const std::string dir = scratch("cli_rotate");
    REQUIRE(run_cli(kSample + " -o " + dir + "/a.json --device cpu").exit_code == 0);
    const CliResult r = run_cli(kSample + " -o " + dir + "/b.json --rotate 90 --device cpu");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const nlohmann::json a = read_json(dir + "/a.json"), b = read_json(dir + "/b.json");
    CHECK(b["input"]["rotation"]["method"] == "shift");  // 90 degrees of a 512-wide map: whole columns
    for (int c = 0; c < 3; ++c) {
        const double x = a["radiance"][3][c], y = a["radiance"][1][c], z = a["radiance"][2][c];  // k = l l + l + m
        const double norm = std::sqrt(x * x + y * y + z * z);
        CHECK(std::fabs(b["radiance"][3][c].get<double>() - z) <= 1e-9 * norm);   // x' = z
        CHECK(std::fabs(b["radiance"][1][c].get<double>() - y) <= 1e-9 * norm);   // y' = y
        CHECK(std::fabs(b["radiance"][2][c].get<double>() + x) <= 1e-9 * norm);   // z' = -x
        CHECK(b["radiance"][0][c].get<double>() == Approx(a["radiance"][0][c].get<double>()).epsilon(1e-12));
    }
    // A fraction of a column: the exact area average, the integral kept.
    REQUIRE(run_cli(kSample + " -o " + dir + "/c.json --rotate 0.3 --device cpu").exit_code == 0);
    const nlohmann::json c = read_json(dir + "/c.json");
    CHECK(c["input"]["rotation"]["method"] == "area average");
    CHECK(c["radiance"][0][0].get<double>() == Approx(a["radiance"][0][0].get<double>()).epsilon(1e-6));
}

TEST_CASE("lobes: --sheen writes the Charlie chain, --specular-levels its length, --sheen-lut the LUT", "[cli][sheen]") {
    const std::string dir = scratch("cli_sheen");
    const CliResult r = run_cli(kSample + " --sheen " + dir + "/sheen.ktx2 --specular " + dir + "/spec.exr --specular-size 16 " +
                                "--specular-levels 3 --report " + dir + "/r.json --device cpu");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const nlohmann::json file = read_json(dir + "/r.json")["files"][0];
    CHECK(file["sheen"]["levels"] == 3);
    CHECK(file["specular"]["levels"] == 3);
    CHECK(file["sheen"]["roughness"] == nlohmann::json::array({0.0, 0.5, 1.0}));
    const std::string ktx = slurp(dir + "/sheen.ktx2");
    CHECK(ktx.find("Charlie") != std::string::npos);  // bakeContent names the lobe
    // The LUT alone, read back: the library's table, value for value.
    REQUIRE(run_cli("--sheen-lut " + dir + "/lut.exr --dfg-size 16").exit_code == 0);
    const LoadedImage lut = load_image(dir + "/lut.exr");
    const Image want = compute_sheen_lut(16);
    REQUIRE(lut.image.width == 16);
    REQUIRE(lut.image.rgb.size() == want.rgb.size());
    for (std::size_t i = 0; i < want.rgb.size(); ++i) CHECK(lut.image.rgb[i] == want.rgb[i]);
}

TEST_CASE("lobes: the options' rules", "[cli][sheen][rotate]") {
    const std::string dir = scratch("cli_lobes_rules");
    const std::string in = kSample + " --device cpu ";
    for (const std::string& bad : {in + "--specular " + dir + "/s.exr --specular-levels 3 --specular-min-size 4",
                                   in + "--specular " + dir + "/s.exr --specular-size 16 --specular-levels 9",
                                   in + "--specular " + dir + "/s.exr --specular-size 16 --specular-min-size 32",
                                   in + "-o " + dir + "/a.json --specular-levels 3", in + "--sheen " + dir + "/s.png",
                                   in + "--sheen '" + dir + "/s_{level}.ktx2'", in + "-o " + dir + "/a.json --rotate nan",
                                   "--sheen-lut " + dir + "/l.exr --rotate 10", "--sheen-lut " + dir + "/l.dds"}) {
        INFO(bad);
        CHECK(run_cli(bad).exit_code == kExitUsage);
    }
    CHECK(std::filesystem::is_empty(dir));
}
