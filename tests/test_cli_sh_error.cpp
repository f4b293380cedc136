// Issue 10 through the real binary: the SH error report in every JSON, its warning line,
// --irradiance exact, and the deringing windows (with --golden keeping windows apart).
#include <catch2/catch.hpp>

#include "cli_runner.h"
#include "environment_loader.h"
#include "exact_irradiance.h"
#include "image_io.h"
#include "projection.h"
#include "sh_error.h"
#include "sh_window.h"
#include "test_support.h"

using namespace bake;
using namespace bake::test;

namespace {

const std::string kEsplanade = std::string(BAKE_TEST_DATA_DIR) + "/pmndrs_esplanade.exr";

Rgb rgb_of(const nlohmann::json& a) { return {a[0].get<double>(), a[1].get<double>(), a[2].get<double>()}; }

// The cells the report's reference is summed over (the product's rule, restated: the exact
// map's cell side, 1 for these 512 x 256 maps, times whole factors up to at most 64 rows).
IrradianceCells report_cells(const Environment& env) {
    REQUIRE(irradiance_cell_block(env, kExactIrradianceCellRows) == 1);
    return build_irradiance_cells(env, irradiance_cell_block(env, kShErrorCellRows));
}

}  // namespace

TEST_CASE("sh_error: every JSON holds the SH error report, the same on both paths and as computed here",
          "[cli][sh-error]") {
    const std::string dir = scratch("sh_error_json");
    const Environment env = load_environment(kSky);
    const IrradianceCells cells = report_cells(env);
    const ShErrorReport expected = make_sh_error_report(irradiance_from_radiance(project_sh_cpu(env, 5).radiance), cells,
                                                        exact_irradiance_at(cells, cube_map_directions(kShErrorGridSize)));
    for (const char* device : {"cpu", "gpu"}) {
        INFO(device);
        const CliResult r = run_cli(kSky + " -o " + dir + "/" + device + ".json --device " + device);
        REQUIRE(r.exit_code == 0);
        const nlohmann::json j = read_json(dir + "/" + device + ".json");
        const nlohmann::json& e = j.at("sh_error");
        CHECK(e.at("directions") == "cube 6x16^2 texel centres");
        CHECK(e.at("reference") == cells.describe());
        CHECK(e.at("output").is_null());
        for (const auto& [key, stats] : {std::pair{"order3", expected.order3}, {"order5", expected.order5}})
            for (int c = 0; c < 3; ++c) {
                CHECK(e.at(key).at("mean_relative")[c].get<double>() == Approx(stats.mean_relative[c]).margin(1e-6));
                CHECK(e.at(key).at("max_relative")[c].get<double>() == Approx(stats.max_relative[c]).margin(1e-6));
                CHECK(e.at(key).at("negative_fraction")[c].get<double>() == stats.negative_fraction[c]);
            }
        // A sun map: order 3 far off, order 5 better (the reference's 64-normal figures: 14% and 7%).
        CHECK(expected.order3.worst_mean() > 0.1);
        CHECK(expected.order5.worst_mean() < expected.order3.worst_mean());
        CHECK(j.at("window").at("kind") == "none");
        CHECK(j.at("irradiance_map").at("method") == "sh");
    }
}

TEST_CASE("sh_error: one warning line when the error exceeds --warn-error, naming what would do", "[cli][sh-error]") {
    const std::string dir = scratch("sh_error_warn");
    // Esplanade: order 3 errs ~10%, order 5 ~4%.
    CliResult r = run_cli(kEsplanade + " -o " + dir + "/a.json --warn-error 0.05 --device cpu --clamp-negative");
    REQUIRE(r.exit_code == 0);
    INFO(r.err);
    CHECK(line_count(r.err) == 2);  // the negative texels' warning and this one
    CHECK(r.err.find("order-3 SH irradiance is off by") != std::string::npos);
    CHECK(r.err.find("--order 5 would do") != std::string::npos);
    // Order 5 asked for, a threshold below its error: the exact map is the advice.
    r = run_cli(kEsplanade + " -o " + dir + "/a.json --order 5 --warn-error 0.01 --device cpu --quiet");
    CHECK(r.err.empty());  // --quiet: errors only
    r = run_cli(kEsplanade + " -o " + dir + "/a.json --order 5 --warn-error 0.01 --device cpu --clamp-negative");
    CHECK(r.err.find("--irradiance exact gives the exact map") != std::string::npos);
    // Below the threshold: nothing.
    r = run_cli(kEsplanade + " -o " + dir + "/a.json --warn-error 0.5 --device cpu --clamp-negative");
    CHECK(line_count(r.err) == 1);
}

TEST_CASE("exact map: --irradiance exact writes the exact convolution, on the GPU within 1e-5 of the CPU's", "[cli][exact]") {
    const std::string dir = scratch("exact_map");
    const Environment env = load_environment(kSky);
    const IrradianceCells cells = build_irradiance_cells(env, 1);
    const CubeMap expected = render_exact_irradiance_cube(cells, 6);
    double max_e = 0;
    for (const Image& f : expected.faces)
        for (float v : f.rgb) max_e = std::max(max_e, static_cast<double>(std::fabs(v)));
    for (const auto& [device, tolerance] : {std::pair{"cpu", 0.0}, {"gpu", 1e-5}}) {
        INFO(device);
        const CliResult r = run_cli(kSky + " -o " + dir + "/" + device + ".exr -o " + dir + "/" + device +
                                    ".json --irradiance exact --size 6 --device " + device);
        REQUIRE(r.exit_code == 0);
        const Environment written = load_environment(dir + "/" + device + ".exr");
        REQUIRE(written.is_cube());
        REQUIRE(written.cube.size == 6);
        double worst = 0;
        for (int f = 0; f < 6; ++f)
            for (std::size_t i = 0; i < expected.faces[f].rgb.size(); ++i)
                worst = std::max(worst, static_cast<double>(std::fabs(written.cube.faces[f].rgb[i] - expected.faces[f].rgb[i])));
        CHECK(worst <= tolerance * max_e);
        const nlohmann::json j = read_json(dir + "/" + device + ".json");
        CHECK(j.at("irradiance_map").at("method") == "exact");
        CHECK(j.at("irradiance_map").at("cells") == "512x256 cells of 1x1 texels");
    }
    // --compare covers the exact map too.
    const CliResult c = run_cli(kSky + " -o " + dir + "/c.exr --irradiance exact --size 4 --compare");
    CHECK(c.exit_code == 0);
    CHECK(c.out.find("exact irradiance map (cube, size 4, 512x256 cells of 1x1 texels)") != std::string::npos);
    // Maps beyond 6 x 256^2 texels are refused before any work.
    const CliResult big = run_cli(kSky + " -o " + dir + "/big.exr --irradiance exact --size 257");
    CHECK(big.exit_code == 2);
    CHECK(big.err.find("--irradiance exact makes maps of at most") != std::string::npos);
}

TEST_CASE("windows: the written coefficients are the unwindowed ones times the stated band factors", "[cli][window]") {
    const std::string dir = scratch("window_cli");
    REQUIRE(run_cli(kSample + " -o " + dir + "/none.json --device cpu").exit_code == 0);
    const nlohmann::json none = read_json(dir + "/none.json");
    for (const char* window : {"hann", "lanczos", "gauss", "auto"}) {
        INFO(window);
        const std::string out = dir + "/" + window + ".json";
        REQUIRE(run_cli(kSample + " -o " + out + " --device cpu --window " + window).exit_code == 0);
        const nlohmann::json j = read_json(out);
        const nlohmann::json& w = j.at("window");
        const std::vector<double> factors = w.at("band_factors").get<std::vector<double>>();
        REQUIRE(factors.size() == 3);
        CHECK(factors[0] == 1.0);
        for (int k = 0; k < 9; ++k)
            for (int c = 0; c < 3; ++c)
                CHECK(j.at("irradiance")[k][c].get<double>() ==
                      Approx(none.at("irradiance")[k][c].get<double>() * factors[static_cast<std::size_t>(sh_band(k))]).epsilon(1e-14));
        if (std::string(window) == "auto") {
            // The sample sky's order-3 irradiance rings below 0 unwindowed; auto's choice does not.
            CHECK(none.at("window").at("nonnegative") == false);
            CHECK(w.at("kind") == "lanczos");
            ShCoefficients e(3);
            for (int k = 0; k < 9; ++k) e.rgb[static_cast<std::size_t>(k)] = rgb_of(j.at("irradiance")[k]);
            const Rgb min = min_sh_irradiance(e);
            for (int c = 0; c < 3; ++c) CHECK(min[c] >= -1e-9 * e.rgb[0][c]);
            CHECK(!j.at("sh_error").at("output").is_null());
        } else {
            CHECK(w.at("kind") == window);
        }
    }
    // A golden baked with another window fails, and says why.
    const CliResult g = run_cli(kSample + " --device cpu --window hann --golden " + dir + "/none.json");
    CHECK(g.exit_code == 7);
    CHECK(g.err.find("windowed") != std::string::npos);
    CHECK(run_cli(kSample + " --device cpu --window hann --golden " + dir + "/hann.json").exit_code == 0);
    // A fixed window too mild to stop the ringing says so, and points to auto.
    const CliResult mild = run_cli(kSample + " -o " + dir + "/mild.json --device cpu --window hann --window-cutoff 50");
    CHECK(mild.exit_code == 0);
    CHECK(mild.err.find("stays negative in some directions with the hann window") != std::string::npos);
    CHECK(read_json(dir + "/mild.json").at("window").at("nonnegative") == false);
    // A cutoff applies to fixed windows only.
    CHECK(run_cli(kSample + " -o " + dir + "/x.json --window auto --window-cutoff 3").exit_code == 2);
}
