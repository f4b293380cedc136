// Writes a real specular chain (read from a bake's chain EXR) as write_specular_exr lays it out
// (tiled 64x64 float RGB, MIPMAP_LEVELS ROUND_DOWN, the two extra levels) with each codec, N times,
// to tmpfs or disk: median ms a write and bytes. Usage: probe CHAIN.exr OUT_DIR [N]
#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfTiledOutputFile.h>
#include <ImfThreading.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <sys/stat.h>
#include <vector>
#include "layout.h"
#include "specular_io.h"
using namespace bake;
int main(int argc, char** argv) {
    const std::string out = std::string(argv[2]) + "/probe.exr";
    const int reps = argc > 3 ? atoi(argv[3]) : 9;
    std::vector<CubeMap> chain = read_specular_exr(argv[1]);
    std::vector<Image> strips;
    for (auto& c : chain) strips.push_back(assemble_cube(c, Layout::VStrip));
    struct V { const char* name; Imf::Compression c; int level; int threads; };
    for (V v : {V{"ZIP 4", Imf::ZIP_COMPRESSION, 4, 16}, V{"ZIP 4", Imf::ZIP_COMPRESSION, 4, 4}, V{"ZIP 4", Imf::ZIP_COMPRESSION, 4, 32},
                V{"ZIP 4", Imf::ZIP_COMPRESSION, 4, 64}, V{"ZIP 1", Imf::ZIP_COMPRESSION, 1, 16}, V{"ZIPS 4", Imf::ZIPS_COMPRESSION, 4, 16},
                V{"NONE", Imf::NO_COMPRESSION, 0, 16}, V{"RLE", Imf::RLE_COMPRESSION, 0, 16}, V{"PIZ", Imf::PIZ_COMPRESSION, 0, 16}}) {
        Imf::setGlobalThreadCount(v.threads);
        std::vector<double> ms;
        for (int i = 0; i <= reps; ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            const int n = chain[0].size;
            Imf::Header h(n, 6 * n);
            h.compression() = v.c;
            h.zipCompressionLevel() = v.level > 0 ? v.level : 4;
            for (const char* ch : {"R", "G", "B"}) h.channels().insert(ch, Imf::Channel(Imf::FLOAT));
            h.setTileDescription(Imf::TileDescription(64, 64, Imf::MIPMAP_LEVELS, Imf::ROUND_DOWN));
            {
                Imf::TiledOutputFile f(out.c_str(), h, Imf::globalThreadCount());
                std::vector<float> small(18, 0.5f);
                for (int l = 0; l < f.numLevels(); ++l) {
                    const float* px = l < static_cast<int>(strips.size()) ? strips[l].rgb.data() : small.data();
                    const int w = f.levelWidth(l);
                    const Imath::Box2i dw = f.dataWindowForLevel(l);
                    Imf::FrameBuffer fb;
                    char* base = reinterpret_cast<char*>(const_cast<float*>(px)) - (dw.min.x + dw.min.y * static_cast<long>(w)) * 12;
                    for (int k = 0; k < 3; ++k) fb.insert("RGB"[k] == 'R' ? "R" : k == 1 ? "G" : "B", Imf::Slice(Imf::FLOAT, base + 4 * k, 12, 12 * static_cast<size_t>(w)));
                    f.setFrameBuffer(fb);
                    f.writeTiles(0, f.numXTiles(l) - 1, 0, f.numYTiles(l) - 1, l);
                }
            }
            if (i > 0) ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
        std::sort(ms.begin(), ms.end());
        struct stat st{};
        stat(out.c_str(), &st);
        std::printf("| %s | %d | %.1f | %ld |\n", v.name, v.threads, ms[ms.size() / 2], static_cast<long>(st.st_size));
    }
}
