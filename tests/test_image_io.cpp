// image_io: loading .hdr (stb) and .exr (OpenEXR), writing float EXR, and every way a file can be
// wrong. Test files are made here, through OpenEXR's and stb's own writers, so each expectation is
// independent of the code under test.
#include "image_io_support.h"

// ------------------------------------------------------------------------------------------------

TEST_CASE("image_io: the three shared DWAB maps load with their documented minima and negative counts",
          "[image_io]") {
    // SOURCES.md: minimum -3394 (sky), -25.5 (warehouse), -3894 (esplanade), peak ~2.3e4 (sky),
    // ~214 (warehouse). The reference JSONs give min_value_in_file and negative_values_in_file.
    struct Case {
        const char* name;
        double documented_min;
        double documented_peak;  // 0: not documented
    };
    const Case cases[] = {{"pmndrs_sky", -3394.0, 2.3e4}, {"pmndrs_warehouse", -25.5, 214.0},
                          {"pmndrs_esplanade", -3894.0, 0.0}};
    for (const Case& c : cases) {
        INFO(c.name);
        const std::string path = std::string(BAKE_TEST_DATA_DIR) + "/" + c.name + ".exr";
        std::ifstream jf(std::string(BAKE_TEST_DATA_DIR) + "/reference/" + c.name + ".negatives-keep.json");
        REQUIRE(jf);
        const nlohmann::json ref = nlohmann::json::parse(jf);

        const LoadedImage loaded = load_image(path);
        const Image& img = loaded.image;
        REQUIRE(img.width == 512);
        REQUIRE(img.height == 256);
        REQUIRE(img.width == ref["width"].get<int>());
        REQUIRE(img.height == ref["height"].get<int>());

        double mn = 1e30, mx = -1e30;
        std::size_t negative_values = 0, negative_texels = 0, non_finite = 0;
        for (std::size_t i = 0; i < img.pixel_count(); ++i) {
            bool any = false;
            for (int k = 0; k < 3; ++k) {
                const float v = img.rgb[3 * i + static_cast<std::size_t>(k)];
                if (!std::isfinite(v)) ++non_finite;
                mn = std::min(mn, double(v));
                mx = std::max(mx, double(v));
                if (v < 0) {
                    ++negative_values;
                    any = true;
                }
            }
            negative_texels += any;
        }
        CHECK(non_finite == 0);
        // Half values: the minimum is exact (the JSON's -25.53125 is what "-25.5" rounds).
        CHECK(mn == ref["min_value_in_file"].get<double>());
        CHECK(mn == Approx(c.documented_min).epsilon(0.002));
        if (c.documented_peak > 0) CHECK(mx == Approx(c.documented_peak).epsilon(0.03));
        // negative_values_in_file counts channel values, not texels: sky has 33 negative values
        // in 11 texels, warehouse 2383 in 861, esplanade 5054 in 2866 (texel counts never match).
        CAPTURE(negative_values, negative_texels);
        CHECK(negative_texels < negative_values);
        CHECK(negative_values == ref["negative_values_in_file"].get<std::size_t>());
    }
}

TEST_CASE("image_io: write_exr writes RGB float ZIP, bit-exact, with the envmap attribute", "[image_io]") {
    const std::string dir = scratch("image_io_write_exr");
    const int w = 37, h = 19;  // odd sizes: not a multiple of ZIP's 16-line blocks
    Image img(w, h);
    const std::vector<float> values = random_values(img.rgb.size(), 7);
    img.rgb.assign(values.begin(), values.end());
    // Values a careless writer would lose: subnormal, huge, signed zero, infinity, NaN.
    img.rgb[0] = std::numeric_limits<float>::denorm_min();
    img.rgb[1] = 3.0e38f;
    img.rgb[2] = -0.0f;
    img.rgb[3] = std::numeric_limits<float>::infinity();
    img.rgb[4] = std::numeric_limits<float>::quiet_NaN();
    img.rgb[5] = 1.0f + std::numeric_limits<float>::epsilon();  // not representable in half

    const std::pair<EnvmapHint, const char*> hints[] = {
        {EnvmapHint::None, "none"}, {EnvmapHint::LatLong, "latlong"}, {EnvmapHint::Cube, "cube"}};
    for (const auto& [hint, name] : hints) {
        INFO(name);
        const std::string path = dir + "/out_" + name + ".exr";
        bake::write_exr(path, img, hint);

        // Read back through load_image...
        const LoadedImage back = load_image(path);
        REQUIRE(back.image.width == w);
        REQUIRE(back.image.height == h);
        REQUIRE(back.envmap == hint);
        for (std::size_t i = 0; i < img.rgb.size(); ++i) {
            INFO("value " << i);
            REQUIRE(bits(back.image.rgb[i]) == bits(img.rgb[i]));
        }

        // ...and through OpenEXR directly: channel types, compression, attribute, values.
        Imf::InputFile in(path.c_str());
        const Imf::Header& hd = in.header();
        CHECK(hd.compression() == Imf::ZIP_COMPRESSION);
        int n_channels = 0;
        for (auto it = hd.channels().begin(); it != hd.channels().end(); ++it) {
            ++n_channels;
            CHECK(it.channel().type == Imf::FLOAT);
        }
        CHECK(n_channels == 3);
        REQUIRE(hd.channels().findChannel("R"));
        REQUIRE(hd.channels().findChannel("G"));
        REQUIRE(hd.channels().findChannel("B"));
        CHECK(Imf::hasEnvmap(hd) == (hint != EnvmapHint::None));
        if (hint == EnvmapHint::LatLong) CHECK(Imf::envmap(hd) == Imf::ENVMAP_LATLONG);
        if (hint == EnvmapHint::Cube) CHECK(Imf::envmap(hd) == Imf::ENVMAP_CUBE);
        std::vector<float> g(static_cast<std::size_t>(w) * h);
        Imf::FrameBuffer fb;
        fb.insert("G", Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(g.data()), 4, 4 * w));
        in.setFrameBuffer(fb);
        in.readPixels(0, h - 1);
        for (std::size_t i = 0; i < g.size(); ++i) REQUIRE(bits(g[i]) == bits(img.rgb[3 * i + 1]));

        // An ordinary file: readable by others (0666 minus the umask), no temporary left over.
        const mode_t mask = ::umask(0);
        ::umask(mask);
        struct stat st {};
        REQUIRE(::stat(path.c_str(), &st) == 0);
        CHECK((st.st_mode & 0777) == (0666 & ~mask));
    }
    std::size_t entries = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        INFO(e.path().string());
        CHECK(e.path().filename().string().rfind("out_", 0) == 0);
        ++entries;
    }
    CHECK(entries == 3);

    // Overwriting an existing output replaces it.
    Image small(2, 1);
    small.rgb = {1, 2, 3, 4, 5, 6};
    bake::write_exr(dir + "/out_none.exr", small, EnvmapHint::None);
    CHECK(load_image(dir + "/out_none.exr").image.rgb == small.rgb);
}

TEST_CASE("image_io: write_exr failures are one-line OutputErrors and leave nothing behind", "[image_io]") {
    const std::string dir = scratch("image_io_write_exr_fail");
    Image img(4, 2);
    auto require_output_error = [](const std::string& path, const Image& im) {
        try {
            bake::write_exr(path, im, EnvmapHint::None);
            FAIL("no error writing " << path);
        } catch (const bake::OutputError& e) {
            const std::string msg = e.what();
            INFO(msg);
            CHECK(msg.rfind(path + ": ", 0) == 0);
            CHECK(msg.find('\n') == std::string::npos);
        }
    };
    require_output_error(dir + "/no_such_folder/out.exr", img);
    fs::create_directories(dir + "/a_folder.exr");
    require_output_error(dir + "/a_folder.exr", img);
    write_text(dir + "/plain_file", "x");
    require_output_error(dir + "/plain_file/out.exr", img);
    CHECK(fs::is_directory(dir + "/a_folder.exr"));
    std::size_t entries = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        (void)e;
        ++entries;
    }
    CHECK(entries == 2);  // a_folder.exr and plain_file: no temporaries
}

TEST_CASE("image_io: every EXR compression, half, float and uint, read through load_image", "[image_io]") {
    const std::string dir = scratch("image_io_compressions");
    const int w = 45, h = 38;  // several blocks for every codec (ZIP 16 lines, PIZ/B44/DWAA 32, DWAB 256)
    const Imath::Box2i dw(Imath::V2i(0, 0), Imath::V2i(w - 1, h - 1));
    struct Comp {
        Imf::Compression c;
        const char* name;
    };
    const Comp comps[] = {{Imf::NO_COMPRESSION, "NONE"}, {Imf::RLE_COMPRESSION, "RLE"},
                          {Imf::ZIPS_COMPRESSION, "ZIPS"}, {Imf::ZIP_COMPRESSION, "ZIP"},
                          {Imf::PIZ_COMPRESSION, "PIZ"},   {Imf::PXR24_COMPRESSION, "PXR24"},
                          {Imf::B44_COMPRESSION, "B44"},   {Imf::B44A_COMPRESSION, "B44A"},
                          {Imf::DWAA_COMPRESSION, "DWAA"}, {Imf::DWAB_COMPRESSION, "DWAB"}};
    const std::pair<Imf::PixelType, const char*> types[] = {
        {Imf::HALF, "half"}, {Imf::FLOAT, "float"}, {Imf::UINT, "uint"}};
    for (const Comp& comp : comps)
        for (const auto& [type, tname] : types) {
            // Which codecs lose data (OpenEXR's documentation, and checked by the !exact test
            // below): PXR24 rounds FLOAT to 24 bits; B44/B44A are lossy on HALF only; DWAA/DWAB
            // quantise R, G, B whether HALF or FLOAT (FLOAT goes through half). UINT is always kept
            // exactly. Lossless cases use random values over many magnitudes and signs and must
            // be bit-exact; lossy ones get a smooth image.
            const bool dwa = comp.c == Imf::DWAA_COMPRESSION || comp.c == Imf::DWAB_COMPRESSION;
            const bool b44 = comp.c == Imf::B44_COMPRESSION || comp.c == Imf::B44A_COMPRESSION;
            const bool lossy = (comp.c == Imf::PXR24_COMPRESSION && type == Imf::FLOAT) ||
                               (b44 && type == Imf::HALF) || (dwa && type != Imf::UINT);
            INFO(comp.name << " " << tname << (lossy ? " (lossy)" : " (lossless)"));
            const std::string path = dir + "/" + comp.name + "_" + tname + ".exr";
            std::vector<Plane> planes = rgb_planes(type, w, h, lossy, 100u + static_cast<unsigned>(comp.c));
            write_scanline_exr(path, planes, dw, comp.c);

            const LoadedImage loaded = load_image(path);
            REQUIRE(loaded.image.width == w);
            REQUIRE(loaded.image.height == h);
            CHECK(loaded.envmap == EnvmapHint::None);
            const Diff d = compare_rgb(loaded.image, planes);
            CAPTURE(d.max_abs, d.max_rel);
            if (!lossy) {
                CHECK(d.exact);
            } else if (comp.c == Imf::PXR24_COMPRESSION) {
                // 24-bit float keeps 15 mantissa bits: relative rounding error <= 2^-16 (x2 margin).
                for (std::size_t i = 0; i < loaded.image.pixel_count(); ++i)
                    for (int c = 0; c < 3; ++c) {
                        const double want = planes[static_cast<std::size_t>(c)].expect[i];
                        REQUIRE(std::fabs(loaded.image.rgb[3 * i + static_cast<std::size_t>(c)] - want) <=
                                std::fabs(want) * std::ldexp(1.0, -15));
                    }
            } else {
                // B44 (4x4 blocks, 6-bit deltas in a log-like space) and DWA (DCT, default quality
                // 45) on this smooth image: max |error| within 2% of its peak (~10). Measured with
                // OpenEXR 3.1.5: B44/B44A 0.31%, DWAA/DWAB about 1.2%.
                CHECK(d.max_rel < 0.02);
                CHECK(!d.exact);  // proves the lossy codec really ran
            }
        }
}

TEST_CASE("image_io: tiled EXRs, one level, mipmaps and ripmaps: level 0 is read", "[image_io]") {
    const std::string dir = scratch("image_io_tiled");
    const int w = 50, h = 27;  // not multiples of the 16x16 tiles
    const std::pair<Imf::LevelMode, const char*> modes[] = {
        {Imf::ONE_LEVEL, "one_level"}, {Imf::MIPMAP_LEVELS, "mipmap"}, {Imf::RIPMAP_LEVELS, "ripmap"}};
    for (const auto& [mode, mname] : modes)
        for (Imf::Compression comp : {Imf::ZIP_COMPRESSION, Imf::PIZ_COMPRESSION, Imf::NO_COMPRESSION})
            for (Imf::PixelType type : {Imf::HALF, Imf::FLOAT}) {
                INFO(mname << " compression " << int(comp) << " type " << int(type));
                const std::string path = dir + "/" + mname + "_" + std::to_string(int(comp)) + "_" +
                                         std::to_string(int(type)) + ".exr";
                Imf::Header header(w, h);
                header.compression() = comp;
                for (const char* n : {"R", "G", "B"}) header.channels().insert(n, Imf::Channel(type));
                header.setTileDescription(Imf::TileDescription(16, 16, mode, Imf::ROUND_DOWN));
                std::vector<Plane> level0 = rgb_planes(type, w, h, false, 9);
                {
                    Imf::TiledOutputFile out(path.c_str(), header);
                    auto write_level = [&](int lx, int ly) {
                        const Imath::Box2i ldw = out.dataWindowForLevel(lx, ly);
                        const int lw = ldw.max.x - ldw.min.x + 1, lh = ldw.max.y - ldw.min.y + 1;
                        // Other levels hold a value level 0 never has: reading one would show.
                        std::vector<Plane> other;
                        for (const char* n : {"R", "G", "B"})
                            other.emplace_back(n, type, std::vector<float>(static_cast<std::size_t>(lw) * lh, 777.0f));
                        std::vector<Plane>& planes = (lx == 0 && ly == 0) ? level0 : other;
                        out.setFrameBuffer(frame_buffer(planes, ldw));
                        out.writeTiles(0, out.numXTiles(lx) - 1, 0, out.numYTiles(ly) - 1, lx, ly);
                    };
                    if (mode == Imf::RIPMAP_LEVELS) {
                        for (int ly = 0; ly < out.numYLevels(); ++ly)
                            for (int lx = 0; lx < out.numXLevels(); ++lx) write_level(lx, ly);
                    } else {
                        for (int l = 0; l < out.numLevels(); ++l) write_level(l, l);
                    }
                    if (mode != Imf::ONE_LEVEL) REQUIRE(out.numXLevels() > 1);
                }
                const LoadedImage loaded = load_image(path);
                REQUIRE(loaded.image.width == w);
                REQUIRE(loaded.image.height == h);
                CHECK(compare_rgb(loaded.image, level0).exact);
            }
}

TEST_CASE("image_io: Y-only, RGBA, luminance/chroma, uint, partial RGB", "[image_io]") {
    const std::string dir = scratch("image_io_channels");
    const int w = 24, h = 12;
    const Imath::Box2i dw(Imath::V2i(0, 0), Imath::V2i(w - 1, h - 1));

    SECTION("Y only reads as grey") {
        std::vector<Plane> planes;
        planes.emplace_back("Y", Imf::FLOAT, random_values(w * h, 3));
        write_scanline_exr(dir + "/y.exr", planes, dw, Imf::ZIP_COMPRESSION);
        const Image img = load_image(dir + "/y.exr").image;
        for (std::size_t i = 0; i < img.pixel_count(); ++i)
            for (int c = 0; c < 3; ++c) REQUIRE(bits(img.rgb[3 * i + static_cast<std::size_t>(c)]) == bits(planes[0].expect[i]));
    }
    SECTION("RGBA: alpha is ignored") {
        std::vector<Plane> planes = rgb_planes(Imf::HALF, w, h, false, 4);
        planes.emplace_back("A", Imf::HALF, std::vector<float>(w * h, 0.25f));
        write_scanline_exr(dir + "/rgba.exr", planes, dw, Imf::PIZ_COMPRESSION);
        CHECK(compare_rgb(load_image(dir + "/rgba.exr").image, planes).exact);
    }
    SECTION("luminance/chroma (RgbaOutputFile WRITE_YC): a grey image comes back grey") {
        // Chroma is sub-sampled and everything is half. For grey input the chroma is ~0, so the
        // result is grey to within a few half ulps of the input (half's ulp is 2^-10 relative;
        // measured up to 3 ulps from the Y/RY/BY round trip): tolerance 1%.
        std::vector<Imf::Rgba> px(static_cast<std::size_t>(w) * h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const float v = smooth_value(x, y, 0);
                px[static_cast<std::size_t>(y) * w + x] = Imf::Rgba(v, v, v, 1.0f);
            }
        {
            Imf::RgbaOutputFile out((dir + "/yc.exr").c_str(), w, h, Imf::WRITE_YC);
            out.setFrameBuffer(px.data(), 1, w);
            out.writePixels(h);
        }
        const Image img = load_image(dir + "/yc.exr").image;
        for (std::size_t i = 0; i < img.pixel_count(); ++i)
            for (int c = 0; c < 3; ++c)
                REQUIRE(img.rgb[3 * i + static_cast<std::size_t>(c)] ==
                        Approx(float(px[i].r)).epsilon(0.01));
    }
    SECTION("uint channels convert to float exactly") {
        std::vector<Plane> planes = rgb_planes(Imf::UINT, w, h, false, 5);
        write_scanline_exr(dir + "/uint.exr", planes, dw, Imf::ZIP_COMPRESSION);
        CHECK(compare_rgb(load_image(dir + "/uint.exr").image, planes).exact);
    }
    SECTION("only R and G: an error naming the channels (issue 18 #9: B read as 0)") {
        std::vector<Plane> planes = rgb_planes(Imf::FLOAT, w, h, false, 6);
        planes.pop_back();
        write_scanline_exr(dir + "/rg.exr", planes, dw, Imf::ZIP_COMPRESSION);
        const std::string msg = require_input_error(dir + "/rg.exr");
        CHECK(contains(msg, "has only some of the R, G and B channels (channels: G, R)"));
    }
    SECTION("no colour channel at all is an error") {
        std::vector<Plane> planes;
        planes.emplace_back("Z", Imf::FLOAT, random_values(w * h, 8));
        write_scanline_exr(dir + "/z.exr", planes, dw, Imf::ZIP_COMPRESSION);
        const std::string msg = require_input_error(dir + "/z.exr");
        CHECK(contains(msg, "Z"));
    }
}

TEST_CASE("image_io: data window off the origin, envmap attribute, multi-part", "[image_io]") {
    const std::string dir = scratch("image_io_windows");
    SECTION("data window not at the origin, display window elsewhere") {
        const Imath::Box2i dw(Imath::V2i(-7, 5), Imath::V2i(-7 + 30 - 1, 5 + 11 - 1));
        const Imath::Box2i display(Imath::V2i(0, 0), Imath::V2i(99, 99));
        std::vector<Plane> planes = rgb_planes(Imf::FLOAT, 30, 11, false, 11);
        write_scanline_exr(dir + "/offset.exr", planes, dw, Imf::ZIP_COMPRESSION, &display);
        const Image img = load_image(dir + "/offset.exr").image;
        REQUIRE(img.width == 30);
        REQUIRE(img.height == 11);
        CHECK(compare_rgb(img, planes).exact);
    }
    SECTION("envmap attribute written by OpenEXR itself") {
        const Imath::Box2i dw(Imath::V2i(0, 0), Imath::V2i(7, 47));
        for (Imf::Envmap e : {Imf::ENVMAP_LATLONG, Imf::ENVMAP_CUBE}) {
            std::vector<Plane> planes = rgb_planes(Imf::HALF, 8, 48, false, 12);
            const std::string path = dir + "/env" + std::to_string(int(e)) + ".exr";
            write_scanline_exr(path, planes, dw, Imf::ZIP_COMPRESSION, nullptr,
                               [e](Imf::Header& hd) { Imf::addEnvmap(hd, e); });
            CHECK(load_image(path).envmap == (e == Imf::ENVMAP_CUBE ? EnvmapHint::Cube : EnvmapHint::LatLong));
        }
    }
    SECTION("multi-part: part 0 is read, and a note says so (issue 18 #9: silently)") {
        const int w = 16, h = 8;
        const Imath::Box2i dw(Imath::V2i(0, 0), Imath::V2i(w - 1, h - 1));
        std::vector<Plane> p0 = rgb_planes(Imf::FLOAT, w, h, false, 13);
        std::vector<Plane> p1 = rgb_planes(Imf::FLOAT, w, h, false, 14);
        std::vector<Imf::Header> headers(2, Imf::Header(w, h));
        for (int i = 0; i < 2; ++i) {
            headers[static_cast<std::size_t>(i)].setName(i == 0 ? "first" : "second");
            headers[static_cast<std::size_t>(i)].setType(Imf::SCANLINEIMAGE);
            for (const char* n : {"R", "G", "B"})
                headers[static_cast<std::size_t>(i)].channels().insert(n, Imf::Channel(Imf::FLOAT));
        }
        {
            Imf::MultiPartOutputFile out((dir + "/multi.exr").c_str(), headers.data(), 2);
            Imf::OutputPart part0(out, 0), part1(out, 1);
            part0.setFrameBuffer(frame_buffer(p0, dw));
            part0.writePixels(h);
            part1.setFrameBuffer(frame_buffer(p1, dw));
            part1.writePixels(h);
        }
        const LoadedImage loaded = load_image(dir + "/multi.exr");
        CHECK(compare_rgb(loaded.image, p0).exact);
        REQUIRE(loaded.notes.size() == 1);
        CHECK(loaded.notes[0] == "a multi-part EXR of 2 parts: part 0 ('first') is baked");
        write_scanline_exr(dir + "/single.exr", p0, dw, Imf::ZIP_COMPRESSION);
        CHECK(load_image(dir + "/single.exr").notes.empty());
    }
}

TEST_CASE("image_io: .hdr written by stbi_write_hdr reads back within RGBE quantisation", "[image_io]") {
    const std::string dir = scratch("image_io_hdr");
    // 64x32 is written run-length encoded; 5x3 (width < 8) flat. RGBE stores a shared exponent e
    // (2^(e-1) <= max channel < 2^e) and 8-bit mantissas truncated by stb's writer, so each
    // channel comes back in (v - 2^(e-8), v]: an error below 1/256 of 2^e, i.e. below
    // max_channel/128 and at most 1/256 relative for the largest channel rounded up to a power
    // of two. Values below 2^-8 of the max channel may vanish entirely: allowed by that bound.
    for (const auto& [w, h] : {std::pair<int, int>{64, 32}, {5, 3}}) {
        INFO(w << "x" << h);
        std::vector<float> v = random_values(static_cast<std::size_t>(w) * h * 3, 21, true);
        v[0] = 0.0f;
        v[1] = 1.0e6f;
        v[2] = 1.0e-6f;
        const std::string path = dir + "/img" + std::to_string(w) + ".HDR";  // extension case-insensitive
        REQUIRE(stbi_write_hdr(path.c_str(), w, h, 3, v.data()));
        const LoadedImage loaded = load_image(path);
        REQUIRE(loaded.image.width == w);
        REQUIRE(loaded.image.height == h);
        CHECK(loaded.envmap == EnvmapHint::None);
        for (std::size_t i = 0; i < static_cast<std::size_t>(w) * h; ++i) {
            const float m = std::max({v[3 * i], v[3 * i + 1], v[3 * i + 2]});
            int e = 0;
            std::frexp(m, &e);
            const double step = std::ldexp(1.0, e - 8);
            for (std::size_t c = 0; c < 3; ++c) {
                const double got = loaded.image.rgb[3 * i + c], want = v[3 * i + c];
                INFO("pixel " << i << " channel " << c << " want " << want << " got " << got);
                REQUIRE(got <= want * (1 + 1e-7) + 1e-30);
                REQUIRE(want - got < step * (1 + 1e-7));
            }
        }
    }
}

TEST_CASE("image_io: assets/sample_sky.hdr is a 2:1 sky with the sun where its README says", "[image_io]") {
    const LoadedImage loaded = load_image(std::string(BAKE_ASSETS_DIR) + "/sample_sky.hdr");
    const Image& img = loaded.image;
    REQUIRE(img.width == 2 * img.height);
    REQUIRE(img.width == 512);
    // Brightest texel: in the disc around u = 0.625, v = 55/180 (column 320, row 78).
    std::size_t best = 0;
    for (std::size_t i = 0; i < img.pixel_count(); ++i)
        if (img.rgb[3 * i] > img.rgb[3 * best]) best = i;
    const int row = static_cast<int>(best / static_cast<std::size_t>(img.width));
    const int col = static_cast<int>(best % static_cast<std::size_t>(img.width));
    CHECK(std::abs(col - 320) <= 2);
    CHECK(std::abs(row - 78) <= 2);
    CHECK(img.rgb[3 * best] > 4000.0f);
    // Sky above the horizon is blue-ish and brighter than the ground below it.
    const float* zenith = img.at(0, 100);
    CHECK(zenith[2] > zenith[0]);
    const float* ground = img.at(img.height - 1, 100);
    CHECK(ground[0] > ground[2]);  // brown
    CHECK(ground[0] + ground[1] + ground[2] < zenith[0] + zenith[1] + zenith[2]);
    for (float x : img.rgb) REQUIRE((std::isfinite(x) && x >= 0.0f));
}
