// --preview through the real binary: the PNG is decoded back (stb_image) and its pixels are
// checked against values computed here from the convention, the tone map as documented, and the
// coefficients the same run wrote.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "cli_runner.h"
#include "errors.h"
#include "image_io.h"
#include "layout.h"
#include "preview_image.h"
#include "png_reader.h"
#include "test_support.h"


using namespace bake;
using namespace bake::test;
namespace fs = std::filesystem;

namespace {



struct Png {
    int width = 0, height = 0;
    std::vector<unsigned char> rgb;
    const unsigned char* at(int row, int col) const { return &rgb[(static_cast<size_t>(row) * width + col) * 3]; }
};

Png decode(const std::string& path) {
    const std::optional<PngPixels> px = read_png(path);
    REQUIRE(px.has_value());
    REQUIRE(px->channels == 3);
    REQUIRE_FALSE(px->sixteen_bit);
    Png p;
    p.width = px->width;
    p.height = px->height;
    p.rgb.assign(px->values.begin(), px->values.end());
    return p;
}

// The documented tone map, written independently: Reinhard on exposure * x, then sRGB.
int tone(double x, double exposure) {
    const double v = std::max(0.0, exposure * x);
    const double t = v / (1 + v);
    const double s = t <= 0.0031308 ? 12.92 * t : 1.055 * std::pow(t, 1 / 2.4) - 0.055;
    return static_cast<int>(std::lround(s * 255));
}

// Lat-long direction of docs/CONVENTION.md at pixel centre (row, col) of a w x h map.
Vec3 latlong(int row, int col, int w, int h) {
    const double theta = kPi * (row + 0.5) / h, phi = 2 * kPi * (col + 0.5) / w - kPi;
    return {std::sin(theta) * std::cos(phi), std::cos(theta), std::sin(theta) * std::sin(phi)};
}

// Largest channel difference between a pixel and the tone-mapped E(n)/pi.
int diff_to(const unsigned char* px, const ShCoefficients& e, const Vec3& n, double exposure) {
    const Rgb v = eval_sh(e, n);
    int worst = 0;
    for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(px[c] - tone(v[c] / kPi, exposure)));
    return worst;
}

}  // namespace

TEST_CASE("preview: the irradiance half and the spheres are E(n)/pi tone-mapped, within rounding", "[cli][preview]") {
    const std::string dir = scratch("preview_sample");
    const double exposure = 0.7;
    const CliResult r = run_cli(kSample + " -o " + dir + "/c.json --preview " + dir + "/p.png --preview-width 64" +
                                " --preview-exposure 0.7 --device cpu --order 5");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const Png png = decode(dir + "/p.png");
    REQUIRE(png.width == 128);
    REQUIRE(png.height == 64);
    const ShCoefficients e = coefficients_from(read_json(dir + "/c.json").at("irradiance"), 5);

    int worst = 0;  // irradiance half: a 64 x 32 lat-long on the right of the top row
    for (int row = 0; row < 32; ++row)
        for (int col = 0; col < 64; ++col) worst = std::max(worst, diff_to(png.at(row, 64 + col), e, latlong(row, col, 64, 32), exposure));
    CHECK(worst <= 1);

    // Spheres (32 x 32 cells in the bottom row), orthographic, +Y up, seen from +Z, +X, -Z, -X:
    // the viewer's right is +X, -Z, -X, +Z in turn (a turn of 90 degrees about Y each).
    worst = 0;
    int sphere_pixels = 0;
    std::set<int> background;
    for (int s = 0; s < 4; ++s)
        for (int row = 0; row < 32; ++row)
            for (int col = 0; col < 32; ++col) {
                const unsigned char* px = png.at(32 + row, 32 * s + col);
                const double x = (col + 0.5) / 16 - 1, y = 1 - (row + 0.5) / 16;
                if (x * x + y * y >= 1) {
                    background.insert(px[0] | px[1] << 8 | px[2] << 16);
                    continue;
                }
                const double w = std::sqrt(1 - x * x - y * y);
                const Vec3 n = s == 0 ? Vec3{x, y, w} : s == 1 ? Vec3{w, y, -x} : s == 2 ? Vec3{-x, y, -w} : Vec3{-w, y, x};
                worst = std::max(worst, diff_to(px, e, n, exposure));
                ++sphere_pixels;
            }
    CHECK(worst <= 1);
    CHECK(sphere_pixels > 4 * 700);       // pi 16^2 = 804 per sphere
    CHECK(background.size() == 1);        // one flat grey behind the spheres
    CHECK((*background.begin() & 0xff) < 64);
}

TEST_CASE("preview: the input half is the input box-filtered into lat-long, unflipped", "[cli][preview]") {
    const std::string dir = scratch("preview_input");
    // 128 x 64 equirect: quadrants of known radiance (top brighter, left brighter), grey.
    Image img(128, 64);
    for (int row = 0; row < 64; ++row)
        for (int col = 0; col < 128; ++col)
            for (int c = 0; c < 3; ++c) img.at(row, col)[c] = static_cast<float>((row < 32 ? 1.0 : 0.5) * (col < 64 ? 1.0 : 0.25));
    write_exr(dir + "/quad.exr", img, EnvmapHint::None);
    const CliResult r = run_cli(dir + "/quad.exr --preview " + dir + "/p.png --preview-width 64 --preview-exposure 1 --device cpu");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const Png png = decode(dir + "/p.png");
    REQUIRE(png.width == 128);
    // Every preview pixel covers 2 x 2 source texels of one quadrant: its value exactly.
    int worst = 0;
    for (int row = 0; row < 32; ++row)
        for (int col = 0; col < 64; ++col) {
            const int expected = tone((row < 16 ? 1.0 : 0.5) * (col < 32 ? 1.0 : 0.25), 1.0);
            for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(png.at(row, col)[c] - expected));
        }
    CHECK(worst == 0);
}

TEST_CASE("preview: packed texels (RGBE, half) give the bytes of their float expansion", "[preview][packed]") {
    ShCoefficients e(3);
    e.rgb[0] = {3.0, 2.0, 1.0};
    e.rgb[2] = {0.5, -0.2, 0.1};
    for (TexelEncoding encoding : {TexelEncoding::Rgbe8, TexelEncoding::Half}) {
        const Environment packed = random_packed_equirect(40, 20, encoding, 9);
        Environment expanded = packed;
        expand_packed_texels(expanded, 1);
        PreviewOptions po;
        po.panel_width = 64;  // wider than the input: some pixels take the nearest texel
        const PreviewImage a = make_preview(packed, e, po), b = make_preview(expanded, e, po);
        CHECK(a.width == b.width);
        CHECK(a.rgb == b.rgb);
    }
}

TEST_CASE("preview: constant radiance gives one grey everywhere, automatic exposure maps it to mid-tone",
          "[cli][preview]") {
    const std::string dir = scratch("preview_constant");
    Image img(8, 4);  // coarser than the preview: nearest texel fills the input half
    for (float& v : img.rgb) v = 0.5f;
    write_exr(dir + "/flat.exr", img, EnvmapHint::None);
    const CliResult r = run_cli(dir + "/flat.exr --preview " + dir + "/p.png --preview-width 40 --device cpu --report " +
                                dir + "/r.json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    // E = pi L for constant L, so E/pi = 0.5; automatic exposure = 1 / mean(E/pi) = 2.
    const double exposure = read_json(dir + "/r.json")["files"][0]["preview"]["exposure"].get<double>();
    CHECK(exposure == Approx(2.0).epsilon(1e-9));
    const int grey = tone(0.5, 2.0);
    CHECK(grey == 188);  // sRGB(0.5)
    const Png png = decode(dir + "/p.png");
    REQUIRE(png.width == 80);
    REQUIRE(png.height == 40);
    for (int row = 0; row < 20; ++row)
        for (int col = 0; col < 80; ++col)
            for (int c = 0; c < 3; ++c) REQUIRE(std::abs(png.at(row, col)[c] - grey) <= 1);
    // Centre of the first sphere.
    CHECK(std::abs(png.at(30, 10)[1] - grey) <= 1);
}

TEST_CASE("preview: an unwritable preview is exit 4, one line, nothing left behind", "[cli][preview][errors]") {
    const std::string dir = scratch("preview_error");
    std::ofstream(dir + "/missing") << "a file, not a folder";
    CliResult r = run_cli(kSample + " --preview " + dir + "/missing/p.png --device cpu");
    CHECK(r.exit_code == kExitOutput);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find(dir + "/missing/p.png") != std::string::npos);
    fs::remove(dir + "/missing");
    fs::create_directories(dir + "/taken.png");
    r = run_cli(kSample + " --preview " + dir + "/taken.png --device cpu");
    CHECK(r.exit_code == kExitOutput);
    CHECK(fs::is_directory(dir + "/taken.png"));
    CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
}
