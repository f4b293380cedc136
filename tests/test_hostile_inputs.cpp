// Hostile inputs through the real binary: every bad file is made here (truncations at many cut
// points, wrong magic, absurd or zero sizes, bad aspect, NaN/Inf/negative texels, odd EXR
// structures, directories, FIFOs, device files, missing files, unwritable outputs). Each case
// checks the exit code, exactly one stderr line naming the file, and that nothing (no output,
// no temporary) is left in the output folder. Valid-but-unusual files (Y only, tiled, mip levels)
// must bake, and their coefficients are checked against the analytic value for a constant sky:
// L_00 = v * 4pi * Y_00 = v * sqrt(4pi).
//
// Complements tests/test_cli.cpp (which covers one case of each kind) and test_image_io.cpp
// (the same formats through load_image, without the process boundary).
#include <catch2/catch.hpp>

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

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC  // private copy, other test files embed stb too
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_image_write.h>
#pragma GCC diagnostic pop

#include "cli_runner.h"
#include "errors.h"
#include "image_io.h"
#include "test_support.h"

using namespace bake;
using namespace bake::test;
namespace fs = std::filesystem;

namespace {

const std::string kTool = "bake-irradiance: ";

// A case folder holding the inputs, with an empty out/ folder for the outputs.
struct Scratch {
    std::string dir, out;
    explicit Scratch(const std::string& name) : dir("hostile_" + name), out("hostile_" + name + "/out") {
        fs::remove_all(dir);
        fs::create_directories(out);
    }
};

std::size_t entries(const std::string& dir) {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

std::string listing(const std::string& dir) {
    std::string s;
    for (const auto& e : fs::directory_iterator(dir)) s += e.path().filename().string() + " ";
    return s;
}

// The refusal contract: the exit code, one stderr line "bake-irradiance: ...<mention>...",
// nothing on stdout, and `out_dir` (where the outputs would go) still empty: no output file and
// no temporary one.
void check_refused(const CliResult& r, int code, const std::string& mention, const std::string& out_dir) {
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
void check_baked(const CliResult& r, int stderr_lines, const std::string& out_dir, std::size_t outputs) {
    INFO("stderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(line_count(r.err) == stderr_lines);
    INFO("in " << out_dir << ": " << listing(out_dir));
    CHECK(entries(out_dir) == outputs);
}


// Offset of the dataWindow's four int32 (xMin, yMin, xMax, yMax) in an EXR header.
std::size_t data_window_offset(const std::vector<char>& bytes) {
    static const char key[] = "dataWindow\0box2i\0";
    const auto it = std::search(bytes.begin(), bytes.end(), key, key + sizeof key - 1);
    REQUIRE(it != bytes.end());
    return static_cast<std::size_t>(it - bytes.begin()) + (sizeof key - 1) + 4;
}
void patch_int(std::vector<char>& bytes, std::size_t at, std::int32_t v) { std::memcpy(&bytes[at], &v, 4); }

// Cut points: every `step`-th byte up to `dense_end`, then `spread` cuts over the rest, and size-1.
std::vector<std::size_t> cut_points(std::size_t size, std::size_t dense_end, std::size_t step, int spread) {
    std::vector<std::size_t> cuts;
    for (std::size_t n = 1; n < dense_end && n < size; n += step) cuts.push_back(n);
    for (int k = 0; k < spread; ++k)
        cuts.push_back(dense_end + (size - 1 - dense_end) * static_cast<std::size_t>(k) / static_cast<std::size_t>(spread));
    cuts.push_back(size - 1);
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    return cuts;
}

Image constant_image(int w, int h, float r, float g, float b) {
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
void write_constant_exr(const std::string& path, int w, int h, const std::vector<std::string>& names,
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
void check_constant_sky(const std::string& json_path, const Rgb& v) {
    const nlohmann::json j = read_json(json_path);
    const double sqrt_4pi = std::sqrt(4.0 * kPi);
    for (int c = 0; c < 3; ++c) {
        INFO("channel " << c);
        CHECK(j.at("radiance")[0][static_cast<std::size_t>(c)].get<double>() ==
              Approx(v[static_cast<std::size_t>(c)] * sqrt_4pi).epsilon(1e-12));
    }
}

}  // namespace

TEST_CASE("hostile: .hdr truncated at every header byte and across the pixel data", "[hostile]") {
    const Scratch s("truncated_hdr");
    struct Src {
        int w, h;
        const char* what;
    };
    // 64x32 has run-length encoded scanlines; 6x3 (width < 8) is written flat.
    for (const Src& src : {Src{64, 32, "rle"}, Src{6, 3, "flat"}}) {
        const Image img = constant_image(src.w, src.h, 0.5f, 1.5f, 3.0f);
        const std::string full = s.dir + "/full_" + src.what + ".hdr";
        REQUIRE(stbi_write_hdr(full.c_str(), src.w, src.h, 3, img.rgb.data()));
        const std::vector<char> bytes = read_bytes(full);
        const std::string text(bytes.begin(), bytes.end());
        const std::size_t header_end = text.find("+X ") + 6;  // past the resolution line
        REQUIRE(header_end > 6);
        // The untruncated file bakes (so the refusals below are about the cut, nothing else).
        check_baked(run_cli(full + " -o " + s.out + "/full.json --device cpu"), 0, s.out, 1);
        fs::remove(s.out + "/full.json");
        const std::string cut = s.dir + "/cut.hdr";
        int runs = 0;
        for (std::size_t n : cut_points(bytes.size(), header_end, 1, 24)) {
            INFO(src.what << ": cut at " << n << " of " << bytes.size());
            write_bytes(cut, bytes, n);
            const auto t0 = std::chrono::steady_clock::now();
            check_refused(run_cli(cut + " -o " + s.out + "/irr.exr -o " + s.out + "/irr.json --device cpu"),
                          kExitInput, cut + ": ", s.out);
            CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));  // no RLE spin
            ++runs;
        }
        CHECK(runs > 40);
    }
}

TEST_CASE("hostile: .exr truncated across header / offset table and chunks (scanline and tiled mip)", "[hostile]") {
    const Scratch s("truncated_exr");
    const std::string scan = s.dir + "/scan.exr", tiled = s.dir + "/tiled.exr";
    write_exr(scan, constant_image(32, 16, 1.0f, 2.0f, 4.0f), EnvmapHint::None);  // float ZIP
    write_constant_exr(tiled, 40, 20, {"R", "G", "B"}, {1.0f, 2.0f, 4.0f}, Imf::HALF, Tiling::Mipmap);
    for (const std::string& src : {scan, tiled}) {
        check_baked(run_cli(src + " -o " + s.out + "/full.json --device cpu"), 0, s.out, 1);
        check_constant_sky(s.out + "/full.json", {1.0, 2.0, 4.0});
        fs::remove(s.out + "/full.json");
        const std::vector<char> bytes = read_bytes(src);
        // Every 3rd byte through the header (past the dataWindow, where the size is known), then
        // 30 cuts over the rest: end of header, offset table, pixel chunks, lower mip levels.
        const std::size_t dense_end = data_window_offset(bytes) + 16;
        const std::string cut = s.dir + "/cut.exr";
        for (std::size_t n : cut_points(bytes.size(), dense_end, 3, 30)) {
            INFO(src << ": cut at " << n << " of " << bytes.size());
            write_bytes(cut, bytes, n);
            check_refused(run_cli(cut + " -o " + s.out + "/irr.exr -o " + s.out + "/irr.json --device cpu"),
                          kExitInput, cut + ": ", s.out);
        }
    }
}

TEST_CASE("hostile: wrong magic / wrong format for the extension / random bytes / deep flag", "[hostile]") {
    const Scratch s("magic");
    const std::string out = " -o " + s.out + "/irr.json --device cpu";
    const std::string good_exr = s.dir + "/good.exr", good_hdr = s.dir + "/good.hdr";
    write_exr(good_exr, constant_image(8, 4, 1, 1, 1), EnvmapHint::None);
    const Image img = constant_image(8, 4, 1, 1, 1);
    REQUIRE(stbi_write_hdr(good_hdr.c_str(), 8, 4, 3, img.rgb.data()));

    write_text(s.dir + "/png.exr", std::string("\x89PNG\r\n\x1a\n", 8) + std::string(64, '\0'));
    check_refused(run_cli(s.dir + "/png.exr" + out), kExitInput, s.dir + "/png.exr: not an OpenEXR file", s.out);

    std::vector<char> bytes = read_bytes(good_hdr);
    bytes[9] = 'X';  // "#?RADIANCX"
    write_bytes(s.dir + "/radiancx.hdr", bytes);
    check_refused(run_cli(s.dir + "/radiancx.hdr" + out), kExitInput, s.dir + "/radiancx.hdr: not a Radiance", s.out);

    fs::copy_file(good_exr, s.dir + "/exr_named.hdr");
    check_refused(run_cli(s.dir + "/exr_named.hdr" + out), kExitInput, s.dir + "/exr_named.hdr: ", s.out);
    fs::copy_file(good_hdr, s.dir + "/hdr_named.exr");
    check_refused(run_cli(s.dir + "/hdr_named.exr" + out), kExitInput, s.dir + "/hdr_named.exr: ", s.out);

    bytes = read_bytes(good_exr);
    bytes[4] = 3;  // version 3
    write_bytes(s.dir + "/version3.exr", bytes);
    check_refused(run_cli(s.dir + "/version3.exr" + out), kExitInput, s.dir + "/version3.exr: unsupported OpenEXR version", s.out);
    bytes[4] = 2;
    bytes[5] = static_cast<char>(bytes[5] | 0x08);  // version flag 0x800: "non-image" (deep data)
    write_bytes(s.dir + "/deep.exr", bytes);
    check_refused(run_cli(s.dir + "/deep.exr" + out), kExitInput, s.dir + "/deep.exr: ", s.out);

    std::vector<char> noise(4096);
    std::mt19937 rng(5);
    for (char& c : noise) c = static_cast<char>(rng());
    for (const char* ext : {".exr", ".hdr"}) {
        const std::string path = s.dir + "/noise" + ext;
        write_bytes(path, noise);
        check_refused(run_cli(path + out), kExitInput, path + ": ", s.out);
        // The right magic followed by noise.
        std::vector<char> with_magic = noise;
        const std::string magic = std::string(ext) == ".exr" ? std::string("\x76\x2f\x31\x01\x02\0\0\0", 8)
                                                             : std::string("#?RADIANCE\n");
        std::copy(magic.begin(), magic.end(), with_magic.begin());
        const std::string path2 = s.dir + "/magic_noise" + ext;
        write_bytes(path2, with_magic);
        check_refused(run_cli(path2 + out), kExitInput, path2 + ": ", s.out);
    }
}

TEST_CASE("hostile: sizes: 100000x100000 headers / big headers without data / zero width", "[hostile]") {
    const Scratch s("sizes");
    const std::string out = " -o " + s.out + "/irr.exr -o " + s.out + "/irr.json --device cpu";
    write_exr(s.dir + "/small.exr", constant_image(8, 4, 1, 1, 1), EnvmapHint::None);
    const std::vector<char> small = read_bytes(s.dir + "/small.exr");
    const std::size_t at = data_window_offset(small);
    auto patched_exr = [&](const std::string& name, int x_max, int y_max) {
        std::vector<char> b = small;
        patch_int(b, at + 8, x_max);
        patch_int(b, at + 12, y_max);
        write_bytes(s.dir + "/" + name, b);
        return s.dir + "/" + name;
    };
    auto timed = [](const std::string& args) {
        const auto t0 = std::chrono::steady_clock::now();
        CliResult r = run_cli(args);
        CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
        return r;
    };

    // Refused by the default limit (2^28 pixels), from the header.
    const std::string huge_exr = patched_exr("huge.exr", 99999, 99999);
    CliResult r = timed(huge_exr + out);
    check_refused(r, kExitInput, huge_exr + ": image is 100000x100000", s.out);
    CHECK(r.err.find("limit") != std::string::npos);
    const std::string huge_hdr = s.dir + "/huge.hdr";
    write_text(huge_hdr, "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 100000 +X 100000\n\x02\x02\x01\x00");
    r = timed(huge_hdr + out);
    check_refused(r, kExitInput, huge_hdr + ": image is 100000x100000", s.out);

    // The same headers with the limit lifted: still refused quickly (the data is missing), and
    // without touching ~120 GB.
    check_refused(timed(huge_exr + out + " --max-pixels 20000000000"), kExitInput, huge_exr + ": ", s.out);
    check_refused(timed(huge_hdr + out + " --max-pixels 20000000000"), kExitInput, huge_hdr + ": ", s.out);

    // Within the default limit (16384x8192 = 2^27), header only: refused as truncated, quickly.
    const std::string big_exr = patched_exr("big.exr", 16383, 8191);
    check_refused(timed(big_exr + out), kExitInput, big_exr + ": ", s.out);
    const std::string big_hdr = s.dir + "/big.hdr";
    write_text(big_hdr, "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 8192 +X 16384\n\x02\x02\x40\x00\x80");
    check_refused(timed(big_hdr + out), kExitInput, big_hdr + ": truncated", s.out);

    // A lowered --max-pixels refuses a real file, and the exact pixel count passes.
    check_refused(run_cli(s.dir + "/small.exr" + out + " --max-pixels 31"), kExitInput, "8x4 = 32 pixels", s.out);
    check_baked(run_cli(s.dir + "/small.exr -o " + s.out + "/ok.json --device cpu --max-pixels 32"), 0, s.out, 1);
    fs::remove(s.out + "/ok.json");

    // Zero width.
    const std::string zero_exr = patched_exr("zero_width.exr", -1, 3);
    check_refused(run_cli(zero_exr + out), kExitInput, zero_exr + ": invalid image size 0x4", s.out);
    const std::string zero_hdr = s.dir + "/zero_width.hdr";
    write_text(zero_hdr, "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 4 +X 0\n");
    check_refused(run_cli(zero_hdr + out), kExitInput, zero_hdr + ": ", s.out);
    // Negative width (xMin > xMax) and a data window far from the origin.
    std::vector<char> b = small;
    patch_int(b, at + 0, 1000000);
    write_bytes(s.dir + "/negative.exr", b);
    check_refused(run_cli(s.dir + "/negative.exr" + out), kExitInput, s.dir + "/negative.exr: ", s.out);
    b = small;
    patch_int(b, at + 0, std::numeric_limits<std::int32_t>::min());
    patch_int(b, at + 8, std::numeric_limits<std::int32_t>::max());
    write_bytes(s.dir + "/int_range.exr", b);
    check_refused(run_cli(s.dir + "/int_range.exr" + out), kExitInput, s.dir + "/int_range.exr: ", s.out);
}

TEST_CASE("hostile: aspect ratios and layouts that do not fit", "[hostile]") {
    const Scratch s("layouts");
    const std::string out = " -o " + s.out + "/irr.exr --device cpu";
    const Image five_three = constant_image(10, 6, 1, 1, 1);
    REQUIRE(stbi_write_hdr((s.dir + "/five_three.hdr").c_str(), 10, 6, 3, five_three.rgb.data()));
    check_refused(run_cli(s.dir + "/five_three.hdr" + out), kExitInput, s.dir + "/five_three.hdr: 10x6 fits no layout", s.out);
    // A 5:3 image with --layout forced: not a cross of square faces.
    check_refused(run_cli(s.dir + "/five_three.hdr" + out + " --layout hcross"), kExitInput,
                  s.dir + "/five_three.hdr: 10x6 is not a hcross", s.out);
    // A 2:1 image forced to a layout it is not.
    write_exr(s.dir + "/wide.exr", constant_image(8, 4, 1, 1, 1), EnvmapHint::None);
    check_refused(run_cli(s.dir + "/wide.exr" + out + " --layout vstrip"), kExitInput, s.dir + "/wide.exr: ", s.out);
    // The envmap attribute says cube but the image is not N x 6N.
    write_exr(s.dir + "/cube_attr.exr", constant_image(8, 4, 1, 1, 1), EnvmapHint::Cube);
    check_refused(run_cli(s.dir + "/cube_attr.exr" + out), kExitInput, s.dir + "/cube_attr.exr: envmap attribute says cube", s.out);
    // Issue 18 #10: 1x1 is too small for any layout, and the message does not suggest --layout
    // (which cannot help); 2x1 and 4x2 are 2:1 but their irradiance would be off by 124% and 31%
    // (order 3) even for a constant map: refused, saying so. 6x3 (7.7%) bakes with its warning.
    write_exr(s.dir + "/one.exr", constant_image(1, 1, 1, 1, 1), EnvmapHint::None);
    check_refused(run_cli(s.dir + "/one.exr" + out), kExitInput, s.dir + "/one.exr: 1x1 is too small for an environment map", s.out);
    CHECK(run_cli(s.dir + "/one.exr" + out).err.find("--layout") == std::string::npos);
    check_refused(run_cli(s.dir + "/one.exr" + out + " --layout equirect"), kExitInput, s.dir + "/one.exr: 1x1 texels are too few", s.out);
    for (int w : {2, 4}) {
        const std::string name = s.dir + "/w" + std::to_string(w) + ".exr";
        write_exr(name, constant_image(w, w / 2, 0.5f, 1, 2), EnvmapHint::None);
        check_refused(run_cli(name + out), kExitInput, name + ": " + std::to_string(w) + "x" + std::to_string(w / 2) +
                                                           " texels are too few: even a constant map's order-3 irradiance is off by", s.out);
    }
    write_exr(s.dir + "/six.exr", constant_image(6, 3, 0.5f, 1, 2), EnvmapHint::None);
    const CliResult six = run_cli(s.dir + "/six.exr -o " + s.out + "/six.json --device cpu --warn-error 0.05");
    INFO(six.err);
    CHECK(six.exit_code == 0);
    CHECK(six.err.find("6x3 texels are too few: even a constant map's order-3 irradiance is off by 7.7%") != std::string::npos);
    check_constant_sky(s.out + "/six.json", {0.5, 1.0, 2.0});
}

TEST_CASE("hostile: NaN / Inf and negative texels", "[hostile]") {
    const Scratch s("texels");
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();

    // +Inf in a cube cross: refused, naming the file and the face.
    CubeMap cube(4);
    for (Image& f : cube.faces) f = constant_image(4, 4, 1, 1, 1);
    cube.faces[5].at(2, 1)[2] = inf;  // -Z
    write_exr(s.dir + "/inf_cross.exr", assemble_cube(cube, Layout::HCross), EnvmapHint::None);
    CliResult r = run_cli(s.dir + "/inf_cross.exr -o " + s.out + "/irr.json --device cpu");
    check_refused(r, kExitInput, s.dir + "/inf_cross.exr: 1 NaN/Inf", s.out);
    CHECK(r.err.find("face -Z") != std::string::npos);

    // -Inf and NaN in one face file of six: refused naming the {face} pattern; replaced with
    // --replace-nonfinite, and then equal to the same faces with zeros there.
    static const char* const tags[6] = {"px", "nx", "py", "ny", "pz", "nz"};
    for (int f = 0; f < 6; ++f) {
        Image face = constant_image(4, 4, 1, 2, 3);
        write_exr(s.dir + "/zero_" + tags[f] + ".exr", face, EnvmapHint::None);
        if (f == 2) {
            face.at(0, 0)[0] = -inf;
            face.at(3, 3)[1] = nan;
        }
        write_exr(s.dir + "/bad_" + tags[f] + ".exr", face, EnvmapHint::None);
    }
    {  // the reference: the same faces with 0 where the non-finite values were
        Image face = constant_image(4, 4, 1, 2, 3);
        face.at(0, 0)[0] = 0;
        face.at(3, 3)[1] = 0;
        write_exr(s.dir + "/zero_py.exr", face, EnvmapHint::None);
    }
    r = run_cli(s.dir + "/bad_{face}.exr -o " + s.out + "/irr.json --device cpu");
    check_refused(r, kExitInput, "2 NaN/Inf", s.out);
    CHECK(r.err.find("bad_{face}.exr") != std::string::npos);
    r = run_cli(s.dir + "/bad_{face}.exr -o " + s.out + "/replaced.json --device cpu --replace-nonfinite");
    check_baked(r, 1, s.out, 1);
    CHECK(r.err.find("replaced 2 NaN/Inf") != std::string::npos);
    REQUIRE(run_cli(s.dir + "/zero_{face}.exr -o " + s.out + "/zeros.json --device cpu").exit_code == 0);
    const nlohmann::json replaced = read_json(s.out + "/replaced.json"), zeros = read_json(s.out + "/zeros.json");
    CHECK(replaced.at("radiance") == zeros.at("radiance"));
    CHECK(replaced.at("nonfinite_texels").at("count") == 2);
    CHECK(replaced.at("nonfinite_texels").at("policy") == "zero");

    // Negative values: kept with one warning (count and minimum), or clamped, which equals the
    // same image with zeros there.
    Image neg = constant_image(16, 8, 1, 1, 1), clamped = neg;
    const int negatives[][3] = {{0, 0, 0}, {3, 5, 1}, {7, 15, 2}, {4, 4, 0}};
    for (const auto& n : negatives) {
        neg.at(n[0], n[1])[n[2]] = -0.75f;
        clamped.at(n[0], n[1])[n[2]] = 0.0f;
    }
    neg.at(4, 4)[0] = -2.5f;
    write_exr(s.dir + "/neg.exr", neg, EnvmapHint::None);
    write_exr(s.dir + "/clamped.exr", clamped, EnvmapHint::None);
    fs::remove_all(s.out);
    fs::create_directories(s.out);
    r = run_cli(s.dir + "/neg.exr -o " + s.out + "/keep.json --device cpu");
    check_baked(r, 1, s.out, 1);
    CHECK(r.err.find(s.dir + "/neg.exr: 4 negative values (min -2.5)") != std::string::npos);
    const nlohmann::json keep = read_json(s.out + "/keep.json");
    CHECK(keep.at("negative_texels").at("count") == 4);
    CHECK(keep.at("negative_texels").at("min").get<double>() == -2.5);
    r = run_cli(s.dir + "/neg.exr -o " + s.out + "/clamp.json --device cpu --clamp-negative");
    CHECK(r.exit_code == 0);
    CHECK(line_count(r.err) == 1);
    REQUIRE(run_cli(s.dir + "/clamped.exr -o " + s.out + "/ref.json --device cpu").exit_code == 0);
    CHECK(read_json(s.out + "/clamp.json").at("radiance") == read_json(s.out + "/ref.json").at("radiance"));
    CHECK(keep.at("radiance")[0][0].get<double>() < read_json(s.out + "/ref.json").at("radiance")[0][0].get<double>());

    // The largest finite float everywhere: finite texels, but L00 = FLT_MAX sqrt(4 pi) is beyond
    // float, which every output is read as: refused (issue 18 #5: written as +Inf maps).
    const float big = std::numeric_limits<float>::max();
    write_exr(s.dir + "/flt_max.exr", constant_image(8, 4, big, big, big), EnvmapHint::None);
    fs::remove_all(s.out);
    fs::create_directories(s.out);
    check_refused(run_cli(s.dir + "/flt_max.exr -o " + s.out + "/max.json --device cpu"), kExitInput,
                  s.dir + "/flt_max.exr: texel values too large for float outputs", s.out);
}

TEST_CASE("hostile: valid but unusual EXRs bake: Y only / tiled / mip levels", "[hostile]") {
    const Scratch s("unusual");
    SECTION("luminance only (Y): grey") {
        write_constant_exr(s.dir + "/y.exr", 16, 8, {"Y"}, {0.75f}, Imf::HALF, Tiling::Scanline);
        check_baked(run_cli(s.dir + "/y.exr -o " + s.out + "/y.json --device cpu"), 0, s.out, 1);
        check_constant_sky(s.out + "/y.json", {0.75, 0.75, 0.75});
    }
    SECTION("tiled, one level, float") {
        write_constant_exr(s.dir + "/tiled.exr", 40, 20, {"R", "G", "B"}, {0.5f, 1.0f, 2.0f}, Imf::FLOAT, Tiling::OneLevel);
        check_baked(run_cli(s.dir + "/tiled.exr -o " + s.out + "/t.json --device cpu"), 0, s.out, 1);
        check_constant_sky(s.out + "/t.json", {0.5, 1.0, 2.0});
    }
    SECTION("tiled with mip levels: level 0 is baked (the others hold 777)") {
        write_constant_exr(s.dir + "/mip.exr", 40, 20, {"R", "G", "B"}, {0.5f, 1.0f, 2.0f}, Imf::HALF, Tiling::Mipmap);
        check_baked(run_cli(s.dir + "/mip.exr -o " + s.out + "/m.json -o " + s.out + "/m.exr --device cpu"), 0, s.out, 2);
        check_constant_sky(s.out + "/m.json", {0.5, 1.0, 2.0});
        CHECK(read_json(s.out + "/m.json").at("input").at("width") == 40);
    }
    SECTION("RGBA half with an extra channel: alpha and Z are ignored") {
        write_constant_exr(s.dir + "/rgbaz.exr", 16, 8, {"R", "G", "B", "A", "Z"}, {0.25f, 0.5f, 1.0f, 0.0f, 9.0f},
                           Imf::HALF, Tiling::Scanline);
        check_baked(run_cli(s.dir + "/rgbaz.exr -o " + s.out + "/a.json --device cpu"), 0, s.out, 1);
        check_constant_sky(s.out + "/a.json", {0.25, 0.5, 1.0});
    }
    SECTION("no usable channel (only Z): refused, naming the channels") {
        write_constant_exr(s.dir + "/z.exr", 16, 8, {"Z"}, {1.0f}, Imf::FLOAT, Tiling::Scanline);
        check_refused(run_cli(s.dir + "/z.exr -o " + s.out + "/z.json --device cpu"), kExitInput,
                      s.dir + "/z.exr: no R, G, B or Y channel (channels: Z)", s.out);
    }
}

TEST_CASE("hostile: inputs that are not regular files or are missing", "[hostile]") {
    const Scratch s("not_files");
    const std::string out = " -o " + s.out + "/irr.exr -o " + s.out + "/irr.json --device cpu";
    fs::create_directories(s.dir + "/folder.hdr");
    check_refused(run_cli(s.dir + "/folder.hdr" + out), kExitInput, s.dir + "/folder.hdr: is a directory", s.out);
    // A FIFO: a naive reader would block forever waiting for a writer.
    REQUIRE(::mkfifo((s.dir + "/pipe.exr").c_str(), 0644) == 0);
    check_refused(run_cli(s.dir + "/pipe.exr" + out), kExitInput, s.dir + "/pipe.exr: not a regular file", s.out);
    // A device with endless data, behind a plausible name.
    fs::create_symlink("/dev/zero", s.dir + "/zero.hdr");
    check_refused(run_cli(s.dir + "/zero.hdr" + out), kExitInput, s.dir + "/zero.hdr: not a regular file", s.out);
    // A symlink loop and a dangling symlink.
    fs::create_symlink("loop_b.exr", s.dir + "/loop_a.exr");
    fs::create_symlink("loop_a.exr", s.dir + "/loop_b.exr");
    check_refused(run_cli(s.dir + "/loop_a.exr" + out), kExitInput, s.dir + "/loop_a.exr: ", s.out);
    fs::create_symlink("nowhere.exr", s.dir + "/dangling.exr");
    check_refused(run_cli(s.dir + "/dangling.exr" + out), kExitInput, s.dir + "/dangling.exr: no such file", s.out);
    // Missing files: plain, and one face of six.
    check_refused(run_cli(s.dir + "/missing.hdr" + out), kExitInput, s.dir + "/missing.hdr: no such file", s.out);
    for (const char* f : {"px", "nx", "py", "ny", "nz"})
        write_exr(s.dir + "/f_" + f + ".exr", constant_image(2, 2, 1, 1, 1), EnvmapHint::None);
    check_refused(run_cli(s.dir + "/f_{face}.exr" + out), kExitInput, s.dir + "/f_pz.exr: no such file", s.out);
    check_refused(run_cli("--faces " + s.dir + "/f_px.exr " + s.dir + "/f_nx.exr " + s.dir + "/f_py.exr " + s.dir +
                          "/f_ny.exr " + s.dir + "/f_gone.exr " + s.dir + "/f_nz.exr" + out),
                  kExitInput, s.dir + "/f_gone.exr: no such file", s.out);
    // A face that is not square.
    write_exr(s.dir + "/f_pz.exr", constant_image(2, 1, 1, 1, 1), EnvmapHint::None);
    check_refused(run_cli(s.dir + "/f_{face}.exr" + out), kExitInput, s.dir + "/f_pz.exr: face +Z is 2x1, not square", s.out);
}

// Issue 18 #2: with a GPU in reach, the first input's header was read (to size the upload buffers
// while it decodes) before any check that it is a regular file, so a FIFO hung every path but
// --device cpu. `timeout` turns such a hang into exit 124.
TEST_CASE("hostile: a FIFO input is refused on every device and inside a batch", "[hostile]") {
    const Scratch s("fifo");
    for (const char* name : {"pipe.exr", "pipe.hdr"}) {
        const std::string fifo = s.dir + "/" + name;
        REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
        for (const char* device : {"auto", "gpu", "cpu"}) {
            INFO(name << " --device " << device);
            check_refused(run_cli(fifo + " -o " + s.out + "/l.json --device " + device, "timeout 60"), kExitInput,
                          fifo + ": not a regular file", s.out);
        }
        // In a batch the FIFO fails alone and the next input is baked.
        const CliResult r = run_cli(fifo + " " + kSample + " --out-dir " + s.out + " --name '{stem}.json'", "timeout 60");
        INFO("stderr: " << r.err);
        CHECK(r.exit_code == kExitInput);
        CHECK(r.err.find(fifo + ": not a regular file") != std::string::npos);
        CHECK(file_exists(s.out + "/sample_sky.json"));
        fs::remove(s.out + "/sample_sky.json");
    }
}

TEST_CASE("hostile: outputs that cannot be written leave nothing behind", "[hostile]") {
    const Scratch s("outputs");
    const std::string in = s.dir + "/in.exr";
    write_exr(in, constant_image(8, 4, 1, 2, 3), EnvmapHint::None);
    // The parent "folder" is a regular file (ENOTDIR).
    write_text(s.out + "/plain", "x");
    for (const char* name : {"/plain/irr.json", "/plain/irr.exr"}) {
        const std::string out = s.out + name;
        const CliResult r = run_cli(in + " -o " + out + " --device cpu");
        INFO(r.err);
        CHECK(r.exit_code == kExitOutput);
        CHECK(line_count(r.err) == 1);
        CHECK(r.err.find(out + ": ") != std::string::npos);
        CHECK(entries(s.out) == 1);  // just "plain"
        CHECK(slurp(s.out + "/plain") == "x");
    }
    fs::remove(s.out + "/plain");

    // A folder nobody may write to. The tests run as root, for whom chmod 0555 changes nothing;
    // sysfs refuses new files to root too (EACCES; EROFS where /sys is mounted read-only, as in
    // most containers), so /sys stands in for a read-only folder. As a normal user, a chmod 0555
    // folder is tried as well.
    if (fs::is_directory("/sys")) {
        for (const char* name : {"/sys/bake_hostile_irr.exr", "/sys/bake_hostile_irr.json"}) {
            const CliResult r = run_cli(in + " -o " + name + " --device cpu");
            check_refused(r, kExitOutput, std::string(name) + ": cannot create a file in folder '/sys'", "");
            CHECK_FALSE(fs::exists(name));
        }
    } else {
        WARN("no /sys: the read-only folder case is not run");
    }
    if (::geteuid() != 0) {
        fs::create_directories(s.dir + "/readonly");
        fs::permissions(s.dir + "/readonly", fs::perms::owner_read | fs::perms::owner_exec);
        const CliResult r = run_cli(in + " -o " + s.dir + "/readonly/irr.json --device cpu");
        fs::permissions(s.dir + "/readonly", fs::perms::owner_all);
        check_refused(r, kExitOutput, s.dir + "/readonly/irr.json: ", s.dir + "/readonly");
    }
}

TEST_CASE("hostile: existing outputs: replaced by default / --no-clobber refuses before any work", "[hostile]") {
    const Scratch s("clobber");
    const std::string in = s.dir + "/in.exr";
    write_exr(in, constant_image(8, 4, 1, 2, 3), EnvmapHint::None);
    write_text(s.out + "/irr.exr", "old exr");
    // Default: the EXR is replaced by a complete map (read back), no temporary left.
    check_baked(run_cli(in + " -o " + s.out + "/irr.exr --device cpu --size 4"), 0, s.out, 1);
    const LoadedImage map = load_image(s.out + "/irr.exr");
    CHECK(map.image.width == 4);
    CHECK(map.image.height == 24);
    // --no-clobber with the second of two outputs existing: refused, and the first output
    // (which does not exist) is not written either; the existing one is untouched.
    const std::string before = slurp(s.out + "/irr.exr");
    CliResult r = run_cli(in + " -o " + s.out + "/new.json -o " + s.out + "/irr.exr --device cpu --no-clobber");
    INFO(r.err);
    CHECK(r.exit_code == kExitOutput);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find(s.out + "/irr.exr: exists (--no-clobber)") != std::string::npos);
    CHECK_FALSE(fs::exists(s.out + "/new.json"));
    CHECK(slurp(s.out + "/irr.exr") == before);
    CHECK(entries(s.out) == 1);
    // --no-clobber is checked before the input is even read: a missing input is not reported.
    r = run_cli(s.dir + "/missing.exr -o " + s.out + "/irr.exr --device cpu --no-clobber");
    CHECK(r.exit_code == kExitOutput);
    CHECK(line_count(r.err) == 1);
}

TEST_CASE("hostile: numeric option values out of range are usage errors", "[hostile]") {
    const Scratch s("options");
    const std::string in = s.dir + "/in.exr";
    write_exr(in, constant_image(8, 4, 1, 2, 3), EnvmapHint::None);
    const std::string base = in + " -o " + s.out + "/irr.json --device cpu ";
    for (const char* bad : {"--max-pixels 0", "--max-pixels -1", "--max-pixels 1e3x", "--threads -1",
                            "--threads 1.5", "--size -1", "--size 8193", "--size 2147483648", "--order 25",
                            "--tolerance -1", "--tolerance 0"}) {
        INFO(bad);
        const CliResult r = run_cli(base + bad);
        CHECK(r.exit_code == kExitUsage);
        CHECK(line_count(r.err) == 1);
        CHECK(entries(s.out) == 0);
    }
}
