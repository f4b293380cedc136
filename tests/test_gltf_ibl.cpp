// EXT_lights_image_based glTF files (src/core/outputs/gltf_ibl.h) and their RGBD images (rgbd.h): the
// precision RGBD loses, measured against its stated bound; Babylon.js's RGBD formulas; the GLB
// container; refusals. tests/js/check_gltf.mjs runs the Khronos glTF validator on the files and
// decodes every PNG back to the float chain.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "engine_files.h"
#include "errors.h"
#include "gltf_ibl.h"
#include "rgbd.h"
#include "test_support.h"

using namespace bake;

TEST_CASE("rgbd: the precision lost is within rgbd_error_bound of the texel's brightest channel", "[gltf_ibl]") {
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> log_max(-8.0, std::log2(255.0)), frac(0.0, 1.0);
    double worst = 0;  // error over bound * brightest channel
    for (int i = 0; i < 100000; ++i) {
        const double m = std::exp2(log_max(rng));
        float rgb[3] = {static_cast<float>(m), static_cast<float>(m * frac(rng)), static_cast<float>(m * frac(rng) * frac(rng))};
        std::rotate(rgb, rgb + i % 3, rgb + 3);
        std::uint8_t packed[4];
        float back[3];
        encode_rgbd(rgb, packed);
        decode_rgbd(packed, back);
        const float mx = std::max({rgb[0], rgb[1], rgb[2]});
        for (int c = 0; c < 3; ++c)
            worst = std::max(worst, std::fabs(back[c] - rgb[c]) / (rgbd_error_bound(mx) * mx));
    }
    CHECK(worst <= 1.0);
    CHECK(worst > 0.8);  // the bound is tight: not a wild guess
    CHECK(rgbd_error_bound(1.0) == Approx(std::pow(std::pow(0.5, 1 / 2.2) + 0.5 / 255, 2.2) / 0.5 - 1).epsilon(0.01));
}

TEST_CASE("rgbd: Babylon's formulas: D = floor(255/max)/255, gamma 2.2, range up to 255", "[gltf_ibl]") {
    std::uint8_t p[4];
    const float one[3] = {1.0f, 0.5f, 0.0f};
    encode_rgbd(one, p);
    CHECK(p[3] == 255);  // D = floor(255 / 1) / 255 = 1
    CHECK(p[0] == 255);
    CHECK(p[1] == std::lround(255 * std::pow(0.5, 1 / 2.2)));
    CHECK(p[2] == 0);
    const float bright[3] = {100.0f, 0.0f, -3.0f};
    encode_rgbd(bright, p);
    CHECK(p[3] == 2);  // floor(2.55) = 2
    CHECK(p[2] == 0);  // negative: 0
    const float clipped[3] = {1000.0f, 1.0f, 1.0f};
    float back[3];
    encode_rgbd(clipped, p);
    decode_rgbd(p, back);
    CHECK(back[0] == Approx(255.0f));
}

TEST_CASE("gltf ibl: a .glb holds the JSON and every face's PNG, rows reversed", "[gltf_ibl]") {
    const EngineTestScene scene = make_engine_test_scene();
    const std::vector<CubeMap> chain(scene.specular_chain.begin(), scene.specular_chain.begin() + 3);
    const std::string dir = test::scratch("gltf_ibl");
    write_gltf_ibl(dir + "/ibl.glb", chain, scene.radiance);
    const std::vector<char> b = test::read_bytes(dir + "/ibl.glb");
    auto u32 = [&](std::size_t at) { std::uint32_t v; std::memcpy(&v, b.data() + at, 4); return v; };
    REQUIRE(b.size() > 28);
    CHECK(u32(0) == 0x46546C67);
    CHECK(u32(4) == 2);
    CHECK(u32(8) == b.size());
    const std::uint32_t json_length = u32(12);
    CHECK(u32(16) == 0x4E4F534A);
    const auto doc = nlohmann::json::parse(std::string(b.data() + 20, json_length));
    const auto& light = doc["extensions"]["EXT_lights_image_based"]["lights"][0];
    CHECK(light["specularImageSize"] == 16);
    CHECK(light["specularImages"].size() == 3);
    CHECK(light["extras"]["bakeSpecularRoughness"] == nlohmann::json({0.0, 0.5, 1.0}));
    CHECK(light["intensity"] == 1.0);
    CHECK(doc["scenes"][0]["extensions"]["EXT_lights_image_based"]["light"] == 0);
    CHECK(doc["images"].size() == 18);
    const std::size_t bin = 20 + json_length;
    CHECK(u32(bin + 4) == 0x004E4942);
    CHECK(u32(bin) + bin + 8 == b.size());
    CHECK(doc["buffers"][0]["byteLength"] == u32(bin));
}

TEST_CASE("gltf ibl: a chain that is not one is refused, and nothing is left behind", "[gltf_ibl]") {
    const EngineTestScene scene = make_engine_test_scene();
    std::vector<CubeMap> chain(scene.specular_chain.begin(), scene.specular_chain.begin() + 2);
    const std::string dir = test::scratch("gltf_ibl_refused");
    SECTION("no level") { chain.clear(); }
    SECTION("a level of the wrong size") { chain[1] = CubeMap(4); }
    SECTION("not a power of two") { chain = {CubeMap(12)}; }
    CHECK_THROWS_AS(write_gltf_ibl(dir + "/x.gltf", chain, scene.radiance), OutputError);
    CHECK(std::filesystem::is_empty(dir));
}
