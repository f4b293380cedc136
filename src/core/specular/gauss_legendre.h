#pragma once
// Gauss–Legendre rules on [0, 1], in double, shared by the tables' quadratures (dfg.cpp, sheen_lut.cpp).
#include <vector>

namespace bake {

struct GaussRule {
    std::vector<double> nodes, weights;  // on [0, 1]: Σ weights = 1
};

// The n-point rule (n clamped to [1, kMaxGaussNodes]), made once (Newton on the Legendre
// polynomial from Tricomi's estimate of each root) and cached; safe from any thread.
constexpr int kMaxGaussNodes = 256;
const GaussRule& gauss_legendre(int n);

}  // namespace bake
