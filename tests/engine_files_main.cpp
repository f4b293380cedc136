// bake_engine_files DIR: writes every engine-ready output the library makes (src/core/outputs/) into
// DIR, from small synthetic inputs, with expected.json beside them holding what each file must
// contain (our values, before and after the format's rounding). tests/js/check_outputs.mjs then reads
// the files with the engines' and Khronos' own readers (ktx-parse, three.js, Babylon.js,
// gltf-validator) and compares. ctest runs the two in turn (tests/CMakeLists.txt).
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <stdexcept>

#include "atomic_file.h"
#include "coefficients_json.h"
#include "image_io.h"
#include "layout.h"
#include "specular_io.h"
#include "dfg.h"
#include "engine_files.h"
#include "engine_sh.h"
#include "gltf_ibl.h"
#include "rgbd.h"
#include "gpu_formats.h"
#include "ibl_ktx2.h"
#include "projection.h"
#include "specular_prefilter.h"
#include "test_support.h"

using namespace bake;
using nlohmann::json;

namespace {

// Texel values of one image before and after the format's rounding, for the reader to compare.
json texel_values(const Image& image, KtxFormat format) {
    json source = json::array(), rounded = json::array();
    for (std::size_t t = 0; t < image.pixel_count(); ++t) {
        const float* v = &image.rgb[3 * t];
        float r[3] = {v[0], v[1], v[2]};
        if (format == KtxFormat::Rgba16Float)
            for (int c = 0; c < 3; ++c) r[c] = half_to_float(float_to_half(v[c]));
        if (format == KtxFormat::B10G11R11UFloat) unpack_b10g11r11(pack_b10g11r11(v[0], v[1], v[2]), r);
        if (format == KtxFormat::E5B9G9R9UFloat) unpack_e5b9g9r9(pack_e5b9g9r9(v[0], v[1], v[2]), r);
        for (int c = 0; c < 3; ++c) {
            source.push_back(v[c]);
            rounded.push_back(r[c]);
        }
    }
    return {{"source", source}, {"rounded", rounded}};
}

// The expectation of one KTX2 file: header fields, key/values and the texels of the first and last level.
json ktx_expectation(const std::string& file, const KtxImages& images, const KtxWriteOptions& o, const json& kv) {
    const int last = static_cast<int>(images.levels.size()) - 1;
    json faces_first = json::array(), faces_last = json::array();
    for (const Image* face : images.levels[0]) faces_first.push_back(texel_values(*face, o.format));
    for (const Image* face : images.levels[last]) faces_last.push_back(texel_values(*face, o.format));
    return {{"file", file},
            {"format", ktx_format_name(o.format)},
            {"vkFormat", ktx_vk_format(o.format)},
            {"width", images.width},
            {"height", images.height},
            {"faces", images.faces},
            {"levels", images.levels.size()},
            {"zstd", o.zstd_level},
            {"key_values", kv},
            {"first_level", faces_first},
            {"last_level", faces_last}};
}

json write_ktx2_files(const std::string& dir, const EngineTestScene& scene) {
    json list = json::array();
    const KtxImages spec = cube_chain_images(scene.specular_chain);
    const json spec_kv = {{"bakeConvention", kKtxConvention}};
    struct Variant {
        const char* name;
        KtxFormat format;
        int zstd;
    };
    for (const Variant& v : {Variant{"spec_rgba16f.ktx2", KtxFormat::Rgba16Float, 0},
                             Variant{"spec_rgba32f_zstd.ktx2", KtxFormat::Rgba32Float, 3},
                             Variant{"spec_b10g11r11.ktx2", KtxFormat::B10G11R11UFloat, 0},
                             Variant{"spec_e5b9g9r9_zstd.ktx2", KtxFormat::E5B9G9R9UFloat, 19}}) {
        KtxWriteOptions o;
        o.format = v.format;
        o.zstd_level = v.zstd;
        write_specular_ktx2(dir + "/" + v.name, scene.specular_chain, o);
        list.push_back(ktx_expectation(v.name, spec, o, spec_kv));
    }
    KtxWriteOptions o;
    write_irradiance_cube_ktx2(dir + "/irr_cube.ktx2", scene.irradiance_cube, o);
    const std::vector<CubeMap> irr{scene.irradiance_cube};
    list.push_back(ktx_expectation("irr_cube.ktx2", cube_chain_images(irr), o, spec_kv));
    write_irradiance_equirect_ktx2(dir + "/irr_equirect.ktx2", scene.irradiance_equirect, o);
    list.push_back(ktx_expectation("irr_equirect.ktx2", image_2d_images(scene.irradiance_equirect), o, spec_kv));
    o.format = KtxFormat::B10G11R11UFloat;
    write_dfg_ktx2(dir + "/dfg.ktx2", scene.dfg, o);
    list.push_back(ktx_expectation("dfg.ktx2", image_2d_images(scene.dfg), o, spec_kv));
    return list;
}

// The SH files, and E(n) at 64 directions for the engines' classes to reproduce.
json write_sh_files(const std::string& dir, const EngineTestScene& scene) {
    write_threejs_light_probe(dir + "/light_probe.json", scene.radiance);
    write_babylon_sh(dir + "/babylon_sh.json", scene.radiance);
    json directions = json::array(), irradiance = json::array();
    for (const Vec3& n : test::fibonacci_sphere(64)) {
        directions.push_back({n.x, n.y, n.z});
        const Rgb e = eval_sh(scene.irradiance, n);
        irradiance.push_back({e[0], e[1], e[2]});
    }
    return {{"light_probe", "light_probe.json"}, {"babylon", "babylon_sh.json"},
            {"directions", directions}, {"irradiance", irradiance}};
}

// The glTF IBL as .gltf and .glb from the chain's first three levels (16, 8, 4), with the float
// texels and RGBD's bound for each, for the reader to decode the PNGs back.
json write_gltf_files(const std::string& dir, const EngineTestScene& scene) {
    const std::vector<CubeMap> chain(scene.specular_chain.begin(), scene.specular_chain.begin() + 3);
    write_gltf_ibl(dir + "/ibl.gltf", chain, scene.radiance);
    write_gltf_ibl(dir + "/ibl.glb", chain, scene.radiance);
    json levels = json::array();
    for (const CubeMap& level : chain) {
        json faces = json::array();
        for (const Image& face : level.faces) {
            json values = json::array(), bounds = json::array();
            for (std::size_t t = 0; t < face.pixel_count(); ++t) {
                const float* v = &face.rgb[3 * t];
                values.insert(values.end(), {v[0], v[1], v[2]});
                const double m = std::max({v[0], v[1], v[2]});
                bounds.push_back(m > 255 ? -1.0 : rgbd_error_bound(m) * m);  // -1: clipped, not compared
            }
            faces.push_back({{"values", values}, {"bounds", bounds}});
        }
        levels.push_back(faces);
    }
    return {{"files", {"ibl.gltf", "ibl.glb"}}, {"levels", levels}};
}

// The tool's own files (issue 21's CLI: -o .ktx2, --specular .ktx2, --sh-format), written by the
// binary at `cli` from the bundled sample into dir/cli, with the expectations read back from the
// same run's EXR and JSON outputs: what the readers check is what a user's command writes.
void write_cli_files(const std::string& cli, const std::string& dir) {
    const std::string out = dir + "/cli";
    const std::string cmd = "'" + cli + "' '" + std::string(BAKE_ASSETS_DIR) + "/sample_sky.hdr' --device cpu -q --warn-error 1e300" +
                            " -o '" + out + "/irr.ktx2' -o '" + out + "/irr.exr' -o '" + out + "/irr.json' --size 8" +
                            " --specular '" + out + "/spec.ktx2' --specular-size 16 --ktx-zstd 3" +
                            " --sh-format threejs '" + out + "/light_probe.json' --sh-format babylon '" + out + "/babylon_sh.json'";
    const std::string spec_exr = "'" + cli + "' '" + std::string(BAKE_ASSETS_DIR) + "/sample_sky.hdr' --device cpu -q " +
                                 "--warn-error 1e300 --specular '" + out + "/spec.exr' --specular-size 16";
    // The Bevy layout and the GL layout of one bake, in rgba32f (check_bevy.mjs compares them through
    // Bevy's lookup).
    const std::string pair = "'" + cli + "' '" + std::string(BAKE_ASSETS_DIR) + "/sample_sky.hdr' --device cpu -q " +
                             "--warn-error 1e300 --size 8 --specular-size 16 --ktx-format rgba32f";
    const std::string gl = pair + " -o '" + out + "/gl_diffuse.ktx2' --specular '" + out + "/gl_specular.ktx2' -o '" + out + "/gl.json'";
    const std::string bevy = pair + " -o '" + out + "/bevy_diffuse.ktx2' --specular '" + out + "/bevy_specular.ktx2' --ktx-convention bevy";
    for (const std::string& c : {"mkdir -p '" + out + "' && " + cmd, spec_exr, gl, bevy})
        if (std::system(c.c_str()) != 0) throw std::runtime_error("bake-irradiance failed: " + c);
    KtxWriteOptions o;
    o.zstd_level = 3;
    const json kv = {{"bakeConvention", kKtxConvention}};
    const std::vector<CubeMap> irr{extract_cube(load_image(out + "/irr.exr").image, Layout::VStrip)};
    const std::vector<CubeMap> chain = read_specular_exr(out + "/spec.exr");
    const CoefficientsDocument doc = read_coefficients_json(out + "/irr.json");
    json directions = json::array(), irradiance = json::array();
    for (const Vec3& n : test::fibonacci_sphere(64)) {
        directions.push_back({n.x, n.y, n.z});
        const Rgb e = eval_sh(doc.irradiance, n);
        irradiance.push_back({e[0], e[1], e[2]});
    }
    json expected;
    expected["ktx2"] = {ktx_expectation("irr.ktx2", cube_chain_images(irr), o, kv),
                        ktx_expectation("spec.ktx2", cube_chain_images(chain), o, kv)};
    expected["sh"] = {{"light_probe", "light_probe.json"}, {"babylon", "babylon_sh.json"},
                      {"directions", directions}, {"irradiance", irradiance}};
    expected["gltf"] = {{"files", json::array()}};
    expected["bevy"] = {{"gl_diffuse", "gl_diffuse.ktx2"}, {"gl_specular", "gl_specular.ktx2"}, {"coefficients", "gl.json"},
                        {"bevy_diffuse", "bevy_diffuse.ktx2"}, {"bevy_specular", "bevy_specular.ktx2"}};
    write_text_atomically(out + "/expected.json", expected.dump());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2 && argc != 3) {
        std::fprintf(stderr, "usage: bake_engine_files DIR [BAKE_IRRADIANCE]\n");
        return 2;
    }
    const std::string dir = argv[1];
    try {
        const EngineTestScene scene = make_engine_test_scene();
        json expected;
        expected["ktx2"] = write_ktx2_files(dir, scene);
        expected["sh"] = write_sh_files(dir, scene);
        expected["gltf"] = write_gltf_files(dir, scene);
        write_text_atomically(dir + "/expected.json", expected.dump());
        if (argc == 3) write_cli_files(argv[2], dir);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bake_engine_files: %s\n", e.what());
        return 1;
    }
    return 0;
}
