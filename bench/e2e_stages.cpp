// End to end inside one process, on a large equirect float EXR: decode, upload, project,
// irradiance, encode. Times in ms (wall clock for decode and encode, GL timers for the GPU stages).
#include "e2e_stages.h"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "bench_support.h"
#include "environment_loader.h"
#include "gpu_projector.h"
#include "image_io.h"
#include "projection.h"

namespace bench {
namespace {

using namespace bake;

// A smooth w x w/2 map with a little texel noise, as a float EXR (ZIP).
void write_e2e_input(const std::string& path, int w) {
    const int h = w / 2;
    Image img(w, h);
    for (int r = 0; r < h; ++r)
        for (int c = 0; c < w; ++c) {
            float* px = img.at(r, c);
            px[0] = 1.0f + 0.5f * std::sin(0.01f * static_cast<float>(c));
            px[1] = 0.5f + 0.25f * std::cos(0.013f * static_cast<float>(r));
            px[2] = 0.25f + 0.001f * static_cast<float>((r * 7 + c * 13) % 97);
        }
    write_exr(path, img, EnvmapHint::None);
}

// One run (0: the first in this process); appends its text, returns its JSON row.
nlohmann::json e2e_run(GpuProjector& gpu, int run, int w, unsigned hw_threads, const std::string& in_path,
                       const std::string& out_path, std::string* text) {
    const int h = w / 2;
    auto t0 = Clock::now();
    const Environment env = load_environment(in_path);
    const double decode_ms = ms_since(t0);
    t0 = Clock::now();
    const Projection p = gpu.project(env, 3);
    const double gpu_project_wall_ms = ms_since(t0);
    const GpuTimings pt = gpu.last_timings();
    t0 = Clock::now();
    const CubeMap map = gpu.render_irradiance_cube(irradiance_from_radiance(p.radiance), 32);
    const double irr_wall_ms = ms_since(t0);
    const double irr_ms = gpu.last_timings().irradiance_ms;
    t0 = Clock::now();
    write_exr(out_path, assemble_cube(map, Layout::VStrip), EnvmapHint::Cube);
    const double encode_ms = ms_since(t0);
    double cpu_ms = 0;
    if (run == 1) {
        t0 = Clock::now();
        project_sh_cpu(env, 3);
        cpu_ms = ms_since(t0);
    }
    const double gpu_stages = pt.upload_ms + pt.project_ms + pt.reduce_ms + irr_ms;
    char buf[768];
    std::snprintf(buf, sizeof buf,
                  "\nend to end (run %d), %dx%d float EXR (ZIP), order 3:\n"
                  "  decode %.1f ms | upload %.2f ms | project %.3f ms | reduce %.3f ms (%d passes) | "
                  "irradiance %.4f ms | encode %.1f ms\n"
                  "  GPU stages %.2f ms = %.1f%% of decode | wall of project() call %.1f ms, irradiance "
                  "call %.2f ms%s",
                  run + 1, w, h, decode_ms, pt.upload_ms, pt.project_ms, pt.reduce_ms, pt.reduce_passes,
                  irr_ms, encode_ms, gpu_stages, 100 * gpu_stages / decode_ms, gpu_project_wall_ms,
                  irr_wall_ms, "");
    *text += buf;
    if (run == 1) {
        std::snprintf(buf, sizeof buf, " | CPU double path (%u threads) %.1f ms", hw_threads, cpu_ms);
        *text += buf;
    }
    *text += "\n";
    return {{"run", run + 1}, {"width", w}, {"height", h}, {"decode_ms", decode_ms},
            {"upload_ms", pt.upload_ms}, {"project_ms", pt.project_ms}, {"reduce_ms", pt.reduce_ms},
            {"reduce_passes", pt.reduce_passes}, {"irradiance_ms", irr_ms}, {"encode_ms", encode_ms},
            {"gpu_stages_ms", gpu_stages}, {"gpu_stages_over_decode", gpu_stages / decode_ms},
            {"project_call_wall_ms", gpu_project_wall_ms},
            {"cpu_double_ms", run == 1 ? nlohmann::json(cpu_ms) : nlohmann::json()}};
}

}  // namespace

std::string end_to_end_stages(GpuProjector& gpu, int width, unsigned hw_threads, nlohmann::json* runs) {
    const std::string in_path = "bench_e2e_input.exr", out_path = "bench_e2e_output.exr";
    write_e2e_input(in_path, width);
    std::string text;
    *runs = nlohmann::json::array();
    for (int run = 0; run < 2; ++run) runs->push_back(e2e_run(gpu, run, width, hw_threads, in_path, out_path, &text));
    std::printf("%s", text.c_str());
    std::filesystem::remove(in_path);
    std::filesystem::remove(out_path);
    return text;
}

}  // namespace bench
