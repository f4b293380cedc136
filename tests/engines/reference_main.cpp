// bake_engine_reference DIR BAKE_IRRADIANCE [MAP]: the CPU side of the engine render tests for Babylon.js
// and Filament (docs/engines-rendered.md). What the engines must show, shaded by our own code.
//
// 1. MAP, or (without one) DIR/asym.exr, an asymmetric test map written here: a sky with a red patch
//    around +X+Z and a green one around -Y, so that an engine that mirrors or turns the environment
//    shows it in the wrong place.
// 2. Runs the CLI, writing exactly what a user loads: --gltf ibl.glb (Babylon.js), --sh-format filament
//    sh.txt and --specular spec.exr (Filament), and -o irr.json (our coefficients); then --gltf ibl.gltf
//    (its PNGs beside it) and --specular spec.ktx2 from the same settings.
// 3. Decodes the glTF's RGBD PNGs (our own decode, rgbd.h) back to a chain in our convention, and checks
//    that its level 0 is the EXR's level 0 within RGBD's bound: the file holds our environment, laid out
//    as gltf_ibl.h says (that layout is what the engine render then checks).
// 4. Shades a grid of spheres seen from +Z and -Z (columns: a white Lambertian sphere, then white metals,
//    F0 = 1, of perceptual roughness 0, 1/3, 2/3, 1), in our world (right-handed, +Y up: glTF's):
//    diffuse E(n)/pi from irr.json; metals the chain read at the mirror direction at level roughness x
//    (levels - 1), bilinear in a face and linear between levels. The metals carry no DFG factor: with
//    F0 = 1 the split sum's (A + B) and the multiple-scattering compensation 1 + F0 (1/(A + B) - 1)
//    multiply to 1, as Babylon.js's PBR, three.js's MeshStandardMaterial and Filament compute them.
//    expected_gltf.f32 (Babylon.js) from the glTF's own decoded chain (what RGBD holds);
//    expected_split_sum.f32 (three.js's standard path) from spec.exr, and expected_split_sum_mirror_x.f32
//    the same of the environment mirrored in x; expected_filament*.f32 in Filament's shading model
//    (filament_pixel below); expected_filament_sun.f32: the sample sky baked with --extract-sun (the
//    residual's chain and SH, --sun-format filament), every sphere Filament's white dielectric, plus the sun.
// 5. Writes DIR/scene.json (the layout and the files, for the engine side) and the .f32 images:
//    width x height x 4 little-endian floats, rows top to bottom, RGB linear radiance, A = 1 where a
//    sphere covers the pixel centre.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "atomic_file.h"
#include "coefficients_json.h"
#include "dfg.h"
#include "ibl_ktx2.h"
#include "image_io.h"
#include "png_reader.h"
#include "preview_image.h"
#include "rgbd.h"
#include "specular_io.h"
#include "specular_prefilter.h"
#include "sphere_grid.h"

using namespace bake;
using nlohmann::json;

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr int kCell = 96;          // pixels per sphere cell (the sphere's diameter)
constexpr int kSpecularSize = 64;  // the chains' level 0

void run(const std::string& cmd) {
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("command failed: " + cmd);
}

std::vector<char> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot read");
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

double smooth_patch(const Vec3& d, const Vec3& centre, double radius_deg) {
    const double c = d.x * centre.x + d.y * centre.y + d.z * centre.z;
    const double angle = std::acos(std::clamp(c, -1.0, 1.0)) * 180.0 / kPi;
    const double t = std::clamp((radius_deg - angle) / 8.0, 0.0, 1.0);  // 8-degree soft edge
    return t * t * (3 - 2 * t);
}

// The asymmetric test map, 256 x 128 lat-long (docs/CONVENTION.md's mapping): a blue sky brighter at the
// horizon, a grey-brown ground, a red patch (up to 6) around normalize(1, 0.3, 1) and a green one (up to
// 3) around -Y. Everything within RGBD's range (<= 255).
Image asymmetric_map() {
    const int w = 256, h = 128;
    Image img(w, h);
    const double s = 1 / std::sqrt(2.09);
    const Vec3 red{s, 0.3 * s, s}, down{0, -1, 0};
    for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j) {
            const double theta = kPi * (i + 0.5) / h, phi = 2 * kPi * (j + 0.5) / w - kPi;
            const Vec3 d{std::sin(theta) * std::cos(phi), std::cos(theta), std::sin(theta) * std::sin(phi)};
            double rgb[3];
            if (d.y >= 0) {
                const double k = 0.6 + 0.6 * (1 - d.y);
                rgb[0] = 0.25 * k, rgb[1] = 0.45 * k, rgb[2] = 0.9 * k;
            } else {
                rgb[0] = 0.3, rgb[1] = 0.25, rgb[2] = 0.2;
            }
            const double r = smooth_patch(d, red, 25), g = smooth_patch(d, down, 30);
            rgb[0] += r * 6.0;
            rgb[1] += r * 0.4 + g * 3.0;
            rgb[2] += r * 0.3 + g * 0.4;
            for (int c = 0; c < 3; ++c) img.at(i, j)[c] = static_cast<float>(rgb[c]);
        }
    return img;
}

// The glTF IBL's chain, decoded back into our convention: the .glb's JSON and BIN chunks (glTF 2.0
// section 4.4), each face's PNG decoded by stb_image and RGBD-decoded (rgbd.h), its rows put back
// in order (gltf_ibl.h writes the last row first) and the cube mirrored back in z.
std::vector<CubeMap> read_gltf_chain(const std::string& path) {
    const std::vector<char> b = read_file(path);
    auto u32 = [&](std::size_t at) {
        std::uint32_t v;
        if (at + 4 > b.size()) throw std::runtime_error(path + ": truncated");
        std::memcpy(&v, b.data() + at, 4);
        return v;
    };
    const std::uint32_t json_length = u32(12);
    const json doc = json::parse(std::string(b.data() + 20, json_length));
    const std::size_t bin = 20 + json_length + 8;
    const json& light = doc.at("extensions").at("EXT_lights_image_based").at("lights").at(0);
    std::vector<CubeMap> chain;
    for (const json& level : light.at("specularImages")) {
        CubeMap cube;
        for (int f = 0; f < 6; ++f) {
            const json& view = doc.at("bufferViews").at(doc.at("images").at(level.at(f).get<int>()).at("bufferView").get<int>());
            const std::size_t offset = bin + view.at("byteOffset").get<std::size_t>();
            const std::size_t length = view.at("byteLength").get<std::size_t>();
            const auto png = test::read_png_memory(reinterpret_cast<const std::uint8_t*>(b.data()) + offset, length);
            if (!png || png->channels != 4 || png->width != png->height) throw std::runtime_error(path + ": a face is not an RGBA square PNG");
            const int n = png->width;
            if (f == 0) cube = CubeMap(n);
            for (int r = 0; r < n; ++r)
                for (int c = 0; c < n; ++c) {
                    std::uint8_t px[4];
                    for (int k = 0; k < 4; ++k) px[k] = static_cast<std::uint8_t>(png->at(n - 1 - r, c, k));
                    decode_rgbd(px, cube.faces[f].at(r, c));
                }
        }
        chain.push_back(mirror_cube_z(cube));  // the glTF layout holds the cube mirrored in z (gltf_ibl.h)
    }
    return chain;
}

// Level 0 of the glTF against level 0 of the EXR: every channel within RGBD's bound of its texel, but for
// the texels RGBD cannot hold (a channel above 255 or below 0: clipped, counted).
void check_same_level_zero(const CubeMap& gltf, const CubeMap& exr) {
    if (gltf.size != exr.size) throw std::runtime_error("the glTF's level 0 is not the EXR's size");
    double worst = 0;
    int clipped = 0;
    for (int f = 0; f < 6; ++f)
        for (std::size_t t = 0; t < exr.faces[f].pixel_count(); ++t) {
            const float* want = &exr.faces[f].rgb[3 * t];
            const float* got = &gltf.faces[f].rgb[3 * t];
            const double m = std::max({want[0], want[1], want[2]});
            if (m > 255 || std::min({want[0], want[1], want[2]}) < 0) {  // RGBD holds neither: 255, 0
                ++clipped;
                continue;
            }
            for (int c = 0; c < 3; ++c) worst = std::max(worst, std::fabs(got[c] - want[c]) / (rgbd_error_bound(m) * m + 1e-30));
        }
    std::printf("bake_engine_reference: the glTF's level 0 is the EXR's within %.3f of RGBD's bound (%d texels above 255 or below 0, clipped)\n",
                worst, clipped);
    if (!(worst <= 1.0)) throw std::runtime_error("the glTF's level 0 is not the EXR's: layout or decode differs");
}

void write_f32(const std::string& path, const std::vector<float>& image) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(image.data()), static_cast<std::streamsize>(image.size() * sizeof(float)));
    if (!out) throw std::runtime_error(path + ": cannot write");
}

struct Sphere {
    const char* material;
    double roughness;
};
const std::vector<Sphere> kSpheres = {{"diffuse", 0}, {"metal", 0}, {"metal", 1 / 3.0}, {"metal", 2 / 3.0}, {"metal", 1}};
const std::vector<Vec3> kViews = {{0, 0, 1}, {0, 0, -1}};

// The chain at direction d and perceptual roughness r: level r (levels - 1), bilinear in a face and
// linear between levels (the split sum's prefiltered radiance, exact where r is a level's roughness).
Rgb chain_at(const std::vector<CubeMap>& chain, double r, const Vec3& d) {
    const int levels = static_cast<int>(chain.size());
    const double level = r * (levels - 1);
    const int l0 = std::clamp(static_cast<int>(std::floor(level)), 0, levels - 1), l1 = std::min(levels - 1, l0 + 1);
    const double f = level - l0;
    double a[3], b[3];
    sample_cube_bilinear(chain[l0], d, a);
    sample_cube_bilinear(chain[l1], d, b);
    return {(1 - f) * a[0] + f * b[0], (1 - f) * a[1] + f * b[1], (1 - f) * a[2] + f * b[2]};
}

// Filament 1.9.25's IBL (evaluateIBL in its shaders) for our spheres, with our chain read at the level of
// the true roughness: what Filament should show. Perceptual roughness clamped to 0.045
// (MIN_PERCEPTUAL_ROUGHNESS, desktop), alpha = r^2; the cube read at its dominant direction
// mix(reflect(-v, n), n, alpha^2) (getSpecularDominantDirection). A white metal (f0 = 1): the DFG factor
// dfg.y = A + B and the energy compensation 1 / dfg.y multiply to 1, so the pixel is the prefiltered
// radiance. The white dielectric of reflectance 0 (f0 = 0) and roughness 1: the SH, clamped at 0
// (Irradiance_SphericalHarmonics), times 1 - E, plus E times the radiance, E = dfg.x = B of the split sum
// (our table, dfg.h, read bilinearly at (max(n.v, 1e-4), r) as Filament reads its own).
// filament_lod: read the chain where Filament reads it, at lod (levels - 1) r (2 - r)
// (perceptualRoughnessToLod), i.e. at roughness r (2 - r) of our chain: what Filament shows with our file.
Rgb filament_pixel(const std::vector<CubeMap>& chain, const ShCoefficients& irradiance, const Image& dfg, bool metal,
                   double roughness, const Vec3& n, const Vec3& v, bool filament_lod) {
    const double r = std::clamp(metal ? roughness : 1.0, 0.045, 1.0), alpha = r * r;
    const double nv = std::max(n.x * v.x + n.y * v.y + n.z * v.z, 1e-4);
    const Vec3 refl{2 * nv * n.x - v.x, 2 * nv * n.y - v.y, 2 * nv * n.z - v.z};
    const double k = alpha * alpha;
    const Vec3 d{refl.x + (n.x - refl.x) * k, refl.y + (n.y - refl.y) * k, refl.z + (n.z - refl.z) * k};
    const Rgb radiance = chain_at(chain, filament_lod ? r * (2 - r) : r, d);
    if (metal) return radiance;
    const double u = nv * dfg.width - 0.5, w = r * dfg.height - 0.5;
    const int c0 = std::clamp(static_cast<int>(std::floor(u)), 0, dfg.width - 1), r0 = std::clamp(static_cast<int>(std::floor(w)), 0, dfg.height - 1);
    const int c1 = std::min(c0 + 1, dfg.width - 1), r1 = std::min(r0 + 1, dfg.height - 1);
    const double fu = std::clamp(u - c0, 0.0, 1.0), fw = std::clamp(w - r0, 0.0, 1.0);
    const double b = (1 - fw) * ((1 - fu) * dfg.at(r0, c0)[1] + fu * dfg.at(r0, c1)[1]) + fw * ((1 - fu) * dfg.at(r1, c0)[1] + fu * dfg.at(r1, c1)[1]);
    const Rgb e = preview_diffuse(irradiance, n);
    return {std::max(e[0], 0.0) * (1 - b) + b * radiance[0], std::max(e[1], 0.0) * (1 - b) + b * radiance[1],
            std::max(e[2], 0.0) * (1 - b) + b * radiance[2]};
}

// The grid: row k seen along kViews[k] (orthographic, +Y up, right = (v.z, 0, -v.x)); `filament`: shaded as
// filament_pixel, else as Babylon.js's PBR with our settings (the prefiltered radiance at the mirror
// direction; E(n)/pi).
// SplitSum: the split sum with energy compensation, F0 = 1 (what Babylon.js's PBR computes with our
// settings, and three.js's MeshStandardMaterial with its multiple scattering); SplitSumMirrorX: the same of
// the environment mirrored in x (each lookup at (-x, y, z)), what a render in the wrong orientation shows.
enum class Shading { SplitSum, SplitSumMirrorX, FilamentTruth, FilamentLod };
std::vector<float> shade(const std::vector<CubeMap>& chain, const ShCoefficients& irradiance, Shading shading) {
    Image ones(1, 1);
    for (float& v : ones.rgb) v = 1.0f;  // the DFG factor, 1 for F0 = 1 with energy compensation
    static const Image dfg = compute_dfg_table(128);  // for Filament's dielectric: B at (n.v, r)
    const bool filament = shading == Shading::FilamentTruth || shading == Shading::FilamentLod;
    const double flip = shading == Shading::SplitSumMirrorX ? -1 : 1;
    return render_sphere_grid(static_cast<int>(kSpheres.size()), kViews, kCell, [&](int col, const Vec3& grid_n, const Vec3& v) {
        const Sphere& s = kSpheres[static_cast<std::size_t>(col)];
        const Vec3 n{flip * grid_n.x, grid_n.y, grid_n.z}, view{flip * v.x, v.y, v.z};
        const bool metal = std::string(s.material) == "metal";
        Rgb out = filament ? filament_pixel(chain, irradiance, dfg, metal, s.roughness, n, v, shading == Shading::FilamentLod)
                  : metal  ? preview_specular(chain, ones, s.roughness, n, view)
                           : preview_diffuse(irradiance, n);
        for (double& o : out) o = std::max(o, 0.0);  // no negative light: every engine clamps its output
        return out;
    });
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3 && argc != 4) {
        std::fprintf(stderr, "usage: bake_engine_reference DIR BAKE_IRRADIANCE [MAP]\n");
        return 2;
    }
    const std::string dir = argv[1], cli = argv[2];
    try {
        const std::string map = argc == 4 ? argv[3] : dir + "/asym.exr";
        if (argc == 3) write_exr(map, asymmetric_map(), EnvmapHint::LatLong);
        // The map again as our writer writes EXR, for cmgen (tests/filament), which reads fewer compressions.
        {
            LoadedImage source = load_image(map);
            if (source.is_packed()) throw std::runtime_error(map + ": packed texels: not a map this test takes");
            write_exr(dir + "/source.exr", source.image, EnvmapHint::LatLong);
        }
        run("'" + cli + "' '" + map + "' --device cpu -q --warn-error 1e300 --specular-size " + std::to_string(kSpecularSize) +
            " --gltf '" + dir + "/ibl.glb' --specular '" + dir + "/spec.exr' -o '" + dir + "/irr.json' --sh-format filament '" +
            dir + "/sh.txt'");
        // The same glTF as .gltf, its PNGs beside it (Babylon.js loads both), and the chain as KTX2 (rgba16f,
        // the default), which three.js's standard path loads.
        run("'" + cli + "' '" + map + "' --device cpu -q --warn-error 1e300 --specular-size " + std::to_string(kSpecularSize) +
            " --gltf '" + dir + "/ibl.gltf' --specular '" + dir + "/spec.ktx2'");
        const std::vector<CubeMap> exr = read_specular_exr(dir + "/spec.exr");
        const std::vector<CubeMap> gltf = read_gltf_chain(dir + "/ibl.glb");
        check_same_level_zero(gltf.at(0), exr.at(0));
        const ShCoefficients irradiance = read_coefficients_json(dir + "/irr.json").irradiance;
        write_f32(dir + "/expected_gltf.f32", shade(gltf, irradiance, Shading::SplitSum));
        write_f32(dir + "/expected_split_sum.f32", shade(exr, irradiance, Shading::SplitSum));
        write_f32(dir + "/expected_split_sum_mirror_x.f32", shade(exr, irradiance, Shading::SplitSumMirrorX));
        write_f32(dir + "/expected_filament.f32", shade(exr, irradiance, Shading::FilamentLod));
        write_f32(dir + "/expected_filament_truth.f32", shade(exr, irradiance, Shading::FilamentTruth));

        // The sun as Filament's light (Filament's render draws every sphere as the white dielectric then): the
        // sample sky, whose sun holds 76% of its light, baked with --extract-sun; our shading of it is the
        // residual's in Filament's model plus E⊥ max(0, n·s) / π (Filament's Lambert; reflectance 0 leaves
        // the sun no specular).
        const std::string sun_map = std::string(BAKE_ASSETS_DIR) + "/sample_sky.hdr";
        run("'" + cli + "' '" + sun_map + "' --device cpu -q --warn-error 1e300 --specular-size " + std::to_string(kSpecularSize) +
            " --extract-sun --specular '" + dir + "/spec_sun.exr' -o '" + dir + "/irr_sun.json' --sh-format filament '" + dir +
            "/sh_sun.txt' --sun-format filament '" + dir + "/filament_sun.json' --gltf '" + dir + "/ibl_sun.glb'");
        {
            const std::vector<CubeMap> residual_chain = read_specular_exr(dir + "/spec_sun.exr");
            const ShCoefficients residual = read_coefficients_json(dir + "/irr_sun.json").irradiance;
            const SunLight sun = read_sun_light(dir + "/irr_sun.json");
            const Image dfg = compute_dfg_table(128);
            write_f32(dir + "/expected_filament_sun.f32", render_sphere_grid(static_cast<int>(kSpheres.size()), kViews, kCell,
                                                                             [&](int, const Vec3& n, const Vec3& v) {
                Rgb out = filament_pixel(residual_chain, residual, dfg, false, 1.0, n, v, true);
                const Rgb light = sun.lambert(n);
                for (std::size_t c = 0; c < 3; ++c) out[c] += light[c];
                return out;
            }));
            // Babylon.js: the same sun from ibl_sun.glb (KHR_lights_punctual) over the residual's SH (the
            // extension's irradiance), every sphere its white diffuse: E_res(n)/π + E⊥ max(0, n·s)/π.
            write_f32(dir + "/expected_gltf_sun.f32", render_sphere_grid(static_cast<int>(kSpheres.size()), kViews, kCell,
                                                                         [&](int, const Vec3& n, const Vec3&) {
                Rgb out = preview_diffuse(residual, n);
                const Rgb light = sun.lambert(n);
                for (std::size_t c = 0; c < 3; ++c) out[c] = std::max(0.0, out[c]) + light[c];
                return out;
            }));
        }

        json scene;
        scene["width"] = static_cast<int>(kSpheres.size()) * kCell;
        scene["height"] = static_cast<int>(kViews.size()) * kCell;
        scene["cell"] = kCell;
        scene["map"] = map;
        scene["levels"] = {{"gltf", gltf.size()}, {"exr", exr.size()}};
        scene["specular_size"] = kSpecularSize;
        scene["files"] = {{"source", "source.exr"}, {"gltf", "ibl.glb"}, {"gltf_json", "ibl.gltf"}, {"specular_exr", "spec.exr"}, {"filament_sh", "sh.txt"},
                          {"expected_gltf", "expected_gltf.f32"}, {"expected_filament", "expected_filament.f32"},
                          {"expected_filament_truth", "expected_filament_truth.f32"}, {"specular_ktx2", "spec.ktx2"},
                          {"expected_split_sum", "expected_split_sum.f32"}, {"expected_split_sum_mirror_x", "expected_split_sum_mirror_x.f32"},
                          {"sun_specular_exr", "spec_sun.exr"}, {"sun_filament_sh", "sh_sun.txt"}, {"sun_filament_light", "filament_sun.json"},
                          {"expected_filament_sun", "expected_filament_sun.f32"}, {"gltf_sun", "ibl_sun.glb"},
                          {"expected_gltf_sun", "expected_gltf_sun.f32"}};
        scene["views"] = json::array();
        for (const Vec3& v : kViews) scene["views"].push_back({v.x, v.y, v.z});
        scene["spheres"] = json::array();
        for (const Sphere& s : kSpheres) scene["spheres"].push_back({{"material", s.material}, {"roughness", s.roughness}});
        write_text_atomically(dir + "/scene.json", scene.dump(1));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bake_engine_reference: %s\n", e.what());
        return 1;
    }
    return 0;
}
