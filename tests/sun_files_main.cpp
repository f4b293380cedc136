// bake_sun_files DIR: writes the sun's light files (src/core/outputs/sun_lights.h) for a synthetic sky
// with a disc sun into DIR, and expected.json with the sun they stand for; tests/js/check_sun.mjs then
// has three.js's ObjectLoader and GLTFLoader and the Khronos glTF validator read them (ctest:
// sun_files_write, then sun_files_readers).
#include <cstdio>
#include <exception>

#include "atomic_file.h"
#include "sun.h"
#include "sun_lights.h"
#include "sun_sky.h"

using namespace bake;
using namespace bake::test;

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: bake_sun_files DIR\n");
        return 2;
    }
    try {
        const std::string dir = argv[1];
        const DiscSun disc{normalize(Vec3{-0.4, 0.7, 0.6}), 0.8 * kPi / 180, {2e4, 1.8e4, 1.4e4}};
        const SunSearch found = find_sun(equirect_sky_with_sun(1024, 512, 1.0, disc));
        if (!found.sun) throw std::runtime_error(found.verdict);
        const Sun& sun = *found.sun;
        nlohmann::json gltf = {{"asset", {{"version", "2.0"}}}, {"scene", 0}, {"scenes", {{{"nodes", nlohmann::json::array()}}}},
                               {"nodes", nlohmann::json::array()}};
        add_gltf_sun(gltf, sun);
        write_text_atomically(dir + "/sun.gltf", gltf.dump(1));
        write_text_atomically(dir + "/threejs_sun.json", threejs_sun_json(sun).dump(1));
        const nlohmann::json expected = {{"direction", {sun.direction.x, sun.direction.y, sun.direction.z}},
                                         {"illuminance", {sun.illuminance[0], sun.illuminance[1], sun.illuminance[2]}}};
        write_text_atomically(dir + "/expected.json", expected.dump(1));
        std::printf("%s\n", found.verdict.c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bake_sun_files: %s\n", e.what());
        return 1;
    }
}
