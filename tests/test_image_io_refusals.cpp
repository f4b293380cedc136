// image_io: every way a file can be wrong (missing, a folder, empty, wrong magic, truncated at every
// cut point, sizes beyond --max-pixels), made here through OpenEXR's and stb's own writers; and the
// header-only size read.
#include "image_io_support.h"

TEST_CASE("image_io: missing, directory, empty, wrong magic, unknown extension", "[image_io]") {
    const std::string dir = scratch("image_io_basic_errors");
    CHECK(contains(require_input_error(dir + "/missing.exr"), "no such file"));
    CHECK(contains(require_input_error(dir + "/missing.hdr"), "no such file"));
    fs::create_directories(dir + "/folder.exr");
    CHECK(contains(require_input_error(dir + "/folder.exr"), "directory"));
    fs::create_directories(dir + "/folder.hdr");
    CHECK(contains(require_input_error(dir + "/folder.hdr"), "directory"));
    write_text(dir + "/empty.exr", "");
    CHECK(contains(require_input_error(dir + "/empty.exr"), "empty"));
    write_text(dir + "/empty.hdr", "");
    CHECK(contains(require_input_error(dir + "/empty.hdr"), "empty"));
    write_text(dir + "/png.exr", "\x89PNG\r\n\x1a\n0000000000000000000000000000");
    CHECK(contains(require_input_error(dir + "/png.exr"), "not an OpenEXR file"));
    write_text(dir + "/abc.exr", "ab");
    CHECK(contains(require_input_error(dir + "/abc.exr"), "not an OpenEXR file"));
    write_text(dir + "/text.hdr", "hello, world\nthis is not an image\n");
    CHECK(contains(require_input_error(dir + "/text.hdr"), "not a Radiance HDR file"));
    // An EXR under a .hdr name and vice versa: the extension decides, the magic disagrees.
    Image img(4, 2);
    bake::write_exr(dir + "/real.exr", img, EnvmapHint::None);
    fs::copy_file(dir + "/real.exr", dir + "/exr_as.hdr");
    require_input_error(dir + "/exr_as.hdr");
    REQUIRE(stbi_write_hdr((dir + "/real.hdr").c_str(), 4, 2, 3, img.rgb.data()));
    fs::copy_file(dir + "/real.hdr", dir + "/hdr_as.exr");
    require_input_error(dir + "/hdr_as.exr");
    // Unknown extensions, whatever the content.
    fs::copy_file(dir + "/real.exr", dir + "/real.png");
    CHECK(contains(require_input_error(dir + "/real.png"), "unsupported file type '.png' (expected .hdr or .exr)"));
    fs::copy_file(dir + "/real.exr", dir + "/noext");
    CHECK(contains(require_input_error(dir + "/noext"), "unsupported file type"));
    fs::copy_file(dir + "/real.exr", dir + "/real.exr.bak");
    CHECK(contains(require_input_error(dir + "/real.exr.bak"), "'.bak'"));
    require_input_error(dir + "/missing.xyz");
    // Upper-case extensions are fine.
    fs::copy_file(dir + "/real.exr", dir + "/UPPER.EXR");
    CHECK(load_image(dir + "/UPPER.EXR").image.width == 4);
}

TEST_CASE("image_io: truncated .hdr files are rejected at every cut point", "[image_io]") {
    // stb alone would pad a short file with zeros, or spin forever inside an RLE scanline.
    const std::string dir = scratch("image_io_truncated_hdr");
    for (const auto& [w, h] : {std::pair<int, int>{64, 32}, {5, 3}}) {
        std::vector<float> v = random_values(static_cast<std::size_t>(w) * h * 3, 31, true);
        const std::string full = dir + "/full" + std::to_string(w) + ".hdr";
        REQUIRE(stbi_write_hdr(full.c_str(), w, h, 3, v.data()));
        REQUIRE(load_image(full).image.width == w);
        const std::vector<char> bytes = read_bytes(full);
        const std::string text(bytes.begin(), bytes.end());
        const std::size_t header_end = text.find("+X ") + 3;  // resolution line, before its number ends
        REQUIRE(header_end > 3);
        const auto t0 = std::chrono::steady_clock::now();
        for (std::size_t cut : cut_points(bytes.size(), header_end)) {
            INFO(w << "x" << h << " cut at " << cut << " of " << bytes.size());
            const std::string path = dir + "/cut.hdr";
            write_bytes(path, bytes, cut);
            const std::string msg = require_input_error(path);
            if (cut > header_end + 8) CHECK(contains(msg, "truncated"));
        }
        CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20));
    }

    // A 16x2 file stored flat (no RLE; legal, and the other path through stb's decoder): every
    // pixel is RGBE (128, 64, 32, 129) = (1, 0.5, 0.25) since value = byte * 2^(exponent - 136).
    std::string flat = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 2 +X 16\n";
    const std::size_t flat_header = flat.size();
    for (int i = 0; i < 32; ++i) flat += std::string("\x80\x40\x20\x81", 4);
    write_text(dir + "/flat.hdr", flat);
    const Image img = load_image(dir + "/flat.hdr").image;
    REQUIRE(img.width == 16);
    for (std::size_t i = 0; i < img.pixel_count(); ++i) {
        REQUIRE(img.rgb[3 * i] == 1.0f);
        REQUIRE(img.rgb[3 * i + 1] == 0.5f);
        REQUIRE(img.rgb[3 * i + 2] == 0.25f);
    }
    for (std::size_t cut = flat_header; cut < flat.size(); cut += 3) {
        INFO("flat 16x2 cut at " << cut << " of " << flat.size());
        write_text(dir + "/cut.hdr", flat.substr(0, cut));
        CHECK(contains(require_input_error(dir + "/cut.hdr"), "truncated"));
    }
}

TEST_CASE("image_io: truncated .exr files are rejected at every cut point", "[image_io]") {
    const std::string dir = scratch("image_io_truncated_exr");
    // A scanline file with one line per chunk (ZIPS), a tiled one, and a real DWAB map.
    const int w = 40, h = 24;
    const Imath::Box2i dw(Imath::V2i(0, 0), Imath::V2i(w - 1, h - 1));
    std::vector<Plane> planes = rgb_planes(Imf::HALF, w, h, false, 41);
    write_scanline_exr(dir + "/scan.exr", planes, dw, Imf::ZIPS_COMPRESSION);
    {
        Imf::Header header(w, h);
        for (const char* n : {"R", "G", "B"}) header.channels().insert(n, Imf::Channel(Imf::HALF));
        header.setTileDescription(Imf::TileDescription(8, 8, Imf::MIPMAP_LEVELS));
        Imf::TiledOutputFile out((dir + "/tiled.exr").c_str(), header);
        for (int l = 0; l < out.numLevels(); ++l) {
            const Imath::Box2i ldw = out.dataWindowForLevel(l);
            std::vector<Plane> lp = rgb_planes(Imf::HALF, ldw.max.x + 1, ldw.max.y + 1, false, 42);
            out.setFrameBuffer(frame_buffer(lp, ldw));
            out.writeTiles(0, out.numXTiles(l) - 1, 0, out.numYTiles(l) - 1, l);
        }
    }
    const std::string sources[] = {dir + "/scan.exr", dir + "/tiled.exr",
                                   std::string(BAKE_TEST_DATA_DIR) + "/pmndrs_sky.exr"};
    for (const std::string& src : sources) {
        REQUIRE(load_image(src).image.width > 0);
        const std::vector<char> bytes = read_bytes(src);
        // Byte-by-byte (then every 7th) cuts up to the dataWindow attribute, well inside the
        // header; then 20 cuts spread over the rest (header end, offset table, pixel chunks).
        const std::size_t header_end = data_window_offset(bytes);
        for (std::size_t cut : cut_points(bytes.size(), header_end)) {
            INFO(src << " cut at " << cut << " of " << bytes.size());
            const std::string path = dir + "/cut.exr";
            write_bytes(path, bytes, cut);
            require_input_error(path);
        }
    }
}

TEST_CASE("image_io: sizes beyond max_pixels are refused from the header, before decoding", "[image_io]") {
    const std::string dir = scratch("image_io_limits");
    SECTION(".exr claiming 100000x100000") {
        Image img(8, 4);
        bake::write_exr(dir + "/small.exr", img, EnvmapHint::None);
        std::vector<char> bytes = read_bytes(dir + "/small.exr");
        const std::size_t at = data_window_offset(bytes);
        patch_int(bytes, at + 8, 99999);   // xMax
        patch_int(bytes, at + 12, 99999);  // yMax
        write_bytes(dir + "/huge.exr", bytes);
        const auto t0 = std::chrono::steady_clock::now();
        const std::string msg = require_input_error(dir + "/huge.exr");
        CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
        CHECK(contains(msg, "100000x100000"));
        CHECK(contains(msg, "10000000000"));
        CHECK(contains(msg, std::to_string(bake::kDefaultMaxPixels)));
    }
    SECTION(".hdr claiming 100000x100000") {
        write_text(dir + "/huge.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 100000 +X 100000\n\x02\x02");
        const std::string msg = require_input_error(dir + "/huge.hdr");
        CHECK(contains(msg, "100000x100000"));
        CHECK(contains(msg, "limit"));
    }
    SECTION("the limit is checked before the pixel data is looked at") {
        // Headers of 4096x4096 followed by almost nothing: decoding would fail with "truncated";
        // with a limit of 1000 pixels the message must be about the limit instead.
        write_text(dir + "/claims.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 4096 +X 4096\n\x02\x02\x10");
        CHECK(contains(require_input_error(dir + "/claims.hdr", 1000), "more than the limit of 1000 pixels"));
        CHECK(contains(require_input_error(dir + "/claims.hdr"), "truncated"));
        Image img(8, 4);
        bake::write_exr(dir + "/small.exr", img, EnvmapHint::None);
        std::vector<char> bytes = read_bytes(dir + "/small.exr");
        const std::size_t at = data_window_offset(bytes);
        patch_int(bytes, at + 8, 4095);
        patch_int(bytes, at + 12, 4095);
        write_bytes(dir + "/claims.exr", bytes);
        CHECK(contains(require_input_error(dir + "/claims.exr", 1000), "more than the limit of 1000 pixels"));
        require_input_error(dir + "/claims.exr");  // within the default limit, but the data is missing
    }
    SECTION("exactly max_pixels is allowed, one more is not") {
        Image img(8, 4);
        bake::write_exr(dir + "/32.exr", img, EnvmapHint::None);
        CHECK(load_image(dir + "/32.exr", 32).image.pixel_count() == 32);
        CHECK(contains(require_input_error(dir + "/32.exr", 31), "8x4 = 32 pixels"));
        REQUIRE(stbi_write_hdr((dir + "/32.hdr").c_str(), 8, 4, 3, img.rgb.data()));
        CHECK(load_image(dir + "/32.hdr", 32).image.pixel_count() == 32);
        CHECK(contains(require_input_error(dir + "/32.hdr", 31), "8x4 = 32 pixels"));
    }
    SECTION("zero and negative sizes") {
        write_text(dir + "/zero.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 0 +X 0\n");
        CHECK(contains(require_input_error(dir + "/zero.hdr"), "0x0"));
        write_text(dir + "/neg.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y -5 +X 10\n\x02\x02");
        require_input_error(dir + "/neg.hdr");
        Image img(8, 4);
        bake::write_exr(dir + "/small.exr", img, EnvmapHint::None);
        std::vector<char> bytes = read_bytes(dir + "/small.exr");
        const std::size_t at = data_window_offset(bytes);
        patch_int(bytes, at + 8, -1);  // xMax < xMin = 0: width 0
        write_bytes(dir + "/zero_width.exr", bytes);
        CHECK(contains(require_input_error(dir + "/zero_width.exr"), "0x4"));
        patch_int(bytes, at + 0, 1000000);  // xMin far beyond xMax: negative width
        write_bytes(dir + "/negative.exr", bytes);
        require_input_error(dir + "/negative.exr");
    }
}

TEST_CASE("image_io: read_image_size reads the header's size only, and nothing from other files", "[image_io]") {
    const std::string dir = scratch("image_io_image_size");
    const Image img(10, 6);
    REQUIRE(stbi_write_hdr((dir + "/a.hdr").c_str(), 10, 6, 3, img.rgb.data()));
    write_exr(dir + "/a.exr", Image(12, 5), EnvmapHint::None);
    CHECK(bake::read_image_size(dir + "/a.hdr") == std::make_pair(10, 6));
    CHECK(bake::read_image_size(dir + "/a.exr") == std::make_pair(12, 5));
    // The header alone is enough: the pixels may be missing.
    const std::vector<char> hdr = read_bytes(dir + "/a.hdr");
    const std::string text(hdr.begin(), hdr.end());
    write_bytes(dir + "/header_only.hdr", hdr, text.find("+X 10\n") + 6);
    CHECK(bake::read_image_size(dir + "/header_only.hdr") == std::make_pair(10, 6));
    write_text(dir + "/bad.hdr", "#?RADIANCE\nno format\n\n-Y 2 +X 4\n");
    write_text(dir + "/bad.exr", "not an exr");
    write_text(dir + "/a.png", "whatever");
    for (const char* name : {"/bad.hdr", "/bad.exr", "/a.png", "/missing.hdr"}) CHECK_FALSE(bake::read_image_size(dir + name));
}
