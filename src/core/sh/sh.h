#pragma once
#include <array>
#include <string>
#include <vector>

#include "vec3.h"

namespace bake {

// Real orthonormal spherical harmonics without the Condon-Shortley phase, in the Cartesian
// components of a unit direction; index k = l*l + l + m (docs/CONVENTION.md).
// "Order" n means bands l < n: order 3 has 9 coefficients, order 5 has 25.
constexpr int kMaxShOrder = 5;
constexpr int kMaxShCount = kMaxShOrder * kMaxShOrder;
constexpr int sh_count(int order) { return order * order; }
inline bool is_supported_order(int order) { return order >= 1 && order <= kMaxShOrder; }

inline int sh_band(int k) { int l = 0; while ((l + 1) * (l + 1) <= k) ++l; return l; }
inline int sh_m(int k) { const int l = sh_band(k); return k - l * l - l; }

// Y_k(d) for k < sh_count(order), d a unit vector. T is float or double.
template <typename T>
void eval_sh_basis(int order, T x, T y, T z, T* out);

inline void eval_sh_basis(int order, const Vec3& d, double* out) {
    eval_sh_basis<double>(order, d.x, d.y, d.z, out);
}

// Clamped-cosine convolution factors A_l (Ramamoorthi & Hanrahan): pi, 2pi/3, pi/4, 0, -pi/24.
double clamped_cosine_band_factor(int l);

using Rgb = std::array<double, 3>;

// One RGB coefficient per basis function.
struct ShCoefficients {
    int order = 0;
    std::vector<Rgb> rgb;  // sh_count(order) entries

    ShCoefficients() = default;
    explicit ShCoefficients(int n) : order(n), rgb(static_cast<size_t>(sh_count(n)), Rgb{0, 0, 0}) {}
    int count() const { return static_cast<int>(rgb.size()); }
};

// The first sh_count(order) coefficients of c (zeros beyond c's own): coefficients of lower bands
// do not depend on the order projected.
ShCoefficients truncate_order(const ShCoefficients& c, int order);

// E_lm = A_l L_lm.
ShCoefficients irradiance_from_radiance(const ShCoefficients& radiance);

// Sum_k c_k Y_k(d).
Rgb eval_sh(const ShCoefficients& c, const Vec3& unit_dir);

}  // namespace bake
