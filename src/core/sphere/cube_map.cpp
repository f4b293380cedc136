#include "cube_map.h"

#include <cmath>

namespace bake {

const char* cube_face_name(int face) {
    static const char* const names[] = {"+X", "-X", "+Y", "-Y", "+Z", "-Z"};
    return face >= 0 && face < 6 ? names[face] : "?";
}

CubeMap::CubeMap(int n) : size(n) {
    for (Image& f : faces) f = Image(n, n);
}

Vec3 cube_face_direction(int face, double sc, double tc) {
    // The OpenGL cube-map face selection table, inverted (docs/CONVENTION.md).
    switch (static_cast<CubeFace>(face)) {
        case CubeFace::PosX: return {1, -tc, -sc};
        case CubeFace::NegX: return {-1, -tc, sc};
        case CubeFace::PosY: return {sc, 1, tc};
        case CubeFace::NegY: return {sc, -1, -tc};
        case CubeFace::PosZ: return {sc, -tc, 1};
        case CubeFace::NegZ: return {-sc, -tc, -1};
    }
    return {0, 0, 0};
}

Vec3 cube_texel_direction(int face, int row, int col, int n) {
    const double sc = 2.0 * (col + 0.5) / n - 1.0;
    const double tc = 2.0 * (row + 0.5) / n - 1.0;
    return normalize(cube_face_direction(face, sc, tc));
}

namespace {

// Solid angle of the spherical triangle spanned by the (unnormalised) points (x_i, y_i, 1)
// whose planar determinant `det` is given: tan(Omega/2) = det / denominator (Van Oosterom &
// Strackee 1983), with every denominator term positive for points on one face.
double triangle_solid_angle(double x1, double y1, double x2, double y2, double x3, double y3, double det) {
    const double r1 = std::sqrt(1 + x1 * x1 + y1 * y1);
    const double r2 = std::sqrt(1 + x2 * x2 + y2 * y2);
    const double r3 = std::sqrt(1 + x3 * x3 + y3 * y3);
    const double d12 = x1 * x2 + y1 * y2 + 1;
    const double d23 = x2 * x3 + y2 * y3 + 1;
    const double d31 = x3 * x1 + y3 * y1 + 1;
    const double denom = r1 * r2 * r3 + d12 * r3 + d23 * r1 + d31 * r2;
    return 2.0 * std::atan2(det, denom);
}

}  // namespace

double cube_texel_solid_angle(int row, int col, int n) {
    const double inv = 2.0 / n;
    const double s0 = col * inv - 1, s1 = (col + 1) * inv - 1;
    const double t0 = row * inv - 1, t1 = (row + 1) * inv - 1;
    const double area = inv * inv;  // exact: the determinant of each half of the texel
    return triangle_solid_angle(s0, t0, s1, t0, s1, t1, area) +
           triangle_solid_angle(s0, t0, s1, t1, s0, t1, area);
}

double cube_rect_solid_angle(double s0, double s1, double t0, double t1) {
    const double area = (s1 - s0) * (t1 - t0);
    return triangle_solid_angle(s0, t0, s1, t0, s1, t1, area) + triangle_solid_angle(s0, t0, s1, t1, s0, t1, area);
}

void cube_face_coords(const Vec3& d, int* face, double* sc, double* tc) {
    const double ax = std::fabs(d.x), ay = std::fabs(d.y), az = std::fabs(d.z);
    if (ax >= ay && ax >= az) {
        if (d.x > 0) { *face = 0; *sc = -d.z / ax; *tc = -d.y / ax; }
        else         { *face = 1; *sc = d.z / ax;  *tc = -d.y / ax; }
    } else if (ay >= az) {
        if (d.y > 0) { *face = 2; *sc = d.x / ay; *tc = d.z / ay; }
        else         { *face = 3; *sc = d.x / ay; *tc = -d.z / ay; }
    } else {
        if (d.z > 0) { *face = 4; *sc = d.x / az;  *tc = -d.y / az; }
        else         { *face = 5; *sc = -d.x / az; *tc = -d.y / az; }
    }
}

}  // namespace bake
