#pragma once
// Helpers of the image_io tests (test_image_io.cpp, test_image_io_refusals.cpp): EXR planes written
// through OpenEXR's own API, values, comparisons and the byte surgery of damaged files.
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

namespace image_io_test {

// The load must fail with an InputError whose message is one line starting with "<path>: ".
inline std::string require_input_error(const std::string& path, std::uint64_t max_pixels = bake::kDefaultMaxPixels) {
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

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

inline std::uint32_t bits(float f) {
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

inline Imf::FrameBuffer frame_buffer(std::vector<Plane>& planes, const Imath::Box2i& dw) {
    Imf::FrameBuffer fb;
    const std::size_t w = static_cast<std::size_t>(dw.max.x - dw.min.x + 1);
    for (Plane& p : planes) fb.insert(p.name, Imf::Slice::Make(p.type, p.data(), dw, p.elem(), p.elem() * w));
    return fb;
}

// Smooth values in roughly [0.5, 10]: what a lossy codec is designed for.
inline float smooth_value(int x, int y, int c) {
    return 5.0f + 4.0f * std::sin(0.21f * x + 1.3f * c) * std::cos(0.17f * y - 0.4f * c) + 0.5f * c;
}

// Values spread over many magnitudes and signs (a lossless codec must return them exactly).
inline std::vector<float> random_values(std::size_t n, unsigned seed, bool non_negative = false) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> mant(non_negative ? 0.0f : -1.0f, 1.0f);
    std::uniform_int_distribution<int> ex(-8, 10);
    std::vector<float> v(n);
    for (float& x : v) x = std::ldexp(mant(rng), ex(rng));
    return v;
}

inline std::vector<float> smooth_values(int w, int h, int c) {
    std::vector<float> v;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) v.push_back(smooth_value(x, y, c));
    return v;
}

// Writes a scanline EXR with the given planes; returns the planes (with their expectations).
inline void write_scanline_exr(const std::string& path, std::vector<Plane>& planes, const Imath::Box2i& dw,
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

inline std::vector<Plane> rgb_planes(Imf::PixelType type, int w, int h, bool smooth, unsigned seed) {
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
inline Diff compare_rgb(const Image& img, const std::vector<Plane>& planes) {
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
inline std::size_t data_window_offset(const std::vector<char>& bytes) {
    static const char key[] = "dataWindow\0box2i\0";
    const auto it = std::search(bytes.begin(), bytes.end(), key, key + sizeof key - 1);
    REQUIRE(it != bytes.end());
    return static_cast<std::size_t>(it - bytes.begin()) + (sizeof key - 1) + 4;  // + int32 size
}
inline void patch_int(std::vector<char>& bytes, std::size_t at, std::int32_t v) {
    std::memcpy(&bytes[at], &v, 4);  // EXR is little-endian, as is every machine we run on
}

inline std::vector<std::size_t> cut_points(std::size_t size, std::size_t header_end) {
    std::vector<std::size_t> cuts;
    for (std::size_t n = 1; n < header_end && n < size; n += (n < 16 ? 1 : 7)) cuts.push_back(n);
    for (int k = 1; k <= 20; ++k) cuts.push_back(header_end + (size - 1 - header_end) * static_cast<std::size_t>(k) / 20);
    cuts.push_back(size - 1);
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    return cuts;
}


}  // namespace image_io_test

using namespace image_io_test;
