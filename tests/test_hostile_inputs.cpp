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
#include "hostile_support.h"

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
