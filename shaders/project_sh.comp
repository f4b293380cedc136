// Pass 1 of the projection: texels -> one partial sum per work group.
// Constants from the host: SH_ORDER, WG_SIZE (power of two), WG_LOG2, REDUCE_CHUNK,
// WORK_GROUP_SUM, CUBE_LAYOUT (1: cube faces, 0: equirect), CUBE_SYMMETRY (cube faces whose
// size is a multiple of 8, see below) with TASKS_PER_THREAD and SYM_POSITIONS, else
// QUADS_PER_THREAD and TEXEL_FORMAT.
//
// Texels are RGB float32, packed in quads: a quad (4 texels) is three vec4 words, so every load
// is a 16-byte vector load, and consecutive invocations read consecutive quads (coalesced).
// The per-texel pass also reads texels as the file encoded them (TEXEL_FORMAT 1: RGBE bytes,
// a quad is one uvec4; 2: RGB half, a quad is three uvec2) and expands them here, exactly as
// the host does (RGBE: byte * 2^(e-136); half: unpackHalf2x16), except that RGBE values below
// 2^-126 (exponent byte < 10) count as 0, where GPUs may flush subnormals anyway.
// Partial g: SH_COUNT vec4 at g * SH_COUNT, rgb = sum of L * Y_k * Omega, and .w of
// coefficient 0 = sum of Omega.
#pragma optionNV(unroll all)
layout(local_size_x = WG_SIZE) in;

#ifndef TEXEL_FORMAT
#define TEXEL_FORMAT 0
#endif
#if TEXEL_FORMAT == 1
layout(std430, binding = 0) readonly buffer TexelsRgbe { uvec4 rgbe_quads[]; };
#elif TEXEL_FORMAT == 2
layout(std430, binding = 0) readonly buffer TexelsHalf { uvec2 half_words[]; };
#else
layout(std430, binding = 0) readonly buffer Texels { vec4 texel_words[]; };
#endif
#if !CUBE_LAYOUT
// Separable lat-long geometry computed in double on the host (GLSL's sin/cos precision is
// undefined; NVIDIA's is ~1e-6 absolute, 6e-4 relative on a polar row's solid angle):
// per row (sin theta, cos theta, pixel solid angle, 0), per column (cos phi, sin phi).
layout(std430, binding = 2) readonly buffer RowTable { vec4 row_table[]; };
layout(std430, binding = 3) readonly buffer ColumnTable { vec2 column_table[]; };
#endif

uniform uint u_first_partial;  // partial index of the tile's first work group
uniform uint u_size;           // cube face size n, or equirect width

#if CUBE_SYMMETRY
// Cube faces of size n = 8m, by the symmetry of the cube. Mirroring a face's texel grid in s
// (column c <-> n-1-c) or t (row r <-> n-1-r), or going to the opposite face at the same (r, c),
// flips the signs of direction components (docs/CONVENTION.md's face table):
//   pair +X/-X, base (1, -t, -s): opposite face flips x,z; s-mirror flips z; t-mirror flips y
//   pair +Y/-Y, base (s, 1, t):   opposite face flips y,z; s-mirror flips x; t-mirror flips z
//   pair +Z/-Z, base (s, -t, 1):  opposite face flips x,z; s-mirror flips x; t-mirror flips y
// so the 8 texels {face, opposite} x {c, n-1-c} x {r, n-1-r} of a pair look along the 8 sign
// flips of one direction d, and have one solid angle. Every basis function has a parity in
// each component (bits x=1, y=2, z=4 of kParity), Y_k(flip_b d) = (-1)^popcount(b & p_k) Y_k(d)
// exactly (also in float: negation is exact), so the 8 texels add
//   Omega * Y_k(d) * R_p,   R_p = sum_b (-1)^popcount(b & p) L_b      (p = kParity[k]),
// the R_p being a 3-stage Walsh-Hadamard transform of the 8 radiances. One basis evaluation
// and SH_COUNT multiply-adds then serve 8 texels, and one geometry evaluation 24.
//
// A task is SYM_POSITIONS (4 or 2) consecutive positions (row r < n/2, columns P*cq..P*cq+P-1
// < n/2); it reads 8 such runs per face pair (24 P texels): quads as three vec4 words, pairs as
// three vec2 words (fewer registers live at once). The tile holds, per face f, the rows [u_row_base, +u_rows) (top
// band) then the mirrored rows [n - u_row_base - u_rows, n - u_row_base) (bottom band), each
// row n/4 quads; tasks [u_first_task, +u_task_count) are row-major over the quadrant.
#define P SYM_POSITIONS
// COEFF_SPLIT 2: alternate warps of 32 take the two halves of the coefficients of the same
// tasks (same loads, hitting in cache; half the accumulator registers, so more warps resident).
#ifndef COEFF_SPLIT
#define COEFF_SPLIT 1
#endif
#define K_HALF ((SH_COUNT + 1) / 2)
#if COEFF_SPLIT == 2
#define ACC_COUNT K_HALF
#define TASK_THREADS (WG_SIZE / 2)
#else
#define ACC_COUNT SH_COUNT
#define TASK_THREADS WG_SIZE
#endif
#if P == 2
layout(std430, binding = 4) readonly buffer TexelPairs { vec2 texel_pairs[]; };  // the same buffer
#endif
uniform uint u_first_task;
uniform uint u_task_count;
uniform uint u_row_base;
uniform uint u_rows;

const int kParity[25] = int[25](0, 2, 4, 1, 3, 6, 0, 5, 0, 2, 7, 2, 4, 1, 4, 1, 3, 6, 3, 6, 0, 5, 0, 5, 0);
const uint kFlipOpposite[3] = uint[3](5u, 6u, 5u);
const uint kFlipS[3] = uint[3](4u, 1u, 1u);
const uint kFlipT[3] = uint[3](2u, 4u, 2u);

#define BUTTERFLY(i, j) { vec3 u = r[i], v = r[j]; r[i] = u + v; r[j] = u - v; }

vec3 pair_base_direction(int pair, float s, float t) {
    if (pair == 0) return vec3(1.0, -t, -s);
    if (pair == 1) return vec3(s, 1.0, t);
    return vec3(s, -t, 1.0);
}

void main() {
    vec3 acc[ACC_COUNT];
    for (int k = 0; k < ACC_COUNT; ++k) acc[k] = vec3(0.0);
    float omega_sum = 0.0;

    uint lid = gl_LocalInvocationID.x;
#if COEFF_SPLIT == 2
    uint part = (lid >> 5u) & 1u;
    uint task_lane = ((lid >> 6u) << 5u) | (lid & 31u);
#else
    uint task_lane = lid;
#endif
    uint half_units = u_size / uint(2 * P);   // quads or pairs in half a row
    uint row_words = 3u * (u_size / uint(P)); // a row: n/P units of 3 words (vec4 or vec2)
    uint band_words = u_rows * row_words;
    uint face_words = 2u * band_words;
    for (int i = 0; i < TASKS_PER_THREAD; ++i) {
        uint local_task = gl_WorkGroupID.x * uint(TASK_THREADS * TASKS_PER_THREAD) + uint(i * TASK_THREADS) + task_lane;
        if (local_task >= u_task_count) break;
        uint task = u_first_task + local_task;
        uint row = task / half_units;
        uint cq = task - row * half_units;
        uint local_row = row - u_row_base;
        uint band_offset[2] = uint[2](local_row * row_words, band_words + (u_rows - 1u - local_row) * row_words);
        uint quad_offset[2] = uint[2](3u * cq, 3u * (2u * half_units - 1u - cq));

        float tc = cube_centre_coord(row, u_size);
        float sc[P], inv_len[P], omega[P];
        for (int j = 0; j < P; ++j) {
            uint col = uint(P) * cq + uint(j);
            sc[j] = cube_centre_coord(col, u_size);
            inv_len[j] = inversesqrt(1.0 + sc[j] * sc[j] + tc * tc);
            omega[j] = cube_texel_solid_angle(row, col, u_size);
            omega_sum += 24.0 * omega[j];
        }

        for (int pair = 0; pair < 3; ++pair) {
            vec3 texel[8 * P];  // [flip bits b * P + position j]
            for (int e = 0; e < 2; ++e)
                for (int mt = 0; mt < 2; ++mt)
                    for (int ms = 0; ms < 2; ++ms) {
                        uint word = uint(2 * pair + e) * face_words + band_offset[mt] + quad_offset[ms];
#if P == 4
                        vec4 w0 = texel_words[word];
                        vec4 w1 = texel_words[word + 1u];
                        vec4 w2 = texel_words[word + 2u];
                        vec3 q[4] = vec3[4](w0.xyz, vec3(w0.w, w1.xy), vec3(w1.zw, w2.x), w2.yzw);
#else
                        vec2 w0 = texel_pairs[word];
                        vec2 w1 = texel_pairs[word + 1u];
                        vec2 w2 = texel_pairs[word + 2u];
                        vec3 q[2] = vec3[2](vec3(w0, w1.x), vec3(w1.y, w2));
#endif
                        uint b = (e == 1 ? kFlipOpposite[pair] : 0u) ^ (ms == 1 ? kFlipS[pair] : 0u) ^
                                 (mt == 1 ? kFlipT[pair] : 0u);
                        for (int j = 0; j < P; ++j) texel[b * uint(P) + uint(j)] = q[ms == 1 ? P - 1 - j : j];
                    }
            for (int j = 0; j < P; ++j) {
                vec3 r[8];
                for (int b = 0; b < 8; ++b) r[b] = texel[b * P + j] * omega[j];
                // Walsh-Hadamard, written out: r[p] = R_p * Omega. Constant indices only (a
                // loop over the bit left NVIDIA's compiler indexing r at run time, in local
                // memory: bench/NOTES.md).
                BUTTERFLY(0, 1) BUTTERFLY(2, 3) BUTTERFLY(4, 5) BUTTERFLY(6, 7)
                BUTTERFLY(0, 2) BUTTERFLY(1, 3) BUTTERFLY(4, 6) BUTTERFLY(5, 7)
                BUTTERFLY(0, 4) BUTTERFLY(1, 5) BUTTERFLY(2, 6) BUTTERFLY(3, 7)
                float y[SH_COUNT];
                sh_basis(pair_base_direction(pair, sc[j], tc) * inv_len[j], y);
#if COEFF_SPLIT == 2
                if (part == 0u) {
                    for (int k = 0; k < K_HALF; ++k) acc[k] += y[k] * r[kParity[k]];
                } else {
                    for (int k = K_HALF; k < SH_COUNT; ++k) acc[k - K_HALF] += y[k] * r[kParity[k]];
                }
#else
                for (int k = 0; k < SH_COUNT; ++k) acc[k] += y[k] * r[kParity[k]];
#endif
            }
        }
    }
    vec4 sums[SH_COUNT];
#if COEFF_SPLIT == 2
    // The other half's coefficients are exact zeros here: the tree adds them without rounding.
    for (int k = 0; k < SH_COUNT; ++k) sums[k] = vec4(0.0);
    if (part == 0u) {
        for (int k = 0; k < K_HALF; ++k) sums[k] = vec4(acc[k], k == 0 ? omega_sum : 0.0);
    } else {
        for (int k = K_HALF; k < SH_COUNT; ++k) sums[k] = vec4(acc[k - K_HALF], 0.0);
    }
#else
    for (int k = 0; k < SH_COUNT; ++k) sums[k] = vec4(acc[k], k == 0 ? omega_sum : 0.0);
#endif
    store_work_group_sum(sums, lid, (u_first_partial + gl_WorkGroupID.x) * uint(SH_COUNT));
}

#else
// Cube (any size): texel position p = row * n + col is shared by the six faces, and so are its
// solid angle and, up to a permutation and signs, its direction. An invocation therefore takes
// 4 positions (a "position quad"), computes their geometry once, and adds those positions on
// all 6 faces (24 texels). The tile holds positions [u_first, +u_count) of every face, face f
// at word offset f * u_face_stride_quads * 3, each face padded with zeros to whole quads.
//
// Equirect: position = texel, t = row * width + col, tile [u_first, +u_count), one "face".
//
// Work group g owns WG_SIZE * QUADS_PER_THREAD position quads starting at g times that;
// invocation i adds its quads sequentially into registers (24 or 4 texels each), then the work
// group's tree sums the invocations.
uniform uint u_first;              // global index of the tile's first position
uniform uint u_count;              // positions in the tile
uniform uint u_face_stride_quads;  // cube: quads per face in the tile buffer

#if CUBE_LAYOUT
#define FACES 6
#else
#define FACES 1
#endif

// The 4 texels of quad q of the tile buffer.
void load_quad(uint q, out vec3 radiance[4]) {
#if TEXEL_FORMAT == 1
    uvec4 w = rgbe_quads[q];
    radiance = vec3[4](rgbe_texel(w.x), rgbe_texel(w.y), rgbe_texel(w.z), rgbe_texel(w.w));
#elif TEXEL_FORMAT == 2
    uvec2 a = half_words[3u * q], b = half_words[3u * q + 1u], c = half_words[3u * q + 2u];
    vec2 h0 = unpackHalf2x16(a.x), h1 = unpackHalf2x16(a.y), h2 = unpackHalf2x16(b.x);
    vec2 h3 = unpackHalf2x16(b.y), h4 = unpackHalf2x16(c.x), h5 = unpackHalf2x16(c.y);
    radiance = vec3[4](vec3(h0, h1.x), vec3(h1.y, h2), vec3(h3, h4.x), vec3(h4.y, h5));
#else
    vec4 w0 = texel_words[3u * q];
    vec4 w1 = texel_words[3u * q + 1u];
    vec4 w2 = texel_words[3u * q + 2u];
    radiance = vec3[4](w0.xyz, vec3(w0.w, w1.xy), vec3(w1.zw, w2.x), w2.yzw);
#endif
}

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
            vec3 radiance[4];
            load_quad(uint(f) * u_face_stride_quads + quad, radiance);
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
#endif
