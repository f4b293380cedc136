#include "equirect.h"

#include <cmath>

namespace bake {

namespace {
constexpr double kPi = 3.14159265358979323846;
}

Vec3 equirect_direction(double u, double v) {
    const double theta = kPi * v;
    const double phi = 2.0 * kPi * u - kPi;
    const double st = std::sin(theta);
    return {st * std::cos(phi), std::cos(theta), st * std::sin(phi)};
}

Vec3 equirect_texel_direction(int row, int col, int width, int height) {
    return equirect_direction((col + 0.5) / width, (row + 0.5) / height);
}

double equirect_row_solid_angle(int row, int width, int height) {
    // cos a - cos b = 2 sin((a+b)/2) sin((b-a)/2): no cancellation for thin rows.
    return (4.0 * kPi / width) * std::sin(kPi * (row + 0.5) / height) * std::sin(kPi / (2.0 * height));
}

void equirect_uv(const Vec3& d, double* u, double* v) {
    double uu = 0.5 + std::atan2(d.z, d.x) / (2.0 * kPi);
    uu -= std::floor(uu);
    *u = uu;
    *v = std::acos(std::fmax(-1.0, std::fmin(1.0, d.y))) / kPi;
}

}  // namespace bake
