// BC6H_UF16 (src/core/outputs/bc6h.h): the decoder against blocks assembled here bit by bit from
// ARB_texture_compression_bptc's Table.F (not through the encoder's bit maps), the encoder against
// what the format can represent exactly (uniform blocks, one-region blocks with 10-bit endpoints),
// the inputs it must clamp, the image layout and padding, and a one-texel sun on a dark sky.
// Independent decoders: tests/bc6h_oiio.py (OpenImageIO) and tests/test_gpu_bc6h.cpp (the GL's).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "bc6h.h"
#include "bc6h_tables.h"
#include "gpu_formats.h"
#include "image_io.h"
#include "texture_quality.h"

using namespace bake;

namespace {

// The specification's unsigned unquantization and final scaling, written out again.
int spec_unquantize(int x, int epb) {
    if (epb >= 15) return x;
    if (x == 0) return 0;
    if (x == (1 << epb) - 1) return 0xffff;
    return ((x << 15) + 0x4000) >> (epb - 1);
}
int spec_texel(int e0, int e1, int epb, int weight) {
    const int a = spec_unquantize(e0, epb), b = spec_unquantize(e1, epb);
    return (((64 - weight) * a + weight * b + 32) >> 6) * 31 >> 6;
}

struct BitWriter {
    Bc6hBlock block{};
    int at = 0;
    // The next `bits` bits of the block take v[lo], v[lo + 1], ... (or v[hi] down, reversed).
    void put(int v, int lo, int hi, bool reversed = false) {
        for (int k = 0; k <= hi - lo; ++k) {
            const int bit = reversed ? hi - k : lo + k;
            block[at >> 3] = static_cast<std::uint8_t>(block[at >> 3] | (((v >> bit) & 1) << (at & 7)));
            ++at;
        }
    }
};

std::vector<std::uint16_t> decode(const Bc6hBlock& b) {
    std::vector<std::uint16_t> h(48);
    bc6h_decode_block(b.data(), h.data());
    return h;
}

std::uint16_t expected_half(float v) { return v > 0 ? float_to_half(v) : 0; }

std::vector<float> uniform(float r, float g, float b) {
    std::vector<float> px(48);
    for (int i = 0; i < 16; ++i) {
        px[3 * i] = r;
        px[3 * i + 1] = g;
        px[3 * i + 2] = b;
    }
    return px;
}

const Bc6hQuality kQualities[] = {Bc6hQuality::Default, Bc6hQuality::Thorough};

}  // namespace

TEST_CASE("BC6H tables: Table.F adds up for every mode, each anchor lies in region 1", "[bc6h]") {
    for (int m = 0; m < kBc6hModeCount; ++m) CHECK(bc6h_header_bits(m) == (kBc6hModes[m].regions == 2 ? 82 : 65));
    for (int p = 0; p < kBc6hPartitionCount; ++p) {
        INFO("partition " << p);
        CHECK((kBc6hPartitions[p] & 1) == 0);                        // texel 0 is region 0's anchor
        CHECK(((kBc6hPartitions[p] >> kBc6hAnchor2[p]) & 1) == 1);  // the second anchor is region 1's
    }
}

TEST_CASE("BC6H decoder: hand-made mode 3 and mode 15 blocks decode as the specification computes", "[bc6h]") {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 200; ++trial) {
        // Mode 3: m[4:0], r0[9:0], g0[9:0], b0[9:0], r1[9:0], g1[9:0], b1[9:0], then 4-bit indices
        // (3 bits for texel 0).
        int e[2][3], idx[16];
        for (auto& ep : e)
            for (int& v : ep) v = static_cast<int>(rng() % 1024);
        for (int& i : idx) i = static_cast<int>(rng() % 16);
        idx[0] %= 8;
        BitWriter w;
        w.put(3, 0, 4);
        for (auto& ep : e)
            for (int v : ep) w.put(v, 0, 9);
        for (int i = 0; i < 16; ++i) w.put(idx[i], 0, i == 0 ? 2 : 3);
        REQUIRE(w.at == 128);
        const auto h = decode(w.block);
        for (int i = 0; i < 16; ++i)
            for (int c = 0; c < 3; ++c) REQUIRE(h[3 * i + c] == spec_texel(e[0][c], e[1][c], 10, kBc6hWeights4[idx[i]]));
    }
    for (int trial = 0; trial < 200; ++trial) {
        // Mode 15: m[4:0], r0[9:0], g0[9:0], b0[9:0], r1[3:0], r0[10:15] (reversed), g1[3:0], g0[10:15],
        // b1[3:0], b0[10:15]; e1 = e0 + sign-extended 4-bit delta, 16 bits.
        int e0[3], d[3], idx[16];
        for (int c = 0; c < 3; ++c) {
            e0[c] = static_cast<int>(rng() % 65536);
            d[c] = static_cast<int>(rng() % 16) - 8;
        }
        for (int& i : idx) i = static_cast<int>(rng() % 16);
        idx[0] %= 8;
        BitWriter w;
        w.put(15, 0, 4);
        for (int c = 0; c < 3; ++c) w.put(e0[c], 0, 9);
        for (int c = 0; c < 3; ++c) {
            w.put(d[c] & 15, 0, 3);
            w.put(e0[c], 10, 15, true);
        }
        for (int i = 0; i < 16; ++i) w.put(idx[i], 0, i == 0 ? 2 : 3);
        REQUIRE(w.at == 128);
        const auto h = decode(w.block);
        for (int i = 0; i < 16; ++i)
            for (int c = 0; c < 3; ++c) {
                const int e1 = (e0[c] + d[c]) & 0xffff;
                REQUIRE(h[3 * i + c] == spec_texel(e0[c], e1, 16, kBc6hWeights4[idx[i]]));
            }
    }
    // Reserved mode numbers decode to black.
    for (int code : {19, 23, 27, 31}) {
        Bc6hBlock b;
        b.fill(0xff);
        b[0] = static_cast<std::uint8_t>(0xe0 | code);
        for (std::uint16_t v : decode(b)) REQUIRE(v == 0);
    }
}

TEST_CASE("BC6H encoder: a uniform block decodes to exactly its half-float value", "[bc6h]") {
    std::mt19937 rng(11);
    std::vector<float> values = {0.0f, 6e-8f, 1e-5f, 6.1e-5f, 0.001f, 0.18f, 1.0f, 3.14159f, 1000.0f, 65504.0f};
    for (int i = 0; i < 40; ++i) values.push_back(std::ldexp(std::uniform_real_distribution<float>(1, 2)(rng), static_cast<int>(rng() % 40) - 24));
    for (Bc6hQuality q : kQualities)
        for (std::size_t i = 0; i + 2 < values.size(); ++i) {
            const float r = values[i], g = values[i + 1], b = values[i + 2];
            INFO(r << " " << g << " " << b);
            const auto h = decode(bc6h_encode_block(uniform(r, g, b).data(), q));
            for (int t = 0; t < 16; ++t) {
                REQUIRE(h[3 * t] == expected_half(r));
                REQUIRE(h[3 * t + 1] == expected_half(g));
                REQUIRE(h[3 * t + 2] == expected_half(b));
            }
        }
}

TEST_CASE("BC6H encoder: negatives and NaN become 0, values above 65504 and infinity 65504", "[bc6h]") {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    for (Bc6hQuality q : kQualities) {
        const auto h = decode(bc6h_encode_block(uniform(-2.0f, nan, 1e9f).data(), q));
        const auto k = decode(bc6h_encode_block(uniform(inf, -0.0f, -inf).data(), q));
        for (int t = 0; t < 16; ++t) {
            CHECK(h[3 * t] == 0);
            CHECK(h[3 * t + 1] == 0);
            CHECK(half_to_float(h[3 * t + 2]) == 65504.0f);
            CHECK(half_to_float(k[3 * t]) == 65504.0f);
            CHECK(k[3 * t + 1] == 0);
            CHECK(k[3 * t + 2] == 0);
        }
    }
}

TEST_CASE("BC6H encoder: blocks one region of 10-bit endpoints holds exactly encode losslessly", "[bc6h]") {
    // Texels decoded from a mode 3 block whose indices use both ends, each channel rising from e0 to
    // e1: the encoder's bounding box finds those ends, so it must find an exact encoding.
    std::mt19937 rng(5);
    for (Bc6hQuality q : kQualities)
        for (int trial = 0; trial < 100; ++trial) {
            int e0[3], e1[3];
            for (int c = 0; c < 3; ++c) {
                e0[c] = static_cast<int>(rng() % 900);
                e1[c] = e0[c] + 1 + static_cast<int>(rng() % (1023 - e0[c]));
            }
            float px[48];
            std::uint16_t want[48];
            for (int i = 0; i < 16; ++i) {
                const int index = i == 0 ? 0 : i == 15 ? 15 : static_cast<int>(rng() % 16);
                for (int c = 0; c < 3; ++c) {
                    want[3 * i + c] = static_cast<std::uint16_t>(spec_texel(e0[c], e1[c], 10, kBc6hWeights4[index]));
                    px[3 * i + c] = half_to_float(want[3 * i + c]);
                }
            }
            const auto h = decode(bc6h_encode_block(px, q));
            for (int k = 0; k < 48; ++k) REQUIRE(h[k] == want[k]);
        }
}

TEST_CASE("BC6H images: blocks in rows, texels in place, edges and small levels padded", "[bc6h]") {
    // 10 x 7: 3 x 2 blocks, the last column and row of blocks padded. Each texel a colour of its own
    // in steps of a factor 1.5, far apart against the format's error (< 2% for one-region blocks of
    // texels this uniform within a block), so a texel in the wrong place shows.
    Image im(10, 7);
    for (int y = 0; y < 7; ++y)
        for (int x = 0; x < 10; ++x) {
            const float base = std::pow(1.5f, static_cast<float>((x / 4) + 3 * (y / 4)));
            im.at(y, x)[0] = base;
            im.at(y, x)[1] = 0.5f * base;
            im.at(y, x)[2] = 0.25f * base * (1.0f + 0.01f * static_cast<float>(x % 4 + 4 * (y % 4)));
        }
    Image one(1, 1);
    one.at(0, 0)[0] = 2.5f;
    one.at(0, 0)[1] = 0.75f;
    one.at(0, 0)[2] = 1e-3f;
    Image two(2, 2);
    for (int i = 0; i < 4; ++i)
        for (int c = 0; c < 3; ++c) two.rgb[3 * i + c] = (1.0f + 0.06f * static_cast<float>(i)) * static_cast<float>(c + 1);
    for (Bc6hQuality q : kQualities) {
        const std::vector<std::uint8_t> all = bc6h_encode_images({&im, &one, &two}, q, 2);
        REQUIRE(all.size() == (6 + 1 + 1) * 16u);
        // The same blocks as each image alone.
        const std::vector<std::uint8_t> alone = bc6h_encode_images({&one}, q, 1);
        CHECK(std::equal(alone.begin(), alone.end(), all.begin() + 6 * 16));
        const Image back = bc6h_decode_image(all.data(), 10, 7);
        for (int y = 0; y < 7; ++y)
            for (int x = 0; x < 10; ++x)
                for (int c = 0; c < 3; ++c) REQUIRE(back.at(y, x)[c] == Approx(im.at(y, x)[c]).epsilon(0.02));
        const Image back_one = bc6h_decode_image(all.data() + 6 * 16, 1, 1);
        for (int c = 0; c < 3; ++c) CHECK(back_one.rgb[c] == half_to_float(float_to_half(one.rgb[c])));  // a uniform block
        const Image back_two = bc6h_decode_image(all.data() + 7 * 16, 2, 2);
        for (int k = 0; k < 12; ++k) CHECK(back_two.rgb[k] == Approx(two.rgb[k]).epsilon(0.02));
    }
}

// The worst case for shared endpoints: one texel of sun in a block of dark sky, the sun at every
// position of the block, suns of several colours (one above the half range: it saturates at 65504
// first), skies of several colours (black among them), uniform or varying by up to 10% across the
// block. "Visibly" is stated as: (1) no texel decodes black unless it is black; (2) the sun keeps
// its luminance (r + g + b) within 0.05 stops and its chromaticity (r, g, b) / (r + g + b) within
// 0.005 per channel; (3) every sky texel keeps its luminance within 0.15 stops and its chromaticity
// within 0.015.
TEST_CASE("BC6H encoder: a one-texel sun on a dark sky keeps its value and hue, and the sky its hue", "[bc6h]") {
    const float suns[][3] = {{50000, 40000, 30000}, {2000, 1800, 1500}, {1e6f, 9e5f, 8e5f},
                             {300, 200, 100},       {100, 10, 1},       {10, 100, 1000}};
    const float skies[][3] = {{0.05f, 0.1f, 0.2f}, {0.001f, 0.002f, 0.004f}, {0.3f, 0.3f, 0.3f}, {0, 0, 0}, {0.5f, 0.2f, 0.05f}};
    for (Bc6hQuality q : kQualities)
        for (const auto& sun : suns)
            for (const auto& sky : skies)
                for (float gradient : {0.0f, 0.25f})
                    for (int at = 0; at < 16; ++at) {
                        float px[48];
                        for (int i = 0; i < 16; ++i)
                            for (int c = 0; c < 3; ++c)
                                px[3 * i + c] = i == at ? sun[c]
                                                        : sky[c] * (1.0f + gradient * (0.08f * static_cast<float>(i % 4) +
                                                                                       0.05f * static_cast<float>(i / 4)));
                        const auto h = decode(bc6h_encode_block(px, q));
                        for (int i = 0; i < 16; ++i) {
                            INFO("quality " << int(q) << " sun " << sun[0] << " sky " << sky[0] << " gradient " << gradient
                                            << " at " << at << " texel " << i);
                            double want[3], got[3], want_sum = 0, got_sum = 0;
                            for (int c = 0; c < 3; ++c) {
                                want[c] = std::min(px[3 * i + c], 65504.0f);
                                got[c] = half_to_float(h[3 * i + c]);
                                want_sum += want[c];
                                got_sum += got[c];
                            }
                            if (want_sum == 0) continue;
                            REQUIRE(got_sum > 0);
                            const double stops = std::abs(std::log2(got_sum / want_sum));
                            double chroma = 0;
                            for (int c = 0; c < 3; ++c) chroma = std::max(chroma, std::abs(got[c] / got_sum - want[c] / want_sum));
                            CHECK(stops <= (i == at ? 0.05 : 0.15));
                            CHECK(chroma <= (i == at ? 0.005 : 0.015));
                        }
                    }
}

// The default setting's claim: within 0.5 dB mPSNR of the thorough search (bench/bc6h_quality.cpp
// measures it on the shared maps' chains; here on the sample sky at 128 x 64, its sun included).
TEST_CASE("BC6H encoder: the default setting is within 0.5 dB mPSNR of the thorough one on the sample sky", "[bc6h]") {
    const Image full = load_image(std::string(BAKE_ASSETS_DIR) + "/sample_sky.hdr").image;
    REQUIRE(full.width == 512);
    Image sky(128, 64);  // 4x4 box average
    for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 128; ++x)
            for (int c = 0; c < 3; ++c) {
                float sum = 0;
                for (int dy = 0; dy < 4; ++dy)
                    for (int dx = 0; dx < 4; ++dx) sum += full.at(4 * y + dy, 4 * x + dx)[c];
                sky.at(y, x)[c] = sum / 16;
            }
    auto mpsnr = [&](Bc6hQuality q) {
        const std::vector<std::uint8_t> blocks = bc6h_encode_images({&sky}, q, 2);
        const Image back = bc6h_decode_image(blocks.data(), sky.width, sky.height);
        return compare_textures({&back}, {&sky}).mpsnr_db;
    };
    const double fast = mpsnr(Bc6hQuality::Default), thorough = mpsnr(Bc6hQuality::Thorough);
    INFO("default " << fast << " dB, thorough " << thorough << " dB");
    CHECK(thorough - fast <= 0.5);
}
