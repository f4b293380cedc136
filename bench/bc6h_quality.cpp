// bake-bench --bc6h-quality: BC6H's default and thorough settings against the float chain, level by
// level and over the whole chain (every level's faces as one image set: mPSNR's exposures from
// level 0's range), beside rgba16f's own rounding (texture_quality.h); then the files' sizes.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bc6h.h"
#include "bc6h_bench.h"
#include "bench_support.h"
#include "dds_writer.h"
#include "gpu_formats.h"
#include "ibl_ktx2.h"
#include "specular_io.h"
#include "texture_quality.h"

namespace bench {

namespace {

struct Decoded {
    std::vector<std::vector<bake::Image>> levels;  // [level][face]
    double ms = 0;
};

Decoded round_trip(const std::vector<bake::CubeMap>& chain, bake::Bc6hQuality quality) {
    Decoded d;
    for (const bake::CubeMap& level : chain) {
        std::vector<const bake::Image*> faces;
        for (const bake::Image& f : level.faces) faces.push_back(&f);
        const auto t0 = Clock::now();
        const std::vector<std::uint8_t> blocks = bake::bc6h_encode_images(faces, quality);
        d.ms += ms_since(t0);
        const std::size_t face_bytes = bake::bc6h_block_count(level.size, level.size) * bake::kBc6hBlockBytes;
        d.levels.emplace_back();
        for (int f = 0; f < 6; ++f) d.levels.back().push_back(bake::bc6h_decode_image(blocks.data() + f * face_bytes, level.size, level.size));
    }
    return d;
}

std::vector<const bake::Image*> pointers(const std::vector<bake::Image>& images) {
    std::vector<const bake::Image*> p;
    for (const bake::Image& im : images) p.push_back(&im);
    return p;
}

}  // namespace

void run_bc6h_quality(const std::vector<std::string>& chain_exrs, nlohmann::json* out) {
    std::string table =
        "| chain | level | rgba16f mPSNR | default mPSNR | thorough mPSNR | default - thorough dB | default rel RMSE | "
        "thorough rel RMSE | default log2 RMSE | thorough log2 RMSE |\n|---|---|---|---|---|---|---|---|---|---|\n";
    for (const std::string& path : chain_exrs) {
        const std::vector<bake::CubeMap> chain = bake::read_specular_exr(path);
        const Decoded def = round_trip(chain, bake::Bc6hQuality::Default), tho = round_trip(chain, bake::Bc6hQuality::Thorough);
        const std::string name = std::filesystem::path(path).filename().string();
        std::vector<const bake::Image*> all_ref, all_def, all_tho, all_half;
        std::vector<std::vector<bake::Image>> halves;
        auto line = [&](const std::string& level, const std::vector<const bake::Image*>& ref, const std::vector<const bake::Image*>& half,
                        const std::vector<const bake::Image*>& d, const std::vector<const bake::Image*>& t) {
            const bake::TextureErrors h = bake::compare_textures(half, ref), a = bake::compare_textures(d, ref),
                                      b = bake::compare_textures(t, ref);
            char row[400];
            std::snprintf(row, sizeof row, "| %s | %s | %.2f | %.2f | %.2f | %+.2f | %.4f | %.4f | %.4f | %.4f |\n", name.c_str(),
                          level.c_str(), h.mpsnr_db, a.mpsnr_db, b.mpsnr_db, a.mpsnr_db - b.mpsnr_db, a.relative_rmse, b.relative_rmse,
                          a.log2_rmse, b.log2_rmse);
            table += row;
            (*out)["quality"].push_back({{"chain", name}, {"level", level}, {"rgba16f_mpsnr", h.mpsnr_db}, {"default_mpsnr", a.mpsnr_db},
                                         {"thorough_mpsnr", b.mpsnr_db}, {"default_rel_rmse", a.relative_rmse},
                                         {"thorough_rel_rmse", b.relative_rmse}, {"default_log2_rmse", a.log2_rmse},
                                         {"thorough_log2_rmse", b.log2_rmse}});
        };
        halves.resize(chain.size());
        for (std::size_t l = 0; l < chain.size(); ++l)
            for (const bake::Image& f : chain[l].faces) {
                bake::Image h = f;
                for (float& v : h.rgb) v = bake::half_to_float(bake::float_to_half(v > 0 ? v : 0.0f));
                halves[l].push_back(std::move(h));
            }
        for (std::size_t l = 0; l < chain.size(); ++l) {
            std::vector<const bake::Image*> ref;
            for (const bake::Image& f : chain[l].faces) ref.push_back(&f);
            line(std::to_string(l) + " (" + std::to_string(chain[l].size) + ")", ref, pointers(halves[l]), pointers(def.levels[l]),
                 pointers(tho.levels[l]));
            all_ref.insert(all_ref.end(), ref.begin(), ref.end());
            for (const bake::Image* p : pointers(halves[l])) all_half.push_back(p);
            for (const bake::Image* p : pointers(def.levels[l])) all_def.push_back(p);
            for (const bake::Image* p : pointers(tho.levels[l])) all_tho.push_back(p);
        }
        line("all", all_ref, all_half, all_def, all_tho);
        (*out)["encode_ms"].push_back({{"chain", name}, {"default", def.ms}, {"thorough", tho.ms}});
    }

    // Sizes: each format's files for the first chain and a 6x32^2 cube (the irradiance cube's size).
    std::string sizes = "| texture | format | KTX2 bytes | DDS bytes |\n|---|---|---|---|\n";
    const std::vector<bake::CubeMap> chain = bake::read_specular_exr(chain_exrs.front());
    std::vector<bake::CubeMap> irradiance;
    for (const bake::CubeMap& level : chain)
        if (level.size == 32) irradiance.push_back(level);
    const std::string tmp = (std::filesystem::temp_directory_path() / "bake-bench-bc6h").string();
    for (const auto& [label, cubes] : {std::pair<std::string, const std::vector<bake::CubeMap>*>{"chain 6x" + std::to_string(chain[0].size) + "^2, all levels", &chain},
                                       std::pair<std::string, const std::vector<bake::CubeMap>*>{"cube 6x32^2", &irradiance}}) {
        if (cubes->empty()) continue;
        for (bake::TextureFormat f : {bake::TextureFormat::Rgba32Float, bake::TextureFormat::Rgba16Float, bake::TextureFormat::B10G11R11UFloat,
                                      bake::TextureFormat::E5B9G9R9UFloat, bake::TextureFormat::Bc6hUFloat}) {
            bake::KtxWriteOptions o;
            o.format = f;
            bake::write_specular_ktx2(tmp + ".ktx2", *cubes, o);
            bake::write_dds(tmp + ".dds", bake::encode_texture(bake::cube_chain_images(*cubes), f));
            const auto ktx = std::filesystem::file_size(tmp + ".ktx2"), dds = std::filesystem::file_size(tmp + ".dds");
            char row[200];
            std::snprintf(row, sizeof row, "| %s | %s | %ju | %ju |\n", label.c_str(), bake::texture_format_name(f), static_cast<std::uintmax_t>(ktx),
                          static_cast<std::uintmax_t>(dds));
            sizes += row;
            (*out)["sizes"].push_back({{"texture", label}, {"format", bake::texture_format_name(f)}, {"ktx2_bytes", ktx}, {"dds_bytes", dds}});
        }
    }
    std::filesystem::remove(tmp + ".ktx2");
    std::filesystem::remove(tmp + ".dds");
    std::printf("BC6H quality against the float chain (mPSNR dB; relative and log2 RMSE):\n%s\nFile sizes:\n%s", table.c_str(), sizes.c_str());
}

}  // namespace bench
