#include "sheen_lut.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "charlie.h"
#include "gauss_legendre.h"
#include "parallel.h"

namespace bake {
namespace {

constexpr int kNodesPerPiece = 6;  // times node_scale

// Gauss–Legendre nodes (x) and weights (w) over consecutive pieces [edges[i], edges[i + 1]].
void piecewise_rule(const std::vector<double>& edges, int nodes, std::vector<double>* x, std::vector<double>* w) {
    const GaussRule& rule = gauss_legendre(nodes);
    for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
        const double a = edges[i], length = edges[i + 1] - a;
        for (std::size_t j = 0; j < rule.nodes.size(); ++j) {
            x->push_back(a + length * rule.nodes[j]);
            w->push_back(length * rule.weights[j]);
        }
    }
}

}  // namespace

SheenLutValue sheen_lut_value_refined(double n_dot_v, double roughness, int node_scale) {
    if (!(n_dot_v > 0.0 && n_dot_v <= 1.0) || !(roughness >= 0.0 && roughness <= 1.0))
        throw std::invalid_argument("sheen_lut_value: N.V must be in (0, 1] and roughness in [0, 1], got N.V = " +
                                    std::to_string(n_dot_v) + ", roughness = " + std::to_string(roughness));
    const double alpha = roughness * roughness;
    if (alpha < 1e-12) return {0.0, 0.0};  // D < 1e-2000 at every reachable h: (1 - (N·V/2)²)^(1/(2 alpha))
    const int nodes = kNodesPerPiece * std::max(1, node_scale);
    const double nv = n_dot_v, sv = std::sqrt(std::max(0.0, 1.0 - nv * nv));
    const double k = 1.0 / alpha, norm = (2.0 + k) / (2.0 * kPi);

    // N·L: its nodes and, at each, what does not depend on φ (the visibilities times N·L). For alpha
    // above 1/32, D's cone point at h = N (sin θh^(1/alpha), not smooth there for small 1/alpha) at the
    // mirror direction, N·L = N·V and φ = π: pieces halving towards it as well, down to 3e-3.
    const bool cone = alpha > 1.0 / 32.0;
    std::vector<double> nl_edges{0.0, 0.5, 1.0};
    for (double e = std::min(0.5, nv / 64.0); e < 0.5; e *= 2.0) nl_edges.push_back(e);
    for (double d = 0.25; cone && d > 3e-3; d *= 0.5)
        for (double e : {nv - d, nv + d})
            if (e > 0.0 && e < 1.0) nl_edges.push_back(e);
    if (cone) nl_edges.push_back(nv);
    std::sort(nl_edges.begin(), nl_edges.end());
    nl_edges.erase(std::unique(nl_edges.begin(), nl_edges.end(), [](double a, double b) { return b - a < 1e-12; }), nl_edges.end());
    std::vector<double> nl, nl_w;
    piecewise_rule(nl_edges, nodes, &nl, &nl_w);
    const double lambda_v = charlie_lambda(nv, alpha);
    std::vector<double> sl(nl.size()), charlie(nl.size()), neubelt(nl.size());
    for (std::size_t i = 0; i < nl.size(); ++i) {
        sl[i] = std::sqrt(std::max(0.0, 1.0 - nl[i] * nl[i]));
        charlie[i] = nl_w[i] / ((1.0 + lambda_v + charlie_lambda(nl[i], alpha)) * 4.0 * nv);  // V·(N·L), weighted
        neubelt[i] = nl_w[i] * nl[i] * sheen_visibility_neubelt(nv, nl[i]);
    }
    // φ over [0, π] (the integrand is even in φ: doubled), pieces halving towards π.
    std::vector<double> phi_edges{0.0, 0.5 * kPi};
    for (double d = 0.25 * kPi; d > (cone ? std::min(3e-3, nv / 16.0) : nv / 16.0); d *= 0.5) phi_edges.push_back(kPi - d);
    phi_edges.push_back(kPi);
    std::vector<double> phi, phi_w;
    piecewise_rule(phi_edges, nodes, &phi, &phi_w);

    double sum_charlie = 0, sum_neubelt = 0;
    for (std::size_t j = 0; j < phi.size(); ++j) {
        const double cos_phi = std::cos(phi[j]);
        double c = 0, n = 0;
        for (std::size_t i = 0; i < nl.size(); ++i) {
            const double len2 = 2.0 + 2.0 * (nv * nl[i] + sv * sl[i] * cos_phi);  // |v + l|²
            const double hz2 = std::min(1.0, (nv + nl[i]) * (nv + nl[i]) / len2);
            const double d = norm * std::exp(0.5 * k * std::log1p(-hz2));  // D: sin²θh = 1 - (N·h)²
            c += d * charlie[i];
            n += d * neubelt[i];
        }
        sum_charlie += phi_w[j] * c;
        sum_neubelt += phi_w[j] * n;
    }
    return {2.0 * sum_charlie, 2.0 * sum_neubelt};
}

SheenLutValue sheen_lut_value(double n_dot_v, double roughness) { return sheen_lut_value_refined(n_dot_v, roughness, 1); }

Image compute_sheen_lut(int size, int threads) {
    if (size <= 0) throw std::invalid_argument("compute_sheen_lut: size must be positive, got " + std::to_string(size));
    Image table(size, size);
    parallel_for(size, resolve_threads(threads, size), [&](int row) {
        const double roughness = (row + 0.5) / size;
        for (int col = 0; col < size; ++col) {
            const SheenLutValue v = sheen_lut_value((col + 0.5) / size, roughness);
            float* px = table.at(row, col);
            px[0] = static_cast<float>(v.charlie);
            px[1] = px[2] = static_cast<float>(v.neubelt);
        }
    });
    return table;
}

}  // namespace bake
