// specular_io: the prefiltered specular chain as one tiled, mip-mapped EXR and as one EXR per level.
// Files are checked through OpenEXR's own API as well as through read_specular_exr, and every way a
// file can be wrong must end in an InputError naming it.
#include <catch2/catch.hpp>

#include <sys/resource.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <Imath/half.h>
#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfEnvmapAttribute.h>
#include <OpenEXR/ImfFloatVectorAttribute.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfInputFile.h>
#include <OpenEXR/ImfIntAttribute.h>
#include <OpenEXR/ImfStandardAttributes.h>
#include <OpenEXR/ImfStringAttribute.h>
#include <OpenEXR/ImfTiledInputFile.h>
#include <OpenEXR/ImfTiledOutputFile.h>
#include <OpenEXR/ImfTiledRgbaFile.h>

#include "cube_map.h"
#include "errors.h"
#include "image_io.h"
#include "layout.h"
#include "output_names.h"
#include "specular_io.h"
#include "test_support.h"

using namespace bake;
using bake::test::read_bytes;
using bake::test::scratch;
using bake::test::write_bytes;
using bake::test::write_text;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::uint32_t bits(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

// Texel (row, col) of face f of level l, channel c: a value no other texel of the chain has, exact in float.
float coded(int level, int face, int row, int col, int c) {
    return static_cast<float>(level * 1000000 + face * 100000 + row * 300 + col * 3 + c);
}

std::vector<CubeMap> coded_chain(int base) {
    std::vector<CubeMap> chain;
    for (int l = 0, n = base; n >= 1; ++l, n /= 2) {
        CubeMap cube(n);
        for (int f = 0; f < 6; ++f)
            for (int r = 0; r < n; ++r)
                for (int col = 0; col < n; ++col)
                    for (int c = 0; c < 3; ++c) cube.faces[static_cast<std::size_t>(f)].at(r, col)[c] = coded(l, f, r, col, c);
        chain.push_back(std::move(cube));
    }
    return chain;
}

// Every bit of every texel.
void require_same_chain(const std::vector<CubeMap>& a, const std::vector<CubeMap>& b) {
    REQUIRE(a.size() == b.size());
    for (std::size_t l = 0; l < a.size(); ++l) {
        REQUIRE(a[l].size == b[l].size);
        for (std::size_t f = 0; f < 6; ++f) {
            const Image& fa = a[l].faces[f];
            const Image& fb = b[l].faces[f];
            REQUIRE(fa.width == fb.width);
            REQUIRE(fa.height == fb.height);
            REQUIRE(fa.rgb.size() == fb.rgb.size());
            std::size_t differing = 0;
            for (std::size_t i = 0; i < fa.rgb.size(); ++i) differing += bits(fa.rgb[i]) != bits(fb.rgb[i]);
            INFO("level " << l << " face " << cube_face_name(static_cast<int>(f)));
            CHECK(differing == 0);
        }
    }
}

// The read must fail with an InputError whose message is one line starting with "<path>: ".
std::string require_input_error(const std::string& path) {
    std::string msg;
    try {
        read_specular_exr(path);
        FAIL("no error reading " << path);
    } catch (const InputError& e) {
        msg = e.what();
    } catch (const std::exception& e) {
        FAIL("not an InputError reading " << path << ": " << e.what());
    }
    INFO(msg);
    REQUIRE(msg.rfind(path + ": ", 0) == 0);
    REQUIRE(msg.size() > path.size() + 2);
    REQUIRE(msg.find('\n') == std::string::npos);
    return msg;
}

// A tiled float file made with OpenEXR directly; texels of level l are all l + 0.5.
struct TiledSpec {
    int width = 8, height = 48;
    Imf::LevelMode mode = Imf::MIPMAP_LEVELS;
    Imf::LevelRoundingMode rounding = Imf::ROUND_DOWN;
    std::vector<std::string> channels = {"R", "G", "B"};
    bool envmap_cube = true;
    std::function<void(Imf::Header&)> more_attributes;
};
void write_tiled(const std::string& path, const TiledSpec& s) {
    Imf::Header header(s.width, s.height);
    for (const std::string& c : s.channels) header.channels().insert(c, Imf::Channel(Imf::FLOAT));
    header.setTileDescription(Imf::TileDescription(8, 8, s.mode, s.rounding));
    if (s.envmap_cube) Imf::addEnvmap(header, Imf::ENVMAP_CUBE);
    if (s.more_attributes) s.more_attributes(header);
    Imf::TiledOutputFile out(path.c_str(), header);
    for (int ly = 0; ly < out.numYLevels(); ++ly)
        for (int lx = 0; lx < out.numXLevels(); ++lx) {
            if (s.mode != Imf::RIPMAP_LEVELS && lx != ly) continue;
            const int w = out.levelWidth(lx), h = out.levelHeight(ly);
            std::vector<float> px(static_cast<std::size_t>(w) * h, static_cast<float>(ly) + 0.5f);
            Imf::FrameBuffer fb;
            for (const std::string& c : s.channels)
                fb.insert(c, Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(px.data()), sizeof(float), sizeof(float) * w));
            out.setFrameBuffer(fb);
            out.writeTiles(0, out.numXTiles(lx) - 1, 0, out.numYTiles(ly) - 1, lx, ly);
        }
}

// The value of an attribute's payload in a file's bytes: after "name\0type\0" and the int32 size.
std::size_t attribute_offset(const std::vector<char>& bytes, const std::string& name, const std::string& type) {
    const std::string key = name + std::string(1, '\0') + type + std::string(1, '\0');
    const auto it = std::search(bytes.begin(), bytes.end(), key.begin(), key.end());
    REQUIRE(it != bytes.end());
    return static_cast<std::size_t>(it - bytes.begin()) + key.size() + 4;
}
void patch_u32(std::vector<char>& bytes, std::size_t at, std::uint32_t v) { std::memcpy(&bytes[at], &v, 4); }

std::size_t folder_entries(const std::string& dir) {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
    return n;
}

// Limits the size of files this process may write (writes beyond fail with EFBIG), while alive.
struct FileSizeLimit {
    rlimit old{};
    void (*old_handler)(int) = nullptr;
    explicit FileSizeLimit(rlim_t bytes) {
        getrlimit(RLIMIT_FSIZE, &old);
        old_handler = std::signal(SIGXFSZ, SIG_IGN);
        rlimit lim = old;
        lim.rlim_cur = bytes;
        setrlimit(RLIMIT_FSIZE, &lim);
    }
    ~FileSizeLimit() {
        setrlimit(RLIMIT_FSIZE, &old);
        std::signal(SIGXFSZ, old_handler);
    }
};

}  // namespace

TEST_CASE("specular_io: a chain written as one EXR reads back bit for bit, with its info", "[specular_io]") {
    const std::string dir = scratch("specular_io_roundtrip");
    SECTION("base 16, special values, stated roughness") {
        std::vector<CubeMap> chain = coded_chain(16);
        float* t = chain[0].faces[3].at(5, 7);
        t[0] = -0.0f;
        t[1] = std::numeric_limits<float>::denorm_min();
        t[2] = std::numeric_limits<float>::max();
        chain[1].faces[5].at(0, 0)[0] = -std::numeric_limits<float>::infinity();
        chain[2].faces[2].at(3, 1)[2] = -1.5e-30f;
        SpecularChainInfo info;
        info.roughness = {0.0, 0.25, 0.5, 0.75, 1.0 / 3.0};
        info.convention = "a test convention: level i, roughness i/4, N=V=R";
        write_specular_exr(dir + "/chain.exr", chain, info);

        SpecularChainInfo back;
        const std::vector<CubeMap> read = read_specular_exr(dir + "/chain.exr", &back);
        require_same_chain(read, chain);
        REQUIRE(back.roughness.size() == 5);
        for (std::size_t i = 0; i < 5; ++i) CHECK(back.roughness[i] == static_cast<float>(info.roughness[i]));
        CHECK(back.convention == info.convention);
        CHECK(read_specular_exr(dir + "/chain.exr").size() == 5);  // info is optional
    }
    SECTION("empty info: roughness i/(levels-1) and the GGX convention") {
        const std::vector<CubeMap> chain = coded_chain(8);
        write_specular_exr(dir + "/default.exr", chain, {});
        SpecularChainInfo back;
        require_same_chain(read_specular_exr(dir + "/default.exr", &back), chain);
        REQUIRE(back.roughness.size() == 4);
        for (int i = 0; i < 4; ++i) CHECK(back.roughness[static_cast<std::size_t>(i)] == static_cast<float>(i / 3.0));
        CHECK(back.convention == kSpecularConvention);
    }
    SECTION("a 1x1 chain (one level) and a 64 chain (tiles of several faces)") {
        for (int base : {1, 64}) {
            const std::vector<CubeMap> chain = coded_chain(base);
            write_specular_exr(dir + "/b.exr", chain, {});
            SpecularChainInfo back;
            require_same_chain(read_specular_exr(dir + "/b.exr", &back), chain);
            CHECK(back.roughness.size() == chain.size());
        }
    }
    SECTION("a chain stopping above 1x1 (--specular-levels): its levels and roughness back, the file's own levels filled") {
        std::vector<CubeMap> chain = coded_chain(16);
        chain.resize(3);  // 16, 8, 4: roughness 0, 0.5, 1
        write_specular_exr(dir + "/short.exr", chain, {});
        SpecularChainInfo back;
        require_same_chain(read_specular_exr(dir + "/short.exr", &back), chain);
        REQUIRE(back.roughness.size() == 3);
        for (int i = 0; i < 3; ++i) CHECK(back.roughness[static_cast<std::size_t>(i)] == static_cast<float>(i / 2.0));
        // OpenEXR sees every level of a 16 x 96 mipmap: past the chain, the solid-angle weighted
        // means of the 2x2 texels above (checked on the 2x2 level's texel (0, 0) of face +X).
        Imf::TiledInputFile file((dir + "/short.exr").c_str());
        CHECK(file.numLevels() == 7);
        CHECK(file.header().findTypedAttribute<Imf::IntAttribute>("bakeSpecularCubeLevels")->value() == 3);
        CHECK(file.header().findTypedAttribute<Imf::StringAttribute>("bakeSpecularExtraLevels")->value().find("stops") != std::string::npos);
        Image two(2, 12);
        Imf::FrameBuffer fb;
        for (int c = 0; c < 3; ++c)
            fb.insert(c == 0 ? "R" : c == 1 ? "G" : "B",
                      Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(two.rgb.data() + c), 3 * sizeof(float), 6 * sizeof(float)));
        file.setFrameBuffer(fb);
        file.readTiles(0, file.numXTiles(3) - 1, 0, file.numYTiles(3) - 1, 3);
        for (int c = 0; c < 3; ++c) {
            double sum = 0, weight = 0;
            for (int r = 0; r < 2; ++r)
                for (int col = 0; col < 2; ++col) {
                    const double w = cube_texel_solid_angle(r, col, 4);
                    sum += w * chain[2].faces[0].at(r, col)[c];
                    weight += w;
                }
            CHECK(two.at(0, 0)[c] == static_cast<float>(sum / weight));
        }
    }
    SECTION("the project's own loader reads level 0 as a cube strip") {
        const std::vector<CubeMap> chain = coded_chain(8);
        write_specular_exr(dir + "/l0.exr", chain, {});
        const LoadedImage img = load_image(dir + "/l0.exr");
        CHECK(img.envmap == EnvmapHint::Cube);
        const Image strip = assemble_cube(chain[0], Layout::VStrip);
        REQUIRE(img.image.width == strip.width);
        REQUIRE(img.image.height == strip.height);
        CHECK(std::memcmp(img.image.rgb.data(), strip.rgb.data(), strip.rgb.size() * sizeof(float)) == 0);
    }
}

TEST_CASE("specular_io: the chain is ZIP-compressed where that pays, else stored, and either reads back bit for bit",
          "[specular_io]") {
    // A smooth chain (texels constant over 4 x 4 blocks, as a small input's source repeats them)
    // halves under ZIP; texels with random mantissas (a noisy 8k input's) do not compress: ZIP would
    // cost 7x the write's time for 4% (specular_io.cpp).
    const std::string dir = scratch("specular_io_codec");
    std::mt19937 rng(77);
    std::uniform_real_distribution<float> any(0.1f, 10.0f);
    for (const bool noisy : {false, true}) {
        std::vector<CubeMap> chain;
        for (int s = 128; s >= 1; s /= 2) {
            CubeMap level(s);
            for (int f = 0; f < 6; ++f)
                for (int r = 0; r < s; ++r)
                    for (int c = 0; c < s; ++c)
                        for (int k = 0; k < 3; ++k)
                            level.faces[f].at(r, c)[k] = noisy ? any(rng) : 0.25f * static_cast<float>((r / 4 + c / 4 + f + k) % 7);
            chain.push_back(std::move(level));
        }
        const std::string path = dir + (noisy ? "/noisy.exr" : "/smooth.exr");
        write_specular_exr(path, chain, {});
        Imf::TiledInputFile file(path.c_str());
        INFO((noisy ? "noisy" : "smooth") << " chain, " << fs::file_size(path) << " bytes");
        CHECK(file.header().compression() == (noisy ? Imf::NO_COMPRESSION : Imf::ZIP_COMPRESSION));
        const std::uintmax_t raw = 128ull * 128 * 6 * 12;  // level 0's texels alone
        if (noisy) CHECK(fs::file_size(path) > raw);
        else CHECK(fs::file_size(path) < raw / 2);
        require_same_chain(read_specular_exr(path), chain);
    }
}

TEST_CASE("specular_io: the file as plain OpenEXR sees it: levels, sizes, envmap, extra levels, texel places",
          "[specular_io]") {
    const std::string dir = scratch("specular_io_openexr");
    const int base = 32, cube_levels = 6;
    const std::vector<CubeMap> chain = coded_chain(base);
    write_specular_exr(dir + "/chain.exr", chain, {});

    Imf::TiledInputFile file((dir + "/chain.exr").c_str());
    const Imf::Header& h = file.header();
    CHECK(file.levelMode() == Imf::MIPMAP_LEVELS);
    CHECK(file.levelRoundingMode() == Imf::ROUND_DOWN);
    REQUIRE(file.numXLevels() == cube_levels + 2);
    REQUIRE(file.numYLevels() == cube_levels + 2);
    REQUIRE(Imf::hasEnvmap(h));
    CHECK(Imf::envmap(h) == Imf::ENVMAP_CUBE);
    CHECK(h.compression() == Imf::ZIP_COMPRESSION);
    for (const char* c : {"R", "G", "B"}) {
        REQUIRE(h.channels().findChannel(c));
        CHECK(h.channels().findChannel(c)->type == Imf::FLOAT);
    }
    REQUIRE(h.findTypedAttribute<Imf::IntAttribute>("bakeSpecularCubeLevels"));
    CHECK(h.findTypedAttribute<Imf::IntAttribute>("bakeSpecularCubeLevels")->value() == cube_levels);
    REQUIRE(h.findTypedAttribute<Imf::FloatVectorAttribute>("bakeSpecularRoughness"));
    const std::vector<float> roughness = h.findTypedAttribute<Imf::FloatVectorAttribute>("bakeSpecularRoughness")->value();
    REQUIRE(roughness.size() == static_cast<std::size_t>(cube_levels));
    CHECK(roughness.front() == 0.0f);
    CHECK(roughness[1] == 0.2f);
    CHECK(roughness.back() == 1.0f);
    for (const char* a : {"bakeSpecularConvention", "bakeSpecularLayout", "bakeSpecularExtraLevels"}) {
        REQUIRE(h.findTypedAttribute<Imf::StringAttribute>(a));
        CHECK(!h.findTypedAttribute<Imf::StringAttribute>(a)->value().empty());
    }

    std::vector<std::vector<float>> levels;  // RGB interleaved, as read
    for (int l = 0; l < file.numLevels(); ++l) {
        const int w = file.levelWidth(l), ht = file.levelHeight(l);
        INFO("file level " << l);
        if (l < cube_levels) {
            CHECK(w == base >> l);
            CHECK(ht == 6 * (base >> l));
        } else {
            CHECK(w == 1);
            CHECK(ht == (l == cube_levels ? 3 : 1));
        }
        std::vector<float> px(static_cast<std::size_t>(w) * ht * 3);
        Imf::FrameBuffer fb;
        const std::size_t xs = 3 * sizeof(float), ys = xs * static_cast<std::size_t>(w);
        for (int c = 0; c < 3; ++c)
            fb.insert(std::string(1, "RGB"[c]), Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(px.data() + c), xs, ys));
        file.setFrameBuffer(fb);
        file.readTiles(0, file.numXTiles(l) - 1, 0, file.numYTiles(l) - 1, l);
        levels.push_back(std::move(px));
    }

    // Face f, row r, column c of cube level l sits at x = c, y = f N_l + r of file level l.
    for (int l = 0; l < cube_levels; ++l) {
        const int n = base >> l;
        std::size_t wrong = 0;
        for (int f = 0; f < 6; ++f)
            for (int r = 0; r < n; ++r)
                for (int c = 0; c < n; ++c)
                    for (int ch = 0; ch < 3; ++ch)
                        wrong += levels[static_cast<std::size_t>(l)][(static_cast<std::size_t>(f * n + r) * n + c) * 3 + ch] !=
                                 coded(l, f, r, c, ch);
        INFO("cube level " << l);
        CHECK(wrong == 0);
    }
    // The two extra levels: the 1x3 texel k is the mean of faces 2k and 2k+1 of the 1x6 level, the
    // 1x1 texel the mean of the three (in double, rounded to float).
    const int last = cube_levels - 1;
    const std::vector<float>& l1x3 = levels[static_cast<std::size_t>(cube_levels)];
    const std::vector<float>& l1x1 = levels[static_cast<std::size_t>(cube_levels + 1)];
    for (int ch = 0; ch < 3; ++ch) {
        double sum = 0;
        for (int k = 0; k < 3; ++k) {
            const float mean = static_cast<float>((double(coded(last, 2 * k, 0, 0, ch)) + coded(last, 2 * k + 1, 0, 0, ch)) / 2);
            CHECK(l1x3[static_cast<std::size_t>(3 * k + ch)] == mean);
            sum += mean;
        }
        CHECK(l1x1[static_cast<std::size_t>(ch)] == static_cast<float>(sum / 3));
        double all = 0;
        for (int f = 0; f < 6; ++f) all += coded(last, f, 0, 0, ch);
        CHECK(l1x1[static_cast<std::size_t>(ch)] == Approx(all / 6).epsilon(1e-6));  // the mean of all six faces
    }

    // A generic RGBA reader finds every level too (half precision: the 1x1 level's mean).
    Imf::TiledRgbaInputFile rgba((dir + "/chain.exr").c_str());
    REQUIRE(rgba.numLevels() == cube_levels + 2);
    Imf::Rgba one;
    rgba.setFrameBuffer(&one, 1, 1);
    rgba.readTile(0, 0, cube_levels + 1);
    CHECK(float(one.r) == float(half(l1x1[0])));
    CHECK(float(one.a) == 1.0f);
}

TEST_CASE("specular_io: {level} patterns write one strip EXR per level", "[specular_io]") {
    const std::string dir = scratch("specular_io_levels");
    CHECK(has_level_placeholder("spec_{level}.exr"));
    CHECK_FALSE(has_level_placeholder("spec_{index}.exr"));
    CHECK_FALSE(has_level_placeholder("spec_level.exr"));
    CHECK(expand_level_placeholder("out/{level}/spec_{level}.exr", 7) == "out/7/spec_7.exr");
    CHECK(expand_level_placeholder("sky_{stem}_{level}.exr", 0) == "sky_{stem}_0.exr");
    CHECK(expand_level_placeholder("plain.exr", 3) == "plain.exr");

    const std::vector<CubeMap> chain = coded_chain(16);
    const std::vector<std::string> names = write_specular_level_files(dir + "/sky_spec_{level}.exr", chain);
    REQUIRE(names.size() == 5);
    for (std::size_t l = 0; l < names.size(); ++l) {
        INFO(names[l]);
        CHECK(names[l] == dir + "/sky_spec_" + std::to_string(l) + ".exr");
        const LoadedImage img = load_image(names[l]);
        CHECK(img.envmap == EnvmapHint::Cube);
        const Image strip = assemble_cube(chain[l], Layout::VStrip);
        REQUIRE(img.image.width == 16 >> l);
        REQUIRE(img.image.height == 6 * (16 >> l));
        CHECK(std::memcmp(img.image.rgb.data(), strip.rgb.data(), strip.rgb.size() * sizeof(float)) == 0);
        // Each file states its level and roughness, i / 4.
        Imf::InputFile file(names[l].c_str());
        CHECK(file.header().findTypedAttribute<Imf::StringAttribute>("bakeSpecularLevel")->value() == std::to_string(l) + " of 5");
        CHECK(std::stod(file.header().findTypedAttribute<Imf::StringAttribute>("bakeSpecularRoughness")->value()) == l / 4.0);
        CHECK(file.header().findTypedAttribute<Imf::StringAttribute>("bakeSpecularConvention")->value() == kSpecularConvention);
    }
    CHECK(folder_entries(dir) == 5);
    // A chain stopping at 4x4, of the sheen lobe: 3 files, roughness 0, 0.5, 1.
    std::vector<CubeMap> short_chain = chain;
    short_chain.resize(3);
    SpecularChainInfo info;
    info.convention = kSheenConvention;
    const std::vector<std::string> short_names = write_specular_level_files(dir + "/sheen_{level}.exr", short_chain, info);
    REQUIRE(short_names.size() == 3);
    for (std::size_t l = 0; l < 3; ++l) {
        Imf::InputFile file(short_names[l].c_str());
        CHECK(std::stod(file.header().findTypedAttribute<Imf::StringAttribute>("bakeSpecularRoughness")->value()) == l / 2.0);
        CHECK(file.header().findTypedAttribute<Imf::StringAttribute>("bakeSpecularConvention")->value() == kSheenConvention);
    }
    CHECK(folder_entries(dir) == 8);

    CHECK_THROWS_AS(write_specular_level_files(dir + "/no_placeholder.exr", chain), std::invalid_argument);
    std::vector<CubeMap> broken = chain;
    broken[2] = CubeMap(3);  // not 16 >> 2
    CHECK_THROWS_AS(write_specular_level_files(dir + "/broken_{level}.exr", broken), OutputError);
    info.roughness = {0.0, 1.0};  // two values for three levels
    CHECK_THROWS_AS(write_specular_level_files(dir + "/count_{level}.exr", short_chain, info), OutputError);
    CHECK(folder_entries(dir) == 8);
}

TEST_CASE("specular_io: expand_output_pattern keeps {level} only when asked", "[specular_io][names]") {
    CHECK(expand_output_pattern("{stem}_spec_{level}.exr", "maps/sky.hdr", 2, true) == "sky_spec_{level}.exr");
    CHECK(expand_output_pattern("{index}/{level}_{name}.exr", "a/b.exr", 3, true) == "3/{level}_b.exr.exr");
    CHECK(expand_level_placeholder(expand_output_pattern("{stem}_{level}.exr", "sky.exr", 1, true), 4) == "sky_4.exr");
    // Without keep_level, {level} is an unknown placeholder, as before; other unknown ones always are.
    CHECK_THROWS_AS(expand_output_pattern("{stem}_{level}.exr", "sky.exr", 1), std::invalid_argument);
    CHECK_THROWS_AS(expand_output_pattern("{stem}_{level}.exr", "sky.exr", 1, false), std::invalid_argument);
    CHECK_THROWS_AS(expand_output_pattern("{stem}_{face}.exr", "sky.exr", 1, true), std::invalid_argument);
    CHECK_THROWS_AS(expand_output_pattern("{stem}_{level.exr", "sky.exr", 1, true), std::invalid_argument);
    CHECK(expand_output_pattern("{stem}_irr.exr", "maps/sky.exr", 1, true) == "sky_irr.exr");
    CHECK(expand_output_pattern("{stem}_irr.exr", "maps/sky.exr", 1) == "sky_irr.exr");
    CHECK_FALSE(has_output_placeholder("spec_{level}.exr"));  // differs per level, not per input
}

TEST_CASE("specular_io: files that are not a specular chain are refused with the file's name", "[specular_io]") {
    const std::string dir = scratch("specular_io_hostile");
    const std::vector<CubeMap> chain = coded_chain(8);
    write_specular_exr(dir + "/good.exr", chain, {});
    REQUIRE(read_specular_exr(dir + "/good.exr").size() == 4);

    SECTION("a scanline EXR (an irradiance cube output)") {
        write_exr(dir + "/scan.exr", assemble_cube(chain[0], Layout::VStrip), EnvmapHint::Cube);
        CHECK(contains(require_input_error(dir + "/scan.exr"), "scanline"));
    }
    SECTION("tiled without mipmaps, ripmapped, rounded up") {
        TiledSpec s;
        s.mode = Imf::ONE_LEVEL;
        write_tiled(dir + "/one.exr", s);
        CHECK(contains(require_input_error(dir + "/one.exr"), "no mipmaps"));
        s.mode = Imf::RIPMAP_LEVELS;
        write_tiled(dir + "/rip.exr", s);
        CHECK(contains(require_input_error(dir + "/rip.exr"), "ripmap"));
        s.mode = Imf::MIPMAP_LEVELS;
        s.rounding = Imf::ROUND_UP;
        write_tiled(dir + "/up.exr", s);
        CHECK(contains(require_input_error(dir + "/up.exr"), "ROUND_DOWN"));
    }
    SECTION("the right structure is read, with any texels (a file from another tool)") {
        write_tiled(dir + "/other.exr", TiledSpec{});
        SpecularChainInfo info;
        info.convention = "stale";
        const std::vector<CubeMap> read = read_specular_exr(dir + "/other.exr", &info);
        REQUIRE(read.size() == 4);
        CHECK(read[2].faces[4].at(1, 1)[1] == 2.5f);
        CHECK(info.roughness.empty());
        CHECK(info.convention.empty());
    }
    SECTION("wrong aspect, face size not a power of two, no envmap") {
        TiledSpec s;
        s.height = 40;
        write_tiled(dir + "/aspect.exr", s);
        CHECK(contains(require_input_error(dir + "/aspect.exr"), "8x40"));
        s.width = 6;
        s.height = 36;
        write_tiled(dir + "/npot.exr", s);
        CHECK(contains(require_input_error(dir + "/npot.exr"), "power of two"));
        s = TiledSpec{};
        s.envmap_cube = false;
        write_tiled(dir + "/noenv.exr", s);
        CHECK(contains(require_input_error(dir + "/noenv.exr"), "envmap"));
    }
    SECTION("missing channels") {
        TiledSpec s;
        s.channels = {"R", "G"};
        write_tiled(dir + "/rg.exr", s);
        CHECK(contains(require_input_error(dir + "/rg.exr"), "no channel B"));
        s.channels = {"Y"};
        write_tiled(dir + "/y.exr", s);
        const std::string msg = require_input_error(dir + "/y.exr");
        CHECK(contains(msg, "R, G, B"));
        CHECK(contains(msg, "channels: Y"));
    }
    SECTION("attributes that contradict the file") {
        TiledSpec s;  // 8 x 48: 4 cube levels
        s.more_attributes = [](Imf::Header& h) { h.insert("bakeSpecularCubeLevels", Imf::IntAttribute(5)); };
        write_tiled(dir + "/levels.exr", s);
        CHECK(contains(require_input_error(dir + "/levels.exr"), "bakeSpecularCubeLevels says 5"));
        s.more_attributes = [](Imf::Header& h) {
            h.insert("bakeSpecularRoughness", Imf::FloatVectorAttribute(std::vector<float>{0.0f, 0.5f, 1.0f}));
        };
        write_tiled(dir + "/rough.exr", s);
        CHECK(contains(require_input_error(dir + "/rough.exr"), "bakeSpecularRoughness has 3 values"));
        s.more_attributes = [](Imf::Header& h) { h.insert("bakeSpecularRoughness", Imf::StringAttribute("0 0.5 1")); };
        write_tiled(dir + "/rough_text.exr", s);
        CHECK(contains(require_input_error(dir + "/rough_text.exr"), "not a float vector"));
        s.more_attributes = [](Imf::Header& h) { h.insert("bakeSpecularConvention", Imf::IntAttribute(1)); };
        write_tiled(dir + "/conv.exr", s);
        CHECK(contains(require_input_error(dir + "/conv.exr"), "not a string"));
    }
    SECTION("sizes and tilings too large are refused from the header, at once") {
        std::vector<char> bytes = read_bytes(dir + "/good.exr");
        const std::size_t dw = attribute_offset(bytes, "dataWindow", "box2i");
        std::vector<char> huge = bytes;
        patch_u32(huge, dw + 8, 65535);            // xMax: N = 65536
        patch_u32(huge, dw + 12, 6 * 65536 - 1);   // yMax
        write_bytes(dir + "/huge.exr", huge);
        const auto t0 = std::chrono::steady_clock::now();
        CHECK(contains(require_input_error(dir + "/huge.exr"), "limit"));
        CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));

        std::vector<char> tiny_tiles = bytes;
        patch_u32(tiny_tiles, dw + 8, 1023);
        patch_u32(tiny_tiles, dw + 12, 6 * 1024 - 1);
        const std::size_t td = attribute_offset(tiny_tiles, "tiles", "tiledesc");
        patch_u32(tiny_tiles, td, 1);
        patch_u32(tiny_tiles, td + 4, 1);
        write_bytes(dir + "/tiny_tiles.exr", tiny_tiles);
        CHECK(contains(require_input_error(dir + "/tiny_tiles.exr"), "tiles"));

        // A header claiming 1024 x 6144 over the 8 x 48 file's tiles: no crash, an error.
        std::vector<char> claims = bytes;
        patch_u32(claims, dw + 8, 1023);
        patch_u32(claims, dw + 12, 6 * 1024 - 1);
        write_bytes(dir + "/claims.exr", claims);
        require_input_error(dir + "/claims.exr");
    }
    SECTION("truncated at every cut point") {
        const std::vector<char> bytes = read_bytes(dir + "/good.exr");
        const std::size_t header_end = attribute_offset(bytes, "dataWindow", "box2i");
        std::vector<std::size_t> cuts;
        for (std::size_t n = 0; n < bytes.size(); n += (n < header_end ? 5 : 1 + bytes.size() / 40)) cuts.push_back(n);
        cuts.push_back(bytes.size() - 1);
        for (std::size_t cut : cuts) {
            INFO("cut at " << cut << " of " << bytes.size());
            write_bytes(dir + "/cut.exr", bytes, cut);
            require_input_error(dir + "/cut.exr");
        }
    }
    SECTION("not an EXR, no file, a folder, another extension") {
        write_text(dir + "/text.exr", "this is not an image");
        require_input_error(dir + "/text.exr");
        CHECK(contains(require_input_error(dir + "/absent.exr"), "no such file"));
        fs::create_directories(dir + "/folder.exr");
        require_input_error(dir + "/folder.exr");
        fs::copy_file(dir + "/good.exr", dir + "/good.hdr");
        CHECK(contains(require_input_error(dir + "/good.hdr"), ".exr"));
    }
}

TEST_CASE("specular_io: a write that fails leaves no file and no temporary", "[specular_io]") {
    const std::string dir = scratch("specular_io_unwritable");
    const std::vector<CubeMap> chain = coded_chain(32);
    auto require_output_error = [](const std::function<void()>& write, const std::string& path) {
        try {
            write();
            FAIL("no error writing " << path);
        } catch (const OutputError& e) {
            const std::string msg = e.what();
            INFO(msg);
            CHECK(msg.rfind(path + ": ", 0) == 0);
        }
    };
    SECTION("a folder that does not exist") {
        const std::string path = dir + "/missing/chain.exr";
        require_output_error([&] { write_specular_exr(path, chain, {}); }, path);
        CHECK_FALSE(fs::exists(dir + "/missing"));
        CHECK(folder_entries(dir) == 0);
    }
    SECTION("the disk fills up mid-write: the old file stays as it was") {
        const std::string path = dir + "/chain.exr";
        write_specular_exr(path, coded_chain(4), {});
        const std::vector<char> before = read_bytes(path);
        {
            const FileSizeLimit limit(4096);  // the 32-base chain is ~60 KB
            require_output_error([&] { write_specular_exr(path, chain, {}); }, path);
        }
        CHECK(read_bytes(path) == before);
        CHECK(folder_entries(dir) == 1);  // no temporary
        CHECK(read_specular_exr(path).size() == 3);
    }
    SECTION("an invalid chain is refused before anything is created") {
        std::vector<CubeMap> broken = chain;
        broken[2] = CubeMap(7);
        const std::string path = dir + "/broken.exr";
        require_output_error([&] { write_specular_exr(path, broken, {}); }, path);
        std::vector<CubeMap> not_pot = {CubeMap(3), CubeMap(1)};
        require_output_error([&] { write_specular_exr(path, not_pot, {}); }, path);
        SpecularChainInfo two;
        two.roughness = {0, 1};
        require_output_error([&] { write_specular_exr(path, chain, two); }, path);
        CHECK(folder_entries(dir) == 0);
    }
}
