// Engine SH layouts (src/core/outputs/engine_sh.h) against the engines: Filament against Debian's
// cmgen itself (its sh.txt for the same cube, stored in tests/data/reference/filament_sh_*.txt, see
// SOURCES.md there), Unity against its ShadeSH9 sum evaluated in Unity's axes, Babylon's polynomial
// against our E/pi. three.js's and Babylon's own classes read the files in tests/js/check_sh.mjs.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "engine_files.h"
#include "engine_sh.h"
#include "errors.h"
#include "test_support.h"

using namespace bake;

namespace {

constexpr double kPi = 3.14159265358979323846;

struct ShText {
    std::vector<Rgb> values;
    std::vector<std::string> comments;
};

ShText parse_sh_text(const std::string& text) {
    ShText out;
    std::istringstream in(text);
    std::string line;
    const std::regex re(R"(^\(\s*(\S+),\s*(\S+),\s*(\S+)\); // (.*)$)");
    while (std::getline(in, line)) {
        std::smatch m;
        REQUIRE(std::regex_match(line, m, re));
        out.values.push_back({std::stod(m[1]), std::stod(m[2]), std::stod(m[3])});
        out.comments.push_back(m[4]);
    }
    return out;
}

std::string read_text(const std::string& path) {
    std::ifstream f(path);
    REQUIRE(f.good());
    return std::string(std::istreambuf_iterator<char>(f), {});
}

// The cube cmgen read: a horizontal cross of engine_test_radiance at 64^2 (see SOURCES.md).
ShCoefficients cmgen_input_radiance() {
    return project_sh_cpu(test::make_cube_env(64, engine_test_radiance), 3).radiance;
}

}  // namespace

TEST_CASE("engine sh: Filament's sh.txt as Debian's cmgen writes it, within cmgen's float error", "[engine_sh]") {
    const ShCoefficients radiance = cmgen_input_radiance();
    struct Case {
        const char* file;
        FilamentSh kind;
        bool mirror;
    };
    for (const Case& c : {Case{"filament_sh_irradiance.txt", FilamentSh::Irradiance, true},
                          Case{"filament_sh_irradiance_no_mirror.txt", FilamentSh::Irradiance, false},
                          Case{"filament_sh_prescaled.txt", FilamentSh::PreScaled, true},
                          Case{"filament_sh_prescaled_no_mirror.txt", FilamentSh::PreScaled, false}}) {
        INFO(c.file);
        const ShText cmgen = parse_sh_text(read_text(std::string(BAKE_TEST_DATA_DIR) + "/reference/" + c.file));
        const ShText ours = parse_sh_text(filament_sh_text(radiance, c.kind, c.mirror));
        REQUIRE(cmgen.values.size() == 9);
        CHECK(ours.comments == cmgen.comments);
        // cmgen sums in float over the same texels (no resampling of a cube cross): measured up to
        // 4.3e-4 of each coefficient apart (band 2; 6e-6 for L00); 1e-3 allowed. A wrong sign, mirror
        // or scale is off by the coefficient itself.
        for (int k = 0; k < 9; ++k)
            for (int ch = 0; ch < 3; ++ch) {
                INFO("k " << k << " channel " << ch);
                CHECK(std::fabs(ours.values[k][ch] - cmgen.values[k][ch]) <= 1e-3 * std::fabs(cmgen.values[k][ch]));
            }
    }
}

TEST_CASE("engine sh: Unity's ShadeSH9 sum gives E/pi in Unity's axes (z negated)", "[engine_sh]") {
    const EngineTestScene scene = make_engine_test_scene();
    const auto sh = unity_sh_l2(scene.radiance);
    // UnityCG.cginc's ShadeSH9 on the constants PackCoefficients makes (HDRP SphericalHarmonics.cs):
    // SHAr = (sh3, sh1, sh2, sh0 - sh6), SHBr = (sh4, sh5, 3 sh6, sh7), SHC = sh8:
    // dot(SHAr, (n, 1)) + dot(SHBr, (xy, yz, zz, xz)) + sh8 (xx - yy).
    auto shade_sh9 = [&](int c, double x, double y, double z) {
        const auto& s = sh[c];
        return s[3] * x + s[1] * y + s[2] * z + (s[0] - s[6]) + s[4] * x * y + s[5] * y * z + 3 * s[6] * z * z +
               s[7] * x * z + s[8] * (x * x - y * y);
    };
    for (const Vec3& n : test::fibonacci_sphere(64)) {
        const Rgb e = eval_sh(scene.irradiance, n);
        for (int c = 0; c < 3; ++c) CHECK(shade_sh9(c, n.x, n.y, -n.z) == Approx(e[c] / kPi).margin(1e-9 * std::fabs(e[0])));
    }
    // A constant radiance L: Unity's AddAmbientLight(L) adds L to sh[c, 0], and nothing else.
    ShCoefficients constant(3);
    constant.rgb[0] = {2.0 * std::sqrt(4 * kPi), 0, 0};  // L00 of radiance 2 everywhere
    CHECK(unity_sh_l2(constant)[0][0] == Approx(2.0));
}

TEST_CASE("engine sh: Babylon's polynomial is E/pi, its harmonics have the Condon-Shortley phase", "[engine_sh]") {
    const EngineTestScene scene = make_engine_test_scene();
    const BabylonPolynomial p = babylon_polynomial(scene.radiance);
    for (const Vec3& n : test::fibonacci_sphere(64)) {
        const Rgb e = eval_sh(scene.irradiance, n);
        for (int c = 0; c < 3; ++c) {
            const double v = p.x[c] * n.x + p.y[c] * n.y + p.z[c] * n.z + p.xx[c] * n.x * n.x + p.yy[c] * n.y * n.y +
                             p.zz[c] * n.z * n.z + p.xy[c] * n.x * n.y + p.yz[c] * n.y * n.z + p.zx[c] * n.z * n.x;
            CHECK(v == Approx(e[c] / kPi).margin(1e-9 * std::fabs(e[0])));
        }
    }
    const Sh9 b = babylon_harmonics(scene.radiance);
    CHECK(b[1][0] == -scene.radiance.rgb[1][0]);  // Condon-Shortley phase: m = -1
    CHECK(b[4][0] == scene.radiance.rgb[4][0]);   // m = -2 keeps its sign
}

TEST_CASE("engine sh: fewer than 9 coefficients are refused with the file's name", "[engine_sh]") {
    const ShCoefficients order2(2);
    const std::string dir = test::scratch("engine_sh_refused");
    CHECK_THROWS_AS(write_filament_sh(dir + "/sh.txt", order2, FilamentSh::PreScaled), OutputError);
    CHECK_THROWS_WITH(write_unity_sh(dir + "/u.json", order2), Catch::Contains(dir + "/u.json: "));
    CHECK(std::filesystem::is_empty(dir));
    // Order 5 gives the same as its first 9.
    const ShCoefficients r5 = project_sh_cpu(test::make_cube_env(8, engine_test_radiance), 5).radiance;
    CHECK(filament_sh_text(r5, FilamentSh::PreScaled) == filament_sh_text(truncate_order(r5, 3), FilamentSh::PreScaled));
}

// Filament 1.9.25's shader sums the pre-scaled SH as sh[0] + sh[1] y + sh[2] z + sh[3] x + sh[4] yx + sh[5] yz +
// sh[6] (3z^2 - 1) + sh[7] zx + sh[8] (x^2 - y^2) at the world normal (Irradiance_SphericalHarmonics in its
// light_indirect.fs, as libfilament_shaders holds it), and samples its cube at world directions as they
// are: with our cube files, the SH must give E(n)/pi at n itself, not mirrored.
TEST_CASE("engine sh: --sh-format filament's default sums to E(n)/pi in Filament's shader at n", "[engine_sh]") {
    const EngineTestScene scene = make_engine_test_scene();
    const Sh9 sh = filament_sh(scene.radiance, FilamentSh::PreScaled);
    double worst = 0, max_e = 0;
    for (const Vec3& n : test::fibonacci_sphere(100)) {
        const double x = n.x, y = n.y, z = n.z;
        const double p[9] = {1, y, z, x, y * x, y * z, 3 * z * z - 1, z * x, x * x - y * y};
        const Rgb e = eval_sh(scene.irradiance, n);
        for (int c = 0; c < 3; ++c) {
            double got = 0;
            for (int k = 0; k < 9; ++k) got += sh[k][c] * p[k];
            worst = std::max(worst, std::fabs(got - e[c] / kPi));
            max_e = std::max(max_e, std::fabs(e[c] / kPi));
        }
    }
    CHECK(worst <= 1e-9 * max_e);
}
