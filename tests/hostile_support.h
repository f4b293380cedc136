#pragma once
// Helpers of the hostile-input tests (test_hostile_inputs.cpp, test_hostile_files.cpp): a scratch
// folder, refusals and bakes checked through the binary, cut points, constant skies.
#include <catch2/catch.hpp>

// stb_image_write, a private (static) copy in each test file that includes this header.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC  // private copy, other test files embed stb too
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_image_write.h>
#pragma GCC diagnostic pop

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <Imath/half.h>
#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfOutputFile.h>
#include <OpenEXR/ImfTiledOutputFile.h>


#include "cli_runner.h"
#include "errors.h"
#include "image_io.h"
#include "test_support.h"

using namespace bake;
using namespace bake::test;
namespace fs = std::filesystem;


namespace hostile_test {


inline const std::string kTool = "bake-irradiance: ";

// A case folder holding the inputs, with an empty out/ folder for the outputs.
struct Scratch {
    std::string dir, out;
    explicit Scratch(const std::string& name) : dir("hostile_" + name), out("hostile_" + name + "/out") {
        fs::remove_all(dir);
        fs::create_directories(out);
    }
};

inline std::size_t entries(const std::string& dir) {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

inline std::string listing(const std::string& dir) {
    std::string s;
    for (const auto& e : fs::directory_iterator(dir)) s += e.path().filename().string() + " ";
    return s;
}

// The refusal contract: the exit code, one stderr line "bake-irradiance: ...<mention>...",
// nothing on stdout, and `out_dir` (where the outputs would go) still empty: no output file and
// no temporary one.
inline void check_refused(const CliResult& r, int code, const std::string& mention, const std::string& out_dir) {
    INFO("stderr: " << r.err);
    CHECK(r.exit_code == code);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.rfind(kTool, 0) == 0);
    CHECK((!r.err.empty() && r.err.back() == '\n'));
    CHECK(r.err.find(mention) != std::string::npos);
    CHECK(r.out.empty());
    if (!out_dir.empty()) {
        INFO("left in " << out_dir << ": " << listing(out_dir));
        CHECK(entries(out_dir) == 0);
    }
}

// Success with a given number of stderr lines (warnings/notices), exactly `outputs` files in out_dir.
inline void check_baked(const CliResult& r, int stderr_lines, const std::string& out_dir, std::size_t outputs) {
    INFO("stderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(line_count(r.err) == stderr_lines);
    INFO("in " << out_dir << ": " << listing(out_dir));
    CHECK(entries(out_dir) == outputs);
}


// Offset of the dataWindow's four int32 (xMin, yMin, xMax, yMax) in an EXR header.
inline std::size_t data_window_offset(const std::vector<char>& bytes) {
    static const char key[] = "dataWindow\0box2i\0";
    const auto it = std::search(bytes.begin(), bytes.end(), key, key + sizeof key - 1);
    REQUIRE(it != bytes.end());
    return static_cast<std::size_t>(it - bytes.begin()) + (sizeof key - 1) + 4;
}
inline void patch_int(std::vector<char>& bytes, std::size_t at, std::int32_t v) { std::memcpy(&bytes[at], &v, 4); }

// Cut points: every `step`-th byte up to `dense_end`, then `spread` cuts over the rest, and size-1.
inline std::vector<std::size_t> cut_points(std::size_t size, std::size_t dense_end, std::size_t step, int spread) {
    std::vector<std::size_t> cuts;
    for (std::size_t n = 1; n < dense_end && n < size; n += step) cuts.push_back(n);
    for (int k = 0; k < spread; ++k)
        cuts.push_back(dense_end + (size - 1 - dense_end) * static_cast<std::size_t>(k) / static_cast<std::size_t>(spread));
    cuts.push_back(size - 1);
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    return cuts;
}

inline Image constant_image(int w, int h, float r, float g, float b) {
    Image img(w, h);
    for (std::size_t i = 0; i < img.pixel_count(); ++i) {
        img.rgb[3 * i] = r;
        img.rgb[3 * i + 1] = g;
        img.rgb[3 * i + 2] = b;
    }
    return img;
}

// An EXR written by OpenEXR itself: the named channels, each holding `value(channel index)`
// everywhere; optionally tiled (16x16) with one level or mip levels, where every level but 0
// holds 777 (reading the wrong level would show).
enum class Tiling { Scanline, OneLevel, Mipmap };
inline void write_constant_exr(const std::string& path, int w, int h, const std::vector<std::string>& names,
                        const std::vector<float>& values, Imf::PixelType type, Tiling tiling) {
    Imf::Header header(w, h);
    header.compression() = Imf::ZIP_COMPRESSION;
    for (const std::string& n : names) header.channels().insert(n, Imf::Channel(type));
    // One plane per channel in the file's own type (OpenEXR does not convert when writing).
    struct Plane {
        std::vector<float> f;
        std::vector<half> h;
    };
    auto planes_for = [&](int lw, int lh, bool level0) {
        std::vector<Plane> p(names.size());
        const std::size_t n = static_cast<std::size_t>(lw) * static_cast<std::size_t>(lh);
        for (std::size_t c = 0; c < names.size(); ++c) {
            const float v = level0 ? values[c] : 777.0f;
            if (type == Imf::HALF) p[c].h.assign(n, half(v));
            else p[c].f.assign(n, v);
        }
        return p;
    };
    auto frame_buffer = [&](std::vector<Plane>& planes, const Imath::Box2i& dw) {
        Imf::FrameBuffer fb;
        const std::size_t lw = static_cast<std::size_t>(dw.max.x - dw.min.x + 1), e = type == Imf::HALF ? 2 : 4;
        for (std::size_t c = 0; c < names.size(); ++c) {
            void* base = type == Imf::HALF ? static_cast<void*>(planes[c].h.data()) : planes[c].f.data();
            fb.insert(names[c], Imf::Slice::Make(type, base, dw, e, e * lw));
        }
        return fb;
    };
    if (tiling == Tiling::Scanline) {
        Imf::OutputFile out(path.c_str(), header);
        auto planes = planes_for(w, h, true);
        out.setFrameBuffer(frame_buffer(planes, header.dataWindow()));
        out.writePixels(h);
        return;
    }
    header.setTileDescription(Imf::TileDescription(
        16, 16, tiling == Tiling::Mipmap ? Imf::MIPMAP_LEVELS : Imf::ONE_LEVEL, Imf::ROUND_DOWN));
    Imf::TiledOutputFile out(path.c_str(), header);
    for (int l = 0; l < out.numLevels(); ++l) {
        const Imath::Box2i dw = out.dataWindowForLevel(l);
        auto planes = planes_for(dw.max.x - dw.min.x + 1, dw.max.y - dw.min.y + 1, l == 0);
        out.setFrameBuffer(frame_buffer(planes, dw));
        out.writeTiles(0, out.numXTiles(l) - 1, 0, out.numYTiles(l) - 1, l);
    }
}

// L_00 of a constant sky of value v, and a check that a baked JSON holds it per channel.
inline void check_constant_sky(const std::string& json_path, const Rgb& v) {
    const nlohmann::json j = read_json(json_path);
    const double sqrt_4pi = std::sqrt(4.0 * kPi);
    for (int c = 0; c < 3; ++c) {
        INFO("channel " << c);
        CHECK(j.at("radiance")[0][static_cast<std::size_t>(c)].get<double>() ==
              Approx(v[static_cast<std::size_t>(c)] * sqrt_4pi).epsilon(1e-12));
    }
}


}  // namespace hostile_test

using namespace hostile_test;
