// find_sun and remove_sun (a copy; remove_sun_in_place writes only the sun's texels) on a width x
// width/2 lat-long map, median of `repeats` after one warm-up, on every core and on one, beside the
// CPU SH projection of the same map (order 3, the bake's own first pass over its texels) timed in
// the same loop, so that a loaded machine slows both alike: the sky with a small sun of
// bench_support.h as floats and as RGBE (how the bake holds a .hdr: packed), the same sky without its
// sun (no texel bright enough: the survey only), and with four equal lamps instead (the whole
// search, then no sun).
#include "sun_bench.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "bench_support.h"
#include "packed_image.h"
#include "projection.h"
#include "sun.h"

namespace bench {

namespace {

bake::Environment packed_rgbe(const bake::Environment& env) {
    bake::Environment out;
    out.packed.encoding = bake::TexelEncoding::Rgbe8;
    out.packed.width = env.width();
    out.packed.height = env.height();
    out.packed.bytes.resize(env.texel_count() * 4);
    for (std::size_t i = 0; i < env.texel_count(); ++i) bake::float_to_rgbe(&env.equirect.rgb[3 * i], &out.packed.bytes[4 * i]);
    return out;
}

// The sky's own texels are at most 1: anything brighter is its sun.
bake::Environment without_sun(bake::Environment env) {
    for (float& v : env.equirect.rgb) v = std::min(v, 1.0f);
    return env;
}

// Four equal lamps, 1.1 degrees in radius and 2e4 bright, 45 degrees up.
bake::Environment with_lamps(bake::Environment env) {
    const int w = env.width(), h = env.height();
    const bake::Vec3 lamps[] = {{0.5, 0.707, 0.5}, {-0.5, 0.707, 0.5}, {0.5, 0.707, -0.5}, {-0.5, 0.707, -0.5}};
    for (int r = 0; r < h / 2; ++r)
        for (int c = 0; c < w; ++c) {
            const bake::Vec3 d = bake::equirect_texel_direction(r, c, w, h);
            for (const bake::Vec3& l : lamps)
                if (bake::dot(d, bake::normalize(l)) > 0.9998)
                    for (int k = 0; k < 3; ++k) env.equirect.at(r, c)[k] += 2e4f;
        }
    return env;
}

}  // namespace

void run_sun_bench(int repeats, int width, nlohmann::json* out) {
    const bake::Environment sky = sun_sky(width, width / 2);
    struct Case {
        std::string name;
        bake::Environment env;
    };
    std::vector<Case> cases;
    cases.push_back({"sun, float", sky});
    cases.push_back({"sun, RGBE packed", packed_rgbe(sky)});
    cases.push_back({"no sun (sky only)", without_sun(sky)});
    cases.push_back({"four lamps, float", with_lamps(without_sun(sky))});
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    char line[256];
    std::snprintf(line, sizeof line,
                  "| %dx%d map | threads | find_sun ms | remove_sun ms (copy) | SH projection ms | find_sun / projection | verdict |\n"
                  "|---|---|---|---|---|---|---|\n",
                  width, width / 2);
    std::string table = line;
    for (const Case& c : cases)
        for (int threads : {0, 1}) {
            bake::SunOptions options;
            options.threads = threads;
            bake::SunSearch found = bake::find_sun(c.env, options);  // warm-up
            std::vector<double> find, remove, project;
            for (int i = 0; i < repeats; ++i) {
                auto t0 = Clock::now();
                found = bake::find_sun(c.env, options);
                find.push_back(ms_since(t0));
                if (found.sun) {
                    t0 = Clock::now();
                    const bake::Environment residual = bake::remove_sun(c.env, *found.sun);
                    remove.push_back(ms_since(t0));
                }
                t0 = Clock::now();
                bake::project_sh_cpu(c.env, 3, threads);
                project.push_back(ms_since(t0));
            }
            const int used = threads == 0 ? static_cast<int>(cores) : threads;
            char copy[32] = "-";
            if (!remove.empty()) std::snprintf(copy, sizeof copy, "%.1f", median(remove));
            std::snprintf(line, sizeof line, "| %s | %d | %.1f | %s | %.1f | %.2f | %.60s |\n", c.name.c_str(), used,
                          median(find), copy, median(project), median(find) / median(project), found.verdict.c_str());
            table += line;
            (*out)[c.name][std::to_string(used)] = {{"find_sun_ms", median(find)},
                                                    {"remove_sun_copy_ms", remove.empty() ? 0.0 : median(remove)},
                                                    {"sh_projection_ms", median(project)},
                                                    {"verdict", found.verdict}};
        }
    std::printf("%s", table.c_str());
}

}  // namespace bench
