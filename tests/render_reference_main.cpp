// bake_render_reference DIR BAKE_IRRADIANCE [MAP]: the CPU side of the three.js render test (issue 21,
// "a real engine renders it"; ctest: engine_render).
//
// 1. Runs the CLI on MAP (default: the bundled sample sky), writing what an engine loads: the GGX chain and
//    the DFG table as KTX2 (rgba32f, and again as rgba16f) and the three.js LightProbe JSON; and, from a second
//    run with the same settings, the chain as EXR and the coefficients as JSON (our own files, read
//    back here with our own readers); and the chain as a BC6H DDS (three.js's KTX2Loader 0.187 maps no
//    BC6H vkFormat; its DDSLoader reads BC6H_UF16); and with --extract-sun, the LightProbe of what
//    remains and the sun as a three.js DirectionalLight (--sun-format threejs).
// 2. Shades a grid of spheres with the preview's shading (preview_diffuse, preview_specular in
//    src/core/outputs/preview_image.h): columns = a white Lambertian sphere, then white metals
//    (F0 = 1) of perceptual roughness 0, 1/3, 2/3, 1; rows = seen from +Z, then from -Z
//    (orthographic, +Y up, right = (-v) x Y, as the preview draws its spheres).
// 3. Writes DIR/scene.json (the layout, for tests/js/render/render.mjs to build the same scene in
//    three.js) and DIR/expected.f32: width x height x 4 little-endian floats, rows top to bottom,
//    RGB linear radiance and A = 1 where a sphere covers the pixel centre, 0 elsewhere (RGB 0); and
//    DIR/expected_bc6h.f32, the same grid shaded from the chain through our BC6H encoder and decoder
//    (the CLI's CPU path writes those blocks from the same floats), so that three.js's render of the
//    DDS is judged on its reading of our blocks, not on what BC6H loses; DIR/expected_sun.f32, every
//    sphere white Lambertian lit by the residual's SH and the sun as a light (E⊥ max(0, n·s) / π, from
//    the JSON's "sun"), and DIR/truth_diffuse.f32, the same spheres under the exact irradiance of the
//    whole map (exact_irradiance.h), which neither SH nor SH + light is.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "atomic_file.h"
#include "bc6h.h"
#include "coefficients_json.h"
#include "dfg.h"
#include "environment_loader.h"
#include "exact_irradiance.h"
#include "preview_image.h"
#include "specular_io.h"
#include "sphere_grid.h"

using namespace bake;
using nlohmann::json;

namespace {

constexpr int kCell = 96;          // pixels per sphere cell (the sphere's diameter)
constexpr int kSpecularSize = 64;  // the chain's level 0: 64, 32, ..., 1 (7 levels)
constexpr int kDfgSize = 32;       // the preview's table size
constexpr double kPi = 3.14159265358979323846;

void run(const std::string& cmd) {
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("command failed: " + cmd);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3 && argc != 4) {
        std::fprintf(stderr, "usage: bake_render_reference DIR BAKE_IRRADIANCE [MAP]\n");
        return 2;
    }
    const std::string dir = argv[1], cli = argv[2];
    try {
        const std::string sky = argc == 4 ? argv[3] : std::string(BAKE_ASSETS_DIR) + "/sample_sky.hdr";
        const std::string common = "'" + cli + "' '" + sky + "' --device cpu -q --warn-error 1e300 --specular-size " +
                                   std::to_string(kSpecularSize);
        // What three.js loads: exactly the commands a user runs. rgba32f is gated strictly against the
        // mean pixel; rgba16f (the default) is measured too: its rounding of a mirrored sun thousands
        // of times the mean is more than 5% of the mean by itself.
        for (const char* format : {"rgba32f", "rgba16f"})
            run(common + " --specular '" + dir + "/spec_" + format + ".ktx2' --ktx-format " + format + " --dfg '" + dir +
                "/dfg_" + format + ".ktx2' --dfg-size " + std::to_string(kDfgSize) + " --sh-format threejs '" + dir + "/probe.json'");
        run(common + " --specular '" + dir + "/spec_bc6h.dds' --texture-format bc6h");
        run("'" + cli + "' '" + sky + "' --device cpu -q --warn-error 1e300 --extract-sun -o '" + dir + "/irr_sun.json' --sh-format threejs '" + dir + "/probe_sun.json' --sun-format threejs '" +
            dir + "/threejs_sun.json'");
        // What we shade with: the same bake as EXR and JSON.
        run(common + " --specular '" + dir + "/spec.exr' -o '" + dir + "/irr.json'");

        const std::vector<CubeMap> chain = read_specular_exr(dir + "/spec.exr");
        const ShCoefficients irradiance = read_coefficients_json(dir + "/irr.json").irradiance;
        const Image dfg = compute_dfg_table(kDfgSize, 1);

        struct Sphere {
            const char* material;
            double roughness;
        };
        const std::vector<Sphere> spheres = {{"diffuse", 0}, {"metal", 0}, {"metal", 1 / 3.0}, {"metal", 2 / 3.0}, {"metal", 1}};
        const std::vector<Vec3> views = {{0, 0, 1}, {0, 0, -1}};
        const int cols = static_cast<int>(spheres.size()), rows = static_cast<int>(views.size());
        const int width = cols * kCell, height = rows * kCell;
        const auto shade = [&](const std::vector<CubeMap>& specular) {
            return render_sphere_grid(cols, views, kCell, [&](int col, const Vec3& n, const Vec3& v) {
                const Sphere& s = spheres[static_cast<std::size_t>(col)];
                return std::string(s.material) == "diffuse" ? preview_diffuse(irradiance, n) : preview_specular(specular, dfg, s.roughness, n, v);
            });
        };
        std::vector<CubeMap> bc6h_chain = chain;
        for (CubeMap& level : bc6h_chain)
            for (Image& face : level.faces)
                face = bc6h_decode_image(bc6h_encode_images({&face}, Bc6hQuality::Default).data(), face.width, face.height);
        const auto write_f32 = [&](const std::string& name, const std::vector<float>& image) {
            std::ofstream out(dir + "/" + name, std::ios::binary);
            out.write(reinterpret_cast<const char*>(image.data()), static_cast<std::streamsize>(image.size() * sizeof(float)));
            if (!out) throw std::runtime_error(dir + "/" + name + ": cannot write");
        };
        write_f32("expected.f32", shade(chain));
        write_f32("expected_bc6h.f32", shade(bc6h_chain));

        // The sun as a light: the residual's SH and the sun's E⊥ at its direction; the truth from the
        // whole map's texels (cells of 1/64 of its height: a sun is a few texels of one cell).
        const ShCoefficients residual = read_coefficients_json(dir + "/irr_sun.json").irradiance;
        const SunLight sun = read_sun_light(dir + "/irr_sun.json");
        write_f32("expected_sun.f32", render_sphere_grid(cols, views, kCell, [&](int, const Vec3& n, const Vec3&) {
                      Rgb out = preview_diffuse(residual, n);
                      const Rgb light = sun.lambert(n);
                      for (int c = 0; c < 3; ++c) out[c] += light[c];
                      return out;
                  }));
        const Environment env = load_environment(sky);
        const IrradianceCells cells = build_irradiance_cells(env, irradiance_cell_block(env, 64));
        write_f32("truth_diffuse.f32", render_sphere_grid(cols, views, kCell, [&](int, const Vec3& n, const Vec3&) {
                      Rgb e = exact_irradiance(cells, n);
                      for (double& v : e) v /= kPi;
                      return e;
                  }));
        write_f32("sh_diffuse.f32", render_sphere_grid(cols, views, kCell, [&](int, const Vec3& n, const Vec3&) { return preview_diffuse(irradiance, n); }));
        json scene;
        scene["width"] = width;
        scene["height"] = height;
        scene["cell"] = kCell;
        scene["levels"] = chain.size();
        scene["specular_size"] = kSpecularSize;
        scene["dfg_size"] = kDfgSize;
        scene["files"] = {{"specular", "spec_rgba32f.ktx2"}, {"dfg", "dfg_rgba32f.ktx2"},
                          {"specular_rgba16f", "spec_rgba16f.ktx2"}, {"dfg_rgba16f", "dfg_rgba16f.ktx2"},
                          {"specular_bc6h_dds", "spec_bc6h.dds"}, {"probe", "probe.json"}, {"expected", "expected.f32"},
                          {"expected_bc6h", "expected_bc6h.f32"}, {"probe_sun", "probe_sun.json"},
                          {"sun_light", "threejs_sun.json"}, {"expected_sun", "expected_sun.f32"},
                          {"truth_diffuse", "truth_diffuse.f32"}, {"sh_diffuse", "sh_diffuse.f32"}};
        scene["views"] = json::array();
        for (const Vec3& v : views) scene["views"].push_back({v.x, v.y, v.z});
        scene["spheres"] = json::array();
        for (const Sphere& s : spheres) scene["spheres"].push_back({{"material", s.material}, {"roughness", s.roughness}});
        write_text_atomically(dir + "/scene.json", scene.dump(1));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bake_render_reference: %s\n", e.what());
        return 1;
    }
    return 0;
}
