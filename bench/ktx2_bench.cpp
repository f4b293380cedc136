// KTX2 chains: encode_ktx2 (conversion, optional Zstandard, the container) and write_ktx2 (the same
// through an atomic write: temporary file, fsync, rename) of a 6x256^2 cube with its 9 levels,
// median of `repeats` after one warm-up, of bench_support.h's sky chain (not zeros: Zstandard sees
// what a real chain gives it).
#include "ktx2_bench.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_support.h"
#include "image.h"
#include "ibl_ktx2.h"
#include "ktx2_writer.h"
#include "specular_io.h"

namespace bench {

void run_ktx2_bench(int repeats, nlohmann::json* out) {
    const int base = 256;
    const std::vector<bake::CubeMap> cubes = sky_chain(base);
    const bake::KtxImages images = bake::cube_chain_images(cubes);
    const std::string path = (std::filesystem::temp_directory_path() / "bake-bench-ktx2.ktx2").string();
    struct Row {
        bake::KtxFormat format;
        int zstd;
    };
    const Row rows[] = {{bake::KtxFormat::Rgba16Float, 0}, {bake::KtxFormat::Rgba16Float, 3},
                        {bake::KtxFormat::Rgba16Float, 19}, {bake::KtxFormat::Rgba32Float, 0},
                        {bake::KtxFormat::B10G11R11UFloat, 0}, {bake::KtxFormat::E5B9G9R9UFloat, 0}};
    std::string table = "| format | zstd | bytes | encode ms | write ms (fsync, rename) |\n|---|---|---|---|---|\n";
    for (const Row& row : rows) {
        bake::KtxWriteOptions o;
        o.format = row.format;
        o.zstd_level = row.zstd;
        std::size_t bytes = bake::encode_ktx2(images, o).size();  // warm-up
        std::vector<double> enc, wr;
        for (int i = 0; i < repeats; ++i) {
            auto t0 = Clock::now();
            bytes = bake::encode_ktx2(images, o).size();
            enc.push_back(ms_since(t0));
            t0 = Clock::now();
            bake::write_ktx2(path, images, o);
            wr.push_back(ms_since(t0));
        }
        nlohmann::json j;
        j["format"] = bake::ktx_format_name(row.format);
        j["zstd_level"] = row.zstd;
        j["bytes"] = bytes;
        j["encode_ms"] = median(enc);
        j["write_ms"] = median(wr);
        j["encode_ms_all"] = enc;
        j["write_ms_all"] = wr;
        out->push_back(j);
        char line[200];
        std::snprintf(line, sizeof line, "| %s | %d | %zu | %.2f | %.2f |\n", bake::ktx_format_name(row.format), row.zstd,
                      bytes, median(enc), median(wr));
        table += line;
    }
    std::filesystem::remove(path);
    std::printf("KTX2 cube 6x%d^2, %zu levels, median of %d:\n%s", base, images.levels.size(), repeats, table.c_str());
    // The same chain as --specular's tiled, mip-mapped float EXR (ZIP, OpenEXR's thread pool; atomic
    // write with fsync): what a bake's write stage spends on it.
    const std::string exr = (std::filesystem::temp_directory_path() / "bake-bench-chain.exr").string();
    bake::write_specular_exr(exr, cubes, {});  // warm-up (and OpenEXR's threads)
    std::vector<double> wr;
    for (int i = 0; i < repeats; ++i) {
        const auto t0 = Clock::now();
        bake::write_specular_exr(exr, cubes, {});
        wr.push_back(ms_since(t0));
    }
    const auto exr_bytes = std::filesystem::file_size(exr);
    std::filesystem::remove(exr);
    nlohmann::json j;
    j["format"] = "exr float zip (specular chain)";
    j["bytes"] = exr_bytes;
    j["write_ms"] = median(wr);
    j["write_ms_all"] = wr;
    out->push_back(j);
    std::printf("specular chain EXR (float, ZIP, tiled mips) 6x%d^2: %ju bytes, written in %.2f ms (median of %d)\n", base,
                static_cast<std::uintmax_t>(exr_bytes), median(wr), repeats);
}

}  // namespace bench
