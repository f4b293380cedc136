#pragma once
#include <cmath>

namespace bake {

// A direction or point in the tool's right-handed, +Y-up frame.
struct Vec3 {
    double x = 0, y = 0, z = 0;
};

inline double dot(const Vec3& a, const Vec3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline double length(const Vec3& a) { return std::sqrt(dot(a, a)); }
inline Vec3 normalize(const Vec3& a) {
    const double inv = 1.0 / length(a);
    return {a.x * inv, a.y * inv, a.z * inv};
}

}  // namespace bake
