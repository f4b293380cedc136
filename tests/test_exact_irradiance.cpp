// The exact (direct convolution) irradiance and the SH error report, against analytic values,
// the brute-force texel sum and the independent float64 references of tests/data/reference.
#include <catch2/catch.hpp>

#include "environment_loader.h"
#include "exact_irradiance.h"
#include "projection.h"
#include "sh_error.h"
#include "test_support.h"
#include "texel_policy.h"

using namespace bake;
using namespace bake::test;

namespace {

// The bound of exact_irradiance.h: sum over texels within sin D of n's horizon of |L| Omega |n.d|.
Rgb cell_error_bound(const Environment& env, const Vec3& n, double diameter) {
    Rgb b{0, 0, 0};
    const double band = std::sin(diameter);
    for_each_texel(env, [&](const float* px, const Vec3& d, double omega) {
        const double nd = std::fabs(dot(n, d));
        if (nd <= band)
            for (int c = 0; c < 3; ++c) b[c] += std::fabs(px[c]) * omega * nd;
    });
    return b;
}

Environment point_light_env(int w, int h, int row, int col, float value) {
    Environment env = make_equirect_env(w, h, [](const Vec3&) { return Rgb{0, 0, 0}; });
    for (int c = 0; c < 3; ++c) env.equirect.at(row, col)[c] = value * (c + 1);
    return env;
}

}  // namespace

TEST_CASE("exact irradiance with one texel a cell is the brute-force texel sum", "[exact]") {
    for (bool cube : {false, true}) {
        const Environment env = cube ? make_random_cube_env(12, 3, -0.5f, 2.0f) : make_equirect_env(48, 24, smooth_radiance);
        const IrradianceCells cells = build_irradiance_cells(env, 1);
        CHECK(cells.max_diameter == 0);
        for (const Vec3& n : fibonacci_sphere(40)) {
            const Rgb e = exact_irradiance(cells, n), bf = brute_force_irradiance(env, n);
            for (int c = 0; c < 3; ++c) CHECK(e[c] == Approx(bf[c]).epsilon(1e-12).margin(1e-13));
        }
    }
}

TEST_CASE("exact irradiance matches the independent brute force of the real maps to 1e-9", "[exact][reference]") {
    for (const char* name : {"pmndrs_sky", "pmndrs_warehouse", "pmndrs_esplanade"})
        for (const char* policy : {"keep", "clamp"}) {
            INFO(name << " negatives-" << policy);
            Environment env = load_environment(std::string(BAKE_TEST_DATA_DIR) + "/" + name + ".exr");
            if (std::string(policy) == "clamp") clamp_negative(env);
            const nlohmann::json ref = read_json(std::string(BAKE_TEST_DATA_DIR) + "/reference/" + name +
                                                 ".negatives-" + policy + ".json");
            // 512 x 256 sources fit the exact map's cells: every texel is its own cell.
            REQUIRE(irradiance_cell_block(env, kExactIrradianceCellRows) == 1);
            const IrradianceCells cells = build_irradiance_cells(env, 1);
            const auto& normals = ref.at("bruteforce").at("normals");
            const auto& values = ref.at("bruteforce").at("irradiance");
            std::vector<Vec3> dirs;
            std::vector<Rgb> expected;
            for (std::size_t i = 0; i < normals.size(); ++i) {
                dirs.push_back({normals[i][0].get<double>(), normals[i][1].get<double>(), normals[i][2].get<double>()});
                expected.push_back({values[i][0].get<double>(), values[i][1].get<double>(), values[i][2].get<double>()});
            }
            const std::vector<Rgb> e = exact_irradiance_at(cells, dirs, 3);
            const double scale = max_abs(expected);
            for (std::size_t i = 0; i < e.size(); ++i)
                for (int c = 0; c < 3; ++c) CHECK(std::fabs(e[i][c] - expected[i][c]) <= 1e-9 * scale);

            // The SH error measure over the same normals, with our own order-5 projection, gives the
            // reference's errors of SH against brute force.
            const ShCoefficients e5 = irradiance_from_radiance(project_sh_cpu(env, 5).radiance);
            for (int order : {3, 5}) {
                const ShErrorStats s = measure_sh_error(e5, order, dirs, e);
                const nlohmann::json& r = ref.at("errors").at(order == 3 ? "order3_vs_bruteforce" : "order5_vs_bruteforce");
                CHECK(s.excluded == 0);
                for (int c = 0; c < 3; ++c) {
                    CHECK(s.mean_relative[c] == Approx(r.at("rel_mean_per_channel")[c].get<double>()).epsilon(1e-7));
                    CHECK(s.max_relative[c] == Approx(r.at("rel_max_per_channel")[c].get<double>()).epsilon(1e-7));
                }
            }
        }
}

TEST_CASE("exact irradiance of analytic skies", "[exact]") {
    // Constant c: pi c in every direction. The texel sum is a midpoint rule, O(h^2): at 256 x 128
    // texels measured 2.9e-5; cells add the straddling cells' error, second order in their size:
    // measured 1.6e-4 with 128 x 64 cells, 9.5e-4 with 64 x 32 (twice that allowed).
    const double c = 1.5;
    const Environment flat = make_equirect_env(256, 128, [&](const Vec3&) { return Rgb{c, c, c}; });
    for (const auto& [block, tolerance] : {std::pair{1, 1e-4}, {2, 3.2e-4}, {4, 1.9e-3}}) {
        const IrradianceCells cells = build_irradiance_cells(flat, block);
        for (const Vec3& n : fibonacci_sphere(32))
            CHECK(exact_irradiance(cells, n)[1] == Approx(kPi * c).epsilon(tolerance));
    }
    // A uniform upper hemisphere: E(n) = pi (1 + n.y) / 2 (the sky dome on a tilted plane). On a
    // cube with an even face size the horizon runs between texel rows.
    const Environment dome = make_cube_env(64, [](const Vec3& d) { return d.y > 0 ? Rgb{1, 1, 1} : Rgb{0, 0, 0}; });
    const IrradianceCells dome_cells = build_irradiance_cells(dome, 1);
    for (const Vec3& n : fibonacci_sphere(32)) CHECK(exact_irradiance(dome_cells, n)[0] == Approx(kPi * (1 + n.y) / 2).margin(2e-3));
}

TEST_CASE("a point light is exact in any cell size", "[exact]") {
    // One texel of radiance L: E(n) = L Omega max(0, n.d0), whatever cell holds it.
    const int w = 256, h = 128, row = 37, col = 201;
    const Environment env = point_light_env(w, h, row, col, 1000.0f);
    const Vec3 d0 = equirect_texel_direction(row, col, w, h);
    const double omega = equirect_row_solid_angle(row, w, h);
    for (int block : {1, 4, 16, 64}) {
        const IrradianceCells cells = build_irradiance_cells(env, block);
        for (const Vec3& n : fibonacci_sphere(64))
            for (int c = 0; c < 3; ++c) {
                const double expected = 1000.0 * (c + 1) * omega * std::max(0.0, dot(n, d0));
                CHECK(exact_irradiance(cells, n)[c] == Approx(expected).epsilon(1e-12).margin(1e-12));
            }
    }
}

TEST_CASE("grouping into cells stays within the stated bound of the full-resolution sum", "[exact]") {
    // A smooth sky, a small bright sun and a patch of negative texels (lossy-codec ringing).
    Environment env = make_equirect_env(512, 256, [](const Vec3& d) {
        const Rgb sky = smooth_radiance(d);
        const double sun = dot(d, normalize({0.4, 0.2, -0.9})) > 0.9995 ? 5e4 : 0.0;
        return Rgb{sky[0] + sun, sky[1] + 0.8 * sun, sky[2] + 0.6 * sun};
    });
    for (int r = 180; r < 184; ++r)
        for (int col = 10; col < 20; ++col) env.equirect.at(r, col)[0] = -40.0f;
    const IrradianceCells full = build_irradiance_cells(env, 1);
    // Measured max errors (of max E): 4.2e-4 with 256 x 128 cells, 2.1e-3 with 128 x 64, 3.3e-3
    // with 32 x 16; twice that allowed.
    for (const auto& [block, measured] : {std::pair{2, 4.2e-4}, {4, 2.1e-3}, {16, 3.3e-3}}) {
        const IrradianceCells cells = build_irradiance_cells(env, block);
        CHECK(cells.max_diameter > 0);
        double worst = 0, scale = 0;
        for (const Vec3& n : fibonacci_sphere(96)) {
            const Rgb e = exact_irradiance(cells, n), ref = exact_irradiance(full, n);
            const Rgb bound = cell_error_bound(env, n, cells.max_diameter);
            for (int c = 0; c < 3; ++c) {
                CHECK(std::fabs(e[c] - ref[c]) <= bound[c] + 1e-9 * std::fabs(ref[c]));
                worst = std::max(worst, std::fabs(e[c] - ref[c]));
                scale = std::max(scale, std::fabs(ref[c]));
            }
        }
        // The bound has room: the real error is small against the map's largest value.
        INFO("block " << block << ": max error " << worst / scale << " of max E");
        CHECK(worst <= 2 * measured * scale);
    }
}

TEST_CASE("cells merged from finer cells equal cells built from the texels", "[exact]") {
    for (bool cube : {false, true}) {
        const Environment env = cube ? make_random_cube_env(30, 5) : make_equirect_env(90, 45, smooth_radiance);
        const IrradianceCells fine = build_irradiance_cells(env, 2);
        const IrradianceCells merged = merge_irradiance_cells(fine, 4), direct = build_irradiance_cells(env, 8);
        REQUIRE(merged.columns == direct.columns);
        REQUIRE(merged.rows == direct.rows);
        CHECK(merged.max_diameter == direct.max_diameter);
        for (std::size_t i = 0; i < direct.moments.size(); ++i)
            CHECK(merged.moments[i] == Approx(direct.moments[i]).epsilon(1e-12).margin(1e-14));
    }
}

TEST_CASE("exact irradiance is the same whatever the threads, and packed texels give the float bits", "[exact]") {
    const Environment packed = random_packed_equirect(64, 32, TexelEncoding::Half, 11);
    Environment expanded = packed;
    expand_packed_texels(expanded, 1);
    const IrradianceCells a = build_irradiance_cells(packed, 4, 1), b = build_irradiance_cells(expanded, 4, 5);
    CHECK(a.moments == b.moments);
    const std::vector<Vec3> dirs = cube_map_directions(5);
    const std::vector<Rgb> e1 = exact_irradiance_at(a, dirs, 1), e4 = exact_irradiance_at(a, dirs, 4);
    CHECK(e1 == e4);
    // The map renders put the values at the directions' places.
    const CubeMap map = render_exact_irradiance_cube(a, 5, 2);
    CHECK(map.faces[3].at(2, 4)[1] == static_cast<float>(e1[static_cast<std::size_t>(3 * 25 + 2 * 5 + 4)][1]));
    const Image eq = render_exact_irradiance_equirect(a, 8, 4, 2);
    const Rgb e = exact_irradiance_at(a, {equirect_texel_direction(3, 5, 8, 4)}, 1)[0];
    CHECK(eq.at(3, 5)[2] == static_cast<float>(e[2]));
}

TEST_CASE("many directions at once (whole runs of cells culled or summed) equal the cell-by-cell sum", "[exact]") {
    // Runs of cells entirely in front of or behind a direction's horizon are taken together; the
    // result must be exact_irradiance()'s up to rounding, also for directions on the texel centres
    // (on the horizons of other texels), a sun texel, negative texels and cells of every size.
    for (bool cube : {false, true})
        for (int block : {1, 3, 8, 64}) {
            INFO((cube ? "cube" : "equirect") << " block " << block);
            Environment env = cube ? make_random_cube_env(40, 7, -0.5f, 2.0f) : make_equirect_env(160, 80, smooth_radiance);
            float* sun = cube ? env.cube.faces[2].at(5, 31) : env.equirect.at(17, 101);
            for (int c = 0; c < 3; ++c) sun[c] = 5000.0f;
            if (!cube) env.equirect.at(60, 3)[1] = -40.0f;
            const IrradianceCells cells = build_irradiance_cells(env, block);
            std::vector<Vec3> dirs = fibonacci_sphere(300);
            for (const Vec3& d : cube_map_directions(9)) dirs.push_back(d);
            for (const Vec3& d : equirect_map_directions(24, 12)) dirs.push_back(d);
            dirs.push_back(Vec3{0, 1, 0});
            dirs.push_back(Vec3{0, -1, 0});
            const std::vector<Rgb> at = exact_irradiance_at(cells, dirs, 3);
            for (std::size_t i = 0; i < dirs.size(); ++i) {
                const Rgb e = exact_irradiance(cells, dirs[i]);
                Rgb scale{0, 0, 0};  // sum |terms|: the rounding's scale
                for (std::size_t k = 0; k < cells.count(); ++k)
                    for (int c = 0; c < 3; ++c) {
                        const double* m = &cells.moments[k * IrradianceCells::kValuesPerCell + 6 * c];
                        scale[c] += std::fabs(dot(dirs[i], Vec3{m[0], m[1], m[2]})) +
                                    std::fabs(dot(dirs[i], Vec3{m[3], m[4], m[5]}));
                    }
                for (int c = 0; c < 3; ++c) CHECK(std::fabs(at[i][c] - e[c]) <= 1e-13 * scale[c] + 1e-300);
            }
        }
}

TEST_CASE("the cell size follows the source size", "[exact]") {
    Environment eq;
    eq.equirect = Image(8192, 4096);
    CHECK(irradiance_cell_block(eq, 256) == 16);
    eq.equirect = Image(300, 150);
    CHECK(irradiance_cell_block(eq, 256) == 1);
    CHECK(irradiance_cell_block(eq, 64) == 3);
    Environment cube;
    cube.layout = Layout::Faces;
    cube.cube = CubeMap(1000);
    CHECK(irradiance_cell_block(cube, 256) == 8);  // 125 cells a side, at most 128
    const IrradianceCells cells = build_irradiance_cells(make_random_cube_env(10, 1), 4);
    CHECK(cells.columns == 3);
    CHECK(cells.rows == 18);
    CHECK(cells.describe() == "6x3^2 cells of 4x4 texels");
}

TEST_CASE("SH error measure: relative errors, floor, negatives and the warning", "[exact][sh-error]") {
    const std::vector<Vec3> dirs = fibonacci_sphere(50);
    ShCoefficients e(3);
    e.rgb[0] = {3.0, 2.0, 1.0};
    e.rgb[1] = {0.5, 0.0, -0.2};
    std::vector<Rgb> exact;
    for (const Vec3& n : dirs) exact.push_back(eval_sh(e, n));
    const ShErrorStats same = measure_sh_error(e, 3, dirs, exact);
    for (int c = 0; c < 3; ++c) {
        CHECK(same.mean_relative[c] == 0);
        CHECK(same.negative_fraction[c] == 0);
    }
    // The SH 10% above the truth everywhere: relative error 0.1 exactly (up to rounding).
    std::vector<Rgb> lower = exact;
    for (Rgb& v : lower)
        for (double& x : v) x /= 1.1;
    const ShErrorStats off = measure_sh_error(e, 3, dirs, lower);
    for (int c = 0; c < 3; ++c) {
        CHECK(off.mean_relative[c] == Approx(0.1).epsilon(1e-12));
        CHECK(off.max_relative[c] == Approx(0.1).epsilon(1e-12));
    }
    // Negated coefficients are negative in every direction where the truth is positive: all of them.
    ShCoefficients neg = e;
    for (Rgb& v : neg.rgb)
        for (double& x : v) x = -x;
    CHECK(measure_sh_error(neg, 3, dirs, exact).negative_fraction[0] == 1.0);
    // A direction whose truth is 0 has no relative error: excluded and counted.
    std::vector<Rgb> with_zero = exact;
    with_zero[7] = {0, 0, 0};
    const ShErrorStats z = measure_sh_error(e, 3, dirs, with_zero);
    CHECK(z.excluded == 3);
    CHECK(z.mean_relative[0] == 0);

    ShErrorReport report;
    report.order3.mean_relative = {0.02, 0.09, 0.01};
    report.order5.mean_relative = {0.01, 0.04, 0.01};
    CHECK(sh_error_warning(report, 3, 0.1).empty());
    CHECK(sh_error_warning(report, 3, 0.05).find("--order 5 would do") != std::string::npos);
    CHECK(sh_error_warning(report, 5, 0.03).find("--irradiance exact") != std::string::npos);
    CHECK(sh_error_warning(report, 5, 0.05).empty());
}

TEST_CASE("SH error report of a sun map: order 5 beats order 3, and both ring", "[exact][sh-error]") {
    const Environment env = point_light_env(128, 64, 20, 40, 5e3f);
    const IrradianceCells cells = merge_irradiance_cells(build_irradiance_cells(env, 1),
                                                         irradiance_cell_block(env, kShErrorCellRows));
    const std::vector<Rgb> exact = exact_irradiance_at(cells, cube_map_directions(kShErrorGridSize));
    const ShErrorReport r = make_sh_error_report(irradiance_from_radiance(project_sh_cpu(env, 5).radiance), cells, exact);
    CHECK(r.order5.worst_mean() < r.order3.worst_mean());
    CHECK(r.order3.negative_fraction[0] > 0.05);  // a delta light rings on the far side
    CHECK(r.order3.excluded > 0);                 // the dark hemisphere has no relative error
    CHECK(r.directions == "cube 6x16^2 texel centres");
}
