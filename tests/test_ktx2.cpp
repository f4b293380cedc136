// KTX2 files (src/core/outputs/ktx2_writer.h, ibl_ktx2.h) read back by a reader written here from the
// KTX 2.0 specification: identifier, header, index, the Data Format Descriptor word by word against
// the Data Format Specification's tables, key/values, level order and alignment, Zstandard levels, and
// every texel against the format's rounding of what was written. tests/js/check_outputs.mjs reads the
// same kind of files with ktx-parse (npm), an independent reader.
#include <catch2/catch.hpp>

#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "bc6h.h"
#include "dfg.h"
#include "sheen_lut.h"
#include "sheen_lut_files.h"
#include "errors.h"
#include "image_io.h"
#include "gpu_formats.h"
#include "gltf_ibl.h"
#include "ibl_ktx2.h"
#include "ktx2_writer.h"
#include "cli_runner.h"
#include "test_support.h"

using namespace bake;

namespace {

std::uint32_t u32(const std::vector<std::uint8_t>& b, std::size_t at) {
    REQUIRE(at + 4 <= b.size());
    return b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (static_cast<std::uint32_t>(b[at + 3]) << 24);
}
std::uint64_t u64(const std::vector<std::uint8_t>& b, std::size_t at) {
    return u32(b, at) | (static_cast<std::uint64_t>(u32(b, at + 4)) << 32);
}

struct ParsedKtx2 {
    std::uint32_t header[9];
    std::vector<std::uint32_t> dfd;  // dfdTotalSize first
    std::vector<std::pair<std::string, std::string>> kv;
    std::vector<std::uint64_t> offset, length, uncompressed;
    std::vector<std::vector<std::uint8_t>> levels;  // inflated
};

ParsedKtx2 parse(const std::vector<std::uint8_t>& b) {
    const std::uint8_t id[12] = {0xAB, 'K', 'T', 'X', ' ', '2', '0', 0xBB, '\r', '\n', 0x1A, '\n'};
    REQUIRE(b.size() > 80);
    REQUIRE(std::memcmp(b.data(), id, 12) == 0);
    ParsedKtx2 p;
    for (int i = 0; i < 9; ++i) p.header[i] = u32(b, 12 + 4 * i);
    const std::uint32_t levels = std::max(1u, p.header[7]);
    const std::uint32_t dfd_offset = u32(b, 48), dfd_length = u32(b, 52), kvd_offset = u32(b, 56), kvd_length = u32(b, 60);
    CHECK(u64(b, 64) == 0);  // no supercompression global data
    CHECK(u64(b, 72) == 0);
    CHECK(dfd_offset == 80 + 24 * levels);
    for (std::uint32_t at = dfd_offset; at < dfd_offset + dfd_length; at += 4) p.dfd.push_back(u32(b, at));
    CHECK(p.dfd[0] == dfd_length);
    CHECK(kvd_offset == dfd_offset + dfd_length);
    for (std::size_t at = kvd_offset; at < kvd_offset + kvd_length;) {
        const std::uint32_t n = u32(b, at);
        const std::string entry(reinterpret_cast<const char*>(b.data() + at + 4), n);
        const auto nul = entry.find('\0');
        REQUIRE(nul != std::string::npos);
        REQUIRE(entry.back() == '\0');
        p.kv.emplace_back(entry.substr(0, nul), entry.substr(nul + 1, n - nul - 2));
        at += 4 + (n + 3) / 4 * 4;
    }
    for (std::uint32_t i = 0; i < levels; ++i) {
        p.offset.push_back(u64(b, 80 + 24 * i));
        p.length.push_back(u64(b, 88 + 24 * i));
        p.uncompressed.push_back(u64(b, 96 + 24 * i));
        REQUIRE(p.offset[i] + p.length[i] <= b.size());
        std::vector<std::uint8_t> data(b.begin() + static_cast<long>(p.offset[i]),
                                       b.begin() + static_cast<long>(p.offset[i] + p.length[i]));
        if (p.header[8] == 2) {
            std::vector<std::uint8_t> out(p.uncompressed[i]);
            const std::size_t n = ZSTD_decompress(out.data(), out.size(), data.data(), data.size());
            REQUIRE(!ZSTD_isError(n));
            REQUIRE(n == out.size());
            data = out;
        }
        p.levels.push_back(data);
    }
    return p;
}

// What the file must hold for one written value: the format's encoding, decoded by its definition.
void decode_texel(KtxFormat f, const std::uint8_t* p, float out[4]) {
    std::uint32_t w[4];
    std::memcpy(w, p, f == KtxFormat::Rgba32Float ? 16 : f == KtxFormat::Rgba16Float ? 8 : 4);
    switch (f) {
        case KtxFormat::Rgba16Float:
            for (int c = 0; c < 4; ++c) out[c] = half_to_float(static_cast<std::uint16_t>(c % 2 ? w[c / 2] >> 16 : w[c / 2]));
            break;
        case KtxFormat::Rgba32Float: std::memcpy(out, w, 16); break;
        case KtxFormat::B10G11R11UFloat: unpack_b10g11r11(w[0], out), out[3] = 1; break;
        case KtxFormat::E5B9G9R9UFloat: unpack_e5b9g9r9(w[0], out), out[3] = 1; break;
        case KtxFormat::Bc6hUFloat: FAIL("BC6H is checked by blocks");
    }
}
void expected_texel(KtxFormat f, const float* rgb, float out[3]) {
    switch (f) {
        case KtxFormat::Rgba16Float:
            for (int c = 0; c < 3; ++c) out[c] = half_to_float(float_to_half(rgb[c]));
            break;
        case KtxFormat::Rgba32Float: std::memcpy(out, rgb, 12); break;
        case KtxFormat::B10G11R11UFloat: unpack_b10g11r11(pack_b10g11r11(rgb[0], rgb[1], rgb[2]), out); break;
        case KtxFormat::E5B9G9R9UFloat: unpack_e5b9g9r9(pack_e5b9g9r9(rgb[0], rgb[1], rgb[2]), out); break;
        case KtxFormat::Bc6hUFloat: FAIL("BC6H is checked by blocks");
    }
}

// The Basic DFD block the Data Format Specification 1.4 gives for each format (its tables for the
// 16/32-bit float RGBA formats, the B10G11R11 packed floats, the E5B9G9R9 example and BC6H's
// model, as KTX-Software's vk2dfd makes them), as words.
std::vector<std::uint32_t> spec_dfd(KtxFormat f) {
    auto header = [](std::uint32_t samples, std::uint32_t bytes) {
        const std::uint32_t block = 24 + 16 * samples;
        return std::vector<std::uint32_t>{4 + block, 0, 2 | (block << 16), 0x00010101, 0, bytes, 0};
    };
    auto sample = [](std::vector<std::uint32_t>& v, std::uint32_t offset, std::uint32_t bits, std::uint32_t type,
                     std::uint32_t lower, std::uint32_t upper) {
        v.insert(v.end(), {offset | ((bits - 1) << 16) | (type << 24), 0, lower, upper});
    };
    std::vector<std::uint32_t> v;
    switch (f) {
        case KtxFormat::Rgba16Float:
        case KtxFormat::Rgba32Float: {
            const std::uint32_t bits = f == KtxFormat::Rgba16Float ? 16 : 32;
            v = header(4, bits / 2);
            for (std::uint32_t c : {0u, 1u, 2u, 15u}) sample(v, (c == 15 ? 3 : c) * bits, bits, 0xC0 | c, 0xBF800000u, 0x3F800000u);
            break;
        }
        case KtxFormat::B10G11R11UFloat:
            v = header(3, 4);
            sample(v, 0, 11, 0x80, 0, 0x3F800000u);
            sample(v, 11, 11, 0x81, 0, 0x3F800000u);
            sample(v, 22, 10, 0x82, 0, 0x3F800000u);
            break;
        case KtxFormat::E5B9G9R9UFloat:
            v = header(6, 4);
            for (std::uint32_t c = 0; c < 3; ++c) {
                sample(v, 9 * c, 9, c, 0, 8448);
                sample(v, 27, 5, 0x20 | c, 15, 31);
            }
            break;
        case KtxFormat::Bc6hUFloat:
            // KHR_DF_MODEL_BC6H (133), 4x4 blocks of 16 bytes, one 128-bit sample of BC6H_COLOR (0),
            // float, unsigned: sampleLower 0.0f, sampleUpper 1.0f.
            v = header(1, 16);
            v[3] = 133 | (1 << 8) | (1 << 16);
            v[4] = 3 | (3 << 8);
            sample(v, 0, 128, 0x80, 0, 0x3F800000u);
            break;
    }
    return v;
}

// A chain of cube levels whose texels all differ (and span the formats' range).
std::vector<CubeMap> test_chain(int n) {
    std::vector<CubeMap> chain;
    for (int size = n, level = 0; size >= 1; size /= 2, ++level) {
        CubeMap cube(size);
        for (int f = 0; f < 6; ++f)
            for (int r = 0; r < size; ++r)
                for (int c = 0; c < size; ++c)
                    for (int ch = 0; ch < 3; ++ch)
                        cube.faces[f].at(r, c)[ch] =
                            static_cast<float>(std::exp2(0.37 * f + 0.11 * r - 0.07 * c + 1.3 * ch - level) * 0.9);
        chain.push_back(cube);
    }
    return chain;
}

const KtxFormat kAllFormats[] = {KtxFormat::Rgba16Float, KtxFormat::Rgba32Float, KtxFormat::B10G11R11UFloat,
                                 KtxFormat::E5B9G9R9UFloat};

void check_texture(const std::vector<std::uint8_t>& bytes, const KtxImages& images, const KtxWriteOptions& o) {
    const ParsedKtx2 p = parse(bytes);
    const int levels = static_cast<int>(images.levels.size());
    CHECK(p.header[0] == ktx_vk_format(o.format));
    CHECK(p.header[1] == (o.format == KtxFormat::Rgba16Float ? 2u : 4u));
    CHECK(p.header[2] == static_cast<std::uint32_t>(images.width));
    CHECK(p.header[3] == static_cast<std::uint32_t>(images.height));
    CHECK(p.header[4] == 0);
    CHECK(p.header[5] == 0);
    CHECK(p.header[6] == static_cast<std::uint32_t>(images.faces));
    CHECK(p.header[7] == static_cast<std::uint32_t>(levels));
    CHECK(p.header[8] == (o.zstd_level > 0 ? 2u : 0u));
    CHECK(p.dfd == spec_dfd(o.format));
    // Key/values sorted by key; the writer's own present.
    std::map<std::string, std::string> kv(p.kv.begin(), p.kv.end());
    for (std::size_t i = 1; i < p.kv.size(); ++i) CHECK(p.kv[i - 1].first < p.kv[i].first);
    CHECK(kv["KTXorientation"] == "rd");
    CHECK(kv["KTXwriter"].rfind("bake-irradiance ", 0) == 0);
    CHECK(kv.count("KTXwriterScParams") == (o.zstd_level > 0 ? 1u : 0u));
    // Levels stored smallest first, each aligned without supercompression; every texel as rounded.
    const std::size_t texel = static_cast<std::size_t>(ktx_texel_bytes(o.format));
    for (int i = 0; i < levels; ++i) {
        INFO("level " << i);
        if (i + 1 < levels) CHECK(p.offset[i] > p.offset[i + 1]);
        if (o.zstd_level == 0) {
            CHECK(p.offset[i] % texel == 0);
            CHECK(p.length[i] == p.uncompressed[i]);
        }
        const std::size_t face_texels = images.levels[i][0]->pixel_count();
        REQUIRE(p.levels[i].size() == face_texels * texel * images.faces);
        for (int f = 0; f < images.faces; ++f) {
            const Image& im = *images.levels[i][f];
            for (std::size_t t = 0; t < face_texels; ++t) {
                float got[4], want[3];
                decode_texel(o.format, p.levels[i].data() + (f * face_texels + t) * texel, got);
                expected_texel(o.format, &im.rgb[3 * t], want);
                REQUIRE(got[0] == want[0]);
                REQUIRE(got[1] == want[1]);
                REQUIRE(got[2] == want[2]);
                REQUIRE(got[3] == 1.0f);
            }
        }
    }
}

}  // namespace

TEST_CASE("ktx2: a cube chain in every format, with and without zstd, reads back texel for texel", "[ktx2]") {
    const std::vector<CubeMap> chain = test_chain(16);
    const KtxImages images = cube_chain_images(chain);
    for (KtxFormat format : kAllFormats) {
        for (int zstd : {0, 3}) {
            INFO(ktx_format_name(format) << " zstd " << zstd);
            KtxWriteOptions o;
            o.format = format;
            o.zstd_level = zstd;
            o.key_values = {{"bakeTest", "value"}};
            const std::vector<std::uint8_t> bytes = encode_ktx2(images, o);
            check_texture(bytes, images, o);
            CHECK(parse(bytes).kv.size() == (zstd ? 4u : 3u));
        }
    }
}

TEST_CASE("ktx2: 2D textures (a lat-long map, a partial chain of a non-square image)", "[ktx2]") {
    Image equirect(32, 16);
    for (std::size_t i = 0; i < equirect.rgb.size(); ++i) equirect.rgb[i] = static_cast<float>(0.001 * i * i);
    KtxWriteOptions o;
    check_texture(encode_ktx2(image_2d_images(equirect), o), image_2d_images(equirect), o);
    // Levels 32x16, 16x8, 8x4: any prefix of the chain is a valid texture.
    Image l1(16, 8), l2(8, 4);
    l1.rgb.assign(l1.rgb.size(), 2.0f);
    l2.rgb.assign(l2.rgb.size(), 3.0f);
    KtxImages partial;
    partial.width = 32;
    partial.height = 16;
    partial.levels = {{&equirect}, {&l1}, {&l2}};
    o.format = KtxFormat::E5B9G9R9UFloat;
    check_texture(encode_ktx2(partial, o), partial, o);
}

TEST_CASE("ktx2: the outputs' key/values state the convention, content and roughness", "[ktx2]") {
    const std::vector<CubeMap> chain = test_chain(4);
    const std::string dir = test::scratch("ktx2_outputs");
    write_specular_ktx2(dir + "/spec.ktx2", chain, KtxWriteOptions{});
    const auto bytes = test::read_bytes(dir + "/spec.ktx2");
    const ParsedKtx2 p = parse(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
    std::map<std::string, std::string> kv(p.kv.begin(), p.kv.end());
    CHECK(kv["bakeSpecularRoughness"] == "0 0.5 1");
    CHECK(kv["bakeConvention"] == kKtxConvention);
    CHECK(kv["bakeContent"].find("GGX") != std::string::npos);
    CHECK(p.header[6] == 6);
    CHECK(p.header[7] == 3);
}

TEST_CASE("ktx2: a chain stopping above 1x1 and a sheen chain state their levels' roughness", "[ktx2]") {
    std::vector<CubeMap> chain = test_chain(16);
    chain.resize(3);  // 16, 8, 4
    const std::string dir = test::scratch("ktx2_short_chain");
    write_specular_ktx2(dir + "/short.ktx2", chain, KtxWriteOptions{}, KtxCubeConvention::Gl, {}, SpecularLobe::Charlie);
    const auto bytes = test::read_bytes(dir + "/short.ktx2");
    const ParsedKtx2 p = parse(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
    std::map<std::string, std::string> kv(p.kv.begin(), p.kv.end());
    CHECK(kv["bakeSpecularRoughness"] == "0 0.5 1");
    CHECK(kv["bakeContent"].find("Charlie") != std::string::npos);
    CHECK(kv["bakeContent"].find("GGX") == std::string::npos);
    CHECK(p.header[2] == 16);
    CHECK(p.header[7] == 3);  // levelCount
}

TEST_CASE("ktx2: the sheen LUT, texels as computed and its axes and channels stated", "[ktx2][sheen]") {
    const Image table = compute_sheen_lut(8, 0);
    const std::string dir = test::scratch("ktx2_sheen");
    KtxWriteOptions o;
    o.format = KtxFormat::Rgba32Float;
    write_sheen_lut_ktx2(dir + "/sheen.ktx2", table, o);
    const auto bytes = test::read_bytes(dir + "/sheen.ktx2");
    const ParsedKtx2 p = parse(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
    std::map<std::string, std::string> kv(p.kv.begin(), p.kv.end());
    CHECK(kv["bakeContent"].find(kSheenLutChannels) != std::string::npos);
    CHECK(kv["bakeConvention"] == kKtxConvention);
    REQUIRE((p.header[2] == 8 && p.header[3] == 8 && p.header[6] == 1 && p.levels.size() == 1));
    REQUIRE(p.levels[0].size() == 8u * 8 * 16);
    for (int i = 0; i < 64; ++i)
        for (int c = 0; c < 3; ++c) {
            float v;
            std::memcpy(&v, p.levels[0].data() + 16 * i + 4 * c, 4);
            CHECK(v == table.rgb[3 * static_cast<std::size_t>(i) + c]);
        }
}

namespace {

// The cube levels of a parsed rgba32f cube file.
std::vector<CubeMap> rgba32f_cubes(const ParsedKtx2& p) {
    REQUIRE(p.header[0] == ktx_vk_format(KtxFormat::Rgba32Float));
    REQUIRE(p.header[6] == 6);
    std::vector<CubeMap> cubes;
    for (std::size_t level = 0; level < p.levels.size(); ++level) {
        const int n = std::max(1, static_cast<int>(p.header[2]) >> level);
        CubeMap cube(n);
        REQUIRE(p.levels[level].size() == 6u * n * n * 16);
        for (int f = 0; f < 6; ++f)
            for (int r = 0; r < n; ++r)
                for (int c = 0; c < n; ++c)
                    std::memcpy(cube.faces[f].at(r, c), p.levels[level].data() + 16 * ((static_cast<std::size_t>(f) * n + r) * n + c), 12);
        cubes.push_back(cube);
    }
    return cubes;
}

// The Bevy layout, from the directions alone: the file's texel whose centre is d must hold our
// value at (d.x, d.y, -d.z), found by the cube's own direction functions (not the writer's table),
// divided by pi for the irradiance cube. Returns how many texels differ from `ours` unmirrored.
int check_bevy_layout(const std::vector<CubeMap>& ours, const ParsedKtx2& bevy, bool divided_by_pi) {
    auto texel_at = [](const CubeMap& cube, const Vec3& d) {
        int face = 0;
        double sc = 0, tc = 0;
        cube_face_coords(d, &face, &sc, &tc);
        const int n = cube.size;
        const int col = std::min(n - 1, static_cast<int>(std::floor((sc + 1) / 2 * n)));
        const int row = std::min(n - 1, static_cast<int>(std::floor((tc + 1) / 2 * n)));
        return cube.faces[face].at(row, col);
    };
    const std::vector<CubeMap> file = rgba32f_cubes(bevy);
    REQUIRE(file.size() == ours.size());
    int differ_from_gl = 0;
    for (std::size_t level = 0; level < ours.size(); ++level) {
        const int n = ours[level].size;
        REQUIRE(file[level].size == n);
        for (int f = 0; f < 6; ++f)
            for (int r = 0; r < n; ++r)
                for (int c = 0; c < n; ++c) {
                    INFO("level " << level << " face " << f << " row " << r << " col " << c);
                    const Vec3 d = cube_texel_direction(f, r, c, n);
                    const float* want = texel_at(ours[level], Vec3{d.x, d.y, -d.z});
                    const float* got = file[level].faces[f].at(r, c);
                    for (int ch = 0; ch < 3; ++ch)
                        REQUIRE(got[ch] == (divided_by_pi ? static_cast<float>(want[ch] / 3.14159265358979323846) : want[ch]));
                    if (got[0] != ours[level].faces[f].at(r, c)[0]) ++differ_from_gl;
                }
    }
    std::map<std::string, std::string> kv(bevy.kv.begin(), bevy.kv.end());
    CHECK(kv["bakeConvention"] == kKtxConventionBevy);
    if (divided_by_pi) CHECK(kv["bakeContent"].find("E(n)/pi") != std::string::npos);
    return differ_from_gl;
}

ParsedKtx2 parse_file(const std::string& path) {
    const auto bytes = test::read_bytes(path);
    return parse(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
}

}  // namespace

TEST_CASE("ktx2: the Bevy layout holds, at each texel's direction d, our value at d mirrored in z", "[ktx2][bevy]") {
    const std::vector<CubeMap> chain = test_chain(8);
    const std::string dir = test::scratch("ktx2_bevy");
    KtxWriteOptions o;
    o.format = KtxFormat::Rgba32Float;
    write_specular_ktx2(dir + "/spec.ktx2", chain, o, KtxCubeConvention::Bevy);
    write_irradiance_cube_ktx2(dir + "/irr.ktx2", chain[0], o, KtxCubeConvention::Bevy);
    // The test chain is not symmetric in z: an unmirrored file fails.
    CHECK(check_bevy_layout(chain, parse_file(dir + "/spec.ktx2"), false) > 0);
    CHECK(check_bevy_layout({chain[0]}, parse_file(dir + "/irr.ktx2"), true) > 0);
    // The default stays the GL layout, E.
    write_irradiance_cube_ktx2(dir + "/irr_gl.ktx2", chain[0], o);
    const ParsedKtx2 gl = parse_file(dir + "/irr_gl.ktx2");
    CHECK(rgba32f_cubes(gl)[0].faces[4].rgb == chain[0].faces[4].rgb);
    CHECK(std::map<std::string, std::string>(gl.kv.begin(), gl.kv.end())["bakeConvention"] == kKtxConvention);
}

// The option through the tool: one bake written in both layouts.
TEST_CASE("ktx2: --ktx-convention bevy writes the GL layout's cubes mirrored in z, the irradiance E/pi", "[ktx2][bevy][cli]") {
    const std::string dir = test::scratch("ktx2_bevy_cli");
    const std::string common = test::kSample + " --device cpu --size 8 --specular-size 8 --ktx-format rgba32f";
    REQUIRE(test::run_cli(common + " -o " + dir + "/gl.ktx2 --specular " + dir + "/gl_spec.ktx2").exit_code == 0);
    REQUIRE(test::run_cli(common + " -o " + dir + "/bevy.ktx2 --specular " + dir + "/bevy_spec.ktx2 --ktx-convention bevy")
                .exit_code == 0);
    CHECK(check_bevy_layout(rgba32f_cubes(parse_file(dir + "/gl_spec.ktx2")), parse_file(dir + "/bevy_spec.ktx2"), false) > 0);
    CHECK(check_bevy_layout(rgba32f_cubes(parse_file(dir + "/gl.ktx2")), parse_file(dir + "/bevy.ktx2"), true) > 0);
}

TEST_CASE("ktx2: what is no texture is refused, and nothing is left behind", "[ktx2]") {
    const std::vector<CubeMap> chain = test_chain(8);
    KtxImages images = cube_chain_images(chain);
    KtxWriteOptions o;
    SECTION("a level of the wrong size") { images.levels[1][3] = &chain[2].faces[3]; }
    SECTION("a level missing a face") { images.levels[2].pop_back(); }
    SECTION("more levels than the size allows") { images.levels.push_back(images.levels.back()); }
    SECTION("a non-square cube") { images.height = 4; }
    SECTION("a zstd level out of range") { o.zstd_level = 23; }
    SECTION("a reserved key") { o.key_values = {{"KTXorientation", "ru"}}; }
    SECTION("a key twice") { o.key_values = {{"a", "1"}, {"a", "2"}}; }
    SECTION("no levels") { images.levels.clear(); }
    CHECK_THROWS_AS(encode_ktx2(images, o), std::invalid_argument);
    const std::string dir = test::scratch("ktx2_refused");
    CHECK_THROWS_AS(write_ktx2(dir + "/x.ktx2", images, o), OutputError);
    CHECK(std::filesystem::is_empty(dir));
}

TEST_CASE("ktx2: an unwritable path is one clear OutputError", "[ktx2]") {
    const std::vector<CubeMap> chain = test_chain(2);
    try {
        write_specular_ktx2("no_such_folder/spec.ktx2", chain, KtxWriteOptions{});
        FAIL("no error");
    } catch (const OutputError& e) {
        CHECK(std::string(e.what()).find("no_such_folder/spec.ktx2: ") == 0);
    }
}

TEST_CASE("ktx2: format names", "[ktx2]") {
    for (KtxFormat f : kAllFormats) {
        KtxFormat parsed{};
        REQUIRE(parse_ktx_format(ktx_format_name(f), &parsed));
        CHECK(parsed == f);
    }
    KtxFormat unused{};
    CHECK_FALSE(parse_ktx_format("rgba8", &unused));
}

TEST_CASE("ktx2: BC6H: vkFormat 143, typeSize 1, the BC6H descriptor, every level's blocks, levels below 4x4 one block", "[ktx2][bc6h]") {
    const std::vector<CubeMap> chain = test_chain(16);  // 16, 8, 4, 2, 1
    const KtxImages images = cube_chain_images(chain);
    KtxFormat parsed{};
    REQUIRE(parse_ktx_format("bc6h", &parsed));
    CHECK(parsed == KtxFormat::Bc6hUFloat);
    for (int zstd : {0, 3}) {
        INFO("zstd " << zstd);
        KtxWriteOptions o;
        o.format = KtxFormat::Bc6hUFloat;
        o.zstd_level = zstd;
        const ParsedKtx2 p = parse(encode_ktx2(images, o));
        CHECK(p.header[0] == 143);
        CHECK(p.header[1] == 1);
        CHECK(p.header[2] == 16);
        CHECK(p.header[6] == 6);
        CHECK(p.header[7] == 5);
        CHECK(p.dfd == spec_dfd(KtxFormat::Bc6hUFloat));
        for (std::size_t i = 0; i < chain.size(); ++i) {
            INFO("level " << i);
            const int blocks = std::max(1, chain[i].size / 4);
            REQUIRE(p.levels[i].size() == 6u * blocks * blocks * 16);
            if (zstd == 0) CHECK(p.offset[i] % 16 == 0);
            CHECK(p.levels[i] == bc6h_encode_images(images.levels[i], Bc6hQuality::Default, 1));
        }
    }
    // The thorough setting reaches the file, and blocks made elsewhere (a GPU's) go in as they are.
    KtxWriteOptions o;
    o.format = KtxFormat::Bc6hUFloat;
    o.bc6h_quality = Bc6hQuality::Thorough;
    const std::vector<std::uint8_t> thorough = encode_ktx2(images, o);
    CHECK(parse(thorough).levels[0] == bc6h_encode_images(images.levels[0], Bc6hQuality::Thorough, 1));
    EncodedTexture given = encode_texture(images, KtxFormat::Bc6hUFloat, Bc6hQuality::Thorough);
    CHECK(encode_ktx2(given, KtxWriteOptions{}) == thorough);
    given.levels[2].pop_back();
    CHECK_THROWS_AS(encode_ktx2(given, KtxWriteOptions{}), std::invalid_argument);
}

TEST_CASE("ktx2: the DFG table is refused as BC6H with one line naming the file", "[ktx2][bc6h]") {
    const std::string dir = test::scratch("ktx2_dfg_bc6h");
    KtxWriteOptions o;
    o.format = KtxFormat::Bc6hUFloat;
    try {
        write_dfg_ktx2(dir + "/d.ktx2", compute_dfg_table(16), o);
        FAIL("no error");
    } catch (const OutputError& e) {
        CHECK(std::string(e.what()) == dir + "/d.ktx2: " + kDfgNotBc6h);
    }
    CHECK(std::filesystem::is_empty(dir));
}

// Issue 21 through the tool: -o .ktx2, --dfg .ktx2 with --ktx-format, --gltf. Each file is read back
// here against what the same run (or the library) wrote as floats.
TEST_CASE("ktx2: the tool writes -o .ktx2, --dfg .ktx2 and --gltf as it writes their EXR and JSON", "[ktx2][cli]") {
    const std::string dir = test::scratch("ktx2_cli");
    auto bytes_of = [](const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    };
    const std::string tool = BAKE_CLI_PATH, sample = std::string(BAKE_ASSETS_DIR) + "/sample_sky.hdr";
    auto run = [&](const std::string& args) { return std::system(("'" + tool + "' " + args + " >/dev/null 2>&1").c_str()); };
    REQUIRE(run("'" + sample + "' --device cpu --warn-error 1e300 -o " + dir + "/e.ktx2 -o " + dir +
                "/e.exr --output-layout equirect --size 8 --ktx-format rgba32f") == 0);
    KtxWriteOptions o;
    o.format = KtxFormat::Rgba32Float;
    const Image equirect = load_image(dir + "/e.exr").image;
    check_texture(bytes_of(dir + "/e.ktx2"), image_2d_images(equirect), o);

    REQUIRE(run("--dfg " + dir + "/d.ktx2 --dfg-size 16 --ktx-format b10g11r11") == 0);
    o.format = KtxFormat::B10G11R11UFloat;
    check_texture(bytes_of(dir + "/d.ktx2"), image_2d_images(compute_dfg_table(16)), o);

    // --gltf: its chain stops at 16x16 (roughness 1 there): 64, 32, 16 from --specular-size 64.
    REQUIRE(run("'" + sample + "' --device cpu --warn-error 1e300 --gltf " + dir + "/ibl.gltf --specular-size 64") == 0);
    const nlohmann::json gltf = nlohmann::json::parse(std::ifstream(dir + "/ibl.gltf"));
    const nlohmann::json& light = gltf["extensions"]["EXT_lights_image_based"]["lights"][0];
    CHECK(light["specularImageSize"] == 64);
    CHECK(light["specularImages"].size() == 3);
    for (const auto& level : light["specularImages"]) CHECK(level.size() == 6);
    CHECK(light["irradianceCoefficients"].size() == 9);
    // Its PNGs beside it (issue 33 item 11), one a face and level, each the URI of an image.
    const std::vector<std::string> files = gltf_output_files(dir + "/ibl.gltf", 3);
    REQUIRE(files.size() == 19);
    for (std::size_t i = 1; i < files.size(); ++i) {
        CHECK(std::filesystem::is_regular_file(files[i]));
        CHECK(dir + "/" + gltf["images"][i - 1]["uri"].get<std::string>() == files[i]);
    }
    // Options that only shape .ktx2 files are usage errors without one.
    CHECK(run("'" + sample + "' -o " + dir + "/x.json --ktx-zstd 3") == 2 * 256);
}
