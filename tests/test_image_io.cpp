// image_io: loading .hdr (stb) and .exr (OpenEXR), writing float EXR, and every way a file can be
// wrong. Test files are made here, through OpenEXR's and stb's own writers, so each expectation is
// independent of the code under test.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <Imath/half.h>
#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfCompressionAttribute.h>
#include <OpenEXR/ImfEnvmapAttribute.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfInputFile.h>
#include <OpenEXR/ImfMultiPartOutputFile.h>
#include <OpenEXR/ImfOutputFile.h>
#include <OpenEXR/ImfOutputPart.h>
#include <OpenEXR/ImfPartType.h>
#include <OpenEXR/ImfRgbaFile.h>
#include <OpenEXR/ImfStandardAttributes.h>
#include <OpenEXR/ImfTiledOutputFile.h>
#include <nlohmann/json.hpp>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC  // private copy, other test files may embed stb too
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_image_write.h>
#pragma GCC diagnostic pop

#include "errors.h"
#include "image_io.h"
#include "test_support.h"

using bake::test::read_bytes;
using bake::test::write_bytes;
using bake::test::write_text;
using bake::test::scratch;

namespace fs = std::filesystem;
using bake::EnvmapHint;
using bake::Image;
using bake::InputError;
using bake::load_image;
using bake::LoadedImage;

namespace {


// The load must fail with an InputError whose message is one line starting with "<path>: ".
std::string require_input_error(const std::string& path, std::uint64_t max_pixels = bake::kDefaultMaxPixels) {
    std::string msg;
    try {
        load_image(path, max_pixels);
        FAIL("no error loading " << path);
    } catch (const InputError& e) {
        msg = e.what();
    } catch (const std::exception& e) {
        FAIL("not an InputError loading " << path << ": " << e.what());
    }
    INFO(msg);
    REQUIRE(msg.rfind(path + ": ", 0) == 0);
    REQUIRE(msg.size() > path.size() + 2);
    REQUIRE(msg.find('\n') == std::string::npos);
    REQUIRE(msg.find('\r') == std::string::npos);
    return msg;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::uint32_t bits(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

// --- writing test EXRs through OpenEXR's own API ---------------------------------------------

// One channel's samples in the file's pixel type, and what a float reader should get back.
struct Plane {
    std::string name;
    Imf::PixelType type;
    std::vector<half> h;
    std::vector<float> f;
    std::vector<unsigned> u;
    std::vector<float> expect;

    Plane(std::string n, Imf::PixelType t, const std::vector<float>& values) : name(std::move(n)), type(t) {
        for (float v : values) {
            if (t == Imf::HALF) {
                h.push_back(half(v));
                expect.push_back(float(h.back()));
            } else if (t == Imf::FLOAT) {
                f.push_back(v);
                expect.push_back(v);
            } else {
                u.push_back(static_cast<unsigned>(std::max(0.0f, v)));
                expect.push_back(static_cast<float>(u.back()));
            }
        }
    }
    char* data() {
        return type == Imf::HALF ? reinterpret_cast<char*>(h.data())
             : type == Imf::FLOAT ? reinterpret_cast<char*>(f.data())
                                  : reinterpret_cast<char*>(u.data());
    }
    std::size_t elem() const { return type == Imf::HALF ? 2 : 4; }
};

Imf::FrameBuffer frame_buffer(std::vector<Plane>& planes, const Imath::Box2i& dw) {
    Imf::FrameBuffer fb;
    const std::size_t w = static_cast<std::size_t>(dw.max.x - dw.min.x + 1);
    for (Plane& p : planes) fb.insert(p.name, Imf::Slice::Make(p.type, p.data(), dw, p.elem(), p.elem() * w));
    return fb;
}

// Smooth values in roughly [0.5, 10]: what a lossy codec is designed for.
float smooth_value(int x, int y, int c) {
    return 5.0f + 4.0f * std::sin(0.21f * x + 1.3f * c) * std::cos(0.17f * y - 0.4f * c) + 0.5f * c;
}

// Values spread over many magnitudes and signs (a lossless codec must return them exactly).
std::vector<float> random_values(std::size_t n, unsigned seed, bool non_negative = false) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> mant(non_negative ? 0.0f : -1.0f, 1.0f);
    std::uniform_int_distribution<int> ex(-8, 10);
    std::vector<float> v(n);
    for (float& x : v) x = std::ldexp(mant(rng), ex(rng));
    return v;
}

std::vector<float> smooth_values(int w, int h, int c) {
    std::vector<float> v;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) v.push_back(smooth_value(x, y, c));
    return v;
}

// Writes a scanline EXR with the given planes; returns the planes (with their expectations).
void write_scanline_exr(const std::string& path, std::vector<Plane>& planes, const Imath::Box2i& dw,
                        Imf::Compression comp, const Imath::Box2i* display = nullptr,
                        std::function<void(Imf::Header&)> edit = nullptr) {
    Imf::Header header(display ? *display : dw, dw);
    header.compression() = comp;
    for (const Plane& p : planes) header.channels().insert(p.name, Imf::Channel(p.type));
    if (edit) edit(header);
    Imf::OutputFile out(path.c_str(), header);
    out.setFrameBuffer(frame_buffer(planes, dw));
    out.writePixels(dw.max.y - dw.min.y + 1);
}

std::vector<Plane> rgb_planes(Imf::PixelType type, int w, int h, bool smooth, unsigned seed) {
    std::vector<Plane> planes;
    const char* names[] = {"R", "G", "B"};
    for (int c = 0; c < 3; ++c)
        planes.emplace_back(names[c], type,
                            smooth ? smooth_values(w, h, c)
                                   : random_values(static_cast<std::size_t>(w) * h, seed + c, type == Imf::UINT));
    return planes;
}

// Largest |loaded - expected| over R, G, B, and whether every value is bit-identical.
struct Diff {
    double max_abs = 0;
    double max_rel = 0;  // relative to the largest |expected|
    bool exact = true;
};
Diff compare_rgb(const Image& img, const std::vector<Plane>& planes) {
    Diff d;
    double peak = 0;
    for (int c = 0; c < 3; ++c)
        for (float e : planes[static_cast<std::size_t>(c)].expect) peak = std::max(peak, std::fabs(double(e)));
    for (std::size_t i = 0; i < img.pixel_count(); ++i)
        for (int c = 0; c < 3; ++c) {
            const float got = img.rgb[3 * i + static_cast<std::size_t>(c)];
            const float want = planes[static_cast<std::size_t>(c)].expect[i];
            if (bits(got) != bits(want)) d.exact = false;
            d.max_abs = std::max(d.max_abs, std::fabs(double(got) - double(want)));
        }
    d.max_rel = peak > 0 ? d.max_abs / peak : d.max_abs;
    return d;
}

// Finds the dataWindow attribute's four int32 (xMin, yMin, xMax, yMax) in an EXR header.
std::size_t data_window_offset(const std::vector<char>& bytes) {
    static const char key[] = "dataWindow\0box2i\0";
    const auto it = std::search(bytes.begin(), bytes.end(), key, key + sizeof key - 1);
    REQUIRE(it != bytes.end());
    return static_cast<std::size_t>(it - bytes.begin()) + (sizeof key - 1) + 4;  // + int32 size
}
void patch_int(std::vector<char>& bytes, std::size_t at, std::int32_t v) {
    std::memcpy(&bytes[at], &v, 4);  // EXR is little-endian, as is every machine we run on
}

std::vector<std::size_t> cut_points(std::size_t size, std::size_t header_end) {
    std::vector<std::size_t> cuts;
    for (std::size_t n = 1; n < header_end && n < size; n += (n < 16 ? 1 : 7)) cuts.push_back(n);
    for (int k = 1; k <= 20; ++k) cuts.push_back(header_end + (size - 1 - header_end) * static_cast<std::size_t>(k) / 20);
    cuts.push_back(size - 1);
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    return cuts;
}

}  // namespace

// ------------------------------------------------------------------------------------------------

TEST_CASE("image_io: the three shared DWAB maps load with their documented minima and negative counts",
          "[image_io]") {
    // SOURCES.md: minimum -3394 (sky), -25.5 (warehouse), -3894 (esplanade), peak ~2.3e4 (sky),
    // ~214 (warehouse). The reference JSONs give min_value_in_file and negative_values_in_file.
    struct Case {
        const char* name;
        double documented_min;
        double documented_peak;  // 0: not documented
    };
    const Case cases[] = {{"pmndrs_sky", -3394.0, 2.3e4}, {"pmndrs_warehouse", -25.5, 214.0},
                          {"pmndrs_esplanade", -3894.0, 0.0}};
    for (const Case& c : cases) {
        INFO(c.name);
        const std::string path = std::string(BAKE_TEST_DATA_DIR) + "/" + c.name + ".exr";
        std::ifstream jf(std::string(BAKE_TEST_DATA_DIR) + "/reference/" + c.name + ".negatives-keep.json");
        REQUIRE(jf);
        const nlohmann::json ref = nlohmann::json::parse(jf);

        const LoadedImage loaded = load_image(path);
        const Image& img = loaded.image;
        REQUIRE(img.width == 512);
        REQUIRE(img.height == 256);
        REQUIRE(img.width == ref["width"].get<int>());
        REQUIRE(img.height == ref["height"].get<int>());

        double mn = 1e30, mx = -1e30;
        std::size_t negative_values = 0, negative_texels = 0, non_finite = 0;
        for (std::size_t i = 0; i < img.pixel_count(); ++i) {
            bool any = false;
            for (int k = 0; k < 3; ++k) {
                const float v = img.rgb[3 * i + static_cast<std::size_t>(k)];
                if (!std::isfinite(v)) ++non_finite;
                mn = std::min(mn, double(v));
                mx = std::max(mx, double(v));
                if (v < 0) {
                    ++negative_values;
                    any = true;
                }
            }
            negative_texels += any;
        }
        CHECK(non_finite == 0);
        // Half values: the minimum is exact (the JSON's -25.53125 is what "-25.5" rounds).
        CHECK(mn == ref["min_value_in_file"].get<double>());
        CHECK(mn == Approx(c.documented_min).epsilon(0.002));
        if (c.documented_peak > 0) CHECK(mx == Approx(c.documented_peak).epsilon(0.03));
        // negative_values_in_file counts channel values, not texels: sky has 33 negative values
        // in 11 texels, warehouse 2383 in 861, esplanade 5054 in 2866 (texel counts never match).
        CAPTURE(negative_values, negative_texels);
        CHECK(negative_texels < negative_values);
        CHECK(negative_values == ref["negative_values_in_file"].get<std::size_t>());
    }
}

TEST_CASE("image_io: write_exr writes RGB float ZIP, bit-exact, with the envmap attribute", "[image_io]") {
    const std::string dir = scratch("image_io_write_exr");
    const int w = 37, h = 19;  // odd sizes: not a multiple of ZIP's 16-line blocks
    Image img(w, h);
    const std::vector<float> values = random_values(img.rgb.size(), 7);
    img.rgb.assign(values.begin(), values.end());
    // Values a careless writer would lose: subnormal, huge, signed zero, infinity, NaN.
    img.rgb[0] = std::numeric_limits<float>::denorm_min();
    img.rgb[1] = 3.0e38f;
    img.rgb[2] = -0.0f;
    img.rgb[3] = std::numeric_limits<float>::infinity();
    img.rgb[4] = std::numeric_limits<float>::quiet_NaN();
    img.rgb[5] = 1.0f + std::numeric_limits<float>::epsilon();  // not representable in half

    const std::pair<EnvmapHint, const char*> hints[] = {
        {EnvmapHint::None, "none"}, {EnvmapHint::LatLong, "latlong"}, {EnvmapHint::Cube, "cube"}};
    for (const auto& [hint, name] : hints) {
        INFO(name);
        const std::string path = dir + "/out_" + name + ".exr";
        bake::write_exr(path, img, hint);

        // Read back through load_image...
        const LoadedImage back = load_image(path);
        REQUIRE(back.image.width == w);
        REQUIRE(back.image.height == h);
        REQUIRE(back.envmap == hint);
        for (std::size_t i = 0; i < img.rgb.size(); ++i) {
            INFO("value " << i);
            REQUIRE(bits(back.image.rgb[i]) == bits(img.rgb[i]));
        }

        // ...and through OpenEXR directly: channel types, compression, attribute, values.
        Imf::InputFile in(path.c_str());
        const Imf::Header& hd = in.header();
        CHECK(hd.compression() == Imf::ZIP_COMPRESSION);
        int n_channels = 0;
        for (auto it = hd.channels().begin(); it != hd.channels().end(); ++it) {
            ++n_channels;
            CHECK(it.channel().type == Imf::FLOAT);
        }
        CHECK(n_channels == 3);
        REQUIRE(hd.channels().findChannel("R"));
        REQUIRE(hd.channels().findChannel("G"));
        REQUIRE(hd.channels().findChannel("B"));
        CHECK(Imf::hasEnvmap(hd) == (hint != EnvmapHint::None));
        if (hint == EnvmapHint::LatLong) CHECK(Imf::envmap(hd) == Imf::ENVMAP_LATLONG);
        if (hint == EnvmapHint::Cube) CHECK(Imf::envmap(hd) == Imf::ENVMAP_CUBE);
        std::vector<float> g(static_cast<std::size_t>(w) * h);
        Imf::FrameBuffer fb;
        fb.insert("G", Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(g.data()), 4, 4 * w));
        in.setFrameBuffer(fb);
        in.readPixels(0, h - 1);
        for (std::size_t i = 0; i < g.size(); ++i) REQUIRE(bits(g[i]) == bits(img.rgb[3 * i + 1]));

        // An ordinary file: readable by others (0666 minus the umask), no temporary left over.
        const mode_t mask = ::umask(0);
        ::umask(mask);
        struct stat st {};
        REQUIRE(::stat(path.c_str(), &st) == 0);
        CHECK((st.st_mode & 0777) == (0666 & ~mask));
    }
    std::size_t entries = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        INFO(e.path().string());
        CHECK(e.path().filename().string().rfind("out_", 0) == 0);
        ++entries;
    }
    CHECK(entries == 3);

    // Overwriting an existing output replaces it.
    Image small(2, 1);
    small.rgb = {1, 2, 3, 4, 5, 6};
    bake::write_exr(dir + "/out_none.exr", small, EnvmapHint::None);
    CHECK(load_image(dir + "/out_none.exr").image.rgb == small.rgb);
}

TEST_CASE("image_io: write_exr failures are one-line OutputErrors and leave nothing behind", "[image_io]") {
    const std::string dir = scratch("image_io_write_exr_fail");
    Image img(4, 2);
    auto require_output_error = [](const std::string& path, const Image& im) {
        try {
            bake::write_exr(path, im, EnvmapHint::None);
            FAIL("no error writing " << path);
        } catch (const bake::OutputError& e) {
            const std::string msg = e.what();
            INFO(msg);
            CHECK(msg.rfind(path + ": ", 0) == 0);
            CHECK(msg.find('\n') == std::string::npos);
        }
    };
    require_output_error(dir + "/no_such_folder/out.exr", img);
    fs::create_directories(dir + "/a_folder.exr");
    require_output_error(dir + "/a_folder.exr", img);
    write_text(dir + "/plain_file", "x");
    require_output_error(dir + "/plain_file/out.exr", img);
    CHECK(fs::is_directory(dir + "/a_folder.exr"));
    std::size_t entries = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        (void)e;
        ++entries;
    }
    CHECK(entries == 2);  // a_folder.exr and plain_file: no temporaries
}

TEST_CASE("image_io: every EXR compression, half, float and uint, read through load_image", "[image_io]") {
    const std::string dir = scratch("image_io_compressions");
    const int w = 45, h = 38;  // several blocks for every codec (ZIP 16 lines, PIZ/B44/DWAA 32, DWAB 256)
    const Imath::Box2i dw(Imath::V2i(0, 0), Imath::V2i(w - 1, h - 1));
    struct Comp {
        Imf::Compression c;
        const char* name;
    };
    const Comp comps[] = {{Imf::NO_COMPRESSION, "NONE"}, {Imf::RLE_COMPRESSION, "RLE"},
                          {Imf::ZIPS_COMPRESSION, "ZIPS"}, {Imf::ZIP_COMPRESSION, "ZIP"},
                          {Imf::PIZ_COMPRESSION, "PIZ"},   {Imf::PXR24_COMPRESSION, "PXR24"},
                          {Imf::B44_COMPRESSION, "B44"},   {Imf::B44A_COMPRESSION, "B44A"},
                          {Imf::DWAA_COMPRESSION, "DWAA"}, {Imf::DWAB_COMPRESSION, "DWAB"}};
    const std::pair<Imf::PixelType, const char*> types[] = {
        {Imf::HALF, "half"}, {Imf::FLOAT, "float"}, {Imf::UINT, "uint"}};
    for (const Comp& comp : comps)
        for (const auto& [type, tname] : types) {
            // Which codecs lose data (OpenEXR's documentation, and checked by the !exact test
            // below): PXR24 rounds FLOAT to 24 bits; B44/B44A are lossy on HALF only; DWAA/DWAB
            // quantise R, G, B whether HALF or FLOAT (FLOAT goes through half). UINT is always kept
            // exactly. Lossless cases use random values over many magnitudes and signs and must
            // be bit-exact; lossy ones get a smooth image.
            const bool dwa = comp.c == Imf::DWAA_COMPRESSION || comp.c == Imf::DWAB_COMPRESSION;
            const bool b44 = comp.c == Imf::B44_COMPRESSION || comp.c == Imf::B44A_COMPRESSION;
            const bool lossy = (comp.c == Imf::PXR24_COMPRESSION && type == Imf::FLOAT) ||
                               (b44 && type == Imf::HALF) || (dwa && type != Imf::UINT);
            INFO(comp.name << " " << tname << (lossy ? " (lossy)" : " (lossless)"));
            const std::string path = dir + "/" + comp.name + "_" + tname + ".exr";
            std::vector<Plane> planes = rgb_planes(type, w, h, lossy, 100u + static_cast<unsigned>(comp.c));
            write_scanline_exr(path, planes, dw, comp.c);

            const LoadedImage loaded = load_image(path);
            REQUIRE(loaded.image.width == w);
            REQUIRE(loaded.image.height == h);
            CHECK(loaded.envmap == EnvmapHint::None);
            const Diff d = compare_rgb(loaded.image, planes);
            CAPTURE(d.max_abs, d.max_rel);
            if (!lossy) {
                CHECK(d.exact);
            } else if (comp.c == Imf::PXR24_COMPRESSION) {
                // 24-bit float keeps 15 mantissa bits: relative rounding error <= 2^-16 (x2 margin).
                for (std::size_t i = 0; i < loaded.image.pixel_count(); ++i)
                    for (int c = 0; c < 3; ++c) {
                        const double want = planes[static_cast<std::size_t>(c)].expect[i];
                        REQUIRE(std::fabs(loaded.image.rgb[3 * i + static_cast<std::size_t>(c)] - want) <=
                                std::fabs(want) * std::ldexp(1.0, -15));
                    }
            } else {
                // B44 (4x4 blocks, 6-bit deltas in a log-like space) and DWA (DCT, default quality
                // 45) on this smooth image: max |error| within 2% of its peak (~10). Measured with
                // OpenEXR 3.1.5: B44/B44A 0.31%, DWAA/DWAB about 1.2%.
                CHECK(d.max_rel < 0.02);
                CHECK(!d.exact);  // proves the lossy codec really ran
            }
        }
}

TEST_CASE("image_io: tiled EXRs, one level, mipmaps and ripmaps: level 0 is read", "[image_io]") {
    const std::string dir = scratch("image_io_tiled");
    const int w = 50, h = 27;  // not multiples of the 16x16 tiles
    const std::pair<Imf::LevelMode, const char*> modes[] = {
        {Imf::ONE_LEVEL, "one_level"}, {Imf::MIPMAP_LEVELS, "mipmap"}, {Imf::RIPMAP_LEVELS, "ripmap"}};
    for (const auto& [mode, mname] : modes)
        for (Imf::Compression comp : {Imf::ZIP_COMPRESSION, Imf::PIZ_COMPRESSION, Imf::NO_COMPRESSION})
            for (Imf::PixelType type : {Imf::HALF, Imf::FLOAT}) {
                INFO(mname << " compression " << int(comp) << " type " << int(type));
                const std::string path = dir + "/" + mname + "_" + std::to_string(int(comp)) + "_" +
                                         std::to_string(int(type)) + ".exr";
                Imf::Header header(w, h);
                header.compression() = comp;
                for (const char* n : {"R", "G", "B"}) header.channels().insert(n, Imf::Channel(type));
                header.setTileDescription(Imf::TileDescription(16, 16, mode, Imf::ROUND_DOWN));
                std::vector<Plane> level0 = rgb_planes(type, w, h, false, 9);
                {
                    Imf::TiledOutputFile out(path.c_str(), header);
                    auto write_level = [&](int lx, int ly) {
                        const Imath::Box2i ldw = out.dataWindowForLevel(lx, ly);
                        const int lw = ldw.max.x - ldw.min.x + 1, lh = ldw.max.y - ldw.min.y + 1;
                        // Other levels hold a value level 0 never has: reading one would show.
                        std::vector<Plane> other;
                        for (const char* n : {"R", "G", "B"})
                            other.emplace_back(n, type, std::vector<float>(static_cast<std::size_t>(lw) * lh, 777.0f));
                        std::vector<Plane>& planes = (lx == 0 && ly == 0) ? level0 : other;
                        out.setFrameBuffer(frame_buffer(planes, ldw));
                        out.writeTiles(0, out.numXTiles(lx) - 1, 0, out.numYTiles(ly) - 1, lx, ly);
                    };
                    if (mode == Imf::RIPMAP_LEVELS) {
                        for (int ly = 0; ly < out.numYLevels(); ++ly)
                            for (int lx = 0; lx < out.numXLevels(); ++lx) write_level(lx, ly);
                    } else {
                        for (int l = 0; l < out.numLevels(); ++l) write_level(l, l);
                    }
                    if (mode != Imf::ONE_LEVEL) REQUIRE(out.numXLevels() > 1);
                }
                const LoadedImage loaded = load_image(path);
                REQUIRE(loaded.image.width == w);
                REQUIRE(loaded.image.height == h);
                CHECK(compare_rgb(loaded.image, level0).exact);
            }
}

TEST_CASE("image_io: Y-only, RGBA, luminance/chroma, uint, partial RGB", "[image_io]") {
    const std::string dir = scratch("image_io_channels");
    const int w = 24, h = 12;
    const Imath::Box2i dw(Imath::V2i(0, 0), Imath::V2i(w - 1, h - 1));

    SECTION("Y only reads as grey") {
        std::vector<Plane> planes;
        planes.emplace_back("Y", Imf::FLOAT, random_values(w * h, 3));
        write_scanline_exr(dir + "/y.exr", planes, dw, Imf::ZIP_COMPRESSION);
        const Image img = load_image(dir + "/y.exr").image;
        for (std::size_t i = 0; i < img.pixel_count(); ++i)
            for (int c = 0; c < 3; ++c) REQUIRE(bits(img.rgb[3 * i + static_cast<std::size_t>(c)]) == bits(planes[0].expect[i]));
    }
    SECTION("RGBA: alpha is ignored") {
        std::vector<Plane> planes = rgb_planes(Imf::HALF, w, h, false, 4);
        planes.emplace_back("A", Imf::HALF, std::vector<float>(w * h, 0.25f));
        write_scanline_exr(dir + "/rgba.exr", planes, dw, Imf::PIZ_COMPRESSION);
        CHECK(compare_rgb(load_image(dir + "/rgba.exr").image, planes).exact);
    }
    SECTION("luminance/chroma (RgbaOutputFile WRITE_YC): a grey image comes back grey") {
        // Chroma is sub-sampled and everything is half. For grey input the chroma is ~0, so the
        // result is grey to within a few half ulps of the input (half's ulp is 2^-10 relative;
        // measured up to 3 ulps from the Y/RY/BY round trip): tolerance 1%.
        std::vector<Imf::Rgba> px(static_cast<std::size_t>(w) * h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const float v = smooth_value(x, y, 0);
                px[static_cast<std::size_t>(y) * w + x] = Imf::Rgba(v, v, v, 1.0f);
            }
        {
            Imf::RgbaOutputFile out((dir + "/yc.exr").c_str(), w, h, Imf::WRITE_YC);
            out.setFrameBuffer(px.data(), 1, w);
            out.writePixels(h);
        }
        const Image img = load_image(dir + "/yc.exr").image;
        for (std::size_t i = 0; i < img.pixel_count(); ++i)
            for (int c = 0; c < 3; ++c)
                REQUIRE(img.rgb[3 * i + static_cast<std::size_t>(c)] ==
                        Approx(float(px[i].r)).epsilon(0.01));
    }
    SECTION("uint channels convert to float exactly") {
        std::vector<Plane> planes = rgb_planes(Imf::UINT, w, h, false, 5);
        write_scanline_exr(dir + "/uint.exr", planes, dw, Imf::ZIP_COMPRESSION);
        CHECK(compare_rgb(load_image(dir + "/uint.exr").image, planes).exact);
    }
    SECTION("only R and G: an error naming the channels (issue 18 #9: B read as 0)") {
        std::vector<Plane> planes = rgb_planes(Imf::FLOAT, w, h, false, 6);
        planes.pop_back();
        write_scanline_exr(dir + "/rg.exr", planes, dw, Imf::ZIP_COMPRESSION);
        const std::string msg = require_input_error(dir + "/rg.exr");
        CHECK(contains(msg, "has only some of the R, G and B channels (channels: G, R)"));
    }
    SECTION("no colour channel at all is an error") {
        std::vector<Plane> planes;
        planes.emplace_back("Z", Imf::FLOAT, random_values(w * h, 8));
        write_scanline_exr(dir + "/z.exr", planes, dw, Imf::ZIP_COMPRESSION);
        const std::string msg = require_input_error(dir + "/z.exr");
        CHECK(contains(msg, "Z"));
    }
}

TEST_CASE("image_io: data window off the origin, envmap attribute, multi-part", "[image_io]") {
    const std::string dir = scratch("image_io_windows");
    SECTION("data window not at the origin, display window elsewhere") {
        const Imath::Box2i dw(Imath::V2i(-7, 5), Imath::V2i(-7 + 30 - 1, 5 + 11 - 1));
        const Imath::Box2i display(Imath::V2i(0, 0), Imath::V2i(99, 99));
        std::vector<Plane> planes = rgb_planes(Imf::FLOAT, 30, 11, false, 11);
        write_scanline_exr(dir + "/offset.exr", planes, dw, Imf::ZIP_COMPRESSION, &display);
        const Image img = load_image(dir + "/offset.exr").image;
        REQUIRE(img.width == 30);
        REQUIRE(img.height == 11);
        CHECK(compare_rgb(img, planes).exact);
    }
    SECTION("envmap attribute written by OpenEXR itself") {
        const Imath::Box2i dw(Imath::V2i(0, 0), Imath::V2i(7, 47));
        for (Imf::Envmap e : {Imf::ENVMAP_LATLONG, Imf::ENVMAP_CUBE}) {
            std::vector<Plane> planes = rgb_planes(Imf::HALF, 8, 48, false, 12);
            const std::string path = dir + "/env" + std::to_string(int(e)) + ".exr";
            write_scanline_exr(path, planes, dw, Imf::ZIP_COMPRESSION, nullptr,
                               [e](Imf::Header& hd) { Imf::addEnvmap(hd, e); });
            CHECK(load_image(path).envmap == (e == Imf::ENVMAP_CUBE ? EnvmapHint::Cube : EnvmapHint::LatLong));
        }
    }
    SECTION("multi-part: part 0 is read, and a note says so (issue 18 #9: silently)") {
        const int w = 16, h = 8;
        const Imath::Box2i dw(Imath::V2i(0, 0), Imath::V2i(w - 1, h - 1));
        std::vector<Plane> p0 = rgb_planes(Imf::FLOAT, w, h, false, 13);
        std::vector<Plane> p1 = rgb_planes(Imf::FLOAT, w, h, false, 14);
        std::vector<Imf::Header> headers(2, Imf::Header(w, h));
        for (int i = 0; i < 2; ++i) {
            headers[static_cast<std::size_t>(i)].setName(i == 0 ? "first" : "second");
            headers[static_cast<std::size_t>(i)].setType(Imf::SCANLINEIMAGE);
            for (const char* n : {"R", "G", "B"})
                headers[static_cast<std::size_t>(i)].channels().insert(n, Imf::Channel(Imf::FLOAT));
        }
        {
            Imf::MultiPartOutputFile out((dir + "/multi.exr").c_str(), headers.data(), 2);
            Imf::OutputPart part0(out, 0), part1(out, 1);
            part0.setFrameBuffer(frame_buffer(p0, dw));
            part0.writePixels(h);
            part1.setFrameBuffer(frame_buffer(p1, dw));
            part1.writePixels(h);
        }
        const LoadedImage loaded = load_image(dir + "/multi.exr");
        CHECK(compare_rgb(loaded.image, p0).exact);
        REQUIRE(loaded.notes.size() == 1);
        CHECK(loaded.notes[0] == "a multi-part EXR of 2 parts: part 0 ('first') is baked");
        write_scanline_exr(dir + "/single.exr", p0, dw, Imf::ZIP_COMPRESSION);
        CHECK(load_image(dir + "/single.exr").notes.empty());
    }
}

TEST_CASE("image_io: .hdr written by stbi_write_hdr reads back within RGBE quantisation", "[image_io]") {
    const std::string dir = scratch("image_io_hdr");
    // 64x32 is written run-length encoded; 5x3 (width < 8) flat. RGBE stores a shared exponent e
    // (2^(e-1) <= max channel < 2^e) and 8-bit mantissas truncated by stb's writer, so each
    // channel comes back in (v - 2^(e-8), v]: an error below 1/256 of 2^e, i.e. below
    // max_channel/128 and at most 1/256 relative for the largest channel rounded up to a power
    // of two. Values below 2^-8 of the max channel may vanish entirely: allowed by that bound.
    for (const auto& [w, h] : {std::pair<int, int>{64, 32}, {5, 3}}) {
        INFO(w << "x" << h);
        std::vector<float> v = random_values(static_cast<std::size_t>(w) * h * 3, 21, true);
        v[0] = 0.0f;
        v[1] = 1.0e6f;
        v[2] = 1.0e-6f;
        const std::string path = dir + "/img" + std::to_string(w) + ".HDR";  // extension case-insensitive
        REQUIRE(stbi_write_hdr(path.c_str(), w, h, 3, v.data()));
        const LoadedImage loaded = load_image(path);
        REQUIRE(loaded.image.width == w);
        REQUIRE(loaded.image.height == h);
        CHECK(loaded.envmap == EnvmapHint::None);
        for (std::size_t i = 0; i < static_cast<std::size_t>(w) * h; ++i) {
            const float m = std::max({v[3 * i], v[3 * i + 1], v[3 * i + 2]});
            int e = 0;
            std::frexp(m, &e);
            const double step = std::ldexp(1.0, e - 8);
            for (std::size_t c = 0; c < 3; ++c) {
                const double got = loaded.image.rgb[3 * i + c], want = v[3 * i + c];
                INFO("pixel " << i << " channel " << c << " want " << want << " got " << got);
                REQUIRE(got <= want * (1 + 1e-7) + 1e-30);
                REQUIRE(want - got < step * (1 + 1e-7));
            }
        }
    }
}

TEST_CASE("image_io: assets/sample_sky.hdr is a 2:1 sky with the sun where its README says", "[image_io]") {
    const LoadedImage loaded = load_image(std::string(BAKE_ASSETS_DIR) + "/sample_sky.hdr");
    const Image& img = loaded.image;
    REQUIRE(img.width == 2 * img.height);
    REQUIRE(img.width == 512);
    // Brightest texel: in the disc around u = 0.625, v = 55/180 (column 320, row 78).
    std::size_t best = 0;
    for (std::size_t i = 0; i < img.pixel_count(); ++i)
        if (img.rgb[3 * i] > img.rgb[3 * best]) best = i;
    const int row = static_cast<int>(best / static_cast<std::size_t>(img.width));
    const int col = static_cast<int>(best % static_cast<std::size_t>(img.width));
    CHECK(std::abs(col - 320) <= 2);
    CHECK(std::abs(row - 78) <= 2);
    CHECK(img.rgb[3 * best] > 4000.0f);
    // Sky above the horizon is blue-ish and brighter than the ground below it.
    const float* zenith = img.at(0, 100);
    CHECK(zenith[2] > zenith[0]);
    const float* ground = img.at(img.height - 1, 100);
    CHECK(ground[0] > ground[2]);  // brown
    CHECK(ground[0] + ground[1] + ground[2] < zenith[0] + zenith[1] + zenith[2]);
    for (float x : img.rgb) REQUIRE((std::isfinite(x) && x >= 0.0f));
}

TEST_CASE("image_io: missing, directory, empty, wrong magic, unknown extension", "[image_io]") {
    const std::string dir = scratch("image_io_basic_errors");
    CHECK(contains(require_input_error(dir + "/missing.exr"), "no such file"));
    CHECK(contains(require_input_error(dir + "/missing.hdr"), "no such file"));
    fs::create_directories(dir + "/folder.exr");
    CHECK(contains(require_input_error(dir + "/folder.exr"), "directory"));
    fs::create_directories(dir + "/folder.hdr");
    CHECK(contains(require_input_error(dir + "/folder.hdr"), "directory"));
    write_text(dir + "/empty.exr", "");
    CHECK(contains(require_input_error(dir + "/empty.exr"), "empty"));
    write_text(dir + "/empty.hdr", "");
    CHECK(contains(require_input_error(dir + "/empty.hdr"), "empty"));
    write_text(dir + "/png.exr", "\x89PNG\r\n\x1a\n0000000000000000000000000000");
    CHECK(contains(require_input_error(dir + "/png.exr"), "not an OpenEXR file"));
    write_text(dir + "/abc.exr", "ab");
    CHECK(contains(require_input_error(dir + "/abc.exr"), "not an OpenEXR file"));
    write_text(dir + "/text.hdr", "hello, world\nthis is not an image\n");
    CHECK(contains(require_input_error(dir + "/text.hdr"), "not a Radiance HDR file"));
    // An EXR under a .hdr name and vice versa: the extension decides, the magic disagrees.
    Image img(4, 2);
    bake::write_exr(dir + "/real.exr", img, EnvmapHint::None);
    fs::copy_file(dir + "/real.exr", dir + "/exr_as.hdr");
    require_input_error(dir + "/exr_as.hdr");
    REQUIRE(stbi_write_hdr((dir + "/real.hdr").c_str(), 4, 2, 3, img.rgb.data()));
    fs::copy_file(dir + "/real.hdr", dir + "/hdr_as.exr");
    require_input_error(dir + "/hdr_as.exr");
    // Unknown extensions, whatever the content.
    fs::copy_file(dir + "/real.exr", dir + "/real.png");
    CHECK(contains(require_input_error(dir + "/real.png"), "unsupported file type '.png' (expected .hdr or .exr)"));
    fs::copy_file(dir + "/real.exr", dir + "/noext");
    CHECK(contains(require_input_error(dir + "/noext"), "unsupported file type"));
    fs::copy_file(dir + "/real.exr", dir + "/real.exr.bak");
    CHECK(contains(require_input_error(dir + "/real.exr.bak"), "'.bak'"));
    require_input_error(dir + "/missing.xyz");
    // Upper-case extensions are fine.
    fs::copy_file(dir + "/real.exr", dir + "/UPPER.EXR");
    CHECK(load_image(dir + "/UPPER.EXR").image.width == 4);
}

TEST_CASE("image_io: truncated .hdr files are rejected at every cut point", "[image_io]") {
    // stb alone would pad a short file with zeros, or spin forever inside an RLE scanline.
    const std::string dir = scratch("image_io_truncated_hdr");
    for (const auto& [w, h] : {std::pair<int, int>{64, 32}, {5, 3}}) {
        std::vector<float> v = random_values(static_cast<std::size_t>(w) * h * 3, 31, true);
        const std::string full = dir + "/full" + std::to_string(w) + ".hdr";
        REQUIRE(stbi_write_hdr(full.c_str(), w, h, 3, v.data()));
        REQUIRE(load_image(full).image.width == w);
        const std::vector<char> bytes = read_bytes(full);
        const std::string text(bytes.begin(), bytes.end());
        const std::size_t header_end = text.find("+X ") + 3;  // resolution line, before its number ends
        REQUIRE(header_end > 3);
        const auto t0 = std::chrono::steady_clock::now();
        for (std::size_t cut : cut_points(bytes.size(), header_end)) {
            INFO(w << "x" << h << " cut at " << cut << " of " << bytes.size());
            const std::string path = dir + "/cut.hdr";
            write_bytes(path, bytes, cut);
            const std::string msg = require_input_error(path);
            if (cut > header_end + 8) CHECK(contains(msg, "truncated"));
        }
        CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20));
    }

    // A 16x2 file stored flat (no RLE; legal, and the other path through stb's decoder): every
    // pixel is RGBE (128, 64, 32, 129) = (1, 0.5, 0.25) since value = byte * 2^(exponent - 136).
    std::string flat = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 2 +X 16\n";
    const std::size_t flat_header = flat.size();
    for (int i = 0; i < 32; ++i) flat += std::string("\x80\x40\x20\x81", 4);
    write_text(dir + "/flat.hdr", flat);
    const Image img = load_image(dir + "/flat.hdr").image;
    REQUIRE(img.width == 16);
    for (std::size_t i = 0; i < img.pixel_count(); ++i) {
        REQUIRE(img.rgb[3 * i] == 1.0f);
        REQUIRE(img.rgb[3 * i + 1] == 0.5f);
        REQUIRE(img.rgb[3 * i + 2] == 0.25f);
    }
    for (std::size_t cut = flat_header; cut < flat.size(); cut += 3) {
        INFO("flat 16x2 cut at " << cut << " of " << flat.size());
        write_text(dir + "/cut.hdr", flat.substr(0, cut));
        CHECK(contains(require_input_error(dir + "/cut.hdr"), "truncated"));
    }
}

TEST_CASE("image_io: truncated .exr files are rejected at every cut point", "[image_io]") {
    const std::string dir = scratch("image_io_truncated_exr");
    // A scanline file with one line per chunk (ZIPS), a tiled one, and a real DWAB map.
    const int w = 40, h = 24;
    const Imath::Box2i dw(Imath::V2i(0, 0), Imath::V2i(w - 1, h - 1));
    std::vector<Plane> planes = rgb_planes(Imf::HALF, w, h, false, 41);
    write_scanline_exr(dir + "/scan.exr", planes, dw, Imf::ZIPS_COMPRESSION);
    {
        Imf::Header header(w, h);
        for (const char* n : {"R", "G", "B"}) header.channels().insert(n, Imf::Channel(Imf::HALF));
        header.setTileDescription(Imf::TileDescription(8, 8, Imf::MIPMAP_LEVELS));
        Imf::TiledOutputFile out((dir + "/tiled.exr").c_str(), header);
        for (int l = 0; l < out.numLevels(); ++l) {
            const Imath::Box2i ldw = out.dataWindowForLevel(l);
            std::vector<Plane> lp = rgb_planes(Imf::HALF, ldw.max.x + 1, ldw.max.y + 1, false, 42);
            out.setFrameBuffer(frame_buffer(lp, ldw));
            out.writeTiles(0, out.numXTiles(l) - 1, 0, out.numYTiles(l) - 1, l);
        }
    }
    const std::string sources[] = {dir + "/scan.exr", dir + "/tiled.exr",
                                   std::string(BAKE_TEST_DATA_DIR) + "/pmndrs_sky.exr"};
    for (const std::string& src : sources) {
        REQUIRE(load_image(src).image.width > 0);
        const std::vector<char> bytes = read_bytes(src);
        // Byte-by-byte (then every 7th) cuts up to the dataWindow attribute, well inside the
        // header; then 20 cuts spread over the rest (header end, offset table, pixel chunks).
        const std::size_t header_end = data_window_offset(bytes);
        for (std::size_t cut : cut_points(bytes.size(), header_end)) {
            INFO(src << " cut at " << cut << " of " << bytes.size());
            const std::string path = dir + "/cut.exr";
            write_bytes(path, bytes, cut);
            require_input_error(path);
        }
    }
}

TEST_CASE("image_io: sizes beyond max_pixels are refused from the header, before decoding", "[image_io]") {
    const std::string dir = scratch("image_io_limits");
    SECTION(".exr claiming 100000x100000") {
        Image img(8, 4);
        bake::write_exr(dir + "/small.exr", img, EnvmapHint::None);
        std::vector<char> bytes = read_bytes(dir + "/small.exr");
        const std::size_t at = data_window_offset(bytes);
        patch_int(bytes, at + 8, 99999);   // xMax
        patch_int(bytes, at + 12, 99999);  // yMax
        write_bytes(dir + "/huge.exr", bytes);
        const auto t0 = std::chrono::steady_clock::now();
        const std::string msg = require_input_error(dir + "/huge.exr");
        CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
        CHECK(contains(msg, "100000x100000"));
        CHECK(contains(msg, "10000000000"));
        CHECK(contains(msg, std::to_string(bake::kDefaultMaxPixels)));
    }
    SECTION(".hdr claiming 100000x100000") {
        write_text(dir + "/huge.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 100000 +X 100000\n\x02\x02");
        const std::string msg = require_input_error(dir + "/huge.hdr");
        CHECK(contains(msg, "100000x100000"));
        CHECK(contains(msg, "limit"));
    }
    SECTION("the limit is checked before the pixel data is looked at") {
        // Headers of 4096x4096 followed by almost nothing: decoding would fail with "truncated";
        // with a limit of 1000 pixels the message must be about the limit instead.
        write_text(dir + "/claims.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 4096 +X 4096\n\x02\x02\x10");
        CHECK(contains(require_input_error(dir + "/claims.hdr", 1000), "more than the limit of 1000 pixels"));
        CHECK(contains(require_input_error(dir + "/claims.hdr"), "truncated"));
        Image img(8, 4);
        bake::write_exr(dir + "/small.exr", img, EnvmapHint::None);
        std::vector<char> bytes = read_bytes(dir + "/small.exr");
        const std::size_t at = data_window_offset(bytes);
        patch_int(bytes, at + 8, 4095);
        patch_int(bytes, at + 12, 4095);
        write_bytes(dir + "/claims.exr", bytes);
        CHECK(contains(require_input_error(dir + "/claims.exr", 1000), "more than the limit of 1000 pixels"));
        require_input_error(dir + "/claims.exr");  // within the default limit, but the data is missing
    }
    SECTION("exactly max_pixels is allowed, one more is not") {
        Image img(8, 4);
        bake::write_exr(dir + "/32.exr", img, EnvmapHint::None);
        CHECK(load_image(dir + "/32.exr", 32).image.pixel_count() == 32);
        CHECK(contains(require_input_error(dir + "/32.exr", 31), "8x4 = 32 pixels"));
        REQUIRE(stbi_write_hdr((dir + "/32.hdr").c_str(), 8, 4, 3, img.rgb.data()));
        CHECK(load_image(dir + "/32.hdr", 32).image.pixel_count() == 32);
        CHECK(contains(require_input_error(dir + "/32.hdr", 31), "8x4 = 32 pixels"));
    }
    SECTION("zero and negative sizes") {
        write_text(dir + "/zero.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 0 +X 0\n");
        CHECK(contains(require_input_error(dir + "/zero.hdr"), "0x0"));
        write_text(dir + "/neg.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y -5 +X 10\n\x02\x02");
        require_input_error(dir + "/neg.hdr");
        Image img(8, 4);
        bake::write_exr(dir + "/small.exr", img, EnvmapHint::None);
        std::vector<char> bytes = read_bytes(dir + "/small.exr");
        const std::size_t at = data_window_offset(bytes);
        patch_int(bytes, at + 8, -1);  // xMax < xMin = 0: width 0
        write_bytes(dir + "/zero_width.exr", bytes);
        CHECK(contains(require_input_error(dir + "/zero_width.exr"), "0x4"));
        patch_int(bytes, at + 0, 1000000);  // xMin far beyond xMax: negative width
        write_bytes(dir + "/negative.exr", bytes);
        require_input_error(dir + "/negative.exr");
    }
}

TEST_CASE("image_io: read_image_size reads the header's size only, and nothing from other files", "[image_io]") {
    const std::string dir = scratch("image_io_image_size");
    const Image img(10, 6);
    REQUIRE(stbi_write_hdr((dir + "/a.hdr").c_str(), 10, 6, 3, img.rgb.data()));
    write_exr(dir + "/a.exr", Image(12, 5), EnvmapHint::None);
    CHECK(bake::read_image_size(dir + "/a.hdr") == std::make_pair(10, 6));
    CHECK(bake::read_image_size(dir + "/a.exr") == std::make_pair(12, 5));
    // The header alone is enough: the pixels may be missing.
    const std::vector<char> hdr = read_bytes(dir + "/a.hdr");
    const std::string text(hdr.begin(), hdr.end());
    write_bytes(dir + "/header_only.hdr", hdr, text.find("+X 10\n") + 6);
    CHECK(bake::read_image_size(dir + "/header_only.hdr") == std::make_pair(10, 6));
    write_text(dir + "/bad.hdr", "#?RADIANCE\nno format\n\n-Y 2 +X 4\n");
    write_text(dir + "/bad.exr", "not an exr");
    write_text(dir + "/a.png", "whatever");
    for (const char* name : {"/bad.hdr", "/bad.exr", "/a.png", "/missing.hdr"}) CHECK_FALSE(bake::read_image_size(dir + name));
}
