// Writes the fuzzers' seed corpus (tests/fuzz/corpus/, committed): a few tiny valid files of each
// kind the loaders accept, made here through our own writer, OpenEXR's API and stb's HDR writer.
// Usage: make_fuzz_seeds <corpus-dir>. Re-running it reproduces the committed files.
//
// fuzz_load_image seeds start with the harness's type byte: 0 = .exr, 1 = .hdr.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include <Imath/half.h>
#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfEnvmapAttribute.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfOutputFile.h>
#include <OpenEXR/ImfTiledOutputFile.h>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_image_write.h>
#pragma GCC diagnostic pop

#include "coefficients_json.h"
#include "image_io.h"
#include "specular_io.h"

namespace fs = std::filesystem;

namespace {

float value(int x, int y, int c) { return 0.25f + 0.5f * float(x) + 0.125f * float(y) + 2.0f * float(c); }

bake::Image image(int w, int h) {
    bake::Image img(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c) img.at(y, x)[c] = value(x, y, c);
    return img;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Stores `file` under `dir/name` with the type byte in front, then removes `file`.
void seed(const std::string& dir, const std::string& name, char type, const std::string& file) {
    const std::string bytes = slurp(file);
    fs::remove(file);
    std::ofstream(dir + "/" + name, std::ios::binary) << type << bytes;
    std::printf("%s/%s: %zu bytes\n", dir.c_str(), name.c_str(), bytes.size() + 1);
}

// A half-float EXR written through OpenEXR: channels named in `names`, optional tiles.
void write_half_exr(const std::string& path, int w, int h, const std::vector<const char*>& names,
                    Imf::Compression comp, bool tiled_mip) {
    Imf::Header header(w, h);
    header.compression() = comp;
    for (const char* n : names) header.channels().insert(n, Imf::Channel(Imf::HALF));
    std::vector<std::vector<half>> planes(names.size(), std::vector<half>(static_cast<size_t>(w) * h));
    for (size_t c = 0; c < names.size(); ++c)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) planes[c][static_cast<size_t>(y * w + x)] = half(value(x, y, int(c)));
    auto frame_buffer = [&](int lw) {
        Imf::FrameBuffer fb;
        for (size_t c = 0; c < names.size(); ++c)
            fb.insert(names[c], Imf::Slice(Imf::HALF, reinterpret_cast<char*>(planes[c].data()), 2,
                                           2 * static_cast<size_t>(lw)));
        return fb;
    };
    if (!tiled_mip) {
        Imf::OutputFile out(path.c_str(), header);
        out.setFrameBuffer(frame_buffer(w));
        out.writePixels(h);
        return;
    }
    header.setTileDescription(Imf::TileDescription(4, 4, Imf::MIPMAP_LEVELS, Imf::ROUND_DOWN));
    Imf::TiledOutputFile out(path.c_str(), header);
    for (int l = 0; l < out.numLevels(); ++l) {  // every level reuses level 0's top-left values
        out.setFrameBuffer(frame_buffer(w));
        out.writeTiles(0, out.numXTiles(l) - 1, 0, out.numYTiles(l) - 1, l);
    }
}

void write_hdr(const std::string& path, int w, int h) {
    const bake::Image img = image(w, h);
    if (!stbi_write_hdr(path.c_str(), w, h, 3, img.rgb.data())) throw std::runtime_error("stbi_write_hdr failed");
}

bake::ShCoefficients coefficients(int order) {
    bake::ShCoefficients c(order);
    for (int k = 0; k < c.count(); ++k)
        for (int ch = 0; ch < 3; ++ch) c.rgb[static_cast<size_t>(k)][ch] = std::ldexp(1.0 + k + 0.25 * ch, -k);
    return c;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: make_fuzz_seeds <corpus-dir>\n");
        return 2;
    }
    const std::string root = argv[1];
    const std::string img_dir = root + "/fuzz_load_image", json_dir = root + "/fuzz_coefficients_json";
    fs::create_directories(img_dir);
    fs::create_directories(json_dir);
    const std::string tmp_exr = img_dir + "/tmp.exr", tmp_hdr = img_dir + "/tmp.hdr";

    bake::write_exr(tmp_exr, image(8, 4), bake::EnvmapHint::None);  // float RGB ZIP, equirect by aspect
    seed(img_dir, "exr_float_zip_equirect_8x4", '\0', tmp_exr);
    bake::write_exr(tmp_exr, image(2, 12), bake::EnvmapHint::Cube);  // envmap=cube, 1:6 strip
    seed(img_dir, "exr_float_envmap_cube_2x12", '\0', tmp_exr);
    bake::write_exr(tmp_exr, image(6, 3), bake::EnvmapHint::LatLong);  // envmap=latlong beats the aspect
    seed(img_dir, "exr_float_envmap_latlong_6x3", '\0', tmp_exr);
    write_half_exr(tmp_exr, 8, 6, {"R", "G", "B"}, Imf::PIZ_COMPRESSION, false);  // 4:3 cross
    seed(img_dir, "exr_half_piz_hcross_8x6", '\0', tmp_exr);
    write_half_exr(tmp_exr, 12, 2, {"A", "B", "G", "R"}, Imf::RLE_COMPRESSION, false);  // RGBA, 6:1 strip
    seed(img_dir, "exr_half_rle_rgba_hstrip_12x2", '\0', tmp_exr);
    write_half_exr(tmp_exr, 8, 4, {"Y"}, Imf::NO_COMPRESSION, false);  // luminance only
    seed(img_dir, "exr_half_y_only_8x4", '\0', tmp_exr);
    write_half_exr(tmp_exr, 8, 4, {"R", "G", "B"}, Imf::ZIPS_COMPRESSION, true);  // tiled, mip levels
    seed(img_dir, "exr_half_tiled_mip_8x4", '\0', tmp_exr);
    write_half_exr(tmp_exr, 8, 4, {"R", "G", "B"}, Imf::DWAB_COMPRESSION, false);  // half RGB, kept packed
    seed(img_dir, "exr_half_dwab_equirect_8x4_packed", '\2', tmp_exr);
    write_hdr(tmp_hdr, 16, 8);  // width >= 8: run-length encoded scanlines (the parallel decoder)
    seed(img_dir, "hdr_rle_16x8", '\1', tmp_hdr);
    seed(img_dir, "hdr_rle_16x8_packed", '\3', tmp_hdr);  // ... kept as RGBE
    write_hdr(tmp_hdr, 4, 2);  // width < 8: flat
    seed(img_dir, "hdr_flat_4x2", '\1', tmp_hdr);
    write_hdr(tmp_hdr, 3, 4);  // 3:4 vertical cross of 1x1 faces
    seed(img_dir, "hdr_flat_vcross_3x4", '\1', tmp_hdr);

    bake::BakeRecord record;
    record.inputs = {"sky.exr"};
    record.source_width = 8;
    record.source_height = 4;
    record.radiance = coefficients(3);
    record.irradiance = bake::irradiance_from_radiance(record.radiance);
    record.solid_angle_sum = 12.566370614359172;
    bake::write_coefficients_json(json_dir + "/full_order3.json", record);  // what the tool writes
    std::printf("%s/full_order3.json\n", json_dir.c_str());
    std::ofstream(json_dir + "/radiance_only_order1.json") << R"({"radiance": [[1, 2, 3]]})" << "\n";
    nlohmann::json five = {{"radiance", nlohmann::json::array()}, {"irradiance", nlohmann::json::array()}};
    const bake::ShCoefficients c5 = coefficients(5);
    for (const bake::Rgb& v : c5.rgb) {
        five["radiance"].push_back({v[0], v[1], v[2]});
        five["irradiance"].push_back({-v[0], 1e-300, 0});
    }
    std::ofstream(json_dir + "/order5.json") << five.dump() << "\n";
    std::printf("%s/radiance_only_order1.json, order5.json\n", json_dir.c_str());

    // Specular chains: what --specular writes (a 4 base: 3 cube levels, 5 file levels), and 2.
    const std::string spec_dir = root + "/fuzz_specular_exr";
    fs::create_directories(spec_dir);
    for (int base : {4, 2}) {
        std::vector<bake::CubeMap> chain;
        for (int n = base; n >= 1; n /= 2) {
            bake::CubeMap m(n);
            for (auto& face : m.faces)
                for (std::size_t i = 0; i < face.rgb.size(); ++i) face.rgb[i] = 0.25f * static_cast<float>(i % 7) + n;
            chain.push_back(m);
        }
        const std::string file = spec_dir + "/chain_base" + std::to_string(base) + ".exr";
        bake::write_specular_exr(file, chain, {});
        std::printf("%s\n", file.c_str());
    }
    return 0;
}
