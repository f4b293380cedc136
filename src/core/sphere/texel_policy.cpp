#include "texel_policy.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "parallel.h"

namespace bake {

namespace {

// Calls fn(image, label-prefix) for every image of the environment.
template <typename Env, typename Fn>
void for_each_image(Env& env, const Fn& fn) {
    if (env.is_cube()) {
        for (int f = 0; f < 6; ++f) fn(env.cube.faces[static_cast<size_t>(f)], std::string("face ") + cube_face_name(f) + ", ");
    } else {
        fn(env.equirect, std::string());
    }
}

template <typename Pred>
std::size_t zero_where(Environment& env, const Pred& pred) {
    std::size_t n = 0;
    for_each_image(env, [&](Image& img, const std::string&) {
        for (float& v : img.rgb)
            if (pred(v)) { v = 0.0f; ++n; }
    });
    return n;
}

}  // namespace

TexelStats scan_texels(const Environment& env) {
    TexelStats s;
    if (env.is_packed()) {
        const PackedTexelStats p = scan_packed(env.packed);
        s.nonfinite = p.nonfinite;
        s.negative = p.negative;
        s.min_value = p.min_value;
        if (p.nonfinite > 0) {
            const std::size_t w = static_cast<std::size_t>(env.packed.width);
            s.first_nonfinite = "row " + std::to_string(p.first_nonfinite_texel / w) + ", column " +
                                std::to_string(p.first_nonfinite_texel % w);
        }
        return s;
    }
    for_each_image(env, [&](const Image& img, const std::string& where) {
        const PackedTexelStats q = scan_channel_values(img.rgb.size(), [&](std::size_t i) { return img.rgb[i]; });
        if (s.nonfinite == 0 && q.nonfinite > 0) {
            const std::size_t w = static_cast<std::size_t>(img.width);
            s.first_nonfinite = where + "row " + std::to_string(q.first_nonfinite_texel / w) + ", column " +
                                std::to_string(q.first_nonfinite_texel % w);
        }
        s.nonfinite += q.nonfinite;
        s.negative += q.negative;
        s.min_value = std::min(s.min_value, q.min_value);
    });
    return s;
}

std::size_t zero_nonfinite(Environment& env) {
    if (env.is_packed()) return zero_nonfinite(env.packed);
    return zero_where(env, [](float v) { return !std::isfinite(v); });
}

std::size_t clamp_negative(Environment& env) {
    if (env.is_packed()) return clamp_negative(env.packed);
    return zero_where(env, [](float v) { return v < 0.0f; });
}

}  // namespace bake
