// --golden through the real binary: a golden that matches passes, a perturbed one fails with
// exit 7 naming exactly the perturbed coefficient, other orders compare the common coefficients,
// differences of convention and input are stated, and malformed goldens are exit 3, one line.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>

#include "cli_runner.h"
#include "coefficients_json.h"
#include "errors.h"
#include "test_support.h"

using namespace bake;
using namespace bake::test;
namespace fs = std::filesystem;

namespace {



void write_json(const std::string& path, const nlohmann::json& j) { std::ofstream(path) << j.dump(1); }

// Lines of `text` that contain `needle`.
int lines_with(const std::string& text, const std::string& needle) {
    int n = 0;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) n += line.find(needle) != std::string::npos;
    return n;
}

}  // namespace

TEST_CASE("golden: a run against its own result passes, on the CPU and (within 1e-5) on the GPU", "[cli][golden]") {
    const std::string dir = scratch("golden_pass");
    REQUIRE(run_cli(kSample + " -o " + dir + "/g.json --device cpu --order 5").exit_code == 0);

    CliResult r = run_cli(kSample + " --golden " + dir + "/g.json --device cpu --order 5");
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(lines_with(r.out, dir + "/g.json: pass, 0 of 150 values beyond tolerance") == 1);  // 25 x 3 x 2 fields
    CHECK(r.out.find("differs") == std::string::npos);  // same order, convention, input

    // The GPU path (float) against the double-precision golden: within the default 1e-5.
    r = run_cli(kSample + " --golden " + dir + "/g.json --order 5");
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);

    // --quiet: nothing at all on a pass.
    r = run_cli(kSample + " --golden " + dir + "/g.json --device cpu --order 5 --quiet");
    CHECK(r.exit_code == 0);
    CHECK(r.out.empty());
    CHECK(r.err.empty());
}

TEST_CASE("golden: one perturbed coefficient fails with exit 7, named with expected, actual, difference",
          "[cli][golden]") {
    const std::string dir = scratch("golden_mismatch");
    REQUIRE(run_cli(kSample + " -o " + dir + "/run.json --device cpu").exit_code == 0);
    nlohmann::json golden = read_json(dir + "/run.json");
    const double actual = golden["radiance"][4][1].get<double>();  // l=2 m=-2, green
    double norm = 0;  // the golden's green radiance vector norm: the relative measure's denominator
    for (const auto& row : golden["radiance"]) norm += row[1].get<double>() * row[1].get<double>();
    norm = std::sqrt(norm);
    const double expected = actual + 3e-4 * norm;  // 3e-4 relative: beyond 1e-5, within 1e-3
    golden["radiance"][4][1] = expected;
    write_json(dir + "/golden.json", golden);

    CliResult r = run_cli(kSample + " --golden " + dir + "/golden.json -o " + dir + "/new.json --device cpu");
    INFO(r.out << r.err);
    CHECK(r.exit_code == kExitGoldenMismatch);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find(dir + "/golden.json") != std::string::npos);
    CHECK(r.err.find("1 of 54 coefficient values") != std::string::npos);
    // Exactly one failing value is listed: the perturbed one, irradiance untouched in the golden.
    CHECK(lines_with(r.out, "expected") == 1);
    std::smatch m;
    const std::string out = r.out;
    REQUIRE(std::regex_search(out, m, std::regex(R"(radiance l=2 m=-2 G: expected (\S+), actual (\S+), diff (\S+) \(rel (\S+)\))")));
    CHECK(std::stod(m[1]) == expected);
    CHECK(std::stod(m[2]) == actual);
    CHECK(std::stod(m[3]) == Approx(actual - expected).epsilon(1e-4));
    CHECK(std::stod(m[4]) == Approx(3e-4).epsilon(1e-3));
    CHECK(out.find("FAIL, 1 of 54") != std::string::npos);
    // Outputs are still written: the new result can be inspected or become the golden.
    CHECK(read_json(dir + "/new.json").at("radiance") == read_json(dir + "/run.json").at("radiance"));

    // Looser limits accept it: relative 1e-3, or an absolute limit alone (which replaces the
    // relative one), and an absolute limit below the difference fails again.
    CHECK(run_cli(kSample + " --golden " + dir + "/golden.json --device cpu --tolerance 1e-3").exit_code == 0);
    const double abs_diff = std::fabs(expected - actual);
    char abs_ok[32], abs_bad[32];
    std::snprintf(abs_ok, sizeof abs_ok, "%.6g", abs_diff * 1.5);
    std::snprintf(abs_bad, sizeof abs_bad, "%.6g", abs_diff * 0.5);
    CHECK(run_cli(kSample + " --golden " + dir + "/golden.json --device cpu --abs-tolerance " + abs_ok).exit_code == 0);
    CHECK(run_cli(kSample + " --golden " + dir + "/golden.json --device cpu --abs-tolerance " + abs_bad).exit_code ==
          kExitGoldenMismatch);
    // Both given: both apply.
    CHECK(run_cli(kSample + " --golden " + dir + "/golden.json --device cpu --tolerance 1e-3 --abs-tolerance " + abs_bad)
              .exit_code == kExitGoldenMismatch);
}

// Issue 18 #6: a golden of another order passed (exit 0, a note on stdout, nothing with -q). The
// common coefficients are still compared and shown, but the check fails with a line saying why.
TEST_CASE("golden: a golden of another order fails the check, its common coefficients still compared", "[cli][golden]") {
    const std::string dir = scratch("golden_order");
    REQUIRE(run_cli(kSample + " -o " + dir + "/o5.json --device cpu --order 5").exit_code == 0);
    REQUIRE(run_cli(kSample + " -o " + dir + "/o3.json --device cpu --order 3").exit_code == 0);
    CliResult r = run_cli(kSample + " --golden " + dir + "/o5.json --device cpu --order 3 -q");
    INFO(r.out << r.err);
    CHECK(r.exit_code == kExitGoldenMismatch);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find("golden of order 5, this run order 3") != std::string::npos);
    CHECK(r.out.find("order differs: golden order 5 (25 coefficients), this run order 3; compared the 9 common") !=
          std::string::npos);
    CHECK(r.out.find("0 of 54 values") != std::string::npos);  // the first 9 are the order-3 bake's
    r = run_cli(kSample + " --golden " + dir + "/o3.json --device cpu --order 5 --report " + dir + "/r.json");
    CHECK(r.exit_code == kExitGoldenMismatch);
    CHECK(r.out.find("golden order 3 (9 coefficients), this run order 5") != std::string::npos);
    const nlohmann::json g = read_json(dir + "/r.json")["files"][0]["golden"];
    CHECK(g["golden_order"] == 3);
    CHECK(g["run_order"] == 5);
    CHECK(g["compared_order"] == 3);
    CHECK(g["passed"] == false);
    CHECK(g["failures"].empty());

    // A wrong coefficient among the common ones still fails.
    nlohmann::json o5 = read_json(dir + "/o5.json");
    o5["irradiance"][8][2] = o5["irradiance"][8][2].get<double>() + 1.0;
    write_json(dir + "/o5_bad.json", o5);
    r = run_cli(kSample + " --golden " + dir + "/o5_bad.json --device cpu --order 3");
    CHECK(r.exit_code == kExitGoldenMismatch);
    CHECK(r.out.find("irradiance l=2 m=+2 B: expected") != std::string::npos);
}

TEST_CASE("golden: a golden of another convention fails, differences of input are stated", "[cli][golden]") {
    const std::string dir = scratch("golden_context");
    REQUIRE(run_cli(kWarehouse + " -o " + dir + "/keep.json --device cpu -q").exit_code == 0);

    // Same numbers, another convention (issue 18 #6: this passed): the numbers mean something else.
    for (const char* key : {"basis", "axes"}) {
        nlohmann::json g = read_json(dir + "/keep.json");
        g["convention"][key] = "another";
        write_json(dir + "/conv.json", g);
        CliResult r = run_cli(kWarehouse + " --golden " + dir + "/conv.json --device cpu -q");
        INFO(r.err);
        CHECK(r.exit_code == kExitGoldenMismatch);
        CHECK(line_count(r.err) == 1);
        CHECK(r.err.find(std::string("the golden's convention differs (") + key + ")") != std::string::npos);
        r = run_cli(kWarehouse + " --golden " + dir + "/conv.json --device cpu");
        CHECK(r.out.find(std::string("convention differs: ") + key) != std::string::npos);
    }
    nlohmann::json g = read_json(dir + "/keep.json");
    g.erase("convention");
    write_json(dir + "/noconv.json", g);
    CliResult r = run_cli(kWarehouse + " --golden " + dir + "/noconv.json --device cpu");
    CHECK(r.exit_code == kExitGoldenMismatch);
    CHECK(r.out.find("convention differs: the golden states no convention") != std::string::npos);

    // A golden baked with --clamp-negative: the numbers differ and the policy is named.
    r = run_cli(kWarehouse + " --golden " + dir + "/keep.json --device cpu --clamp-negative");
    INFO(r.out << r.err);
    CHECK(r.exit_code == kExitGoldenMismatch);
    CHECK(r.out.find("input differs: negative texel policy: golden keep, this run clamp") != std::string::npos);

    // A golden of another file: the names differ (and the numbers).
    r = run_cli(kSample + " --golden " + dir + "/keep.json --device cpu");
    CHECK(r.exit_code == kExitGoldenMismatch);
    CHECK(r.out.find("input differs: input file names: golden [\"pmndrs_warehouse.exr\"], this run [\"sample_sky.hdr\"]") !=
          std::string::npos);
    // Layout and size, stated even when the numbers agree.
    g = read_json(dir + "/keep.json");
    const int width = g["input"]["width"].get<int>();
    g["input"]["width"] = 7;
    g["input"]["layout"] = "hcross";
    write_json(dir + "/size.json", g);
    r = run_cli(kWarehouse + " --golden " + dir + "/size.json --device cpu");
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("input differs: layout: golden hcross, this run equirect") != std::string::npos);
    CHECK(r.out.find("input differs: width: golden 7, this run " + std::to_string(width)) != std::string::npos);
    CHECK(r.out.find("input differs: height") == std::string::npos);
    // Folders alone do not count: the same file through another path is the same input.
    fs::copy_file(kWarehouse, dir + "/pmndrs_warehouse.exr");
    r = run_cli(dir + "/pmndrs_warehouse.exr --golden " + dir + "/keep.json --device cpu");
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("input differs") == std::string::npos);
}

TEST_CASE("golden: malformed or missing goldens are exit 3, one line naming the file, nothing written",
          "[cli][golden][errors]") {
    const std::string dir = scratch("golden_bad");
    REQUIRE(run_cli(kSample + " -o " + dir + "/ok.json --device cpu").exit_code == 0);
    const std::string ok = slurp(dir + "/ok.json");
    nlohmann::json j = nlohmann::json::parse(ok);

    struct Case {
        const char* name;
        std::string text;
        const char* problem;  // part of the error line
    };
    nlohmann::json short_rows = j, bad_entry = j, text_entry = j, no_radiance = j, orders = j, no_irradiance = j,
                   order_field = j;
    no_irradiance.erase("irradiance");  // issue 18 #6: compared "0 of 54 values" derived from the radiance
    order_field["order"] = 4;           // issue 18 #6: ignored
    short_rows["radiance"].erase(8);
    bad_entry["radiance"][3] = {1, 2};
    text_entry["radiance"][0][0] = "1.0";
    no_radiance.erase("radiance");
    orders["irradiance"].push_back({0, 0, 0});
    for (int i = 0; i < 15; ++i) orders["irradiance"].push_back({0, 0, 0});  // 25 irradiance vs 9 radiance
    const Case cases[] = {
        {"truncated.json", ok.substr(0, ok.size() / 2), "malformed JSON"},
        {"empty.json", "", "malformed JSON"},
        {"garbage.json", "\x89PNG\r\n", "malformed JSON"},
        {"array.json", "[1, 2, 3]", "not a JSON object"},
        {"short.json", short_rows.dump(), "'radiance' has 8 entries"},
        {"entry.json", bad_entry.dump(), "entry 3 is not [r, g, b]"},
        {"text.json", text_entry.dump(), "entry 0 holds a non-number"},
        {"noradiance.json", no_radiance.dump(), "'radiance' is missing"},
        {"orders.json", orders.dump(), "different orders"},
        {"noirradiance.json", no_irradiance.dump(), "field 'irradiance' is missing"},
        {"order4.json", order_field.dump(), "field 'order' is 4 but 'radiance' has 9 entries (order 3)"},
        {"folder.json", "", "is a folder"},
    };
    for (const Case& c : cases) {
        const std::string path = dir + "/" + c.name;
        if (std::string(c.name) == "folder.json") fs::create_directories(path);  // issue 18 #15: "malformed JSON"
        else std::ofstream(path, std::ios::binary) << c.text;
        const CliResult r = run_cli(kSample + " --golden " + path + " -o " + dir + "/out.json --device cpu");
        INFO(c.name << ": " << r.err);
        CHECK(r.exit_code == kExitInput);
        CHECK(line_count(r.err) == 1);
        CHECK(r.err.find(path) != std::string::npos);
        CHECK(r.err.find(c.problem) != std::string::npos);
        CHECK_FALSE(file_exists(dir + "/out.json"));  // the golden is read before any work
    }
    const CliResult r = run_cli(kSample + " --golden " + dir + "/missing.json --device cpu");
    CHECK(r.exit_code == kExitInput);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find(dir + "/missing.json") != std::string::npos);
}
