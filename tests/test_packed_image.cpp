// Packed texels (packed_image.h): loading an EXR's halves as they are, expanding them, and the
// texel policies on them, each against the float path it replaces.
#include <algorithm>
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfOutputFile.h>
#include <Imath/half.h>

#include "cli_runner.h"
#include "environment_loader.h"
#include "image_io.h"
#include "packed_image.h"
#include "texel_policy.h"

using namespace bake;
using bake::test::zero_packed_equirect;

namespace {

std::uint32_t bits_of(float v) {
    std::uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
}

// Writes an RGB EXR whose channels have the given pixel type, values from `rgb` (float).
void write_rgb_exr(const std::string& path, int w, int h, const std::vector<float>& rgb, Imf::PixelType type) {
    Imf::Header header(w, h);
    for (const char* c : {"R", "G", "B"}) header.channels().insert(c, Imf::Channel(type));
    Imf::OutputFile file(path.c_str(), header);
    Imf::FrameBuffer fb;
    std::vector<Imath::half> halves(rgb.begin(), rgb.end());
    const std::size_t size = type == Imf::HALF ? 2 : 4;
    char* base = type == Imf::HALF ? reinterpret_cast<char*>(halves.data())
                                   : reinterpret_cast<char*>(const_cast<float*>(rgb.data()));
    const std::size_t xs = 3 * size, ys = xs * static_cast<std::size_t>(w);
    fb.insert("R", Imf::Slice(type, base + 0 * size, xs, ys));
    fb.insert("G", Imf::Slice(type, base + 1 * size, xs, ys));
    fb.insert("B", Imf::Slice(type, base + 2 * size, xs, ys));
    file.setFrameBuffer(fb);
    file.writePixels(h);
}

}  // namespace

TEST_CASE("packed: half EXRs load as their halves, and expand to OpenEXR's own float decoding", "[packed]") {
    LoadOptions packed;
    packed.packed = true;
    for (const char* name : {"pmndrs_esplanade.exr", "pmndrs_sky.exr", "pmndrs_warehouse.exr"}) {
        CAPTURE(name);
        const std::string path = std::string(BAKE_TEST_DATA_DIR) + "/" + name;
        const Environment p = load_environment(path, packed);
        const Environment f = load_environment(path);
        REQUIRE(p.is_packed());
        CHECK(p.packed.encoding == TexelEncoding::Half);
        CHECK(p.width() == f.width());
        CHECK(p.height() == f.height());
        CHECK(p.texel_count() == f.texel_count());
        CHECK(p.packed.bytes.size() == 6 * f.texel_count());
        const Image e = expand_packed(p.packed, 3);
        REQUIRE(e.rgb.size() == f.equirect.rgb.size());
        std::size_t differing = 0;
        for (std::size_t i = 0; i < e.rgb.size(); ++i) differing += bits_of(e.rgb[i]) != bits_of(f.equirect.rgb[i]);
        CHECK(differing == 0);
        // The texel policies see the same values (these maps have negative texels).
        const TexelStats sp = scan_texels(p), sf = scan_texels(f);
        CHECK(sp.negative == sf.negative);
        CHECK(sp.negative > 0);
        CHECK(sp.min_value == sf.min_value);
        CHECK(sp.nonfinite == 0);
    }
}

TEST_CASE("packed: float EXRs, cube layouts and face files load as floats", "[packed]") {
    const std::string dir = bake::test::scratch("packed_layouts");
    const int w = 8, h = 4;
    std::vector<float> rgb(static_cast<std::size_t>(w) * h * 3);
    for (std::size_t i = 0; i < rgb.size(); ++i) rgb[i] = 0.25f * static_cast<float>(i % 17);
    write_rgb_exr(dir + "/float.exr", w, h, rgb, Imf::FLOAT);
    write_rgb_exr(dir + "/half.exr", w, h, rgb, Imf::HALF);
    std::vector<float> strip(static_cast<std::size_t>(4) * 24 * 3, 1.5f);
    write_rgb_exr(dir + "/vstrip.exr", 4, 24, strip, Imf::HALF);
    LoadOptions packed;
    packed.packed = true;
    CHECK_FALSE(load_environment(dir + "/float.exr", packed).is_packed());
    const Environment halves = load_environment(dir + "/half.exr", packed);
    REQUIRE(halves.is_packed());
    const bake::Image expanded = expand_packed(halves.packed);
    CHECK(std::equal(rgb.begin(), rgb.end(), expanded.rgb.begin(), expanded.rgb.end()));  // these values are exact in half
    const Environment cube = load_environment(dir + "/vstrip.exr", packed);
    CHECK_FALSE(cube.is_packed());
    CHECK(cube.is_cube());
    CHECK(cube.cube.size == 4);
    CHECK(cube.cube.faces[5].rgb == bake::FloatTexels(4 * 4 * 3, 1.5f));
}

TEST_CASE("packed: half texel policies match the float ones value for value", "[packed]") {
    // Every half bit pattern once: zeros of both signs, subnormals, negatives, Inf and NaN.
    Environment p = zero_packed_equirect(65536 / 3 + 1, 1, TexelEncoding::Half);
    for (std::uint32_t v = 0; v < 65536; ++v) {
        const std::uint16_t bits = static_cast<std::uint16_t>(v);
        std::memcpy(&p.packed.bytes[2 * v], &bits, 2);
    }
    Environment f = p;
    expand_packed_texels(f);
    REQUIRE_FALSE(f.is_packed());
    for (std::uint32_t v : {0x0000u, 0x8000u, 0x0001u, 0x3c00u, 0xc000u, 0x7c00u, 0xfc00u, 0x7e00u}) {
        std::uint16_t bits = static_cast<std::uint16_t>(v);
        CAPTURE(v);
        {
            const float x = half_to_float(bits);
            if (v == 0x3c00u) CHECK(x == 1.0f);
            if (v == 0xc000u) CHECK(x == -2.0f);
            if (v == 0x0001u) CHECK(x == std::ldexp(1.0f, -24));
            if (v == 0x7c00u) CHECK(x == std::numeric_limits<float>::infinity());
            if (v == 0x7e00u) CHECK(std::isnan(x));
        }
    }
    const TexelStats sp = scan_texels(p), sf = scan_texels(f);
    CHECK(sp.nonfinite == sf.nonfinite);
    CHECK(sp.nonfinite == 2 * 1024);  // exponent 31, both signs
    CHECK(sp.first_nonfinite == sf.first_nonfinite);
    CHECK(sp.negative == sf.negative);
    CHECK(sp.min_value == sf.min_value);
    Environment p2 = p, f2 = f;
    CHECK(zero_nonfinite(p) == zero_nonfinite(f));
    CHECK(clamp_negative(p) == clamp_negative(f));
    CHECK(scan_texels(p).negative == 0);
    expand_packed_texels(p);
    CHECK(p.equirect.rgb == f.equirect.rgb);
    // In the other order too.
    CHECK(clamp_negative(p2) == clamp_negative(f2));
    CHECK(zero_nonfinite(p2) == zero_nonfinite(f2));
    expand_packed_texels(p2);
    for (std::size_t i = 0; i < p2.equirect.rgb.size(); ++i) CHECK(bits_of(p2.equirect.rgb[i]) == bits_of(f2.equirect.rgb[i]));
}

TEST_CASE("packed: RGBE expands as stb_image converts, and has nothing to clamp", "[packed]") {
    Environment p = zero_packed_equirect(256, 3, TexelEncoding::Rgbe8);
    std::mt19937 rng(5);
    for (std::size_t i = 0; i < p.packed.pixel_count(); ++i) {
        std::uint8_t* t = &p.packed.bytes[4 * i];
        for (int c = 0; c < 3; ++c) t[c] = static_cast<std::uint8_t>(rng());
        t[3] = static_cast<std::uint8_t>(i % 256);  // every exponent, 0 included
    }
    const Image e = expand_packed(p.packed);
    for (std::size_t i = 0; i < p.packed.pixel_count(); ++i) {
        const std::uint8_t* t = &p.packed.bytes[4 * i];
        for (int c = 0; c < 3; ++c) {
            // byte * 2^(e-136), in double (exact), then to float: the same value.
            const double expected = t[3] == 0 ? 0.0 : std::ldexp(static_cast<double>(t[c]), t[3] - 136);
            CHECK(e.rgb[3 * i + static_cast<std::size_t>(c)] == static_cast<float>(expected));
            CHECK(static_cast<double>(e.rgb[3 * i + static_cast<std::size_t>(c)]) == expected);
        }
    }
    const TexelStats s = scan_texels(p);
    CHECK(s.negative == 0);
    CHECK(s.nonfinite == 0);
}

TEST_CASE("packed: scans of many chunks count everything and report the first non-finite texel", "[packed]") {
    // 1024 x 512 x 3 values: several of the scans' chunks. Negatives everywhere; non-finite values
    // only late, so that the first one is not in the first chunk. Expected: a plain loop here.
    Environment p = zero_packed_equirect(1024, 512, TexelEncoding::Half);
    std::mt19937 rng(5);
    const std::size_t values = p.packed.pixel_count() * 3;
    std::size_t nonfinite = 0, negative = 0, first = 0;
    float min_value = 0;
    for (std::size_t i = 0; i < values; ++i) {
        std::uint16_t bits = static_cast<std::uint16_t>(rng() % 0x7c00);  // finite, >= 0
        if (rng() % 7 == 0) bits |= 0x8000;                                // negative (or -0)
        if (i > 700000 && rng() % 50000 == 0) bits = rng() % 2 ? 0x7c00 : 0xfe00;  // Inf, NaN
        std::memcpy(&p.packed.bytes[2 * i], &bits, 2);
        const float v = half_to_float(bits);
        if (!std::isfinite(v)) {
            if (nonfinite++ == 0) first = i / 3;
        } else if (v < 0) {
            ++negative;
            min_value = std::min(min_value, v);
        }
    }
    REQUIRE(nonfinite > 3);
    const std::string where = "row " + std::to_string(first / 1024) + ", column " + std::to_string(first % 1024);
    Environment f = p;
    expand_packed_texels(f);
    for (const Environment* env : {&p, &f}) {
        const TexelStats s = scan_texels(*env);
        CHECK(s.nonfinite == nonfinite);
        CHECK(s.first_nonfinite == where);
        CHECK(s.negative == negative);
        CHECK(s.min_value == min_value);
    }
}
