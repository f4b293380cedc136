// chain_diff A.exr B.exr: per level of two specular chains, the largest |a - b| over the level's
// largest value, and the largest relative difference over texels above 1e-3 of the level's max.
// Built by run.sh's caller: g++ -O2 -std=c++17 -Isrc/core/... (see README.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include "specular_io.h"
int main(int argc, char** argv) {
    if (argc != 3) { std::fprintf(stderr, "usage: chain_diff A.exr B.exr\n"); return 2; }
    const auto a = bake::read_specular_exr(argv[1]), b = bake::read_specular_exr(argv[2]);
    if (a.size() != b.size()) { std::printf("levels differ: %zu %zu\n", a.size(), b.size()); return 1; }
    double worst = 0;
    for (std::size_t l = 0; l < a.size(); ++l) {
        double mx = 0, d = 0, rel = 0;
        for (int f = 0; f < 6; ++f)
            for (std::size_t i = 0; i < a[l].faces[f].rgb.size(); ++i) mx = std::max(mx, (double)std::fabs(a[l].faces[f].rgb[i]));
        for (int f = 0; f < 6; ++f)
            for (std::size_t i = 0; i < a[l].faces[f].rgb.size(); ++i) {
                const double x = a[l].faces[f].rgb[i], y = b[l].faces[f].rgb[i];
                d = std::max(d, std::fabs(x - y));
                if (std::fabs(x) > 1e-3 * mx) rel = std::max(rel, std::fabs(x - y) / std::fabs(x));
            }
        std::printf("level %zu: max|a-b|/max %.3g, rel %.3g\n", l, d / std::max(mx, 1e-300), rel);
        worst = std::max(worst, rel);
    }
    std::printf("worst rel %.3g\n", worst);
    return 0;
}
