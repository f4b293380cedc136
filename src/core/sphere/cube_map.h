#pragma once
#include <array>

#include "image.h"
#include "vec3.h"

namespace bake {

// Faces in OpenGL order; the orientation of each is the OpenGL cube-map face table
// (docs/CONVENTION.md), row 0 being the top row as stored in an image file.
enum class CubeFace { PosX = 0, NegX, PosY, NegY, PosZ, NegZ };
constexpr int kCubeFaceCount = 6;
const char* cube_face_name(int face);  // "+X", "-X", ...

struct CubeMap {
    int size = 0;                 // N: every face is N x N
    std::array<Image, 6> faces;   // indexed by CubeFace

    CubeMap() = default;
    explicit CubeMap(int n);
};

// Unnormalised direction (major axis component = ±1) through face coordinates (sc, tc) in [-1, 1].
Vec3 cube_face_direction(int face, double sc, double tc);

// Unit direction through the centre of texel (row, col) of an N x N face.
Vec3 cube_texel_direction(int face, int row, int col, int n);

// Exact solid angle of texel (row, col) of an N x N face: the integral of
// 1/(1+s^2+t^2)^(3/2) over the texel, evaluated as two spherical triangles with the
// Van Oosterom-Strackee formula. The triple products are exactly ds*dt, so the result has
// a relative error of a few ulps even for tiny texels (no difference of nearly equal atans).
double cube_texel_solid_angle(int row, int col, int n);

// The same integral over any rectangle [s0, s1] x [t0, t1] of one face (s0 <= s1, t0 <= t1, all in
// [-1, 1]): the exact solid angle of the part of a face it covers.
double cube_rect_solid_angle(double s0, double s1, double t0, double t1);

// Inverse mapping, for sampling tests: face and face coordinates of a direction.
void cube_face_coords(const Vec3& d, int* face, double* sc, double* tc);

}  // namespace bake
