#pragma once
// Deringing windows for truncated spherical harmonics (--window none|hann|lanczos|gauss|auto).
//
// A truncated SH expansion rings: a bright sun gives negative irradiance on the far side.
// Windowing multiplies every coefficient of band l by a factor w_l (w_0 = 1), a zonal low-pass
// filter (Sloan, "Stupid Spherical Harmonics (SH) Tricks", 2008). With cutoff w > 0:
//
//   none     w_l = 1
//   hann     w_l = (1 + cos(pi l / w)) / 2            for l < w, else 0
//   lanczos  w_l = sinc(l / w) = sin(pi l/w) / (pi l/w) for l < w, else 0
//   gauss    w_l = exp(-l^2 / (2 sigma^2)), sigma = sqrt(2) w / pi, i.e. exp(-(pi l / (2w))^2)
//
// Gauss never reaches 0; its sigma makes it agree with hann to second order in l (both are
// 1 - (pi l)^2 / (4 w^2) + ...), so one cutoff means about the same blur for both, and it is
// exp(-pi^2/4) = 0.085 at l = w. A cutoff w <= 1 keeps only band 0 in hann and lanczos.
//
// Why a delta light decides the defaults: windowed irradiance is E(n) = integral of L(s) K_w(n.s)
// over directions s, with K_w the windowed response to one delta of unit power, whose mean is
// 1/4. For any non-negative radiance, min E / mean E >= 4 min K_w, so min K_w (the ringing of a
// single sun) is the worst case over all environments.
#include <optional>
#include <string>
#include <vector>

#include "sh.h"

namespace bake {

enum class ShWindowKind { None, Hann, Lanczos, Gauss, Auto };

// "none", "hann", "lanczos", "gauss", "auto"; nothing for any other name.
std::optional<ShWindowKind> parse_sh_window(const std::string& name);
const char* sh_window_name(ShWindowKind kind);

// w_l for l = 0 .. order-1 of a fixed window; cutoff is ignored for None.
// Throws std::invalid_argument for Auto, an unsupported order, or a cutoff that is not a
// finite positive number (unless kind is None).
std::vector<double> sh_window_factors(ShWindowKind kind, int order, double cutoff);

// Lanczos and gauss: order + 1; hann: order + 2 (None: 0). For orders 3 and 5 these are the
// integer cutoffs with the least worst-case ringing (above: a single sun's most negative
// irradiance), which they shrink from 16% to 6-8% of the mean (order 3) and from 12.5% to about
// 4% (order 5), while band 1, the direction of the light, keeps >= 0.85 of its weight. Smaller
// cutoffs blur more and, once band 2 is cut while band 1 stays, ring more again: min irradiance
// is not monotone in the cutoff. Hann's 1 - w_l is 1.5 times lanczos' at small l, so it gets one
// band more room. Throws std::invalid_argument for Auto or an unsupported order.
double default_sh_window_cutoff(ShWindowKind kind, int order);

// Band l of every coefficient times band_factors[l] (radiance or irradiance alike: the window
// commutes with the clamped-cosine factors A_l). Throws std::invalid_argument unless
// band_factors has c.order entries.
ShCoefficients apply_sh_window(const ShCoefficients& c, const std::vector<double>& band_factors);

// Smallest value over the unit sphere of each channel of E(n) = sum_k E_k Y_k(n) (finite
// coefficients). Method: E on the nodes of a 32 x 32 grid on each cube face (6 * 33^2 nodes,
// projected to the sphere; every direction lies within h = 0.0442 rad of a node), then, from up
// to 8 mutually distant nodes that could be within h of the global minimiser, a compass search
// in the tangent plane down to 1e-8 rad. Accuracy: the result is a value E attains, so it is
// never below the true minimum (but for rounding), and never above it by more than
// M h^2 / 2 with M = sum_l l^2 sqrt((2l+1)/(4 pi)) |E_l| (|E_l| the 2-norm of band l): M bounds
// |E''| along great circles (Bernstein), and the grid node nearest the minimiser is within h.
// That bound is 1.3% of the mean for a single sun at order 5; in practice the search converges
// to the true minimum within ~1e-12 of the coefficients' scale.
Rgb min_sh_irradiance(const ShCoefficients& irradiance);

// A channel counts as non-negative when its minimum is >= -1e-9 |E_0 Y_0| (1e-9 of its mean):
// rounding, not ringing.
constexpr double kShNonnegativeTolerance = 1e-9;

struct ShWindowChoice {
    ShWindowKind kind = ShWindowKind::None;  // for Auto: Lanczos, or None when no window is needed
    double cutoff = 0;                        // 0 for None
    std::vector<double> band_factors;         // order entries
    Rgb min_irradiance_before{}, min_irradiance_after{};
    bool nonnegative = true;                  // min_irradiance_after non-negative (within the tolerance) in every channel
};

// The window to apply to `irradiance` (irradiance coefficients; apply the factors to radiance
// coefficients as well if those are written too).
// A fixed kind: that window, at `cutoff` or, for 0, default_sh_window_cutoff.
// Auto: None if the irradiance is non-negative already; else the mildest (largest-cutoff)
// lanczos window that makes it non-negative in every channel. Min irradiance is not monotone in
// the cutoff, so u = 1/w is scanned from 0 (no window) towards 1 (band 0 only) in steps of 1/64,
// and the first non-negative step is bisected against the one before it (30 halvings): windows
// that are non-negative only on an interval of u narrower than 1/64 can be missed. If even
// band 0 alone is negative (a negative mean), the result keeps band 0 only (cutoff 1) with
// nonnegative = false. Deterministic. Throws std::invalid_argument for a negative or non-finite
// cutoff or an unsupported order.
ShWindowChoice choose_sh_window(ShWindowKind requested, const ShCoefficients& irradiance, double cutoff = 0);

}  // namespace bake
