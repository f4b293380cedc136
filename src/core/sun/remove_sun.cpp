#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include <Imath/half.h>

#include "packed_fill.h"
#include "sun.h"

namespace bake {

PackedFill pack_fill(TexelEncoding encoding, const std::array<float, 3>& rgb) {
    PackedFill f;
    if (encoding == TexelEncoding::Rgbe8) {
        float_to_rgbe(rgb.data(), f.bytes.data());
        rgbe_to_float(f.bytes.data(), f.value.data(), 1);
    } else {
        for (std::size_t c = 0; c < 3; ++c) {
            const std::uint16_t bits = Imath::half(rgb[c]).bits();  // rounded to nearest
            std::memcpy(&f.bytes[2 * c], &bits, 2);  // little-endian, as the packed bytes are (x86, ARM)
            f.value[c] = half_to_float(bits);
        }
    }
    return f;
}

void remove_sun_in_place(Environment& env, const Sun& sun) {
    const std::size_t count = env.texel_count();
    if (!sun.texels.empty() && sun.texels.back() >= count)
        throw std::invalid_argument("remove_sun: texel " + std::to_string(sun.texels.back()) + " of a map of " +
                                    std::to_string(count));
    if (env.is_packed()) {
        const PackedFill fill = pack_fill(env.packed.encoding, sun.fill);
        if (fill.value != sun.fill) throw std::invalid_argument("remove_sun: the fill is not a texel of this map's encoding");
        const std::size_t size = bytes_per_texel(env.packed.encoding);
        for (std::size_t i : sun.texels) std::memcpy(&env.packed.bytes[i * size], fill.bytes.data(), size);
    } else {
        const std::size_t face_texels = env.is_cube() ? static_cast<std::size_t>(env.cube.size) * env.cube.size : 0;
        for (std::size_t i : sun.texels) {
            float* p = env.is_cube() ? &env.cube.faces[i / face_texels].rgb[3 * (i % face_texels)] : &env.equirect.rgb[3 * i];
            std::copy(sun.fill.begin(), sun.fill.end(), p);
        }
    }
    if (env.identity != 0) env.identity = next_environment_identity();
}

Environment remove_sun(const Environment& env, const Sun& sun) {
    Environment out = env;
    remove_sun_in_place(out, sun);
    return out;
}

}  // namespace bake
