// The README's statements about OpenEXR's own envmap conventions (ImfEnvmap.h), checked
// against OpenEXR's code: its cube faces are ours mirrored (+-X, +-Z left-right, +-Y top-bottom),
// its lat-long map is ours turned by 90 degrees about Y.
#include <catch2/catch.hpp>

#include <OpenEXR/ImfEnvmap.h>

#include "test_support.h"

using namespace bake;

TEST_CASE("OpenEXR cube faces are the OpenGL faces mirrored", "[convention]") {
    const int n = 5;
    const Imath::Box2i dw(Imath::V2i(0, 0), Imath::V2i(n - 1, 6 * n - 1));
    for (int f = 0; f < 6; ++f) {
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                const auto face = static_cast<Imf::CubeMapFace>(f);
                const Imath::V2f pif(static_cast<float>(i), static_cast<float>(j));
                Imath::V3f exr = Imf::CubeMap::direction(face, dw, pif);
                exr.normalize();
                const Imath::V2f px = Imf::CubeMap::pixelPosition(face, dw, pif);
                REQUIRE(static_cast<int>(px.y) / n == f);  // the strip order is ours
                const int row = static_cast<int>(px.y) - f * n, col = static_cast<int>(px.x);
                // OpenEXR puts pixel centres of the outer texels on the cube's edges.
                const double sc = 2.0 * col / (n - 1) - 1, tc = 2.0 * row / (n - 1) - 1;
                const bool y_face = f == 2 || f == 3;
                const Vec3 ours = normalize(cube_face_direction(f, y_face ? sc : -sc, y_face ? -tc : tc));
                INFO("face " << cube_face_name(f) << " row " << row << " col " << col);
                CHECK(exr.x == Approx(ours.x).margin(1e-6));
                CHECK(exr.y == Approx(ours.y).margin(1e-6));
                CHECK(exr.z == Approx(ours.z).margin(1e-6));
            }
    }
}

TEST_CASE("OpenEXR lat-long maps are ours turned by 90 degrees about +Y", "[convention]") {
    // OpenEXR: longitude +pi at the left pixel centre to -pi at the right one; direction
    // (sin(lon) cos(lat), sin(lat), cos(lon) cos(lat)). Ours at the same u: phi = 2 pi u - pi.
    const int w = 64, h = 32;
    const Imath::Box2i dw(Imath::V2i(0, 0), Imath::V2i(w - 1, h - 1));
    for (int x = 0; x < w; x += 7)
        for (int y = 0; y < h; y += 5) {
            const Imath::V3f exr = Imf::LatLongMap::direction(dw, Imath::V2f(static_cast<float>(x), static_cast<float>(y)));
            const double u = static_cast<double>(x) / (w - 1), v = static_cast<double>(y) / (h - 1);
            const Vec3 ours = equirect_direction(u, v);
            // Turning ours by -90 degrees about +Y: (x, y, z) -> (-z, y, x).
            CHECK(exr.x == Approx(-ours.z).margin(1e-5));
            CHECK(exr.y == Approx(ours.y).margin(1e-5));
            CHECK(exr.z == Approx(ours.x).margin(1e-5));
        }
}
