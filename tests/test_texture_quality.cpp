// The measures of src/core/outputs/texture_quality.h on images whose answers are worked out by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "texture_quality.h"

using namespace bake;

namespace {

Image filled(int w, int h, float r, float g, float b) {
    Image im(w, h);
    for (std::size_t i = 0; i < im.pixel_count(); ++i) {
        im.rgb[3 * i] = r;
        im.rgb[3 * i + 1] = g;
        im.rgb[3 * i + 2] = b;
    }
    return im;
}

}  // namespace

TEST_CASE("texture quality: equal images have no error and infinite mPSNR", "[quality]") {
    Image a(4, 2);
    for (std::size_t i = 0; i < a.rgb.size(); ++i) a.rgb[i] = static_cast<float>(0.01 * (i + 1));
    const TextureErrors e = compare_textures({&a}, {&a});
    CHECK(e.relative_rmse == 0);
    CHECK(e.log2_rmse == 0);
    CHECK(e.mpsnr_db == std::numeric_limits<double>::infinity());
}

TEST_CASE("texture quality: an image at half its reference, by hand", "[quality]") {
    // Reference 1.0 everywhere, test 0.5: relative RMSE sqrt(0.25 / 1) = 0.5; log2 error 1 stop.
    // mPSNR: the range is the single exposure c = 0 (hi = lo = 1); T(1) = 255,
    // T(0.5) = round(255 * 0.5^(1/2.2)) = round(186.07) = 186; MSE = 3 * 69^2, so
    // mPSNR = 10 log10(3 * 255^2 / (3 * 69^2)) = 20 log10(255 / 69) = 11.353 dB.
    const Image ref = filled(3, 3, 1, 1, 1), test = filled(3, 3, 0.5f, 0.5f, 0.5f);
    const TextureErrors e = compare_textures({&test}, {&ref});
    CHECK(e.relative_rmse == Approx(0.5).epsilon(1e-12));
    CHECK(e.log2_rmse == Approx(1.0).epsilon(1e-12));
    CHECK(e.exposure_lo == 0);
    CHECK(e.exposure_hi == 0);
    CHECK(e.mpsnr_db == Approx(20 * std::log10(255.0 / 69.0)).epsilon(1e-12));
}

TEST_CASE("texture quality: the exposure range spans the reference, dim texels counted from 2^-14", "[quality]") {
    // Largest channel 8 (c from floor(-3) = -3), dimmest texel 1/16 (to ceil(4) = 4); a texel of 1e-6
    // (below 2^-14) is not the dimmest. One texel of the test differs: 8 -> 4 in red. At exposure c,
    // T(8) = round(255 (8 * 2^c)^(1/2.2)) clamped; T(4) likewise; the sum over the eight exposures
    // c = -3..4 of (T(8) - T(4))^2, over 3 texels and 8 exposures (24 texel-exposures).
    Image ref(3, 1), test(3, 1);
    const float r[3][3] = {{8, 1, 1}, {0.0625f, 0.0625f, 0.0625f}, {1e-6f, 1e-6f, 1e-6f}};
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < 3; ++c) ref.rgb[3 * i + c] = test.rgb[3 * i + c] = r[i][c];
    test.rgb[0] = 4;
    const TextureErrors e = compare_textures({&test}, {&ref});
    CHECK(e.exposure_lo == -3);
    CHECK(e.exposure_hi == 4);
    double sum = 0;
    for (int c = -3; c <= 4; ++c) {
        auto t = [&](double x) { return std::lround(std::min(255.0, 255.0 * std::pow(x * std::ldexp(1.0, c), 1 / 2.2))); };
        sum += std::pow(static_cast<double>(t(8) - t(4)), 2);
    }
    CHECK(e.mpsnr_db == Approx(10 * std::log10(3 * 255.0 * 255.0 / (sum / 24))).epsilon(1e-12));
    // Relative RMSE: one error of 4 against sum of squares 64 + 1 + 1 + 3/256 + 3e-12.
    CHECK(e.relative_rmse == Approx(std::sqrt(16 / (66 + 3.0 / 256 + 3e-12))).epsilon(1e-9));
    // log2: one channel one stop off among 9.
    CHECK(e.log2_rmse == Approx(std::sqrt(1.0 / 9)).epsilon(1e-12));
}

TEST_CASE("texture quality: images of different sizes are refused", "[quality]") {
    const Image a(2, 2), b(2, 1);
    CHECK_THROWS_AS(compare_textures({&a}, {&b}), std::invalid_argument);
    CHECK_THROWS_AS(compare_textures({&a, &a}, {&a}), std::invalid_argument);
}
