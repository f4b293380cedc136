#pragma once
// The synthetic scene the engine-output checks use (tests/engine_files_main.cpp): a smooth sky with a
// warm lobe and a small bright "sun" (so that the SH has every band, and the specular levels and the
// packed formats see a wide range), its SH, irradiance maps, a specular-like mip chain and a DFG table.
#include <cmath>
#include <vector>

#include "cube_map.h"
#include "dfg.h"
#include "projection.h"
#include "sh.h"
#include "specular_prefilter.h"
#include "test_support.h"

namespace bake {

struct EngineTestScene {
    Environment environment;             // a 6 x 32^2 cube
    ShCoefficients radiance;             // order 3
    ShCoefficients irradiance;           // E_lm = A_l L_lm
    std::vector<CubeMap> specular_chain; // 16^2 down to 1^2: the source's solid-angle-weighted mips
    CubeMap irradiance_cube;             // 8^2, from the SH
    Image irradiance_equirect;           // 32 x 16, from the SH
    Image dfg;                           // 16 x 16
};

inline Rgb engine_test_radiance(const Vec3& d) {
    Rgb v = test::smooth_radiance(d);
    const double sun = std::exp(400.0 * (0.48 * d.x + 0.8 * d.y + 0.36 * d.z - 1.0));  // |(0.48, 0.8, 0.36)| = 1
    v[0] += 900.0 * sun;
    v[1] += 800.0 * sun;
    v[2] += 600.0 * sun;
    return v;
}

inline EngineTestScene make_engine_test_scene() {
    EngineTestScene s;
    s.environment = test::make_cube_env(32, engine_test_radiance);
    s.radiance = project_sh_cpu(s.environment, 3).radiance;
    s.irradiance = irradiance_from_radiance(s.radiance);
    const std::vector<CubeMap> mips = cube_mip_chain(s.environment.cube);
    s.specular_chain.assign(mips.begin() + 1, mips.end());  // 16 .. 1
    s.irradiance_cube = render_irradiance_cube(s.irradiance, 8);
    s.irradiance_equirect = render_irradiance_equirect(s.irradiance, 32, 16);
    s.dfg = compute_dfg_table(16);
    return s;
}

}  // namespace bake
