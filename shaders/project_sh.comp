// Pass 1 of the projection: texels -> one partial sum per work group.
// Constants from the host: SH_ORDER, WG_SIZE (power of two), WG_LOG2, QUADS_PER_THREAD,
// REDUCE_CHUNK, CUBE_LAYOUT (1: cube faces, 0: equirect), WORK_GROUP_SUM.
//
// Texels are RGB float32, packed, padded to whole quads: quad q (texels 4q..4q+3) is the three
// vec4 words 3q..3q+2, so every load is a 16-byte vector load and consecutive invocations read
// consecutive quads (coalesced). Global texel index t: cube t = (face * n + row) * n + col,
// equirect t = row * width + col; the buffer holds the tile [u_first_texel, +u_texel_count).
//
// Work group g owns the WG_SIZE * QUADS_PER_THREAD quads starting at g * that; invocation i
// adds its QUADS_PER_THREAD quads (4 * QUADS_PER_THREAD texels) sequentially into registers,
// then the work group's tree sums the invocations. Partial g: SH_COUNT vec4 at g * SH_COUNT,
// rgb = sum of L * Y_k * Omega, and .w of coefficient 0 = sum of Omega.
layout(local_size_x = WG_SIZE) in;

layout(std430, binding = 0) readonly buffer Texels { vec4 texel_words[]; };
#if !CUBE_LAYOUT
// Separable lat-long geometry computed in double on the host (GLSL's sin/cos precision is
// undefined; NVIDIA's is ~1e-6 absolute, 6e-4 relative on a polar row's solid angle):
// per row (sin theta, cos theta, pixel solid angle, 0), per column (cos phi, sin phi).
layout(std430, binding = 2) readonly buffer RowTable { vec4 row_table[]; };
layout(std430, binding = 3) readonly buffer ColumnTable { vec2 column_table[]; };
#endif

uniform uint u_first_texel;    // global index of the tile's first texel
uniform uint u_texel_count;    // texels in the tile
uniform uint u_first_partial;  // partial index of the tile's first work group
uniform uint u_size;           // cube face size n, or equirect width

void texel_geometry(uint t, out vec3 d, out float omega) {
#if CUBE_LAYOUT
    uint face_texels = u_size * u_size;
    uint face = t / face_texels;
    uint rest = t - face * face_texels;
    uint row = rest / u_size;
    uint col = rest - row * u_size;
    d = cube_texel_direction(face, row, col, u_size);
    omega = cube_texel_solid_angle(row, col, u_size);
#else
    uint row = t / u_size;
    uint col = t - row * u_size;
    vec4 r = row_table[row];
    vec2 c = column_table[col];
    d = vec3(r.x * c.x, r.y, r.x * c.y);
    omega = r.z;
#endif
}

void main() {
    vec4 acc[SH_COUNT];
    for (int k = 0; k < SH_COUNT; ++k) acc[k] = vec4(0.0);

    uint lid = gl_LocalInvocationID.x;
    uint first_quad = gl_WorkGroupID.x * uint(WG_SIZE * QUADS_PER_THREAD);
    for (int i = 0; i < QUADS_PER_THREAD; ++i) {
        uint quad = first_quad + uint(i * WG_SIZE) + lid;
        uint t0 = quad * 4u;
        if (t0 < u_texel_count) {
            vec4 w0 = texel_words[3u * quad];
            vec4 w1 = texel_words[3u * quad + 1u];
            vec4 w2 = texel_words[3u * quad + 2u];
            vec3 radiance[4] = vec3[4](w0.xyz, vec3(w0.w, w1.xy), vec3(w1.zw, w2.x), w2.yzw);
            for (int j = 0; j < 4; ++j) {
                if (t0 + uint(j) < u_texel_count) {  // the last quad may be padding
                    vec3 d;
                    float omega;
                    texel_geometry(u_first_texel + t0 + uint(j), d, omega);
                    float y[SH_COUNT];
                    sh_basis(d, y);
                    vec3 weighted = radiance[j] * omega;
                    for (int k = 0; k < SH_COUNT; ++k) acc[k].xyz += y[k] * weighted;
                    acc[0].w += omega;
                }
            }
        }
    }
    store_work_group_sum(acc, lid, (u_first_partial + gl_WorkGroupID.x) * uint(SH_COUNT));
}
