// The SH error report's cells (src/core/exact_irradiance.h) from the lat-long texels the
// projection uploaded: per cell and channel, the first moments of its positive and of its negative
// radiance, P = sum L+ Omega d and N = sum L- Omega d, in float.
// Constants from the host: WG_SIZE (power of two), TEXEL_FORMAT (0 RGB float, 1 RGBE, 2 RGB half:
// project_sh.comp's). A work group sums one cell: invocation i takes the cell's texels i,
// i + WG_SIZE, ... in order, then a binary tree through shared memory adds the invocations
// (log2(WG_SIZE) roundings). The texels of one tile of the upload [u_first, u_first + u_count)
// are added; with u_accumulate the cell's earlier tiles' sums are added to, in tile order.
layout(local_size_x = WG_SIZE) in;

#if TEXEL_FORMAT == 1
layout(std430, binding = 0) readonly buffer TexelsRgbe { uint rgbe_words[]; };
#elif TEXEL_FORMAT == 2
layout(std430, binding = 0) readonly buffer TexelsHalf { uint half_words[]; };
#else
layout(std430, binding = 0) readonly buffer Texels { float texel_floats[]; };
#endif
// (sin theta, cos theta, pixel solid angle, 0) a row, (cos phi, sin phi) a column: the projection's.
layout(std430, binding = 2) readonly buffer RowTable { vec4 row_table[]; };
layout(std430, binding = 3) readonly buffer ColumnTable { vec2 column_table[]; };
// 18 a cell: per channel P.xyz then N.xyz (IrradianceCells::moments' order).
layout(std430, binding = 4) buffer Cells { float cells[]; };

uniform uint u_width;
uniform uint u_height;
uniform uint u_block;     // texels per cell side
uniform uint u_columns;   // cells per row
uniform uint u_first;     // the tile's first texel (row-major index)
uniform uint u_count;     // its texels
uniform uint u_accumulate;
uniform uint u_cell_count;

shared float tree[18 * WG_SIZE];

vec3 texel(uint i) {
#if TEXEL_FORMAT == 1
    return rgbe_texel(rgbe_words[i]);
#elif TEXEL_FORMAT == 2
    uint h = 3u * i;
    vec2 a = unpackHalf2x16(half_words[h >> 1u]), b = unpackHalf2x16(half_words[(h >> 1u) + 1u]);
    return (h & 1u) == 0u ? vec3(a, b.x) : vec3(a.y, b);
#else
    return vec3(texel_floats[3u * i], texel_floats[3u * i + 1u], texel_floats[3u * i + 2u]);
#endif
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint cell = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;  // 2D past 65535 groups
    if (cell >= u_cell_count) return;
    uint row0 = (cell / u_columns) * u_block, col0 = (cell % u_columns) * u_block;
    uint rows = min(u_block, u_height - row0), cols = min(u_block, u_width - col0);
    float m[18];
    for (int v = 0; v < 18; ++v) m[v] = 0.0;
    for (uint t = lid; t < rows * cols; t += uint(WG_SIZE)) {
        uint r = row0 + t / cols, c = col0 + t % cols;
        uint p = r * u_width + c;
        if (p < u_first || p - u_first >= u_count) continue;
        vec4 rt = row_table[r];
        vec2 ct = column_table[c];
        vec3 d = vec3(rt.x * ct.x, rt.y, rt.x * ct.y) * rt.z;  // Omega d
        vec3 L = texel(p - u_first);
        for (int ch = 0; ch < 3; ++ch) {
            float pos = max(L[ch], 0.0), neg = max(-L[ch], 0.0);
            m[6 * ch + 0] += pos * d.x;
            m[6 * ch + 1] += pos * d.y;
            m[6 * ch + 2] += pos * d.z;
            m[6 * ch + 3] += neg * d.x;
            m[6 * ch + 4] += neg * d.y;
            m[6 * ch + 5] += neg * d.z;
        }
    }
    for (int v = 0; v < 18; ++v) tree[v * WG_SIZE + int(lid)] = m[v];
    for (uint h = uint(WG_SIZE) / 2u; h > 0u; h >>= 1u) {
        barrier();
        if (lid < h)
            for (int v = 0; v < 18; ++v) tree[v * WG_SIZE + int(lid)] += tree[v * WG_SIZE + int(lid + h)];
    }
    if (lid == 0u)
        for (int v = 0; v < 18; ++v) {
            float sum = tree[v * WG_SIZE];
            cells[18u * cell + uint(v)] = u_accumulate != 0u ? cells[18u * cell + uint(v)] + sum : sum;
        }
}
