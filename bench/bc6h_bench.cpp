// BC6H encoding: bc6h_encode_images over a whole chain (all levels' faces at once, as the KTX2 and
// DDS writers do level by level), and GpuBc6hEncoder::encode_texture of the same chain uploaded as an
// RGBA32F cube texture. CPU: wall time of the calls (median of `repeats`; thorough once, it is slow);
// GPU: the dispatches' GL timestamps (median, after half a second of warming up), and the wall time
// with the blocks' read back.
#include "bc6h_bench.h"

#include <cstdio>
#include <thread>
#include <vector>

#include "bc6h.h"
#include "bench_support.h"
#include "gl_objects.h"
#include "gpu_bc6h.h"
#include "gpu_projector.h"
#include "specular_io.h"

namespace bench {

namespace {

// Every level's faces, level by level, as one list (bc6h_encode_images encodes them at once).
std::vector<const bake::Image*> all_faces(const std::vector<bake::CubeMap>& chain) {
    std::vector<const bake::Image*> faces;
    for (const bake::CubeMap& level : chain)
        for (const bake::Image& f : level.faces) faces.push_back(&f);
    return faces;
}

}  // namespace

bool run_bc6h_bench(bake::GpuProjector& gpu, const std::string& chain_exr, int repeats, nlohmann::json* out) {
    const std::vector<bake::CubeMap> chain = chain_exr.empty() ? sky_chain(256) : bake::read_specular_exr(chain_exr);
    const std::vector<const bake::Image*> faces = all_faces(chain);
    std::size_t texels = 0;
    for (const bake::Image* f : faces) texels += f->pixel_count();
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    (*out)["chain"] = chain_exr.empty() ? "bench_support sky_chain(256)" : chain_exr;
    (*out)["texels"] = texels;
    std::string table = "| encoder | setting | threads | ms | Mtexel/s |\n|---|---|---|---|---|\n";
    auto row = [&](const char* encoder, const char* setting, int threads, double ms) {
        char line[160];
        std::snprintf(line, sizeof line, "| %s | %s | %d | %.2f | %.2f |\n", encoder, setting, threads, ms, texels / ms / 1e3);
        table += line;
        (*out)["rows"].push_back({{"encoder", encoder}, {"setting", setting}, {"threads", threads}, {"ms", ms},
                                  {"texels_per_s", texels / ms * 1e3}});
    };
    std::vector<std::uint8_t> cpu_blocks;
    for (int threads : {1, cores}) {
        std::vector<double> ms;
        for (int i = 0; i < repeats; ++i) {
            const auto t0 = Clock::now();
            cpu_blocks = bake::bc6h_encode_images(faces, bake::Bc6hQuality::Default, threads);
            ms.push_back(ms_since(t0));
        }
        row("cpu", "default", threads, median(ms));
        if (threads == cores && cores == 1) break;
    }
    {
        const auto t0 = Clock::now();
        bake::bc6h_encode_images(faces, bake::Bc6hQuality::Thorough, cores);
        row("cpu", "thorough", cores, ms_since(t0));
    }

    // The GPU: the chain as an RGBA32F cube texture, every level encoded; blocks checked first.
    const int base = chain[0].size, levels = static_cast<int>(chain.size());
    GLuint texture = 0;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_CUBE_MAP, texture);
    glTexStorage2D(GL_TEXTURE_CUBE_MAP, levels, GL_RGBA32F, base, base);
    for (int l = 0; l < levels; ++l)
        for (int f = 0; f < 6; ++f)
            glTexSubImage2D(static_cast<GLenum>(GL_TEXTURE_CUBE_MAP_POSITIVE_X + f), l, 0, 0, chain[l].size, chain[l].size, GL_RGB,
                            GL_FLOAT, chain[l].faces[f].rgb.data());
    bake::check_gl("uploading the chain");
    bake::GpuBc6hEncoder encoder(gpu.programs());
    bake::EncodedTexture encoded = encoder.encode_texture(texture, GL_TEXTURE_CUBE_MAP, GL_RGBA32F, base, base, levels);
    std::vector<std::uint8_t> gpu_blocks;
    for (const auto& level : encoded.levels) gpu_blocks.insert(gpu_blocks.end(), level.begin(), level.end());
    const bool same = gpu_blocks == cpu_blocks;
    (*out)["gpu_equals_cpu"] = same;
    std::vector<double> gpu_ms, wall_ms;
    // An idle GPU runs at a fraction of its clock for the first tens of milliseconds of work (the
    // H200's first repeats took 5 times as long): half a second of encodes before the timed ones.
    for (const auto warm = Clock::now(); same && ms_since(warm) < 500;)
        encoder.encode_texture(texture, GL_TEXTURE_CUBE_MAP, GL_RGBA32F, base, base, levels);
    if (same)
        for (int i = 0; i < repeats; ++i) {
            const auto t0 = Clock::now();
            encoded = encoder.encode_texture(texture, GL_TEXTURE_CUBE_MAP, GL_RGBA32F, base, base, levels);
            wall_ms.push_back(ms_since(t0));
            gpu_ms.push_back(encoder.last_ms());
        }
    glDeleteTextures(1, &texture);
    if (same) {
        row("gpu (GL timer)", "default", 0, median(gpu_ms));
        row("gpu (wall, read back)", "default", 0, median(wall_ms));
        (*out)["gpu_ms_all"] = gpu_ms;
        (*out)["gpu_wall_ms_all"] = wall_ms;
    }
    std::printf("BC6H of a 6x%d^2 chain, %d levels, %zu texels (%s), median of %d:\n%s%s", base, levels, texels,
                (*out)["chain"].get<std::string>().c_str(), repeats, table.c_str(),
                same ? "GPU blocks equal the CPU's\n" : "GPU blocks DIFFER from the CPU's: not timed\n");
    return same;
}

}  // namespace bench
