// Cube and equirect mappings, exact solid angles and layouts.
#include <catch2/catch.hpp>

#include "test_support.h"

using namespace bake;
using bake::test::kPi;

TEST_CASE("cube texel solid angles sum to 4 pi for odd and even face sizes", "[geometry]") {
    for (int n : {1, 2, 3, 7, 64, 333}) {
        double sum = 0;
        for (int r = 0; r < n; ++r)
            for (int c = 0; c < n; ++c) sum += cube_texel_solid_angle(r, c, n);
        INFO("N=" << n);
        CHECK(std::fabs(6 * sum - 4 * kPi) / (4 * kPi) < 1e-12);
    }
}

TEST_CASE("cube texel solid angle equals the closed-form atan sum and a brute-force integral", "[geometry]") {
    // Closed form of CONVENTION.md in long double (where cancellation costs nothing for these N):
    // Omega = F(x0,y0) - F(x0,y1) - F(x1,y0) + F(x1,y1), F(x,y) = atan2(x y, sqrt(x^2 + y^2 + 1)).
    auto F = [](long double x, long double y) { return std::atan2(x * y, std::sqrt(x * x + y * y + 1)); };
    for (int n : {1, 2, 3, 7, 16}) {
        for (int r = 0; r < n; ++r)
            for (int c = 0; c < n; ++c) {
                const long double x0 = 2.0L * c / n - 1, x1 = 2.0L * (c + 1) / n - 1;
                const long double y0 = 2.0L * r / n - 1, y1 = 2.0L * (r + 1) / n - 1;
                const long double closed = F(x0, y0) - F(x0, y1) - F(x1, y0) + F(x1, y1);
                INFO("N=" << n << " r=" << r << " c=" << c);
                CHECK(cube_texel_solid_angle(r, c, n) == Approx(static_cast<double>(closed)).epsilon(1e-13));
            }
    }
    // Midpoint rule with 400x400 sub-cells of the integrand 1/(1+s^2+t^2)^(3/2), on a few texels.
    const int n = 5;
    for (int r : {0, 2}) {
        for (int c : {0, 1, 4}) {
            const int m = 400;
            double s = 0;
            const double h = 2.0 / n / m;
            for (int i = 0; i < m; ++i)
                for (int j = 0; j < m; ++j) {
                    const double x = 2.0 * c / n - 1 + (j + 0.5) * h, y = 2.0 * r / n - 1 + (i + 0.5) * h;
                    s += h * h / std::pow(1 + x * x + y * y, 1.5);
                }
            CHECK(cube_texel_solid_angle(r, c, n) == Approx(s).epsilon(1e-6));
        }
    }
}

TEST_CASE("cube texel solid angles stay accurate for tiny texels", "[geometry]") {
    // For N = 65536 the texel near the face centre is (2/N)^2 / (1+s^2+t^2)^(3/2) to second order.
    const int n = 65536;
    const double h = 2.0 / n;
    const double s = (n / 2 + 0.5) * h - 1, t = s;
    const double approx = h * h / std::pow(1 + s * s + t * t, 1.5);
    CHECK(cube_texel_solid_angle(n / 2, n / 2, n) == Approx(approx).epsilon(1e-9));
}

TEST_CASE("equirect row solid angles sum to 4 pi and match the cos difference", "[geometry]") {
    for (auto [w, h] : std::vector<std::pair<int, int>>{{2, 1}, {4, 2}, {6, 3}, {130, 65}, {512, 256}, {333, 111}}) {
        double sum = 0;
        for (int r = 0; r < h; ++r) {
            const double omega = equirect_row_solid_angle(r, w, h);
            const double direct = (2 * kPi / w) * (std::cos(kPi * r / h) - std::cos(kPi * (r + 1) / h));
            CHECK(omega == Approx(direct).epsilon(1e-12));
            sum += w * omega;
        }
        INFO(w << "x" << h);
        CHECK(std::fabs(sum - 4 * kPi) / (4 * kPi) < 1e-12);
    }
}

TEST_CASE("equirect mapping follows CONVENTION.md landmarks and inverts", "[geometry]") {
    auto near = [](const Vec3& a, const Vec3& b) { return std::fabs(a.x - b.x) + std::fabs(a.y - b.y) + std::fabs(a.z - b.z) < 1e-12; };
    CHECK(near(equirect_direction(0.5, 0.0), {0, 1, 0}));
    CHECK(near(equirect_direction(0.5, 1.0), {0, -1, 0}));
    CHECK(near(equirect_direction(0.0, 0.5), {-1, 0, 0}));
    CHECK(near(equirect_direction(0.25, 0.5), {0, 0, -1}));
    CHECK(near(equirect_direction(0.5, 0.5), {1, 0, 0}));
    CHECK(near(equirect_direction(0.75, 0.5), {0, 0, 1}));
    for (double u : {0.1, 0.3, 0.6, 0.9})
        for (double v : {0.2, 0.5, 0.8}) {
            double uu, vv;
            equirect_uv(equirect_direction(u, v), &uu, &vv);
            CHECK(uu == Approx(u).margin(1e-12));
            CHECK(vv == Approx(v).margin(1e-12));
        }
}

TEST_CASE("cube faces follow the OpenGL table: centre directions, up on side faces, inverse", "[geometry]") {
    const Vec3 centres[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    for (int f = 0; f < 6; ++f) {
        const Vec3 d = cube_face_direction(f, 0, 0);
        CHECK(dot(d, centres[f]) == Approx(1.0));
        if (f != 2 && f != 3) CHECK(cube_face_direction(f, 0, -1).y == Approx(1.0));  // top row looks up
    }
    // +Y's top row looks at -Z, -Y's top row at +Z (OpenGL).
    CHECK(cube_face_direction(2, 0, -1).z == Approx(-1.0));
    CHECK(cube_face_direction(3, 0, -1).z == Approx(1.0));
    for (int f = 0; f < 6; ++f)
        for (double sc : {-0.9, -0.2, 0.4})
            for (double tc : {-0.7, 0.1, 0.95}) {
                int face;
                double s, t;
                cube_face_coords(cube_face_direction(f, sc, tc), &face, &s, &t);
                CHECK(face == f);
                CHECK(s == Approx(sc));
                CHECK(t == Approx(tc));
            }
}

TEST_CASE("layouts: detection by aspect ratio and face sizes", "[layout]") {
    CHECK(detect_layout(512, 256) == Layout::Equirect);
    CHECK(detect_layout(400, 300) == Layout::HCross);
    CHECK(detect_layout(300, 400) == Layout::VCross);
    CHECK(detect_layout(600, 100) == Layout::HStrip);
    CHECK(detect_layout(100, 600) == Layout::VStrip);
    CHECK_FALSE(detect_layout(500, 300).has_value());  // 5:3
    CHECK_FALSE(detect_layout(401, 300).has_value());
    CHECK_FALSE(detect_layout(0, 0).has_value());
    CHECK(cube_face_size(Layout::HCross, 4, 3) == 1);
    CHECK(cube_face_size(Layout::VCross, 21, 28) == 7);
    CHECK(cube_face_size(Layout::VStrip, 7, 43) == 0);
    for (const char* name : {"equirect", "hcross", "vcross", "hstrip", "vstrip", "faces"})
        CHECK(layout_name(*parse_layout(name)) == std::string(name));
    CHECK_FALSE(parse_layout("cross").has_value());
}

TEST_CASE("layouts round-trip: extract(assemble(cube)) is the cube, for odd and even sizes", "[layout]") {
    for (int n : {1, 3, 8}) {
        const Environment env = bake::test::make_random_cube_env(n, 11u + static_cast<unsigned>(n));
        for (Layout l : {Layout::HCross, Layout::VCross, Layout::HStrip, Layout::VStrip}) {
            const Image img = assemble_cube(env.cube, l);
            CHECK(detect_layout(img.width, img.height) == l);
            const CubeMap back = extract_cube(img, l);
            for (int f = 0; f < 6; ++f) CHECK(back.faces[static_cast<size_t>(f)].rgb == env.cube.faces[static_cast<size_t>(f)].rgb);
        }
    }
}

TEST_CASE("cross and strip arrangements are seamless: shared edges map to the same directions", "[layout]") {
    // For every pair of horizontally or vertically adjacent pixels of a cross that both lie on
    // faces, the directions at the shared edge's midpoint, computed from each face, must agree.
    // The edge point of a texel (r, c) on its face, in face coordinates, is
    // sc = 2(c + 0.5 +- 0.5)/N - 1 (or the same in t). A -Z face stored rotated by 180 degrees
    // maps a stored pixel (r, c) to face texel (N-1-r, N-1-c).
    const int n = 4;
    for (Layout l : {Layout::HCross, Layout::VCross}) {
        // Build a map from layout pixel to (face, face row, face col) by assembling a cube whose
        // texels encode their own identity.
        CubeMap ids(n);
        for (int f = 0; f < 6; ++f)
            for (int r = 0; r < n; ++r)
                for (int c = 0; c < n; ++c) {
                    float* p = ids.faces[static_cast<size_t>(f)].at(r, c);
                    p[0] = static_cast<float>(f + 1);
                    p[1] = static_cast<float>(r);
                    p[2] = static_cast<float>(c);
                }
        const Image img = assemble_cube(ids, l);
        auto edge_dir = [&](int row, int col, int drow, int dcol) {
            const float* p = img.at(row, col);
            const int f = static_cast<int>(p[0]) - 1, fr = static_cast<int>(p[1]), fc = static_cast<int>(p[2]);
            // Convert the image-space step to the face's own texel step (rotated faces flip it).
            const bool rotated = (l == Layout::VCross && f == 5);
            const int sr = rotated ? -drow : drow, scol = rotated ? -dcol : dcol;
            const double sc = (2.0 * (fc + 0.5 + 0.5 * scol)) / n - 1;
            const double tc = (2.0 * (fr + 0.5 + 0.5 * sr)) / n - 1;
            return normalize(cube_face_direction(f, sc, tc));
        };
        int checked_edges = 0;
        for (int row = 0; row < img.height; ++row)
            for (int col = 0; col < img.width; ++col) {
                if (img.at(row, col)[0] == 0) continue;
                for (auto [dr, dc] : {std::pair{0, 1}, std::pair{1, 0}}) {
                    const int r2 = row + dr, c2 = col + dc;
                    if (r2 >= img.height || c2 >= img.width || img.at(r2, c2)[0] == 0) continue;
                    if (img.at(r2, c2)[0] == img.at(row, col)[0]) continue;  // same face
                    const Vec3 a = edge_dir(row, col, dr, dc), b = edge_dir(r2, c2, -dr, -dc);
                    INFO(layout_name(l) << " pixel " << row << "," << col << " -> " << r2 << "," << c2);
                    CHECK(dot(a, b) == Approx(1.0).epsilon(1e-12));
                    ++checked_edges;
                }
            }
        // Each cross has 5 interior face boundaries of n pixels each.
        CHECK(checked_edges == 5 * n);
    }
}
