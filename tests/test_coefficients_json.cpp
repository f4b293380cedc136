// The coefficients JSON: written, read back exactly, and malformed files rejected in one line.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "coefficients_json.h"
#include "errors.h"
#include "test_support.h"

using namespace bake;

namespace {

BakeRecord sample_record(int order) {
    BakeRecord r;
    r.inputs = {"in.exr"};
    r.layout = Layout::HCross;
    r.source_width = 7;
    r.source_height = 7;
    r.radiance = ShCoefficients(order);
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(-10, 10);
    for (auto& c : r.radiance.rgb)
        for (double& v : c) v = u(rng) * std::pow(10.0, static_cast<int>(u(rng)));  // many magnitudes
    r.irradiance = irradiance_from_radiance(r.radiance);
    r.solid_angle_sum = 4 * bake::test::kPi + 3e-15;
    return r;
}


}  // namespace

TEST_CASE("coefficients JSON round-trips every double exactly", "[json]") {
    for (int order : {3, 5}) {
        const BakeRecord r = sample_record(order);
        write_coefficients_json("coeffs.json", r);
        const CoefficientsDocument doc = read_coefficients_json("coeffs.json");
        CHECK(doc.radiance.order == order);
        CHECK(doc.radiance.rgb == r.radiance.rgb);
        CHECK(doc.irradiance.rgb == r.irradiance.rgb);
        CHECK(doc.json.at("solid_angle_sum").get<double>() == r.solid_angle_sum);
        CHECK(doc.json.at("input").at("layout") == "hcross");
        CHECK(doc.json.at("count") == order * order);
        for (const char* key : {"basis", "ordering", "normalization", "axes", "equirect", "cube_faces", "irradiance"})
            CHECK(doc.json.at("convention").contains(key));
    }
}

TEST_CASE("coefficients JSON keys come out in a stable order", "[json]") {
    // Sorted keys keep diffs of committed golden files small; writing twice gives the same bytes.
    const BakeRecord r = sample_record(3);
    write_coefficients_json("a.json", r);
    write_coefficients_json("b.json", r);
    std::ifstream a("a.json"), b("b.json");
    const std::string ta((std::istreambuf_iterator<char>(a)), {}), tb((std::istreambuf_iterator<char>(b)), {});
    CHECK(ta == tb);
    CHECK(ta.find("\"computed_by\"") < ta.find("\"radiance\""));
}

TEST_CASE("malformed coefficient files give one-line InputErrors naming the file", "[json][errors]") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"empty.json", ""},
        {"syntax.json", "{\"radiance\": [[1, 2, 3],"},
        {"array.json", "[1, 2, 3]"},
        {"noradiance.json", "{\"order\": 3}"},
        {"count.json", "{\"radiance\": [[1,2,3],[1,2,3]]}"},
        {"notrgb.json", "{\"radiance\": [[1,2]]}"},
        {"string.json", "{\"radiance\": [[1,2,\"x\"]]}"},
        {"mixed.json", "{\"radiance\": [[1,2,3]], \"irradiance\": [[1,2,3],[1,2,3],[1,2,3],[1,2,3]]}"},
    };
    for (const auto& [name, text] : cases) {
        bake::test::write_text(name, text);
        INFO(name);
        try {
            read_coefficients_json(name);
            FAIL("accepted " << name);
        } catch (const InputError& e) {
            const std::string what = e.what();
            CHECK(what.rfind(name + ": ", 0) == 0);
            CHECK(what.find('\n') == std::string::npos);
        }
    }
    CHECK_THROWS_AS(read_coefficients_json("does_not_exist.json"), InputError);
}
