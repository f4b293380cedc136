// --extract-sun through the binary (issue 36): everything is baked from the map without its sun, and
// the sun is stated as a light; the map's light is all accounted for: the residual's integral plus
// the light taken out is the input's, checked here on the L00 coefficient of a bake without the option.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <string>

#include "cli_runner.h"
#include "errors.h"
#include "test_support.h"

using namespace bake;
using namespace bake::test;
namespace fs = std::filesystem;

TEST_CASE("sun: taken out of the sample sky, stated everywhere, and the light all accounted for", "[cli][sun]") {
    const std::string dir = scratch("cli_sun");
    const CliResult whole = run_cli(kSample + " -o " + dir + "/whole.json --device cpu");
    REQUIRE(whole.exit_code == 0);
    const CliResult r = run_cli(kSample + " --extract-sun -o " + dir + "/res.json --gltf " + dir + "/s.glb --specular-size 32 " +
                                "--sun-format threejs " + dir + "/three.json --sun-format bevy " + dir + "/bevy.json " +
                                "--report " + dir + "/r.json --device cpu");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const nlohmann::json res = read_json(dir + "/res.json"), all = read_json(dir + "/whole.json");
    const nlohmann::json& sun = res["sun"];
    REQUIRE(sun.is_object());
    // L00 = Y00 x the integral of L: the residual's plus Y00 x the light taken out is the whole map's.
    const double y00 = 0.5 / std::sqrt(3.14159265358979323846);
    for (int c = 0; c < 3; ++c) {
        const double whole_l00 = all["radiance"][0][c].get<double>();
        const double rebuilt = res["radiance"][0][c].get<double>() + y00 * sun["removed_light"][c].get<double>();
        CHECK(std::fabs(rebuilt - whole_l00) <= 1e-6 * whole_l00);
        CHECK(res["radiance"][0][c].get<double>() < 0.9 * whole_l00);  // and the sun was a good part of it
    }
    // make-sample-sky's sun: elevation 35 degrees, above the horizon, 1.5 degrees of radius.
    const double y = sun["direction"][1].get<double>();
    CHECK(std::fabs(std::asin(y) * 180 / 3.14159265358979323846 - 35.0) < 0.1);
    CHECK(sun["angular_radius_deg"].get<double>() == Approx(1.5).epsilon(0.1));
    // The same sun in the report, the glTF's light, and each engine's file.
    CHECK(read_json(dir + "/r.json")["files"][0]["sun"] == sun);
    const std::string glb = slurp(dir + "/s.glb");
    CHECK(glb.find("KHR_lights_punctual") != std::string::npos);
    CHECK(read_json(dir + "/three.json")["object"]["type"] == "DirectionalLight");
    CHECK(read_json(dir + "/bevy.json").is_object());
}

TEST_CASE("sun: a map without a dominant sun says so and states none", "[cli][sun]") {
    const std::string dir = scratch("cli_no_sun");
    const CliResult r = run_cli(kWarehouse + " --extract-sun -o " + dir + "/w.json --sun-format threejs " + dir +
                                "/three.json --device cpu");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.find("notice: " + kWarehouse + ": no sun taken out") != std::string::npos);
    CHECK(read_json(dir + "/w.json")["sun"].is_null());
    CHECK(read_json(dir + "/three.json").is_null());
    // Without --extract-sun the JSON has no "sun", and --sun-format does nothing: refused.
    CHECK(run_cli(kWarehouse + " -o " + dir + "/plain.json --device cpu").exit_code == 0);
    CHECK_FALSE(read_json(dir + "/plain.json").contains("sun"));
    CHECK(run_cli(kWarehouse + " -o " + dir + "/x.json --sun-format bevy " + dir + "/b.json --device cpu").exit_code ==
          kExitUsage);
}
