#pragma once
// The check every sun test makes of remove_sun (src/core/sun/sun.h).
#include <algorithm>
#include <cstring>

#include <catch2/catch.hpp>

#include "sphere_texels.h"
#include "sun.h"
#include "sun_sky.h"

namespace bake::test {

// The energy identity: the residual's integral plus what was removed is the input's, per channel, to
// 1e-6 of the input's (double sums; their rounding is ~1e-13 here). The residual is the input except
// on the sun's texels, which hold the fill; it is a map of the input's layout and encoding, and
// removing in place gives the same. `nothing_left`: the map had one bright source, so no sun remains.
inline void check_removal(const Environment& env, const Sun& sun, bool nothing_left = true) {
    const Environment residual = remove_sun(env, sun);
    REQUIRE(residual.layout == env.layout);
    REQUIRE(residual.is_packed() == env.is_packed());
    REQUIRE(residual.texel_count() == env.texel_count());
    Environment in_place = env;
    remove_sun_in_place(in_place, sun);
    CHECK(in_place.equirect.rgb == residual.equirect.rgb);
    CHECK(in_place.packed.bytes == residual.packed.bytes);
    for (int f = 0; f < 6; ++f) CHECK(in_place.cube.faces[static_cast<std::size_t>(f)].rgb == residual.cube.faces[static_cast<std::size_t>(f)].rgb);
    const Rgb in = texel_integral(env), out = texel_integral(residual);
    for (int c = 0; c < 3; ++c) CHECK(std::fabs(out[c] + sun.removed[c] - in[c]) <= 1e-6 * std::fabs(in[c]));
    const SphereTexels a(env), b(residual);
    std::size_t changed = 0;
    for (std::size_t i = 0; i < a.count(); ++i) {
        float u[3], v[3];
        a.value(i, u);
        b.value(i, v);
        if (std::memcmp(u, v, sizeof u) == 0) continue;
        ++changed;
        REQUIRE(std::binary_search(sun.texels.begin(), sun.texels.end(), i));
        for (int c = 0; c < 3; ++c) REQUIRE(v[c] == sun.fill[static_cast<std::size_t>(c)]);
    }
    CHECK(changed <= sun.texels.size());
    if (nothing_left) CHECK_FALSE(find_sun(residual).sun);
}

}  // namespace bake::test
