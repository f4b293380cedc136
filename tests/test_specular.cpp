// The specular prefilter's CPU side: the source cube, its mip chain, the sample sets and the
// double brute-force reference, against analytic results.
#include <catch2/catch.hpp>

#include <cmath>

#include "ggx.h"
#include "specular_prefilter.h"
#include "test_support.h"

using namespace bake;

namespace {

constexpr double kTestPi = 3.14159265358979323846;

// κ(alpha) = ∫ W(c) c dc / ∫ W(c) dc over c = n·l in [0, 1], W(c) = c·D(sqrt((1 + c)/2)): the first
// moment of the lobe, E[l] = κ n. An independent 1D quadrature: composite Simpson in theta_l, fine
// enough for the sharpest lobe used (alpha = 0.04 spans ~20 of its 20000 steps).
double lobe_first_moment(double alpha) {
    const int steps = 20000;
    const double h = 0.5 * kTestPi / steps;
    double num = 0, den = 0;
    for (int i = 0; i <= steps; ++i) {
        const double theta = i * h, c = std::cos(theta);
        const double w = (i == 0 || i == steps) ? 1 : (i % 2 ? 4 : 2);
        const double lobe = c * ggx_d(std::sqrt(0.5 * (1 + c)), alpha) * std::sin(theta);
        num += w * lobe * c;
        den += w * lobe;
    }
    return num / den;
}

double max_abs_diff(const CubeMap& a, const CubeMap& b) {
    double m = 0;
    for (int f = 0; f < 6; ++f)
        for (std::size_t i = 0; i < a.faces[f].rgb.size(); ++i)
            m = std::max(m, std::fabs(static_cast<double>(a.faces[f].rgb[i]) - b.faces[f].rgb[i]));
    return m;
}

}  // namespace

TEST_CASE("A constant environment prefilters to itself at every roughness (reference)", "[specular]") {
    const Environment env = test::make_cube_env(16, [](const Vec3&) { return Rgb{2.5, 0.75, 1e-3}; });
    const std::vector<CubeMap> chain = prefilter_specular_cpu(make_specular_source(env, 16), 8);
    REQUIRE(chain.size() == 4);
    for (std::size_t level = 0; level < chain.size(); ++level) {
        REQUIRE(chain[level].size == (8 >> level));
        for (const Image& f : chain[level].faces)
            for (std::size_t i = 0; i < f.rgb.size(); i += 3) {
                CHECK(f.rgb[i] == Approx(2.5).epsilon(1e-6));
                CHECK(f.rgb[i + 1] == Approx(0.75).epsilon(1e-6));
                CHECK(f.rgb[i + 2] == Approx(1e-3).epsilon(1e-6));
            }
    }
}

TEST_CASE("The source cube reads packed texels to the values of their expansion", "[specular][packed]") {
    for (TexelEncoding encoding : {TexelEncoding::Rgbe8, TexelEncoding::Half}) {
        const Environment packed = test::random_packed_equirect(96, 48, encoding, 5);
        Environment expanded = packed;
        expand_packed_texels(expanded, 1);
        REQUIRE(packed.is_packed());
        REQUIRE_FALSE(expanded.is_packed());
        for (int size : {4, 16}) {
            CHECK(max_abs_diff(make_specular_source(packed, size), make_specular_source(expanded, size)) == 0);
            // The bright split too: the same cap, capped source and excess.
            const SpecularInput a = prepare_specular_input(packed, size), b = prepare_specular_input(expanded, size);
            REQUIRE(a.bright.size() == b.bright.size());
            CHECK(a.threshold == b.threshold);
            CHECK(max_abs_diff(a.capped_mips[0], b.capped_mips[0]) == 0);
            for (std::size_t i = 0; i < a.bright.size(); ++i)
                for (int c = 0; c < 3; ++c) CHECK(a.bright[i].excess[c] == b.bright[i].excess[c]);
        }
    }
}

TEST_CASE("Roughness 0 reproduces the source: level 0 is its area average", "[specular]") {
    const Environment env = test::make_random_cube_env(16, 3, -0.5f, 4.0f);
    // A source of the base size is level 0 itself, bit for bit.
    const CubeMap same = make_specular_source(env, 16);
    CHECK(max_abs_diff(same, env.cube) == 0);
    CHECK(max_abs_diff(specular_level_zero(cube_mip_chain(same), 16), env.cube) == 0);
    // A source twice the base: each level-0 texel is the solid-angle-weighted mean of its 2x2.
    const CubeMap zero = specular_level_zero(cube_mip_chain(same), 8);
    for (int f = 0; f < 6; ++f)
        for (int r = 0; r < 8; ++r)
            for (int c = 0; c < 8; ++c)
                for (int ch = 0; ch < 3; ++ch) {
                    double sum = 0, w = 0;
                    for (int i = 0; i < 2; ++i)
                        for (int j = 0; j < 2; ++j) {
                            const double o = cube_texel_solid_angle(2 * r + i, 2 * c + j, 16);
                            sum += o * env.cube.faces[f].at(2 * r + i, 2 * c + j)[ch];
                            w += o;
                        }
                    CHECK(zero.faces[f].at(r, c)[ch] == Approx(sum / w).epsilon(1e-6));
                }
    // The reference at roughness 0 reads the texel the direction falls in.
    double v[3];
    prefilter_specular_at(env.cube, cube_texel_direction(4, 5, 9, 16), 0.0, v);
    CHECK(v[1] == env.cube.faces[4].at(5, 9)[1]);
}

TEST_CASE("The mip chain keeps the integral of the source", "[specular]") {
    const Environment env = test::make_random_cube_env(32, 5, 0.0f, 10.0f);
    const std::vector<CubeMap> mips = cube_mip_chain(env.cube);
    REQUIRE(mips.size() == 6);
    double ref = 0;
    for (int f = 0; f < 6; ++f)
        for (int r = 0; r < 32; ++r)
            for (int c = 0; c < 32; ++c) ref += env.cube.faces[f].at(r, c)[0] * cube_texel_solid_angle(r, c, 32);
    for (const CubeMap& m : mips) {
        double sum = 0;
        for (int f = 0; f < 6; ++f)
            for (int r = 0; r < m.size; ++r)
                for (int c = 0; c < m.size; ++c) sum += m.faces[f].at(r, c)[0] * cube_texel_solid_angle(r, c, m.size);
        CHECK(sum == Approx(ref).epsilon(1e-6));
    }
}

TEST_CASE("The reference lobe has the first moment of an independent 1D integral", "[specular]") {
    // L(d) = 1 + e·d is linear, so P(n) = 1 + κ e·n whatever the lobe's shape. Texels hold L at
    // their centres, which is not quite their average: the bound allows for that (~texel²).
    const Vec3 e{0.3, 0.5, -0.2};
    const Environment env = test::make_cube_env(64, [&](const Vec3& d) {
        const double v = 1 + dot(e, d);
        return Rgb{v, v, v};
    });
    for (double roughness : {0.2, 0.5, 1.0}) {
        const double kappa = lobe_first_moment(roughness * roughness);
        for (const Vec3& n : test::fibonacci_sphere(12)) {
            double v[3];
            prefilter_specular_at(env.cube, n, roughness, v);
            INFO("roughness " << roughness << " kappa " << kappa);
            CHECK(v[0] == Approx(1 + kappa * dot(e, n)).margin(1e-3));
        }
    }
}

TEST_CASE("The sample sets: GGX samples above the horizon, mip levels from their density", "[specular]") {
    // alpha = 1: D = 1/pi, h has density cos(theta_h)/pi, so cos²(theta_h) = 1 - u1 is uniform and
    // l = reflect(n, h) lies above the horizon (theta_h < pi/4) for exactly the half u1 < 1/2.
    const auto set = specular_sample_set(1.0, 4096, 64, 0.0);
    CHECK(set.size() == 2048);
    for (const SpecularSample& s : set) {
        REQUIRE(s.z > 0);
        CHECK(std::fabs(s.x * s.x + s.y * s.y + s.z * s.z - 1) < 1e-6);
        // pdf(l) = D/4 = 1/(4 pi) everywhere: a sample stands for 4 pi / 4096 sr, a texel of a 64
        // face is 4 pi / (6 · 64²), so lod = ½ log2(6).
        CHECK(s.lod == Approx(0.5 * std::log2(6.0)).epsilon(1e-6));
    }
    CHECK(specular_sample_set(0.0, 4096, 64, 1.0).size() == 1);  // a mirror: l = n
    CHECK(specular_level_samples(1024, 1) == 1024);
    CHECK(specular_level_samples(1024, 3) == 16384);
    CHECK(specular_level_samples(1024, 8) == kMaxSpecularSamples);
}

TEST_CASE("GGX visible-normal samples have the density G1(v) max(0, v.h) D(h) / v.z", "[specular][ggx]") {
    // E_vndf[f(h)] against the same expectation through NDF samples (density D(h) h.z), reweighted:
    // E_ndf[f(h) G1(v) max(0, v.h) / (v.z h.z)]. Both with 2^20 Hammersley points (the reweighted
    // side is noisy at grazing v: 2.9e-3 off with 2^16); f(h) = h.x, h.z.
    for (double alpha : {0.1, 0.5, 1.0})
        for (double theta : {0.0, 1.0, 1.4}) {
            const Vec3 v{std::sin(theta), 0.0, std::cos(theta)};
            const std::uint32_t n = 1u << 20;
            double vx = 0, vz = 0, nx = 0, nz = 0;
            long long hidden = 0;
            for (std::uint32_t i = 0; i < n; ++i) {
                double u1, u2;
                hammersley(i, n, &u1, &u2);
                const Vec3 hv = sample_ggx_vndf(v, u1, u2, alpha);
                hidden += dot(v, hv) < -1e-12;  // only normals v can see
                vx += hv.x;
                vz += hv.z;
                const Vec3 hn = sample_ggx_ndf(u1, u2, alpha);
                const double w = ggx_g1(v.z, alpha) * std::max(0.0, dot(v, hn)) / (v.z * hn.z);
                nx += w * hn.x;
                nz += w * hn.z;
            }
            INFO("alpha " << alpha << " theta_v " << theta);
            CHECK(hidden == 0);
            CHECK(vx / n == Approx(nx / n).margin(2e-3));
            CHECK(vz / n == Approx(nz / n).margin(2e-3));
        }
}
