#include "dfg.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "gauss_legendre.h"
#include "ggx.h"
#include "parallel.h"

// The integral. Half vectors h = (θh, φ) about N, φ measured from the plane of N and V.
// Karis' estimator samples h from D(h)·(N·H), i.e. u = t² / (1 + t²) uniform with
// t = tan θh / alpha, and φ uniform, and averages w = V·(N·L)·4·(V·H)/(N·H) over the samples with
// N·L > 0: A, B = (1/2π) ∫ dφ ∫ du w·(1 - Fc or Fc). We evaluate that double integral with
// deterministic rules, in coordinates in which the integrand is analytic:
//
// * Domain. With cos θv = N·V and tan ψ = tan θv cos φ: V·H = cos θv cos(θh - ψ) / cos ψ and
//   N·L = cos θv cos(2θh - ψ) / cos ψ, so N·L > 0 exactly for θh < θmax = π/4 + ψ/2. Integrating
//   θh over [0, θmax(φ)] for each φ leaves no kink inside the domain (a fixed grid over the
//   hemisphere of h would cut through the N·L = 0 edge and converge slowly).
// * φ (outer, [0, π] by symmetry). The integrand depends on φ through y = cos φ only. At grazing
//   N·V, θmax turns from ~90° to ~0° within |y| ~ N·V / sin θv = k; y = k sinh(E sin γ) with
//   E = asinh(1/k) spreads that turn out, and makes the integrand (with its Jacobian) an analytic,
//   periodic function of γ: the midpoint rule in γ converges geometrically.
// * θh (inner). t in [0, 1.5] carries the peak of D (analytic in t); beyond it x = ln t, where the
//   integrand is analytic in a strip of half-width π/2. Near θmax the visibility has branch points
//   at N·L = ±i·alpha/sqrt(1 - alpha²), i.e. within d ≈ alpha / (2 |N·L|'(θmax)) of the end: the last
//   stretch then uses v = end - d·sinh(η), which moves them to Im η = ±π/2.
// Gauss–Legendre node counts grow with the length of each stretch, so that every piece gets a
// similar number of nodes per unit of its strip of analyticity. The accuracy (kDfgAccuracy) is
// checked in tests/test_dfg.cpp.

namespace bake {
namespace {

// Base node counts (all multiplied by node_scale).
constexpr int kOuterNodes = 7;        // midpoint rule in γ: kOuterNodes + ceil(kOuterNodesPerE · E)
constexpr double kOuterNodesPerE = 2.0;  // E = asinh(tan θv) grows as N·V → 0 (6.2 at N·V = 1/256)
constexpr int kPeakNodes = 12;         // t in [0, kPeakEnd]; 12 keeps A + B <= 1 as alpha -> 0
constexpr double kPeakEnd = 1.5;       // t = tan θh / alpha where the log variable takes over
constexpr int kMinNodes = 4;           // every other stretch: kMinNodes + nodes per unit length
constexpr double kNodesPerUnitX = 2.0;    // of x = ln t
constexpr double kNodesPerUnitEta = 4.0;  // of η in the sinh map

int node_count(double length, double per_unit, int scale) {
    return scale * (kMinNodes + static_cast<int>(std::ceil(per_unit * length)));
}

// ∫_a^b g(v) dv with `nodes` Gauss nodes; when the integrand has singularities at imaginary
// distance `d` beyond b with d < (b - a) / 2, through v = b - d sinh(η) instead.
template <typename G>
void integrate_stretch(double a, double b, double d, int nodes, int scale, const G& g) {
    const double length = b - a;
    if (length <= 0) return;
    if (d >= 0.5 * length) {
        const GaussRule& rule = gauss_legendre(nodes);
        for (std::size_t i = 0; i < rule.nodes.size(); ++i) g(a + length * rule.nodes[i], length * rule.weights[i]);
        return;
    }
    const double eta_end = std::asinh(length / d);
    const GaussRule& rule = gauss_legendre(std::max(nodes, node_count(eta_end, kNodesPerUnitEta, scale)));
    for (std::size_t i = 0; i < rule.nodes.size(); ++i) {
        const double e = std::exp(eta_end * rule.nodes[i]), half_inv = 0.5 / e;  // sinh, cosh from one exp
        g(b - d * (0.5 * e - half_inv), eta_end * rule.weights[i] * d * (0.5 * e + half_inv));
    }
}

struct Sums {
    double a = 0, b = 0;
};

DfgValue integrate_dfg(double n_dot_v, double roughness, int scale) {
    const double cos_v = n_dot_v;
    const double sin_v = std::sqrt(std::max(0.0, 1.0 - cos_v * cos_v));
    const double alpha = roughness * roughness;
    // Distance in N·L of the visibility's branch points from 0 (infinite for alpha = 1).
    const double nl_branch = alpha < 1.0 ? alpha / std::sqrt(1.0 - alpha * alpha) : INFINITY;

    // Karis' weight at half vector (tan θh = alpha·t) and y = cos φ, times `weight`.
    auto add_sample = [&](double y, double t, double weight, Sums& sums) {
        const double tan_h = alpha * t;
        const double cos_h = 1.0 / std::sqrt(1.0 + tan_h * tan_h), sin_h = tan_h * cos_h;
        const double v_dot_h = sin_v * sin_h * y + cos_v * cos_h;
        const double n_dot_l = 2.0 * v_dot_h * cos_h - cos_v;
        if (n_dot_l <= 0.0 || v_dot_h <= 0.0) return;  // only rounding at θmax
        const double w = ggx_visibility(cos_v, n_dot_l, alpha) * n_dot_l * 4.0 * v_dot_h / cos_h * weight;
        const double m = 1.0 - v_dot_h, fc = m * m * m * m * m;
        sums.a += (1.0 - fc) * w;
        sums.b += fc * w;
    };

    // ∫ du over θh in [0, θmax] at one y = cos φ.
    auto integrate_theta = [&](double y, Sums& sums) {
        const double r = std::sqrt(sin_v * sin_v * y * y + cos_v * cos_v);  // cos θv / cos ψ
        const double tan_max = sin_v * y >= 0 ? (r + sin_v * y) / cos_v : cos_v / (r - sin_v * y);  // tan(π/4 + ψ/2)
        const double t_max = tan_max / alpha;
        const double cos2_max = 1.0 / (1.0 + tan_max * tan_max);
        // N·L = r sin(2 (θmax - θh)): the branch points are d_theta from θmax in θh.
        const double d_theta = nl_branch / (2.0 * r);
        auto in_t = [&](double t, double w) { add_sample(y, t, w * 2.0 * t / ((1.0 + t * t) * (1.0 + t * t)), sums); };
        auto in_x = [&](double x, double w) {
            const double t = std::exp(x);
            add_sample(y, t, w * 2.0 * t * t / ((1.0 + t * t) * (1.0 + t * t)), sums);
        };
        if (t_max <= kPeakEnd) {
            integrate_stretch(0.0, t_max, d_theta / (alpha * cos2_max), scale * kPeakNodes, scale, in_t);
            return;
        }
        integrate_stretch(0.0, kPeakEnd, INFINITY, scale * kPeakNodes, scale, in_t);
        const double x0 = std::log(kPeakEnd), x1 = std::log(t_max);
        const double d_x = d_theta * (1.0 + tan_max * tan_max) / tan_max;  // dx/dθ = 1 / (sin cos)
        // The sinh map only over the last unit of x: over a longer stretch it would crowd the nodes
        // towards θmax and starve the rest of the strip.
        const double x_split = d_x < x1 - x0 ? std::max(x0, x1 - 1.0) : x0;
        integrate_stretch(x0, x_split, INFINITY, node_count(x_split - x0, kNodesPerUnitX, scale), scale, in_x);
        integrate_stretch(x_split, x1, d_x, node_count(x1 - x_split, kNodesPerUnitX, scale), scale, in_x);
    };

    Sums total;
    if (sin_v == 0.0) {  // N·V = 1: nothing depends on φ
        integrate_theta(0.0, total);
    } else {
        const double k = cos_v / sin_v, e = std::asinh(1.0 / k);
        const int outer = scale * (kOuterNodes + static_cast<int>(std::ceil(kOuterNodesPerE * e)));
        for (int j = 0; j < outer; ++j) {
            const double gamma = kPi * ((j + 0.5) / outer - 0.5);
            const double s = std::sin(gamma), c = std::cos(gamma);
            const double y = k * std::sinh(e * s);
            // dφ = -dy / sqrt(1 - y²), dy = k E cosh(E sin γ) cos γ dγ; dγ = π / outer; / π for φ's range.
            const double weight = k * e * std::cosh(e * s) * c / std::sqrt((1.0 - y) * (1.0 + y)) / outer;
            Sums at_y;
            integrate_theta(std::clamp(y, -1.0, 1.0), at_y);
            total.a += weight * at_y.a;
            total.b += weight * at_y.b;
        }
    }
    return {total.a, total.b};
}

}  // namespace

DfgValue dfg_value_refined(double n_dot_v, double roughness, int node_scale) {
    // N·V = 0 has no value: the albedo's limit there is not 0 (masking of v and the 1/(N·V) of the
    // BRDF cancel), and the integral's coordinates degenerate.
    if (!(n_dot_v > 0.0 && n_dot_v <= 1.0) || !(roughness >= 0.0 && roughness <= 1.0))
        throw std::invalid_argument("dfg_value: N.V must be in (0, 1] and roughness in [0, 1], got N.V = " +
                                    std::to_string(n_dot_v) + ", roughness = " + std::to_string(roughness));
    // A mirror: h = N, and V·(N·L)·4·(V·H)/(N·H) = 1. Below alpha = 1e-150 the lobe moves values by
    // O(alpha), nothing in double, and tan θh / alpha would overflow.
    if (roughness * roughness < 1e-150) {
        const double m = 1.0 - n_dot_v, fc = m * m * m * m * m;
        return {1.0 - fc, fc};
    }
    return integrate_dfg(n_dot_v, roughness, std::max(node_scale, 1));
}

DfgValue dfg_value(double n_dot_v, double roughness) { return dfg_value_refined(n_dot_v, roughness, 1); }

Image compute_dfg_table(int size, int threads) {
    if (size <= 0) throw std::invalid_argument("compute_dfg_table: size must be positive, got " + std::to_string(size));
    Image table(size, size);
    parallel_for(size, resolve_threads(threads, size), [&](int row) {
        const double roughness = (row + 0.5) / size;
        for (int col = 0; col < size; ++col) {
            const DfgValue v = dfg_value((col + 0.5) / size, roughness);
            float* px = table.at(row, col);
            px[0] = static_cast<float>(v.scale);
            px[1] = static_cast<float>(v.bias);
            px[2] = static_cast<float>(v.scale + v.bias);
        }
    });
    return table;
}


}  // namespace bake
