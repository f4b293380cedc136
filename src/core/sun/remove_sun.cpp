#include <stdexcept>
#include <string>

#include "packed_image.h"
#include "sun.h"

namespace bake {

Environment remove_sun(const Environment& env, const Sun& sun, int threads) {
    const std::size_t count = env.texel_count();
    for (std::size_t i : sun.texels)
        if (i >= count)
            throw std::invalid_argument("remove_sun: texel " + std::to_string(i) + " of a map of " + std::to_string(count));
    Environment out;
    out.layout = env.layout;
    if (env.is_cube()) out.cube = env.cube;
    else out.equirect = env.is_packed() ? expand_packed(env.packed, threads) : env.equirect;
    out.identity = env.identity != 0 ? next_environment_identity() : 0;
    const std::size_t face_texels = env.is_cube() ? static_cast<std::size_t>(env.cube.size) * env.cube.size : 0;
    for (std::size_t i : sun.texels) {
        float* p = env.is_cube() ? &out.cube.faces[i / face_texels].rgb[3 * (i % face_texels)] : &out.equirect.rgb[3 * i];
        for (std::size_t c = 0; c < 3; ++c) p[c] = sun.fill[c];
    }
    return out;
}

}  // namespace bake
