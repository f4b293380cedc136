// The exact irradiance and the SH error report on the GPU against the double CPU path.
#include <catch2/catch.hpp>

#include "environment_loader.h"
#include "exact_irradiance.h"
#include "gl_objects.h"
#include "gpu_exact_irradiance.h"
#include "gpu_irradiance_cells.h"
#include "packed_image.h"
#include "equirect.h"
#include "gpu_test_support.h"
#include "projection.h"
#include "sh_error.h"
#include "test_support.h"

using namespace bake;
using namespace bake::test;

namespace {

double max_diff(const std::vector<Rgb>& a, const std::vector<Rgb>& b) {
    double m = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        for (int c = 0; c < 3; ++c) m = std::max(m, std::fabs(a[i][c] - b[i][c]));
    return m;
}

}  // namespace

TEST_CASE("GPU exact irradiance matches the double CPU path within 1e-5 of the map's max", "[gpu][exact]") {
    auto gpu = open_gpu();
    if (!gpu) return;
    GpuExactIrradiance exact(gpu->projector->programs());
    // The real maps (every texel a cell, negative texels kept), a cube, and a grouped source
    // with a bright sun: the float sums stay within the stated bound, ~1e-6 of the map's max.
    std::vector<std::pair<std::string, IrradianceCells>> cases;
    for (const char* name : {"pmndrs_sky", "pmndrs_esplanade"}) {
        const Environment env = load_environment(std::string(BAKE_TEST_DATA_DIR) + "/" + name + ".exr");
        cases.emplace_back(name, build_irradiance_cells(env, 2));
    }
    cases.emplace_back("random cube", build_irradiance_cells(make_random_cube_env(24, 9, -0.2f, 3.0f), 1));
    Environment sun = make_equirect_env(256, 128, smooth_radiance);
    sun.equirect.at(40, 77)[0] = 2e5f;
    cases.emplace_back("sun", build_irradiance_cells(sun, 3));
    for (const auto& [name, cells] : cases) {
        INFO(name << ": " << cells.describe());
        exact.upload(cells);
        for (const std::vector<Vec3>& dirs : {cube_map_directions(7), equirect_map_directions(20, 10)}) {
            const std::vector<Rgb> g = exact.evaluate(dirs), c = exact_irradiance_at(cells, dirs);
            REQUIRE(g.size() == dirs.size());
            const double rel = max_diff(g, c) / max_abs(c);
            INFO("max |GPU - CPU| / max |E| = " << rel);
            CHECK(rel <= 1e-5);
        }
    }
}

TEST_CASE("GPU SH error report matches the CPU's within 1e-6", "[gpu][exact][sh-error]") {
    auto gpu = open_gpu();
    if (!gpu) return;
    GpuExactIrradiance exact(gpu->projector->programs());
    const Environment env = load_environment(std::string(BAKE_TEST_DATA_DIR) + "/pmndrs_warehouse.exr");
    const IrradianceCells cells = build_irradiance_cells(env, irradiance_cell_block(env, kShErrorCellRows));
    const ShCoefficients e5 = irradiance_from_radiance(project_sh_cpu(env, 5).radiance);
    const std::vector<Vec3> dirs = cube_map_directions(kShErrorGridSize);
    exact.upload(cells);
    const ShErrorReport g = make_sh_error_report(e5, cells, exact.evaluate(dirs));
    const ShErrorReport c = make_sh_error_report(e5, cells, exact_irradiance_at(cells, dirs));
    for (const auto& [a, b] : {std::pair{g.order3, c.order3}, {g.order5, c.order5}})
        for (int ch = 0; ch < 3; ++ch) {
            CHECK(a.mean_relative[ch] == Approx(b.mean_relative[ch]).margin(1e-6));
            CHECK(a.max_relative[ch] == Approx(b.max_relative[ch]).margin(1e-6));
            CHECK(a.negative_fraction[ch] == b.negative_fraction[ch]);
        }
    CHECK(c.order3.worst_mean() > 0.01);  // a real map: the report measures something
}

TEST_CASE("GPU irradiance cells match the double CPU cells within their float bound", "[gpu][exact]") {
    auto gpu = open_gpu();
    if (!gpu) return;
    GpuIrradianceCells gpu_cells(*gpu->projector);
    // Every encoding the projection uploads (RGBE, half with negative texels, float with a sun),
    // blocks with partial edge cells, and the upload cut into tiles (cells across tiles).
    std::vector<std::pair<std::string, Environment>> inputs;
    inputs.emplace_back("rgbe", random_packed_equirect(203, 101, TexelEncoding::Rgbe8, 4));
    inputs.emplace_back("half", random_packed_equirect(130, 65, TexelEncoding::Half, 6));
    Environment sun = make_equirect_env(160, 80, smooth_radiance);
    sun.equirect.at(21, 50)[1] = 3e4f;
    sun.equirect.at(70, 3)[2] = -5.0f;
    inputs.emplace_back("float", std::move(sun));
    for (const auto& [name, env] : inputs)
        for (std::size_t tile : {std::size_t{0}, std::size_t{4096}}) {
            gpu->projector->set_max_tile_texels(tile);
            gpu->projector->upload(env);
            for (int block : {1, 7, 16, 64}) {
                INFO(name << " block " << block << " tile cap " << tile);
                const std::optional<IrradianceCells> g = gpu_cells.build(env, block);
                REQUIRE(g.has_value());
                const IrradianceCells c = build_irradiance_cells(env, block);
                CHECK(g->describe() == c.describe());
                CHECK(g->max_diameter == c.max_diameter);
                // Each moment within 16 2^-24 of its terms' magnitudes (Kahan's 2, the float
                // geometry's few, a tile's addition), which are at most |L| Omega over the cell.
                std::vector<double> mass(c.count() * 3, 0.0);
                const int b = c.block;
                for (int r = 0; r < env.height(); ++r)
                    for (int col = 0; col < env.width(); ++col) {
                        float px[3];
                        if (env.is_packed()) {
                            expand_packed_texel(env.packed, static_cast<std::size_t>(r) * env.width() + col, px);
                        } else {
                            std::copy_n(env.equirect.at(r, col), 3, px);
                        }
                        const std::size_t cell = static_cast<std::size_t>(r / b) * c.columns + col / b;
                        for (int ch = 0; ch < 3; ++ch)
                            mass[3 * cell + ch] += std::fabs(px[ch]) * equirect_row_solid_angle(r, env.width(), env.height());
                    }
                const double factor = 16 * std::ldexp(1.0, -24);
                int worse = 0;
                for (std::size_t i = 0; i < c.count(); ++i)
                    for (int v = 0; v < IrradianceCells::kValuesPerCell; ++v) {
                        const std::size_t k = i * IrradianceCells::kValuesPerCell + v;
                        worse += std::fabs(g->moments[k] - c.moments[k]) > factor * mass[3 * i + v / 6] + 1e-30;
                    }
                CHECK(worse == 0);
            }
        }
    gpu->projector->set_max_tile_texels(0);
    // A cube is not the GPU's to group: the CPU builds those.
    const Environment cube = make_random_cube_env(8, 2);
    gpu->projector->upload(cube);
    CHECK_FALSE(gpu_cells.build(cube, 2).has_value());
}
