// One level of the specular source's mip chains on the GPU, for the cubes specular_source.comp
// wrote (the full and the capped average) where they lie, so that nothing is read back before the
// prefilter: each coarse texel the solid-angle-weighted mean of its 2 x 2 finer texels, in double,
// as the CPU's cube_mip_chain (src/core/specular/specular_prefilter.cpp), and the division
// refined (div_d, sh_common.glsl). The weights: the finer level's texel solid angles; a
// coarse texel's solid angle is written as the sum of its four (the CPU takes the closed form at
// each size: the same to double rounding, so the means agree to float rounding).
//
// Layout (floats): level k of the chains at u_coarse_offset / u_fine_offset, the full cube's six
// faces (RGB rows, top down), then the capped cube's when u_cubes is 2. Solid angles (doubles): one
// face of each level (every face has the same), rows top down. z of the dispatch: cube · 6 + face.
// The first level's pass also looks at every texel the source pass wrote: a NaN there is its
// failure mark (specular_source.comp), reported in `failed`.
layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, binding = 0) buffer Levels { float levels[]; };
layout(std430, binding = 1) buffer Omega { double omega[]; };
layout(std430, binding = 2) buffer Status { uint failed; };

uniform uint u_fine_size;
uniform uint u_fine_offset;
uniform uint u_coarse_offset;
uniform uint u_fine_omega;
uniform uint u_coarse_omega;
uniform uint u_check_nan;

void main() {
    const uint fine = u_fine_size, n = fine / 2u;
    const uint col = gl_GlobalInvocationID.x, row = gl_GlobalInvocationID.y;
    const uint cube = gl_GlobalInvocationID.z / 6u, face = gl_GlobalInvocationID.z % 6u;
    if (col >= n || row >= n) return;
    // Not arrays: NVIDIA's driver 580 keeps doubles of indexed local arrays in single precision
    // (specular_source.comp, "No local arrays of doubles").
    dvec3 sum = dvec3(0.0LF);
    double weight = 0.0LF;
    bool nan_seen = false;
    const uint fine_plane = 18u * fine * fine;
    for (uint i = 0u; i < 2u; ++i)
        for (uint j = 0u; j < 2u; ++j) {
            const uint r = 2u * row + i, c = 2u * col + j;
            const double w = omega[u_fine_omega + r * fine + c];
            const uint o = u_fine_offset + cube * fine_plane + 3u * ((face * fine + r) * fine + c);
            const vec3 t = vec3(levels[o], levels[o + 1u], levels[o + 2u]);
            nan_seen = nan_seen || isnan(t.x) || isnan(t.y) || isnan(t.z);
            sum += w * dvec3(t);
            weight += w;
        }
    if (u_check_nan != 0u && nan_seen) atomicOr(failed, 1u);
    const uint o = u_coarse_offset + cube * 18u * n * n + 3u * ((face * n + row) * n + col);
    levels[o] = float(div_d(sum.x, weight));
    levels[o + 1u] = float(div_d(sum.y, weight));
    levels[o + 2u] = float(div_d(sum.z, weight));
    if (cube == 0u && face == 0u) omega[u_coarse_omega + row * n + col] = weight;
}
