// The parallel Radiance decoder against stb_image, the reference it must equal bit for bit: a
// private copy of stb's loader, compiled here, decodes every file too. Files come from stb's own
// writer and from an RLE encoder written here that also makes what stb's writer never does (runs
// of every length, zero-count dumps, scanlines longer than a band, files of several bands).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC  // private copy: the reference, independent of the code under test
#define STBI_ONLY_HDR
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <stb_image.h>
#include <stb_image_write.h>
#pragma GCC diagnostic pop

#include "errors.h"
#include "image_io.h"
#include "packed_image.h"
#include "radiance_hdr.h"
#include "test_support.h"

namespace fs = std::filesystem;
using bake::RadianceTarget;
using bake::test::scratch;

namespace {

// stb's float decoding of the file (the reference), or empty if stb refuses it.
std::vector<float> stb_floats(const std::string& path, int* w = nullptr, int* h = nullptr) {
    int x = 0, y = 0, comp = 0;
    float* data = stbi_loadf(path.c_str(), &x, &y, &comp, 3);
    if (!data) return {};
    std::vector<float> v(data, data + static_cast<std::size_t>(x) * y * 3);
    stbi_image_free(data);
    if (w) *w = x;
    if (h) *h = y;
    return v;
}

template <typename A, typename B>
bool same_bits(const A& a, const B& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// RGBE texels with stretches of equal bytes (runs) and noise (dumps), and some exponent-0 (black)
// texels with non-zero mantissas, which must still decode to 0.
std::vector<std::uint8_t> random_rgbe(int w, int h, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<std::uint8_t> t(static_cast<std::size_t>(w) * h * 4);
    std::size_t i = 0;
    while (i < t.size() / 4) {
        const std::size_t len = std::min<std::size_t>(t.size() / 4 - i, 1 + rng() % 300);
        const bool constant = rng() % 2 == 0;
        std::uint8_t base[4] = {static_cast<std::uint8_t>(rng()), static_cast<std::uint8_t>(rng()),
                                static_cast<std::uint8_t>(rng()), static_cast<std::uint8_t>(rng() % 4 == 0 ? 0 : rng())};
        for (std::size_t k = 0; k < len; ++k, ++i)
            for (int c = 0; c < 4; ++c) t[4 * i + c] = constant ? base[c] : static_cast<std::uint8_t>(rng());
    }
    return t;
}

struct RleOptions {
    unsigned seed = 1;
    bool zero_counts = false;      // sprinkle zero-count dumps (legal: stb skips them)
    std::size_t zeros_at_row0 = 0;  // that many zero bytes before row 0's first channel data
};

// A new-style RLE scanline encoder that splits each channel into runs (2..127) and dumps
// (1..128) at random, so every count from 1 to 255 occurs.
std::string encode_rle(int w, int h, const std::vector<std::uint8_t>& rgbe, const RleOptions& o) {
    std::mt19937 rng(o.seed);
    std::string s = "#?RADIANCE\n# made by test_radiance_hdr\nFORMAT=32-bit_rle_rgbe\nEXPOSURE=1.0\n\n";
    s += "-Y " + std::to_string(h) + " +X " + std::to_string(w) + "\n";
    for (int y = 0; y < h; ++y) {
        s += static_cast<char>(2);
        s += static_cast<char>(2);
        s += static_cast<char>(w >> 8);
        s += static_cast<char>(w & 0xff);
        for (int c = 0; c < 4; ++c) {
            if (y == 0 && c == 0) s.append(o.zeros_at_row0, '\0');
            auto at = [&](int x) { return static_cast<char>(rgbe[(static_cast<std::size_t>(y) * w + x) * 4 + c]); };
            int x = 0;
            while (x < w) {
                if (o.zero_counts && rng() % 5 == 0) s += '\0';
                int run = 1;
                while (x + run < w && run < 127 && at(x + run) == at(x)) ++run;
                if (run >= 2 && rng() % 4 != 0) {
                    s += static_cast<char>(128 + run);
                    s += at(x);
                    x += run;
                } else {
                    const int n = std::min(w - x, 1 + static_cast<int>(rng() % 128));
                    s += static_cast<char>(n);
                    for (int k = 0; k < n; ++k) s += at(x + k);
                    x += n;
                }
            }
        }
    }
    return s;
}

// Both targets of the parallel decoder, and load_image / load_image_packed, equal stb bit for bit.
void require_matches_stb(const std::string& path, int threads = 0) {
    INFO(path << ", threads " << threads);
    int w = 0, h = 0;
    const std::vector<float> ref = stb_floats(path, &w, &h);
    REQUIRE(!ref.empty());

    std::vector<float> floats(ref.size(), -1.0f);
    REQUIRE(bake::decode_radiance_scanlines(path, w, h, RadianceTarget::Float, floats.data(), threads));
    REQUIRE(same_bits(floats, ref));

    bake::PackedImage packed;
    packed.width = w;
    packed.height = h;
    packed.bytes.assign(static_cast<std::size_t>(w) * h * 4, 0xab);
    REQUIRE(bake::decode_radiance_scanlines(path, w, h, RadianceTarget::Rgbe8, packed.bytes.data(), threads));
    REQUIRE(same_bits(bake::expand_packed(packed, threads).rgb, ref));

    REQUIRE(same_bits(bake::load_image(path).image.rgb, ref));
    const bake::LoadedImage loaded = bake::load_image_packed(path);
    REQUIRE(loaded.is_packed());
    REQUIRE(loaded.packed.encoding == bake::TexelEncoding::Rgbe8);
    REQUIRE(loaded.packed.bytes == packed.bytes);
}

}  // namespace

TEST_CASE("radiance_hdr: rgbe_to_float equals stb's conversion for every exponent and mantissa", "[hdr]") {
    std::vector<std::uint8_t> rgbe;
    for (int e = 0; e < 256; ++e)
        for (int m = 0; m < 256; ++m) rgbe.insert(rgbe.end(), {static_cast<std::uint8_t>(m), static_cast<std::uint8_t>(255 - m),
                                                                static_cast<std::uint8_t>(m ^ 0x5a), static_cast<std::uint8_t>(e)});
    const std::size_t n = rgbe.size() / 4;
    std::vector<float> ours(3 * n), ref(3 * n);
    bake::rgbe_to_float(rgbe.data(), ours.data(), n);
    for (std::size_t i = 0; i < n; ++i) stbi__hdr_convert(&ref[3 * i], &rgbe[4 * i], 3);
    REQUIRE(same_bits(ours, ref));
    // And the value the format defines: byte * 2^(e - 136), exactly (in double).
    for (std::size_t i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c)
            REQUIRE(static_cast<double>(ours[3 * i + c]) ==
                    (rgbe[4 * i + 3] == 0 ? 0.0 : rgbe[4 * i + c] * std::ldexp(1.0, rgbe[4 * i + 3] - 136)));
}

TEST_CASE("radiance_hdr: files from stb's writer decode bit-identical to stb, any width and thread count",
          "[hdr]") {
    const std::string dir = scratch("radiance_hdr_stb_writer");
    std::mt19937 rng(7);
    for (const auto& [w, h] : {std::pair<int, int>{8, 3}, {9, 5}, {127, 4}, {128, 2}, {129, 7}, {1001, 13}, {2048, 64}}) {
        std::vector<float> v(static_cast<std::size_t>(w) * h * 3);
        for (std::size_t i = 0; i < v.size(); ++i) {
            // Constant stretches (runs), noise over many decades, zeros and tiny values (exponent 0).
            const std::size_t block = i / 96;
            v[i] = block % 3 == 0 ? 0.75f : block % 3 == 1 ? std::ldexp(static_cast<float>(rng() % 1000), static_cast<int>(rng() % 60) - 40) : 0.0f;
        }
        const std::string path = dir + "/" + std::to_string(w) + "x" + std::to_string(h) + ".hdr";
        REQUIRE(stbi_write_hdr(path.c_str(), w, h, 3, v.data()));
        require_matches_stb(path);
        require_matches_stb(path, 1);
        require_matches_stb(path, 3);
    }
    require_matches_stb(std::string(BAKE_ASSETS_DIR) + "/sample_sky.hdr");
}

TEST_CASE("radiance_hdr: every run and dump length, zero-count dumps, exponent-0 texels", "[hdr]") {
    const std::string dir = scratch("radiance_hdr_rle");
    for (unsigned seed = 1; seed <= 6; ++seed) {
        const int w = 8 + static_cast<int>(seed * 397 % 900), h = 1 + static_cast<int>(seed % 5) * 3;
        const std::vector<std::uint8_t> texels = random_rgbe(w, h, seed);
        RleOptions o;
        o.seed = seed;
        o.zero_counts = seed % 2 == 0;
        const std::string path = dir + "/rle" + std::to_string(seed) + ".hdr";
        bake::test::write_text(path, encode_rle(w, h, texels, o));
        require_matches_stb(path, static_cast<int>(seed));
        // The RGBE bytes are the encoder's input exactly.
        std::vector<std::uint8_t> out(texels.size());
        REQUIRE(bake::decode_radiance_scanlines(path, w, h, RadianceTarget::Rgbe8, out.data()));
        REQUIRE(out == texels);
    }
}

TEST_CASE("radiance_hdr: many bands, scanlines cut at every band edge, a scanline longer than a band",
          "[hdr]") {
    const std::string dir = scratch("radiance_hdr_bands");
    const int w = 521, h = 97;
    const std::vector<std::uint8_t> texels = random_rgbe(w, h, 11);
    RleOptions o;
    o.seed = 11;
    o.zero_counts = true;
    o.zeros_at_row0 = 50000;  // row 0 alone is longer than every band below: the band grows
    const std::string path = dir + "/bands.hdr";
    bake::test::write_text(path, encode_rle(w, h, texels, o));
    const std::vector<float> ref = stb_floats(path);
    REQUIRE(!ref.empty());
    for (const std::size_t band : {std::size_t{1}, std::size_t{700}, std::size_t{4096}, std::size_t{65536}})
        for (const int threads : {1, 2, 5}) {
            INFO("band " << band << " bytes, " << threads << " threads");
            std::vector<float> floats(ref.size());
            REQUIRE(bake::decode_radiance_scanlines(path, w, h, RadianceTarget::Float, floats.data(), threads, band));
            REQUIRE(same_bits(floats, ref));
            std::vector<std::uint8_t> rgbe(texels.size());
            REQUIRE(bake::decode_radiance_scanlines(path, w, h, RadianceTarget::Rgbe8, rgbe.data(), threads, band));
            REQUIRE(rgbe == texels);
        }
}

TEST_CASE("radiance_hdr: a band does not grow past a bound for one padded scanline, which stb streams",
          "[hdr]") {
    // 70000 zero-count bytes in a 300-texel row: over 64 KiB, 16x the longest real scanline. A
    // band that already holds it decodes it; a small band does not grow that far.
    const std::string dir = scratch("radiance_hdr_padded");
    const int w = 300, h = 3;
    RleOptions o;
    o.zeros_at_row0 = 70000;
    const std::string path = dir + "/padded.hdr";
    bake::test::write_text(path, encode_rle(w, h, random_rgbe(w, h, 9), o));
    std::vector<float> floats(static_cast<std::size_t>(w) * h * 3);
    CHECK_FALSE(bake::decode_radiance_scanlines(path, w, h, RadianceTarget::Float, floats.data(), 2, 1000));
    const std::vector<float> ref = stb_floats(path);
    REQUIRE(!ref.empty());
    REQUIRE(bake::decode_radiance_scanlines(path, w, h, RadianceTarget::Float, floats.data(), 2));
    REQUIRE(same_bits(floats, ref));
    REQUIRE(same_bits(bake::load_image(path).image.rgb, ref));
}

TEST_CASE("radiance_hdr: files the parallel decoder leaves to stb still load exactly as stb loads them",
          "[hdr]") {
    const std::string dir = scratch("radiance_hdr_odd");
    const std::string header = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n";
    auto expect_stb_path = [&](const std::string& name, const std::string& bytes, int w, int h) {
        INFO(name);
        const std::string path = dir + "/" + name;
        bake::test::write_text(path, bytes);
        std::vector<float> scratch(static_cast<std::size_t>(w) * h * 3);
        CHECK_FALSE(bake::decode_radiance_scanlines(path, w, h, RadianceTarget::Float, scratch.data()));
        const std::vector<float> ref = stb_floats(path);
        REQUIRE(!ref.empty());
        REQUIRE(same_bits(bake::load_image(path).image.rgb, ref));
        const bake::LoadedImage packed = bake::load_image_packed(path);
        REQUIRE_FALSE(packed.is_packed());
        REQUIRE(same_bits(packed.image.rgb, ref));
    };
    // Width 7: stb reads flat texels.
    std::string flat7 = header + "-Y 2 +X 7\n";
    for (int i = 0; i < 14; ++i) flat7 += std::string("\x80\x40\x20\x81", 4);
    expect_stb_path("flat7.hdr", flat7, 7, 2);
    // Width 16 stored flat: the first scanline "header" is a texel (first byte >= 128).
    std::string flat16 = header + "-Y 2 +X 16\n";
    for (int i = 0; i < 32; ++i) flat16 += std::string("\x90\x40\x20\x81", 4);
    expect_stb_path("flat16.hdr", flat16, 16, 2);
    // RLE, then a flat scanline in row 1: stb restarts flat from pixel 1 of row 0 (its goto).
    const std::vector<std::uint8_t> texels = random_rgbe(16, 3, 5);
    RleOptions o;
    std::string mixed = encode_rle(16, 1, texels, o);
    mixed.replace(mixed.find("-Y 1 "), 5, "-Y 3 ");
    for (int i = 0; i < 60; ++i) mixed += std::string("\x90\x41\x22\x83", 4);
    expect_stb_path("mixed.hdr", mixed, 16, 3);
}

TEST_CASE("radiance_hdr: corrupt and truncated RLE data give stb's verdicts, never a hang", "[hdr]") {
    const std::string dir = scratch("radiance_hdr_bad");
    const int w = 64, h = 6;
    RleOptions o;
    o.seed = 3;
    const std::string good = encode_rle(w, h, random_rgbe(w, h, 3), o);
    const std::size_t data = good.find("+X 64\n") + 6;
    // A scanline length other than the width.
    std::string wrong_len = good;
    wrong_len[data + 3] = 63;
    bake::test::write_text(dir + "/len.hdr", wrong_len);
    std::vector<float> scratch(static_cast<std::size_t>(w) * h * 3);
    CHECK_FALSE(bake::decode_radiance_scanlines(dir + "/len.hdr", w, h, RadianceTarget::Float, scratch.data()));
    CHECK_THROWS_WITH(bake::load_image(dir + "/len.hdr"), Catch::Contains("invalid decoded scanline length"));
    CHECK_THROWS_WITH(bake::load_image_packed(dir + "/len.hdr"), Catch::Contains("invalid decoded scanline length"));
    // A run past the end of the row.
    std::string long_run = good.substr(0, data + 4) + std::string("\xff\x01", 2) + good.substr(data + 4);
    bake::test::write_text(dir + "/run.hdr", long_run);
    CHECK_FALSE(bake::decode_radiance_scanlines(dir + "/run.hdr", w, h, RadianceTarget::Float, scratch.data()));
    CHECK_THROWS_WITH(bake::load_image(dir + "/run.hdr"), Catch::Contains("corrupt"));
    // Cut anywhere in the pixel data: truncated, on both loaders.
    for (std::size_t cut = data; cut < good.size(); cut += 37) {
        INFO("cut at " << cut << " of " << good.size());
        bake::test::write_text(dir + "/cut.hdr", good.substr(0, cut));
        CHECK_FALSE(bake::decode_radiance_scanlines(dir + "/cut.hdr", w, h, RadianceTarget::Rgbe8, scratch.data()));
        CHECK_THROWS_WITH(bake::load_image(dir + "/cut.hdr"), Catch::Contains("truncated"));
        CHECK_THROWS_WITH(bake::load_image_packed(dir + "/cut.hdr"), Catch::Contains("truncated"));
    }
    // Before allocating: a file too short for its header's size is not worth an output buffer.
    bake::test::write_text(dir + "/good.hdr", good);
    CHECK(bake::radiance_scanlines_plausible(dir + "/good.hdr", w, h));
    const std::size_t min_size = data + static_cast<std::size_t>(h) * (4 + 8 * 1);  // 64 texels: one run each
    bake::test::write_text(dir + "/short.hdr", good.substr(0, min_size - 1));
    CHECK_FALSE(bake::radiance_scanlines_plausible(dir + "/short.hdr", w, h));
    bake::test::write_text(dir + "/huge.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 8192 +X 16384\n\x02\x02\x40\x00\x80");
    CHECK_FALSE(bake::radiance_scanlines_plausible(dir + "/huge.hdr", 16384, 8192));
    CHECK_THROWS_WITH(bake::load_image(dir + "/huge.hdr"), Catch::Contains("truncated"));
    // A header that says another size than the caller's: refused, nothing written.
    CHECK_FALSE(bake::decode_radiance_scanlines(dir + "/good.hdr", w, h + 1, RadianceTarget::Float, scratch.data()));
    CHECK_FALSE(bake::decode_radiance_scanlines(dir + "/missing.hdr", w, h, RadianceTarget::Float, scratch.data()));
}
