// The shared texel formats (src/core/outputs/texture_format.h): names, sizes, the largest values
// against the formats' own conversions, and measure_clipping on hand-made images.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "bc6h.h"
#include "gpu_formats.h"
#include "texture_format.h"

using namespace bake;

namespace {

const TextureFormat kAll[] = {TextureFormat::Rgba16Float, TextureFormat::Rgba32Float, TextureFormat::B10G11R11UFloat,
                              TextureFormat::E5B9G9R9UFloat, TextureFormat::Bc6hUFloat};

TextureImages one_image(const Image& im) {
    TextureImages t;
    t.width = im.width;
    t.height = im.height;
    t.levels = {{&im}};
    return t;
}

}  // namespace

TEST_CASE("texture formats: names round-trip, unknown names are refused", "[texture_format]") {
    for (TextureFormat f : kAll) {
        TextureFormat parsed{};
        REQUIRE(parse_texture_format(texture_format_name(f), &parsed));
        CHECK(parsed == f);
    }
    TextureFormat unused{};
    CHECK_FALSE(parse_texture_format("bc7", &unused));
    CHECK_FALSE(parse_texture_format("BC6H", &unused));
}

TEST_CASE("texture formats: bytes of an image, BC6H in padded 4x4 blocks", "[texture_format]") {
    CHECK(texture_image_bytes(TextureFormat::Rgba16Float, 5, 3) == 5 * 3 * 8u);
    CHECK(texture_image_bytes(TextureFormat::Rgba32Float, 5, 3) == 5 * 3 * 16u);
    CHECK(texture_image_bytes(TextureFormat::B10G11R11UFloat, 5, 3) == 5 * 3 * 4u);
    CHECK(texture_image_bytes(TextureFormat::E5B9G9R9UFloat, 5, 3) == 5 * 3 * 4u);
    CHECK(texture_image_bytes(TextureFormat::Bc6hUFloat, 5, 3) == 2 * 1 * 16u);
    CHECK(texture_image_bytes(TextureFormat::Bc6hUFloat, 1, 1) == 16u);
    CHECK(texture_image_bytes(TextureFormat::Bc6hUFloat, 256, 256) == 64 * 64 * 16u);
}

TEST_CASE("texture formats: the largest value each keeps is what its conversion saturates to", "[texture_format]") {
    const float huge = 1e30f;
    CHECK(texture_format_max(TextureFormat::Rgba16Float) == half_to_float(float_to_half(huge)));
    CHECK(texture_format_max(TextureFormat::Rgba32Float) == std::numeric_limits<float>::max());
    float rgb[3];
    unpack_b10g11r11(pack_b10g11r11(huge, huge, huge), rgb);
    for (int c = 0; c < 3; ++c) CHECK(texture_format_max(TextureFormat::B10G11R11UFloat, c) == rgb[c]);
    CHECK(rgb[2] < rgb[0]);  // the 10-bit blue stops lower
    unpack_e5b9g9r9(pack_e5b9g9r9(huge, huge, huge), rgb);
    for (int c = 0; c < 3; ++c) CHECK(texture_format_max(TextureFormat::E5B9G9R9UFloat, c) == rgb[c]);
    float px[48];
    for (float& v : px) v = huge;
    std::uint16_t h[48];
    bc6h_decode_block(bc6h_encode_block(px, Bc6hQuality::Default).data(), h);
    CHECK(texture_format_max(TextureFormat::Bc6hUFloat) == half_to_float(h[0]));
}

TEST_CASE("texture formats: clipped texels and the energy they lose, by hand", "[texture_format]") {
    SECTION("a plain 2D table: every texel weighs 1") {
        Image im(2, 1);
        const float texels[6] = {100000, 1, 1, 1, 1, 1};
        std::copy(texels, texels + 6, im.rgb.begin());
        const ClipReport r = measure_clipping(TextureFormat::Rgba16Float, one_image(im), TextureDomain::Plain);
        CHECK(r.texels == 2);
        CHECK(r.clipped == 1);
        CHECK(r.energy_lost == Approx((100000.0 - 65504.0) / 100005.0).epsilon(1e-12));
        CHECK(r.brightest == 100000.0f);
        // Nothing clipped (the weights are then never computed): the same count and brightest.
        const ClipReport kept = measure_clipping(TextureFormat::Rgba32Float, one_image(im), TextureDomain::Plain);
        CHECK(kept.clipped == 0);
        CHECK(kept.texels == 2);
        CHECK(kept.brightest == 100000.0f);
        CHECK(kept.energy_lost == 0);
    }
    SECTION("a lat-long map: texels weigh their rows' solid angles; negatives carry nothing") {
        // 4 x 4: rows 0 and 3 each cover (2 pi / 4)(1 - cos(pi / 4)) a texel, rows 1 and 2
        // (2 pi / 4) cos(pi / 4). One texel of row 0 holds 2^17 in red; every other value is 1,
        // but one of -5 (ignored).
        Image im(4, 4);
        for (float& v : im.rgb) v = 1;
        im.at(0, 1)[0] = 131072;
        im.at(2, 2)[1] = -5;
        const double pi = 3.14159265358979323846;
        const double pole = (pi / 2) * (1 - std::cos(pi / 4)), band = (pi / 2) * std::cos(pi / 4);
        const double total = 131072 * pole + (3 * 8 * pole - pole) + (3 * 8 * band - band);
        const ClipReport r = measure_clipping(TextureFormat::Bc6hUFloat, one_image(im), TextureDomain::Equirect);
        CHECK(r.clipped == 1);
        CHECK(r.energy_lost == Approx((131072 - 65504) * pole / total).epsilon(1e-9));
        const ClipReport b = measure_clipping(TextureFormat::B10G11R11UFloat, one_image(im), TextureDomain::Equirect);
        CHECK(b.energy_lost == Approx((131072 - 65024) * pole / total).epsilon(1e-9));
    }
    SECTION("blue clips lower in b10g11r11; the worst level is named") {
        Image l0(2, 2), l1(1, 1);
        for (float& v : l0.rgb) v = 1;
        l1.rgb = {0, 0, 65000};  // under 65504 and 65024, over b10g11r11's blue 64512
        TextureImages t;
        t.width = t.height = 2;
        t.levels = {{&l0}, {&l1}};
        CHECK(measure_clipping(TextureFormat::Rgba16Float, t, TextureDomain::Plain).clipped == 0);
        const ClipReport r = measure_clipping(TextureFormat::B10G11R11UFloat, t, TextureDomain::Plain);
        CHECK(r.texels == 5);
        CHECK(r.clipped == 1);
        CHECK(r.worst_level == 1);
        CHECK(r.energy_lost == Approx((65000.0 - 64512.0) / 65000.0).epsilon(1e-12));
    }
}
