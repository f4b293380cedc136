#include "sh.h"

#include <algorithm>
#include <cmath>

namespace bake {

template <typename T>
void eval_sh_basis(int order, T x, T y, T z, T* out) {
    // Constants of docs/CONVENTION.md: sqrt((2l+1)/(4 pi) (l-|m|)!/(l+|m|)!) times the factors of
    // the Cartesian forms, no Condon-Shortley phase.
    out[0] = T(0.282094791773878);
    if (order < 2) return;
    out[1] = T(0.488602511902920) * y;
    out[2] = T(0.488602511902920) * z;
    out[3] = T(0.488602511902920) * x;
    if (order < 3) return;
    const T x2 = x * x, y2 = y * y, z2 = z * z;
    out[4] = T(1.092548430592079) * x * y;
    out[5] = T(1.092548430592079) * y * z;
    out[6] = T(0.315391565252520) * (T(3) * z2 - T(1));
    out[7] = T(1.092548430592079) * x * z;
    out[8] = T(0.546274215296040) * (x2 - y2);
    if (order < 4) return;
    out[9] = T(0.590043589926644) * y * (T(3) * x2 - y2);
    out[10] = T(2.890611442640554) * x * y * z;
    out[11] = T(0.457045799464466) * y * (T(5) * z2 - T(1));
    out[12] = T(0.373176332590115) * z * (T(5) * z2 - T(3));
    out[13] = T(0.457045799464466) * x * (T(5) * z2 - T(1));
    out[14] = T(1.445305721320277) * z * (x2 - y2);
    out[15] = T(0.590043589926644) * x * (x2 - T(3) * y2);
    if (order < 5) return;
    out[16] = T(2.503342941796705) * x * y * (x2 - y2);
    out[17] = T(1.770130769779931) * y * z * (T(3) * x2 - y2);
    out[18] = T(0.946174695757560) * x * y * (T(7) * z2 - T(1));
    out[19] = T(0.669046543557289) * y * z * (T(7) * z2 - T(3));
    out[20] = T(0.105785546915204) * (T(35) * z2 * z2 - T(30) * z2 + T(3));
    out[21] = T(0.669046543557289) * x * z * (T(7) * z2 - T(3));
    out[22] = T(0.473087347878780) * (x2 - y2) * (T(7) * z2 - T(1));
    out[23] = T(1.770130769779931) * x * z * (x2 - T(3) * y2);
    out[24] = T(0.625835735449176) * (x2 * (x2 - T(3) * y2) - y2 * (T(3) * x2 - y2));
}

template void eval_sh_basis<float>(int, float, float, float, float*);
template void eval_sh_basis<double>(int, double, double, double, double*);

double clamped_cosine_band_factor(int l) {
    constexpr double pi = 3.14159265358979323846;
    switch (l) {
        case 0: return pi;
        case 1: return 2.0 * pi / 3.0;
        case 2: return pi / 4.0;
        case 3: return 0.0;
        case 4: return -pi / 24.0;
        default: return 0.0;  // odd bands > 1 vanish; even bands > 4 are not used here
    }
}

ShCoefficients truncate_order(const ShCoefficients& c, int order) {
    ShCoefficients out(order);
    std::copy(c.rgb.begin(), c.rgb.begin() + std::min(c.count(), out.count()), out.rgb.begin());
    return out;
}

ShCoefficients irradiance_from_radiance(const ShCoefficients& radiance) {
    ShCoefficients e = radiance;
    for (int k = 0; k < e.count(); ++k) {
        const double a = clamped_cosine_band_factor(sh_band(k));
        for (double& c : e.rgb[static_cast<size_t>(k)]) c *= a;
    }
    return e;
}

Rgb eval_sh(const ShCoefficients& c, const Vec3& d) {
    double y[kMaxShCount];
    eval_sh_basis(c.order, d, y);
    Rgb sum{0, 0, 0};
    for (int k = 0; k < c.count(); ++k)
        for (int ch = 0; ch < 3; ++ch) sum[ch] += c.rgb[static_cast<size_t>(k)][ch] * y[k];
    return sum;
}

}  // namespace bake
