#include <chrono>
#include <cstdio>
#include <random>
#include "specular_io.h"
#include "cube_map.h"
int main(int argc, char** argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 20;
    std::vector<bake::CubeMap> chain;
    std::mt19937 rng(1);
    for (int s = 256; s >= 1; s /= 2) {
        bake::CubeMap c(s);
        for (int f = 0; f < 6; ++f) for (int r = 0; r < s; ++r) for (int col = 0; col < s; ++col)
            for (int k = 0; k < 3; ++k) c.faces[f].at(r, col)[k] = 0.2f + 0.6f * r / s + 0.01f * k;  // smooth
        chain.push_back(std::move(c));
    }
    bake::write_specular_exr(argv[2], chain, {});
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) bake::write_specular_exr(argv[2], chain, {});
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / reps;
    std::printf("%.2f ms per write\n", ms);
}
