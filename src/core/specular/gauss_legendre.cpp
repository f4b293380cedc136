#include "gauss_legendre.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <mutex>

#include "ggx.h"

namespace bake {
namespace {

GaussRule make_gauss_legendre(int n) {
    GaussRule rule;
    rule.nodes.resize(static_cast<std::size_t>(n));
    rule.weights.resize(static_cast<std::size_t>(n));
    auto legendre = [n](double z, double& p_n, double& dp_n) {  // P_n(z) and P_n'(z)
        double p0 = 1.0, p1 = 0.0;
        for (int k = 1; k <= n; ++k) {
            const double p2 = p1;
            p1 = p0;
            p0 = ((2.0 * k - 1.0) * z * p1 - (k - 1.0) * p2) / k;
        }
        p_n = p0;
        dp_n = n * (z * p0 - p1) / (z * z - 1.0);
    };
    for (int i = 0; i < n; ++i) {
        double z = std::cos(kPi * (i + 0.75) / (n + 0.5));  // Newton from Tricomi's estimate
        double p = 0, dp = 1;
        for (int iter = 0; iter < 100; ++iter) {
            legendre(z, p, dp);
            const double step = p / dp;
            z -= step;
            if (std::fabs(step) < 1e-16) break;
        }
        legendre(z, p, dp);
        rule.nodes[static_cast<std::size_t>(i)] = 0.5 * (1.0 - z);
        rule.weights[static_cast<std::size_t>(i)] = 1.0 / ((1.0 - z * z) * dp * dp);
    }
    return rule;
}

}  // namespace

const GaussRule& gauss_legendre(int n) {
    static std::array<GaussRule, kMaxGaussNodes + 1> rules;
    static std::array<std::once_flag, kMaxGaussNodes + 1> made;
    n = std::clamp(n, 1, kMaxGaussNodes);
    std::call_once(made[static_cast<std::size_t>(n)], [n] { rules[static_cast<std::size_t>(n)] = make_gauss_legendre(n); });
    return rules[static_cast<std::size_t>(n)];
}

}  // namespace bake
