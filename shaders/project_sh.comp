// Pass 1 of the projection: texels -> one partial sum per work group.
// Constants from the host: SH_ORDER, WG_SIZE (power of two), WG_LOG2, QUADS_PER_THREAD,
// REDUCE_CHUNK, CUBE_LAYOUT (1: cube faces, 0: equirect), WORK_GROUP_SUM.
//
// Texels are RGB float32, packed in quads: a quad (4 texels) is three vec4 words, so every load
// is a 16-byte vector load, and consecutive invocations read consecutive quads (coalesced).
//
// Cube: texel position p = row * n + col is shared by the six faces, and so are its solid angle
// and, up to a permutation and signs, its direction. An invocation therefore takes 4 positions
// (a "position quad"), computes their geometry once, and adds those positions on all 6 faces
// (24 texels): the costly geometry (sqrt, divisions, atan series) is paid once per 6 texels.
// The tile holds positions [u_first, +u_count) of every face, face f at word offset
// f * u_face_stride_quads * 3, each face padded with zeros to whole quads.
//
// Equirect: position = texel, t = row * width + col, tile [u_first, +u_count), one "face".
//
// Work group g owns WG_SIZE * QUADS_PER_THREAD position quads starting at g times that;
// invocation i adds its quads sequentially into registers (24 or 4 texels each), then the work
// group's tree sums the invocations. Partial g: SH_COUNT vec4 at g * SH_COUNT, rgb = sum of
// L * Y_k * Omega, and .w of coefficient 0 = sum of Omega.
layout(local_size_x = WG_SIZE) in;

layout(std430, binding = 0) readonly buffer Texels { vec4 texel_words[]; };
#if !CUBE_LAYOUT
// Separable lat-long geometry computed in double on the host (GLSL's sin/cos precision is
// undefined; NVIDIA's is ~1e-6 absolute, 6e-4 relative on a polar row's solid angle):
// per row (sin theta, cos theta, pixel solid angle, 0), per column (cos phi, sin phi).
layout(std430, binding = 2) readonly buffer RowTable { vec4 row_table[]; };
layout(std430, binding = 3) readonly buffer ColumnTable { vec2 column_table[]; };
#endif

uniform uint u_first;              // global index of the tile's first position
uniform uint u_count;              // positions in the tile
uniform uint u_face_stride_quads;  // cube: quads per face in the tile buffer
uniform uint u_first_partial;      // partial index of the tile's first work group
uniform uint u_size;               // cube face size n, or equirect width

#if CUBE_LAYOUT
#define FACES 6
#else
#define FACES 1
#endif

void main() {
    vec4 acc[SH_COUNT];
    for (int k = 0; k < SH_COUNT; ++k) acc[k] = vec4(0.0);

    uint lid = gl_LocalInvocationID.x;
    uint first_quad = gl_WorkGroupID.x * uint(WG_SIZE * QUADS_PER_THREAD);
    for (int i = 0; i < QUADS_PER_THREAD; ++i) {
        uint quad = first_quad + uint(i * WG_SIZE) + lid;
        uint p0 = quad * 4u;
        if (p0 >= u_count) continue;

        // Geometry of the quad's 4 positions; positions past the tile get omega = 0 (their
        // texels are zero padding), which adds exact zeros instead of branching.
        uint row = (u_first + p0) / u_size;
        uint col = (u_first + p0) - row * u_size;
        float omega[4];
#if CUBE_LAYOUT
        vec3 st_inv[4];  // (sc, tc, 1 / |(sc, tc, 1)|)
#else
        vec3 dir[4];
#endif
        for (int j = 0; j < 4; ++j) {
            bool inside = p0 + uint(j) < u_count;
#if CUBE_LAYOUT
            float sc = cube_centre_coord(col, u_size), tc = cube_centre_coord(row, u_size);
            st_inv[j] = vec3(sc, tc, inversesqrt(1.0 + sc * sc + tc * tc));
            omega[j] = inside ? cube_texel_solid_angle(row, col, u_size) : 0.0;
#else
            vec4 r = row_table[min(row, uint(row_table.length()) - 1u)];
            vec2 c = column_table[col];
            dir[j] = vec3(r.x * c.x, r.y, r.x * c.y);
            omega[j] = inside ? r.z : 0.0;
#endif
            if (++col == u_size) {
                col = 0u;
                ++row;
            }
        }

        for (int f = 0; f < FACES; ++f) {
            uint word = 3u * (uint(f) * u_face_stride_quads + quad);
            vec4 w0 = texel_words[word];
            vec4 w1 = texel_words[word + 1u];
            vec4 w2 = texel_words[word + 2u];
            vec3 radiance[4] = vec3[4](w0.xyz, vec3(w0.w, w1.xy), vec3(w1.zw, w2.x), w2.yzw);
            for (int j = 0; j < 4; ++j) {
#if CUBE_LAYOUT
                vec3 d = cube_face_direction(uint(f), st_inv[j].x, st_inv[j].y) * st_inv[j].z;
#else
                vec3 d = dir[j];
#endif
                float y[SH_COUNT];
                sh_basis(d, y);
                vec3 weighted = radiance[j] * omega[j];
                for (int k = 0; k < SH_COUNT; ++k) acc[k].xyz += y[k] * weighted;
                acc[0].w += omega[j];
            }
        }
    }
    store_work_group_sum(acc, lid, (u_first_partial + gl_WorkGroupID.x) * uint(SH_COUNT));
}
