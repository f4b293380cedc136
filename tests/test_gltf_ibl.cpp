// EXT_lights_image_based glTF files (src/core/outputs/gltf_ibl.h) and their RGBD images (rgbd.h): the
// precision RGBD loses, measured against its stated bound; Babylon.js's RGBD formulas; the GLB
// container; refusals. tests/js/check_gltf.mjs runs the Khronos glTF validator on the files and
// decodes every PNG back to the float chain.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "engine_files.h"
#include "engine_sh.h"
#include "errors.h"
#include "gltf_ibl.h"
#include "png_reader.h"
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

// What Babylon.js's PBR shader sums for a glTF light (EXT_lights_image_based.pure.js:99-102, then
// SphericalPolynomial.preScaledHarmonics and harmonicsFunctions.js): coefficient_k / pi times its basis
// constant (sphericalPolynomial.pure.js:45-57, Condon-Shortley signs) times the polynomial, at the normal
// with z negated (REFLECTIONMAP_OPPOSITEZ, its right-handed scenes). It must be E(n)/pi of our bake.
TEST_CASE("gltf ibl: irradianceCoefficients are E_lm in Babylon's basis, mirrored in z", "[gltf_ibl]") {
    const EngineTestScene scene = make_engine_test_scene();
    const Sh9 c = gltf_irradiance_coefficients(scene.radiance);
    const double pi = 3.14159265358979323846;
    const double k[9] = {std::sqrt(1 / (4 * pi)), -std::sqrt(3 / (4 * pi)), std::sqrt(3 / (4 * pi)), -std::sqrt(3 / (4 * pi)),
                         std::sqrt(15 / (4 * pi)), -std::sqrt(15 / (4 * pi)), std::sqrt(5 / (16 * pi)), -std::sqrt(15 / (4 * pi)),
                         std::sqrt(15 / (16 * pi))};
    double worst = 0, max_e = 0;
    for (const Vec3& n : test::fibonacci_sphere(200)) {
        const double x = n.x, y = n.y, z = -n.z;
        const double p[9] = {1, y, z, x, y * x, y * z, 3 * z * z - 1, z * x, x * x - y * y};
        const Rgb want = eval_sh(scene.irradiance, n);
        for (int ch = 0; ch < 3; ++ch) {
            double got = 0;
            for (int i = 0; i < 9; ++i) got += c[i][ch] / pi * k[i] * p[i];
            worst = std::max(worst, std::fabs(got - want[ch] / pi));
            max_e = std::max(max_e, std::fabs(want[ch] / pi));
        }
    }
    CHECK(worst <= 1e-12 * max_e);
}

// docs/CONVENTION.md, "glTF layout": against our GL-layout faces, each +-X and +-Z face reversed left to
// right, each +-Y face top to bottom, +Z and -Z swapped; and then every PNG's rows reversed.
TEST_CASE("gltf ibl: the faces hold the cube mirrored in z, each PNG's rows reversed", "[gltf_ibl]") {
    const EngineTestScene scene = make_engine_test_scene();
    const std::vector<CubeMap> chain(scene.specular_chain.begin(), scene.specular_chain.begin() + 2);
    const std::string dir = test::scratch("gltf_ibl_layout");
    write_gltf_ibl(dir + "/ibl.glb", chain, scene.radiance);
    const std::vector<char> b = test::read_bytes(dir + "/ibl.glb");
    std::uint32_t json_length;
    std::memcpy(&json_length, b.data() + 12, 4);
    const auto doc = nlohmann::json::parse(std::string(b.data() + 20, json_length));
    const std::size_t bin = 20 + json_length + 8;
    const auto& images = doc["extensions"]["EXT_lights_image_based"]["lights"][0]["specularImages"];
    const int ours_of[6] = {0, 1, 2, 3, 5, 4};  // the file's face f holds our face ours_of[f]
    for (std::size_t level = 0; level < chain.size(); ++level)
        for (int f = 0; f < 6; ++f) {
            const auto& view = doc["bufferViews"][doc["images"][images[level][f].get<int>()]["bufferView"].get<int>()];
            const auto png = test::read_png_memory(reinterpret_cast<const std::uint8_t*>(b.data()) + bin + view["byteOffset"].get<std::size_t>(),
                                                   view["byteLength"].get<std::size_t>());
            REQUIRE(png);
            const int n = png->width;
            const Image& ours = chain[level].faces[ours_of[f]];
            REQUIRE(ours.width == n);
            int bad = 0;
            for (int row = 0; row < n; ++row)
                for (int col = 0; col < n; ++col) {
                    const bool y_face = f == 2 || f == 3;
                    const float* want = ours.at(y_face ? n - 1 - row : row, y_face ? col : n - 1 - col);
                    std::uint8_t px[4];
                    for (int ch = 0; ch < 4; ++ch) px[ch] = static_cast<std::uint8_t>(png->at(n - 1 - row, col, ch));
                    float got[3];
                    decode_rgbd(px, got);
                    const double m = std::max({want[0], want[1], want[2]});
                    for (int ch = 0; ch < 3; ++ch)
                        if (m <= 255 && !(std::fabs(got[ch] - want[ch]) <= rgbd_error_bound(m) * m)) ++bad;
                }
            CHECK(bad == 0);
        }
}

TEST_CASE("gltf ibl: a .gltf writes its PNGs beside it, named from its stem, one set", "[gltf_ibl]") {
    const EngineTestScene scene = make_engine_test_scene();
    const std::vector<CubeMap> chain(scene.specular_chain.begin(), scene.specular_chain.begin() + 2);
    const std::string dir = test::scratch("gltf_ibl_beside");
    const std::string path = dir + "/sky ibl.gltf";
    const std::vector<std::string> files = gltf_output_files(path, 2);
    REQUIRE(files.size() == 13);
    CHECK(files[0] == path);
    CHECK(files[1] == dir + "/sky ibl_spec_0_px.png");
    CHECK(files[12] == dir + "/sky ibl_spec_1_nz.png");
    CHECK(gltf_output_files(dir + "/x.glb", 5) == std::vector<std::string>{dir + "/x.glb"});

    SECTION("every file written, each image a URI of its file") {
        write_gltf_ibl(path, chain, scene.radiance);
        const auto doc = nlohmann::json::parse(std::ifstream(path));
        REQUIRE(doc["images"].size() == 12);
        for (std::size_t i = 0; i < 12; ++i) {
            std::string uri = doc["images"][i]["uri"];
            CHECK(uri.find(' ') == std::string::npos);
            for (std::size_t at; (at = uri.find("%20")) != std::string::npos;) uri.replace(at, 3, " ");
            CHECK(dir + "/" + uri == files[i + 1]);
            const auto png = test::read_png(files[i + 1]);
            REQUIRE(png);
            CHECK(png->width == (i < 6 ? 16 : 8));
        }
        std::size_t count = 0;
        for (const auto& entry : std::filesystem::directory_iterator(dir)) count += entry.is_regular_file();
        CHECK(count == 13);
    }
    SECTION("one file that cannot be written: none is") {
        std::filesystem::create_directory(files[12]);  // a folder where the last PNG goes
        CHECK_THROWS_AS(write_gltf_ibl(path, chain, scene.radiance), OutputError);
        std::size_t count = 0;
        for (const auto& entry : std::filesystem::directory_iterator(dir)) count += !entry.is_directory();
        CHECK(count == 0);
    }
}

// The loss measured independently: a level of ones with one texel at 1255 in red (1000 above RGBD's
// range) loses 1000 x its solid angle of 3 x 4 pi + 1254 x that solid angle.
TEST_CASE("gltf ibl: rgbd_clipping counts what RGBD cannot hold", "[gltf_ibl]") {
    std::vector<CubeMap> chain = {CubeMap(4), CubeMap(2)};
    for (CubeMap& level : chain)
        for (Image& face : level.faces) std::fill(face.rgb.begin(), face.rgb.end(), 1.0f);
    const RgbdClipping none = rgbd_clipping(chain);
    CHECK(none.texels == 0);
    CHECK(none.worst_level == -1);
    CHECK(none.energy_share == 0);
    chain[0].faces[3].at(1, 2)[0] = 1255.0f;
    chain[1].faces[0].at(0, 0)[2] = 300.0f;
    const RgbdClipping got = rgbd_clipping(chain);
    CHECK(got.texels == 2);
    CHECK(got.worst_level == 0);
    const double pi = 3.14159265358979323846, omega = cube_texel_solid_angle(1, 2, 4);
    CHECK(got.energy_share == Approx(1000 * omega / (3 * 4 * pi + 1254 * omega)).epsilon(1e-9));
}
