// bake_rgbd_tradeoff CHAIN.exr...: what a sun costs in the glTF's RGBD PNGs (values up to 255), level by
// level, under the two rules gltf_ibl.h weighs (the numbers in docs/engines-rendered.md, "A sun in glTF"):
//   clip:  the chain as it is, intensity 1: channels above 255 clipped (what --gltf writes);
//   scale: the chain times s = 255 / its max, intensity 1/s: nothing clipped, every texel s times darker
//          in RGBD, decoded and divided by s again.
// For each: the energy lost to clipping, and the energy-weighted error, sum |decoded - value| x solid
// angle over sum value x solid angle (channels summed); for the scale rule also the share of texels with a
// channel off by more than 5%. CHAIN is a specular EXR (--specular x.exr) of the same map and size.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>

#include "cube_map.h"
#include "rgbd.h"
#include "specular_io.h"

using namespace bake;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bake_rgbd_tradeoff CHAIN.exr...\n");
        return 2;
    }
    try {
        for (int a = 1; a < argc; ++a) {
            const std::vector<CubeMap> chain = read_specular_exr(argv[a]);
            double max = 0;
            for (const CubeMap& level : chain)
                for (const Image& face : level.faces)
                    for (float v : face.rgb) max = std::max(max, static_cast<double>(v));
            const double s = std::min(1.0, 255.0 / max);
            std::printf("%s: max %.4g, scale %.4g\n", argv[a], max, s);
            for (std::size_t i = 0; i < chain.size(); ++i) {
                const int n = chain[i].size;
                double energy = 0, lost = 0, err_clip = 0, err_scale = 0;
                long clipped = 0, off = 0;
                for (const Image& face : chain[i].faces)
                    for (int r = 0; r < n; ++r)
                        for (int c = 0; c < n; ++c) {
                            const double omega = cube_texel_solid_angle(r, c, n);
                            const float* v = face.at(r, c);
                            const float scaled[3] = {static_cast<float>(v[0] * s), static_cast<float>(v[1] * s), static_cast<float>(v[2] * s)};
                            std::uint8_t packed[4];
                            float back_clip[3], back_scale[3];
                            encode_rgbd(v, packed);
                            decode_rgbd(packed, back_clip);
                            encode_rgbd(scaled, packed);
                            decode_rgbd(packed, back_scale);
                            bool is_clipped = false, is_off = false;
                            for (int ch = 0; ch < 3; ++ch) {
                                energy += std::max(0.0f, v[ch]) * omega;
                                if (v[ch] > 255) {
                                    lost += (v[ch] - 255.0) * omega;
                                    is_clipped = true;
                                }
                                err_clip += std::fabs(back_clip[ch] - v[ch]) * omega;
                                const double b = back_scale[ch] / s;
                                err_scale += std::fabs(b - v[ch]) * omega;
                                is_off = is_off || (v[ch] > 0 && std::fabs(b - v[ch]) > 0.05 * v[ch]);
                            }
                            clipped += is_clipped;
                            off += is_off;
                        }
                std::printf("  level %zu (%d): clip: %ld texels, %.2f%% of the energy lost, error %.3f%% | "
                            "scale: error %.3f%%, %.1f%% of the texels off by > 5%%\n",
                            i, n, clipped, 100 * lost / energy, 100 * err_clip / energy, 100 * err_scale / energy,
                            100.0 * off / (6.0 * n * n));
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bake_rgbd_tradeoff: %s\n", e.what());
        return 1;
    }
    return 0;
}
