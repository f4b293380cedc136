// The double-precision CPU path against analytic values, brute-force integrals and the
// independent float64 references of tests/data/reference.
#include <catch2/catch.hpp>

#include <cmath>
#include <utility>
#include <vector>

#include "environment_loader.h"
#include "packed_image.h"
#include "projection.h"
#include "test_support.h"
#include "texel_policy.h"

using namespace bake;
using namespace bake::test;

TEST_CASE("constant radiance: L00 = sqrt(4 pi) c and irradiance pi c everywhere", "[cpu]") {
    const double c = 1.75;
    for (bool cube : {true, false}) {
        const Environment env = cube ? make_cube_env(33, [&](const Vec3&) { return Rgb{c, c, c}; })
                                     : make_equirect_env(130, 65, [&](const Vec3&) { return Rgb{c, c, c}; });
        const Projection p = project_sh_cpu(env, 5);
        INFO((cube ? "cube" : "equirect"));
        CHECK(p.radiance.rgb[0][0] == Approx(std::sqrt(4 * kPi) * c).epsilon(1e-13));
        // Odd bands vanish to rounding by the point symmetry of both samplings (even W), and so
        // does band 2 on the cube (octahedral symmetry). The other even bands hold the
        // sampling's own quadrature error, O(h^2), so E is checked to 1e-3 relative.
        for (int k = 1; k < 16; ++k) {
            const int l = sh_band(k);
            if (l % 2 == 1 || (cube && l == 2)) CHECK(std::fabs(p.radiance.rgb[static_cast<size_t>(k)][0]) < 1e-12);
            else CHECK(std::fabs(p.radiance.rgb[static_cast<size_t>(k)][0]) < 1e-2 * p.radiance.rgb[0][0]);
        }
        const ShCoefficients e = irradiance_from_radiance(p.radiance);
        for (const Vec3& n : fibonacci_sphere(50)) CHECK(eval_sh(e, n)[1] == Approx(kPi * c).epsilon(1e-3));
        CHECK(p.solid_angle_sum == Approx(4 * kPi).epsilon(1e-13));
    }
}

TEST_CASE("a single bright texel gives the basis at its direction times its solid angle", "[cpu]") {
    const float v[3] = {1000.0f, 2.0f, -3.0f};
    for (int n : {1, 2, 3, 7}) {
        for (int f = 0; f < 6; ++f) {
            const int r = (f * 5) % n, c = (f * 3 + 1) % n;
            Environment env = make_cube_env(n, [](const Vec3&) { return Rgb{0, 0, 0}; });
            std::copy(v, v + 3, env.cube.faces[static_cast<size_t>(f)].at(r, c));
            const Projection p = project_sh_cpu(env, 5);
            double y[25];
            eval_sh_basis(5, cube_texel_direction(f, r, c, n), y);
            const double omega = cube_texel_solid_angle(r, c, n);
            for (int k = 0; k < 25; ++k)
                for (int ch = 0; ch < 3; ++ch)
                    CHECK(p.radiance.rgb[static_cast<size_t>(k)][ch] == Approx(v[ch] * y[k] * omega).margin(1e-12));
        }
    }
    Environment env = make_equirect_env(6, 3, [](const Vec3&) { return Rgb{0, 0, 0}; });
    std::copy(v, v + 3, env.equirect.at(2, 5));
    const Projection p = project_sh_cpu(env, 3);
    double y[25];
    eval_sh_basis(3, equirect_texel_direction(2, 5, 6, 3), y);
    for (int k = 0; k < 9; ++k)
        CHECK(p.radiance.rgb[static_cast<size_t>(k)][0] == Approx(1000.0 * y[k] * equirect_row_solid_angle(2, 6, 3)).epsilon(1e-14));
}

TEST_CASE("lat-long rows by harmonics stay within projection.h's bound of a long-double texel sum", "[cpu]") {
    // A sun texel anywhere (where basis values are small, the harmonics' rounding is not) and a
    // random map: every coefficient within (16 n_row + log2 rows + 2) 2^-53 sum |L| Omega of the
    // per-texel sum in long double (the +2: the basis values' own rounding in the reference).
    for (const auto& [w, h] : {std::pair{24, 12}, std::pair{64, 32}, std::pair{250, 125}}) {
        std::vector<Environment> envs;
        for (int i = 0; i < 6; ++i) {
            Environment sun = make_equirect_env(w, h, [](const Vec3&) { return Rgb{0, 0, 0}; });
            for (int c = 0; c < 3; ++c) sun.equirect.at((i * 7) % h, (i * 13 + 5) % w)[c] = 1e4f * static_cast<float>(c + 1);
            envs.push_back(sun);
        }
        envs.push_back(make_equirect_env(w, h, [](const Vec3& d) {
            return Rgb{std::fabs(std::sin(40 * d.x)) * 3, std::cos(17 * d.y * d.z), d.z > 0.9 ? 500.0 : -0.25};
        }));
        for (const Environment& env : envs)
            for (int order : {3, 5}) {
                const Projection p = project_sh_cpu(env, order, 3);
                std::vector<long double> ref(static_cast<size_t>(3 * sh_count(order)), 0.0L);
                long double mass[3] = {0, 0, 0};
                for (int r = 0; r < h; ++r)
                    for (int c = 0; c < w; ++c) {
                        double y[25];
                        eval_sh_basis(order, equirect_texel_direction(r, c, w, h), y);
                        const long double omega = equirect_row_solid_angle(r, w, h);
                        for (int ch = 0; ch < 3; ++ch) {
                            const long double l = env.equirect.at(r, c)[ch];
                            mass[ch] += std::fabs(l) * omega;
                            for (int k = 0; k < sh_count(order); ++k) ref[static_cast<size_t>(3 * k + ch)] += l * y[k] * omega;
                        }
                    }
                const double levels = std::ceil(std::log2(static_cast<double>(h))) + 2;
                for (int k = 0; k < sh_count(order); ++k)
                    for (int ch = 0; ch < 3; ++ch) {
                        const double bound = (16.0 * w + levels) * std::ldexp(1.0, -53) * static_cast<double>(mass[ch]);
                        const double err = std::fabs(p.radiance.rgb[static_cast<size_t>(k)][ch] -
                                                     static_cast<double>(ref[static_cast<size_t>(3 * k + ch)]));
                        INFO(w << "x" << h << " order " << order << " k " << k << " ch " << ch);
                        CHECK(err <= bound);
                    }
            }
    }
}

TEST_CASE("SH irradiance matches a brute-force cosine-weighted sum over all texels", "[cpu]") {
    // Band-limited radiance (a degree-2 polynomial, so exactly bands 0-2): the order-3 SH
    // irradiance is exact up to the quadrature of the texel sums. Both sides use the same texels;
    // the brute force integrates the kink of max(0, n.d) with the midpoint rule, an O(h^2)
    // error, 1e-4 relative at N = 64 (measured ~1e-5).
    auto quadratic = [](const Vec3& d) {
        return Rgb{2.0 + 0.8 * d.y + 0.3 * d.x * d.z, 1.5 - 0.4 * d.x + 0.2 * d.y * d.y, 1.0 + 0.5 * d.z - 0.3 * d.x * d.y};
    };
    const Environment env = make_cube_env(64, quadratic);
    const ShCoefficients e3 = irradiance_from_radiance(project_sh_cpu(env, 3).radiance);
    const ShCoefficients e5 = irradiance_from_radiance(project_sh_cpu(env, 5).radiance);
    for (const Vec3& n : fibonacci_sphere(40)) {
        const Rgb bf = brute_force_irradiance(env, n);
        for (int c = 0; c < 3; ++c) {
            CHECK(eval_sh(e3, n)[c] == Approx(bf[c]).epsilon(1e-4));
            CHECK(eval_sh(e5, n)[c] == Approx(bf[c]).epsilon(1e-4));
        }
    }
    // A smooth but not band-limited sky: SH truncation error now dominates. The clamped cosine
    // keeps 99.6% of its energy in bands 0-2 (Ramamoorthi & Hanrahan), so order 3 is within 3%
    // and order 5 within 0.5% for a radiance this smooth.
    const Environment sky = make_equirect_env(256, 128, smooth_radiance);
    const ShCoefficients s3 = irradiance_from_radiance(project_sh_cpu(sky, 3).radiance);
    const ShCoefficients s5 = irradiance_from_radiance(project_sh_cpu(sky, 5).radiance);
    for (const Vec3& n : fibonacci_sphere(40)) {
        const Rgb bf = brute_force_irradiance(sky, n);
        for (int c = 0; c < 3; ++c) {
            CHECK(eval_sh(s3, n)[c] == Approx(bf[c]).epsilon(3e-2));
            CHECK(eval_sh(s5, n)[c] == Approx(bf[c]).epsilon(5e-3));
        }
    }
}

TEST_CASE("CPU projection is bit-identical whatever the thread count", "[cpu]") {
    const Environment env = make_random_cube_env(97, 3u, -0.5f, 4.0f);
    const Projection a = project_sh_cpu(env, 5, 1);
    for (int threads : {2, 3, 8}) {
        const Projection b = project_sh_cpu(env, 5, threads);
        CHECK(b.radiance.rgb == a.radiance.rgb);
        CHECK(b.solid_angle_sum == a.solid_angle_sum);
    }
}

TEST_CASE("cube layouts give identical coefficients to the faces they hold", "[cpu][layout]") {
    const Environment faces = make_random_cube_env(5, 9u);
    const Projection ref = project_sh_cpu(faces, 5);
    for (Layout l : {Layout::HCross, Layout::VCross, Layout::HStrip, Layout::VStrip}) {
        Environment env;
        env.layout = l;
        env.cube = extract_cube(assemble_cube(faces.cube, l), l);
        CHECK(project_sh_cpu(env, 5).radiance.rgb == ref.radiance.rgb);
    }
}

TEST_CASE("the three real DWAB maps match their independent float64 references to 1e-9", "[cpu][reference]") {
    for (const char* name : {"pmndrs_sky", "pmndrs_warehouse", "pmndrs_esplanade"}) {
        for (const char* policy : {"keep", "clamp"}) {
            Environment env = load_environment(std::string(BAKE_TEST_DATA_DIR) + "/" + name + ".exr");
            const nlohmann::json ref = read_json(std::string(BAKE_TEST_DATA_DIR) + "/reference/" + name +
                                                 ".negatives-" + policy + ".json");
            const TexelStats stats = scan_texels(env);
            CHECK(stats.negative == ref.at("negative_values_in_file").get<std::size_t>());
            CHECK(stats.min_value == ref.at("min_value_in_file").get<double>());
            if (std::string(policy) == "clamp") clamp_negative(env);
            for (int order : {3, 5}) {
                const Projection p = project_sh_cpu(env, order);
                INFO(name << " negatives-" << policy << " order " << order);
                CHECK(max_relative_error(p.radiance, coefficients_from(ref.at("sh_radiance"), order)) < 1e-9);
                CHECK(max_relative_error(irradiance_from_radiance(p.radiance),
                                         coefficients_from(ref.at("sh_irradiance"), order)) < 1e-9);
                CHECK(std::fabs(p.solid_angle_sum - 4 * kPi) < 1e-12);
            }
        }
    }
}

TEST_CASE("brute force here agrees with the reference brute force of the real maps", "[cpu][reference]") {
    // The reference JSONs hold E(n) = sum L Omega max(0, n.d) at 64 normals, computed
    // independently: a check of brute_force_irradiance and of the loader together.
    const Environment env = load_environment(std::string(BAKE_TEST_DATA_DIR) + "/pmndrs_warehouse.exr");
    const nlohmann::json ref = read_json(std::string(BAKE_TEST_DATA_DIR) + "/reference/pmndrs_warehouse.negatives-keep.json");
    const nlohmann::json& bf = ref.at("bruteforce");
    const auto& normals = bf.at("normals");
    const auto& values = bf.at("irradiance");
    REQUIRE(normals.size() == values.size());
    for (size_t i = 0; i < normals.size(); ++i) {
        const Vec3 n{normals[i][0].get<double>(), normals[i][1].get<double>(), normals[i][2].get<double>()};
        const Rgb e = brute_force_irradiance(env, n);
        for (size_t c = 0; c < 3; ++c) CHECK(e[c] == Approx(values[i][c].get<double>()).epsilon(1e-9));
    }
}

TEST_CASE("the same smooth sky sampled as a cube and as an equirect gives the same coefficients", "[cpu][layout]") {
    // Two independent discretisations of one radiance function: the cube mapping and the
    // lat-long mapping must describe the same directions, or the coefficients (odd bands and
    // m < 0 especially) would disagree in sign or size. Midpoint quadrature of a smooth
    // function is O(h^2): measured 6.7e-5 of the coefficient-vector norm here, 2e-4 allowed.
    const Environment cube = make_cube_env(96, smooth_radiance);
    const Environment equirect = make_equirect_env(384, 192, smooth_radiance);
    const ShCoefficients a = project_sh_cpu(cube, 5).radiance, b = project_sh_cpu(equirect, 5).radiance;
    CHECK(max_relative_error(a, b) < 2e-4);
    // The check has teeth: the same sky mirrored in X (a wrong face orientation, say) is far off.
    const Environment mirrored = make_cube_env(96, [](const Vec3& d) { return smooth_radiance({-d.x, d.y, d.z}); });
    CHECK(max_relative_error(project_sh_cpu(mirrored, 5).radiance, b) > 1e-2);
}

TEST_CASE("packed RGBE and half texels project to the bits of their float expansion", "[cpu][packed]") {
    // Random texels of both encodings, odd widths, every thread count: expanding a row at a time
    // inside the projection must give exactly the sums over the expanded image.
    for (const TexelEncoding encoding : {TexelEncoding::Rgbe8, TexelEncoding::Half})
        for (const auto& size : {std::pair<int, int>{2, 1}, {302, 151}, {1000, 500}}) {
            CAPTURE(encoding_name(encoding), size.first, size.second);
            const Environment packed = random_packed_equirect(size.first, size.second, encoding, 17);
            Environment expanded = packed;
            expand_packed_texels(expanded);
            REQUIRE(packed.is_packed());
            REQUIRE_FALSE(expanded.is_packed());
            for (int order : {3, 5})
                for (int threads : {1, 3, 0}) {
                    const Projection a = project_sh_cpu(packed, order, threads), b = project_sh_cpu(expanded, order, threads);
                    CHECK(a.solid_angle_sum == b.solid_angle_sum);
                    for (int k = 0; k < sh_count(order); ++k)
                        for (int c = 0; c < 3; ++c)
                            CHECK(a.radiance.rgb[static_cast<size_t>(k)][c] == b.radiance.rgb[static_cast<size_t>(k)][c]);
                }
        }
}
