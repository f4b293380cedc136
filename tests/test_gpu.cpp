// The GPU path (OpenGL 4.3 compute) against the double-precision CPU path and known answers.
// Runs on whatever EGL finds first: Mesa llvmpipe in CI, the GPU on a machine with one.
// Without an OpenGL 4.3 context these tests FAIL, unless BAKE_ALLOW_NO_GL=1 (then they warn and
// pass): a CI machine that silently lost its GL would otherwise test nothing.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cube_map.h"
#include "environment_loader.h"
#include "equirect.h"
#include "gl_context.h"
#include "gpu_projector.h"
#include "projection.h"
#include "sh.h"
#include "sh_compare.h"
#include "gpu_test_support.h"
#include "test_support.h"

using namespace bake;
using bake::test::Gpu;
using bake::test::open_gpu;

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kUnitRoundoff = 1.0 / (1 << 24);  // float: 2^-24

// Radiance of a typical HDR sky: mostly 0..4, some texels up to 1000 (sun-like).
void fill_random(bake::FloatTexels& rgb, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> base(0.0f, 4.0f);
    std::uniform_int_distribution<int> rare(0, 199);
    for (float& v : rgb) v = rare(rng) == 0 ? 1000.0f * base(rng) / 4.0f : base(rng);
}

Environment random_cube(int n, unsigned seed) {
    Environment env;
    env.layout = Layout::VStrip;
    env.cube = CubeMap(n);
    for (int f = 0; f < 6; ++f) fill_random(env.cube.faces[static_cast<size_t>(f)].rgb, seed * 7u + static_cast<unsigned>(f));
    return env;
}

Environment random_equirect(int w, int h, unsigned seed) {
    Environment env;
    env.layout = Layout::Equirect;
    env.equirect = Image(w, h);
    fill_random(env.equirect.rgb, seed);
    return env;
}

// The a-priori float error bound of a GPU coefficient (see gpu_projector.cpp):
//   summation: summation_depth * u * sum_t |L Y_k Omega|
//   terms:     8u relative (solid angle, products) on each term, plus an absolute basis error of
//              a_l * u per unit |L| Omega, a_l from the rounding of the float direction through
//              band l's polynomial (sum of its monomials' magnitudes times their roundings).
struct ErrorBound {
    std::vector<Rgb> bound;   // per coefficient and channel
    std::vector<Rgb> summation_only;
};

ErrorBound error_bound(const Environment& env, int order) {
    static const double basis_ulps[5] = {2, 8, 24, 64, 160};
    const int count = sh_count(order);
    std::vector<Rgb> abs_terms(static_cast<size_t>(count), Rgb{0, 0, 0});
    Rgb abs_radiance{0, 0, 0};
    double y[kMaxShCount];
    bake::test::for_each_texel(env, [&](const float* rgb, const Vec3& d, double omega) {
        eval_sh_basis(order, d, y);
        for (int c = 0; c < 3; ++c) {
            const double w = std::fabs(static_cast<double>(rgb[c])) * omega;
            abs_radiance[c] += w;
            for (int k = 0; k < count; ++k) abs_terms[static_cast<size_t>(k)][c] += w * std::fabs(y[k]);
        }
    });
    const double depth = GpuProjector::summation_depth(env.texel_count(), env.is_cube());
    ErrorBound b;
    for (int k = 0; k < count; ++k) {
        Rgb total{}, sum_only{};
        for (int c = 0; c < 3; ++c) {
            const double s = abs_terms[static_cast<size_t>(k)][c];
            sum_only[c] = depth * kUnitRoundoff * s;
            total[c] = sum_only[c] + 8 * kUnitRoundoff * s + basis_ulps[sh_band(k)] * kUnitRoundoff * abs_radiance[c];
        }
        b.bound.push_back(total);
        b.summation_only.push_back(sum_only);
    }
    return b;
}

struct Check {
    double max_rel = 0;          // the --compare measure
    double max_bound_ratio = 0;  // max |gpu - cpu| / a-priori bound
};

// GPU vs project_sh_cpu: within 1e-5 of each channel's norm, and within the a-priori bound.
Check check_against_cpu(GpuProjector& gpu, const Environment& env, int order) {
    const Projection g = gpu.project(env, order);
    const Projection c = project_sh_cpu(env, order);
    const ShComparison cmp = compare_sh(g.radiance, c.radiance);
    const ErrorBound b = error_bound(env, order);
    Check out;
    out.max_rel = cmp.max_rel_diff;
    for (int k = 0; k < sh_count(order); ++k)
        for (int ch = 0; ch < 3; ++ch) {
            const double diff = std::fabs(g.radiance.rgb[static_cast<size_t>(k)][ch] - c.radiance.rgb[static_cast<size_t>(k)][ch]);
            const double bound = b.bound[static_cast<size_t>(k)][ch];
            out.max_bound_ratio = std::max(out.max_bound_ratio, bound > 0 ? diff / bound : (diff > 0 ? 1e30 : 0));
        }
    CHECK(cmp.max_rel_diff <= 1e-5);
    CHECK(out.max_bound_ratio <= 1.0);
    CHECK(g.solid_angle_sum == Approx(4 * kPi).epsilon(4 * GpuProjector::summation_depth(env.texel_count(), env.is_cube()) * kUnitRoundoff));
    CHECK(c.solid_angle_sum == Approx(4 * kPi).epsilon(1e-12));
    return out;
}

Environment constant_env(bool cube, int size, const Rgb& value) {
    Environment env = cube ? random_cube(size, 1) : random_equirect(2 * size, size, 1);
    auto set = [&](Image& img) {
        for (size_t i = 0; i < img.pixel_count(); ++i)
            for (int c = 0; c < 3; ++c) img.rgb[3 * i + static_cast<size_t>(c)] = static_cast<float>(value[c]);
    };
    if (cube) for (Image& f : env.cube.faces) set(f);
    else set(env.equirect);
    return env;
}

}  // namespace

TEST_CASE("GPU context: EGL gives OpenGL 4.3 with a renderer name", "[gpu]") {
    auto gpu = open_gpu(GlBackend::Egl);
    if (!gpu) return;
    const GlContextInfo& info = gpu->context->info();
    CHECK(info.backend.rfind("egl-", 0) == 0);
    CHECK(!info.renderer.empty());
    CHECK(!info.vendor.empty());
    CHECK(!info.version.empty());
    UNSCOPED_INFO("EGL context: " << info.backend << ", " << info.renderer << ", " << info.version);
}

TEST_CASE("GPU context: GLFW hidden window (run under xvfb-run)", "[gpu][glfw]") {
    const char* display = std::getenv("DISPLAY");
    const char* wayland = std::getenv("WAYLAND_DISPLAY");
    if (!(display && *display) && !(wayland && *wayland)) {
        WARN("GLFW test not run: no DISPLAY or WAYLAND_DISPLAY (CI runs it under xvfb-run -a)");
        return;
    }
    auto gpu = open_gpu(GlBackend::Glfw);
    if (!gpu) return;
    CHECK(gpu->context->info().backend == "glfw");
    // The whole path through this context too.
    const Environment env = random_cube(5, 3);
    check_against_cpu(*gpu->projector, env, 3);
}

TEST_CASE("GPU projection: cube faces of odd and tiny and work-group-straddling sizes", "[gpu]") {
    auto gpu = open_gpu();
    if (!gpu) return;
    // A cube work group takes 1024 positions (n^2) on all faces: 32 fills one, 33 spills into a
    // second; 65 and 101 leave partial groups; 520 gives 265 groups, so two reduction passes.
    for (int n : {1, 2, 3, 7, 31, 32, 33, 65, 101, 520})
        for (int order : {3, 5}) {
            INFO("face size " << n << ", order " << order);
            check_against_cpu(*gpu->projector, random_cube(n, static_cast<unsigned>(n)), order);
        }
}

TEST_CASE("GPU projection: equirect sizes", "[gpu]") {
    auto gpu = open_gpu();
    if (!gpu) return;
    for (auto wh : {std::pair<int, int>{2, 1}, {6, 3}, {130, 65}, {512, 256}, {1000, 500}})
        for (int order : {3, 5}) {
            INFO("equirect " << wh.first << "x" << wh.second << ", order " << order);
            check_against_cpu(*gpu->projector, random_equirect(wh.first, wh.second, 5), order);
        }
}

TEST_CASE("GPU projection: constant radiance gives L00 = sqrt(4 pi) c and symmetric bands vanish", "[gpu]") {
    auto gpu = open_gpu();
    if (!gpu) return;
    const Rgb c{1.0, 2.0, 0.5};
    for (bool cube : {true, false})
        for (int size : {1, 3, 16, 64}) {
            INFO((cube ? "cube " : "equirect height ") << size);
            const Environment env = constant_env(cube, size, c);
            const Projection p = gpu->projector->project(env, 5);
            CHECK(compare_sh(p.radiance, project_sh_cpu(env, 5).radiance).max_rel_diff <= 1e-5);
            for (int ch = 0; ch < 3; ++ch) {
                const double l00 = std::sqrt(4 * kPi) * c[ch];
                CHECK(p.radiance.rgb[0][ch] == Approx(l00).epsilon(1e-6));
                // Both texel sets are symmetric under d -> -d, so odd bands cancel; the cube's
                // octahedral symmetry also cancels band 2 (band 4 keeps its cubic invariant, and
                // the lat-long grid's midpoint rows leave even bands at O(1/H^2)).
                for (int k = 1; k < 25; ++k) {
                    const int l = sh_band(k);
                    if (l % 2 == 1 || (cube && l == 2))
                        CHECK(std::fabs(p.radiance.rgb[static_cast<size_t>(k)][ch]) <= 2e-6 * l00);
                }
            }
        }
}

TEST_CASE("GPU projection: a single bright texel gives Y(d) * Omega * L", "[gpu]") {
    auto gpu = open_gpu();
    if (!gpu) return;
    const float bright[3] = {1000.0f, 500.0f, 250.0f};
    struct Case { bool cube; int size, face, row, col; };
    std::vector<Case> cases{Case{true, 9, 3, 4, 2}, Case{true, 1, 5, 0, 0}, Case{true, 64, 0, 63, 17},
                            Case{false, 40, 0, 3, 17}, Case{false, 130, 0, 0, 129}};
    // Size 16 takes the symmetric pass (8 mirrored texels per basis evaluation): one texel in
    // each quadrant of every face, so every sign flip of every face pair is exercised.
    for (int face = 0; face < 6; ++face)
        for (int quadrant = 0; quadrant < 4; ++quadrant)
            cases.push_back(Case{true, 16, face, quadrant / 2 ? 13 : 2, quadrant % 2 ? 9 : 5});
    for (const Case& t : cases) {
        INFO((t.cube ? "cube" : "equirect") << " size " << t.size << " texel " << t.face << "/" << t.row << "/" << t.col);
        Environment env = constant_env(t.cube, t.size, Rgb{0, 0, 0});
        Vec3 d;
        double omega;
        if (t.cube) {
            std::copy(bright, bright + 3, env.cube.faces[static_cast<size_t>(t.face)].at(t.row, t.col));
            d = cube_texel_direction(t.face, t.row, t.col, t.size);
            omega = cube_texel_solid_angle(t.row, t.col, t.size);
        } else {
            std::copy(bright, bright + 3, env.equirect.at(t.row, t.col));
            d = equirect_texel_direction(t.row, t.col, env.equirect.width, env.equirect.height);
            omega = equirect_row_solid_angle(t.row, env.equirect.width, env.equirect.height);
        }
        ShCoefficients expected(5);
        double y[kMaxShCount];
        eval_sh_basis(5, d, y);
        for (int k = 0; k < 25; ++k)
            for (int ch = 0; ch < 3; ++ch) expected.rgb[static_cast<size_t>(k)][ch] = y[k] * omega * bright[ch];
        const Projection p = gpu->projector->project(env, 5);
        CHECK(compare_sh(p.radiance, expected).max_rel_diff <= 1e-5);
    }
}

TEST_CASE("GPU projection: solid angles sum to 4 pi", "[gpu]") {
    auto gpu = open_gpu();
    if (!gpu) return;
    for (int n : {1, 2, 5, 128, 257}) {
        const Projection p = gpu->projector->project(constant_env(true, n, Rgb{1, 1, 1}), 3);
        CHECK(p.solid_angle_sum == Approx(4 * kPi).epsilon(1e-6));
    }
    for (int h : {1, 3, 100, 333}) {
        const Projection p = gpu->projector->project(constant_env(false, h, Rgb{1, 1, 1}), 3);
        CHECK(p.solid_angle_sum == Approx(4 * kPi).epsilon(1e-6));
    }
}

TEST_CASE("GPU projection: deterministic - tiling and resident uploads do not change a bit", "[gpu]") {
    auto gpu = open_gpu();
    if (!gpu) return;
    for (bool cube : {true, false}) {
        const Environment env = cube ? random_cube(97, 11) : random_equirect(300, 150, 11);
        const Projection a = gpu->projector->project(env, 5);
        const Projection b = gpu->projector->project(env, 5);
        gpu->projector->set_max_tile_texels(3 * 4096);  // several uploads and dispatches
        const Projection tiled = gpu->projector->project(env, 5);
        gpu->projector->set_max_tile_texels(0);
        for (int k = 0; k < 25; ++k)
            for (int ch = 0; ch < 3; ++ch) {
                CHECK(a.radiance.rgb[static_cast<size_t>(k)][ch] == b.radiance.rgb[static_cast<size_t>(k)][ch]);
                CHECK(a.radiance.rgb[static_cast<size_t>(k)][ch] == tiled.radiance.rgb[static_cast<size_t>(k)][ch]);
            }
        CHECK(a.solid_angle_sum == tiled.solid_angle_sum);
        // One upload, several orders: the same bits as project().
        gpu->projector->upload(env);
        const Projection resident5 = gpu->projector->project_resident(5);
        const Projection resident3 = gpu->projector->project_resident(3);
        const Projection direct3 = gpu->projector->project(env, 3);
        for (int k = 0; k < 25; ++k) CHECK(resident5.radiance.rgb[static_cast<size_t>(k)] == a.radiance.rgb[static_cast<size_t>(k)]);
        for (int k = 0; k < 9; ++k) CHECK(resident3.radiance.rgb[static_cast<size_t>(k)] == direct3.radiance.rgb[static_cast<size_t>(k)]);
    }
}

TEST_CASE("GPU projection: every tuning variant agrees with the CPU path and tiles change no bit", "[gpu]") {
    auto gpu = open_gpu();
    if (!gpu) return;
    const GpuTuning defaults = gpu->projector->tuning();
    using U = GpuTuning::Upload;
    std::vector<GpuTuning> variants;
    for (bool sym : {true, false})
        for (unsigned wg : {64u, 256u})
            for (unsigned tasks : {1u, 3u})
                for (U up : {U::BufferData, U::Storage, U::Staging}) {
                    GpuTuning t = defaults;
                    t.cube_symmetry = sym;
                    t.group_size = wg;
                    t.tasks_per_thread = tasks;
                    t.cube_quads_per_thread = tasks;
                    t.equirect_quads_per_thread = tasks;
                    t.reduce_seq = tasks == 1 ? 1 : 8;
                    t.sym_positions = tasks == 1 ? 4 : 2;
                    t.reduce_group_size = wg == 64 ? 32 : 256;
                    t.coeff_split = wg == 256 ? 2 : 1;
                    t.upload = up;
                    variants.push_back(t);
                }
    for (const GpuTuning& t : variants) {
        INFO(t.describe());
        gpu->projector->set_tuning(t);
        for (int n : {8, 40, 57}) check_against_cpu(*gpu->projector, random_cube(n, 3), 5);
        check_against_cpu(*gpu->projector, random_equirect(90, 45, 3), 3);
        // Tiles of one work group each: the same bits as one tile.
        const Environment env = random_cube(160, 8);  // several work groups in every variant
        const Projection whole = gpu->projector->project(env, 5);
        gpu->projector->set_max_tile_texels(1);
        const Projection tiled = gpu->projector->project(env, 5);
        gpu->projector->set_max_tile_texels(0);
        CHECK(gpu->projector->last_timings().reduce_passes >= 1);
        for (int k = 0; k < 25; ++k) CHECK(whole.radiance.rgb[static_cast<size_t>(k)] == tiled.radiance.rgb[static_cast<size_t>(k)]);
        CHECK(whole.solid_angle_sum == tiled.solid_angle_sum);
    }
    gpu->projector->set_tuning(defaults);
    GpuTuning bad = defaults;
    bad.group_size = 100;
    CHECK_THROWS_AS(gpu->projector->set_tuning(bad), GpuError);
}

TEST_CASE("GPU irradiance maps match the CPU render", "[gpu]") {
    auto gpu = open_gpu();
    if (!gpu) return;
    for (int order : {3, 5}) {
        const ShCoefficients e = irradiance_from_radiance(project_sh_cpu(random_equirect(64, 32, 21), order).radiance);
        for (int n : {1, 5, 32}) {
            INFO("cube " << n << ", order " << order);
            const CubeMap g = gpu->projector->render_irradiance_cube(e, n);
            const CubeMap c = render_irradiance_cube(e, n);
            for (int f = 0; f < 6; ++f) {
                const ImageDifference d = compare_images(g.faces[static_cast<size_t>(f)], c.faces[static_cast<size_t>(f)]);
                CHECK(d.max_abs_diff <= 1e-5 * d.max_abs_reference);
            }
            gpu->projector->set_max_tile_texels(100);  // tiled output path
            const CubeMap tiled = gpu->projector->render_irradiance_cube(e, n);
            gpu->projector->set_max_tile_texels(0);
            for (int f = 0; f < 6; ++f) CHECK(tiled.faces[static_cast<size_t>(f)].rgb == g.faces[static_cast<size_t>(f)].rgb);
        }
        for (auto wh : {std::pair<int, int>{2, 1}, {8, 4}, {128, 64}, {99, 50}}) {
            INFO("equirect " << wh.first << "x" << wh.second << ", order " << order);
            const Image g = gpu->projector->render_irradiance_equirect(e, wh.first, wh.second);
            const Image c = render_irradiance_equirect(e, wh.first, wh.second);
            const ImageDifference d = compare_images(g, c);
            CHECK(d.max_abs_diff <= 1e-5 * d.max_abs_reference);
        }
    }
}

TEST_CASE("GPU projection: 6 x 1024^2 cube - orders 3 and 5 within 1e-5 and the error bound", "[gpu][large]") {
    auto gpu = open_gpu();
    if (!gpu) return;
    const Environment env = random_cube(1024, 99);
    for (int order : {3, 5}) {
        const auto start = std::chrono::steady_clock::now();
        const Check r = check_against_cpu(*gpu->projector, env, order);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const GpuTimings& t = gpu->projector->last_timings();
        // One line per order for the record (renderer, error, bound ratio, GPU stage times).
        std::printf("6x1024^2 order %d on %s: max rel diff %.3e, max |diff|/bound %.3f, depth %d; "
                    "upload %.2f ms, project %.2f ms, reduce %.3f ms in %d passes; test %.1f s\n",
                    order, gpu->context->info().renderer.c_str(), r.max_rel, r.max_bound_ratio,
                    GpuProjector::summation_depth(env.texel_count(), env.is_cube()), t.upload_ms, t.project_ms, t.reduce_ms,
                    t.reduce_passes, seconds);
        CHECK(t.reduce_passes == 1);  // default tuning: 256 partials -> 1
        CHECK(t.project_ms > 0);
    }
}

TEST_CASE("GPU projection: the three real maps against their independent references", "[gpu][data]") {
    auto gpu = open_gpu();
    if (!gpu) return;
    for (const char* name : {"pmndrs_sky", "pmndrs_warehouse", "pmndrs_esplanade"}) {
        INFO(name);
        const Environment env = load_environment(std::string(BAKE_TEST_DATA_DIR) + "/" + name + ".exr");
        std::ifstream in(std::string(BAKE_TEST_DATA_DIR) + "/reference/" + name + ".negatives-keep.json");
        REQUIRE(in);
        const nlohmann::json ref = nlohmann::json::parse(in);
        for (int order : {3, 5}) {
            ShCoefficients expected(order);
            for (int k = 0; k < sh_count(order); ++k)
                for (int ch = 0; ch < 3; ++ch)
                    expected.rgb[static_cast<size_t>(k)][ch] = ref["sh_radiance"][static_cast<size_t>(k)][static_cast<size_t>(ch)].get<double>();
            const Projection p = gpu->projector->project(env, order);
            const ShComparison cmp = compare_sh(p.radiance, expected);
            INFO("order " << order << ": max rel diff " << cmp.max_rel_diff);
            CHECK(cmp.max_rel_diff <= 1e-5);
        }
    }
}

TEST_CASE("GPU failures: forced faults give GpuError with a clear line", "[gpu][fault]") {
    auto gpu = open_gpu();
    if (!gpu) return;
    const Environment env = random_cube(4, 2);
    SECTION("shader compile failure carries the info log") {
        ::setenv("BAKE_TEST_FAULT", "shader-compile", 1);
        GpuProjector fresh(*gpu->context);  // nothing compiled yet
        try {
            fresh.project(env, 3);
            FAIL("no error");
        } catch (const GpuError& e) {
            const std::string what = e.what();
            CHECK(what.find("failed to compile") != std::string::npos);
            CHECK(what.find("BAKE_TEST_FAULT") != std::string::npos);  // the driver's log quotes #error
            CHECK(what.find('\n') == std::string::npos);
        }
        ::unsetenv("BAKE_TEST_FAULT");
    }
    SECTION("a GL error after a dispatch is caught") {
        ::setenv("BAKE_TEST_FAULT", "dispatch", 1);
        CHECK_THROWS_WITH(gpu->projector->project(env, 3), Catch::Contains("OpenGL error after the projection pass"));
        ::unsetenv("BAKE_TEST_FAULT");
        CHECK(compare_sh(gpu->projector->project(env, 3).radiance, project_sh_cpu(env, 3).radiance).max_rel_diff <= 1e-5);
    }
    SECTION("context creation failure") {
        ::setenv("BAKE_TEST_FAULT", "context", 1);
        CHECK_THROWS_AS(GlContext::create(GlBackend::Auto), GpuError);
        ::unsetenv("BAKE_TEST_FAULT");
    }
    SECTION("unsupported order") { CHECK_THROWS_AS(gpu->projector->project(env, 6), GpuError); }
}

TEST_CASE("GPU projection: packed RGBE and half texels give the bits of their float expansion", "[gpu][packed]") {
    auto gpu = open_gpu();
    if (!gpu) return;
    // Widths that leave partial quads and partial work groups; tiles of a few groups.
    const int sizes[][2] = {{2, 1}, {6, 3}, {302, 151}, {1000, 500}};
    for (TexelEncoding encoding : {TexelEncoding::Rgbe8, TexelEncoding::Half})
        for (const auto& size : sizes)
            for (std::size_t tile : {std::size_t{0}, std::size_t{3 * 4096}}) {
                CAPTURE(encoding_name(encoding), size[0], size[1], tile);
                const Environment packed = bake::test::random_packed_equirect(size[0], size[1], encoding, 7u + static_cast<unsigned>(size[0]));
                Environment expanded = packed;
                expand_packed_texels(expanded);
                REQUIRE(packed.is_packed());
                REQUIRE_FALSE(expanded.is_packed());
                REQUIRE(expanded.equirect.pixel_count() == packed.texel_count());
                gpu->projector->set_max_tile_texels(tile);
                for (int order : {3, 5}) {
                    const Projection a = gpu->projector->project(packed, order);
                    const Projection b = gpu->projector->project(expanded, order);
                    // Into upload buffers made ahead by prepare(), for this size and for another.
                    GpuProjector::InputShape shape;
                    shape.encoding = encoding;
                    shape.texel_count = packed.texel_count();
                    gpu->projector->prepare(order, shape, std::nullopt);
                    const Projection c = gpu->projector->project(packed, order);
                    shape.texel_count += 4099;
                    gpu->projector->prepare(order, shape, std::nullopt);
                    const Projection d = gpu->projector->project(packed, order);
                    for (int k = 0; k < sh_count(order); ++k)
                        for (int ch = 0; ch < 3; ++ch) {
                            CHECK(a.radiance.rgb[static_cast<size_t>(k)][ch] == b.radiance.rgb[static_cast<size_t>(k)][ch]);
                            CHECK(c.radiance.rgb[static_cast<size_t>(k)][ch] == b.radiance.rgb[static_cast<size_t>(k)][ch]);
                            CHECK(d.radiance.rgb[static_cast<size_t>(k)][ch] == b.radiance.rgb[static_cast<size_t>(k)][ch]);
                        }
                    CHECK(a.solid_angle_sum == b.solid_angle_sum);
                    CHECK(c.solid_angle_sum == b.solid_angle_sum);
                }
                gpu->projector->set_max_tile_texels(0);
                // And the expansion against the double CPU path, within the float bound.
                if (size[0] == 302) check_against_cpu(*gpu->projector, expanded, 5);
            }
}

TEST_CASE("GPU projection: a real half EXR loaded packed matches the CPU path on its float decoding", "[gpu][packed][data]") {
    auto gpu = open_gpu();
    if (!gpu) return;
    LoadOptions packed_load;
    packed_load.packed = true;
    for (const char* name : {"pmndrs_sky.exr", "pmndrs_warehouse.exr"}) {
        CAPTURE(name);
        const std::string path = std::string(BAKE_TEST_DATA_DIR) + "/" + name;
        const Environment packed = load_environment(path, packed_load);
        REQUIRE(packed.is_packed());
        CHECK(packed.packed.encoding == TexelEncoding::Half);
        const Environment floats = load_environment(path);  // OpenEXR's own half -> float
        REQUIRE_FALSE(floats.is_packed());
        const Projection a = gpu->projector->project(packed, 5);
        const Projection b = gpu->projector->project(floats, 5);
        for (int k = 0; k < 25; ++k) CHECK(a.radiance.rgb[static_cast<size_t>(k)] == b.radiance.rgb[static_cast<size_t>(k)]);
        check_against_cpu(*gpu->projector, floats, 5);
    }
}

// Environment::identity lets a second upload of the same texels be skipped (the specular source
// after the projection); other texels, or texels of no identity, are always sent.
TEST_CASE("GPU projection: texels of the resident identity are not sent again, any other are", "[gpu]") {
    auto gpu = open_gpu();
    if (!gpu) return;
    GpuProjector& p = *gpu->projector;
    Environment a = random_equirect(130, 65, 5);
    a.identity = next_environment_identity();
    const Projection first = p.project(a, 3);
    const Projection again = p.project(a, 3);
    CHECK(p.last_timings().upload_ms == 0);
    for (int k = 0; k < sh_count(3); ++k) CHECK(again.radiance.rgb[static_cast<size_t>(k)] == first.radiance.rgb[static_cast<size_t>(k)]);
    // Another identity, or none (0), with other texels: sent, and projected as the CPU does.
    Environment b = random_equirect(130, 65, 6);
    b.identity = next_environment_identity();
    CHECK(b.identity != a.identity);
    check_against_cpu(p, b, 3);
    Environment c = random_equirect(130, 65, 7);
    check_against_cpu(p, c, 3);
    check_against_cpu(p, c, 3);
}
