// The SH error report's cells (src/core/exact_irradiance.h) from the lat-long texels the
// projection uploaded: per cell and channel, the first moments of its positive and of its negative
// radiance, P = sum L+ Omega d and N = sum L- Omega d, in float.
// Constants from the host: WG_SIZE, TEXEL_FORMAT (0 RGB float, 1 RGBE, 2 RGB half: project_sh.comp's).
// One invocation a cell adds its texels row by row with Kahan compensation (`precise` keeps the
// compiler from reassociating it away), so a moment errs by about 2u of its terms' magnitudes
// plus the float geometry's few u (u = 2^-24), whatever the cell's size; no shared memory or
// barriers (llvmpipe runs those slowly). The texels of one tile of the upload
// [u_first, u_first + u_count) are added; with u_accumulate, to the cell's earlier tiles' sums.
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
    uint cell = gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * uint(WG_SIZE)) + gl_GlobalInvocationID.x;
    if (cell >= u_cell_count) return;
    uint row0 = (cell / u_columns) * u_block, col0 = (cell % u_columns) * u_block;
    uint row1 = min(row0 + u_block, u_height), col1 = min(col0 + u_block, u_width);
    // Only the rows this tile holds.
    uint last = u_first + u_count;  // one past
    row0 = max(row0, u_first / u_width);
    row1 = min(row1, (last + u_width - 1u) / u_width);
    precise float sum[18];
    precise float comp[18];
    for (int v = 0; v < 18; ++v) {
        sum[v] = 0.0;
        comp[v] = 0.0;
    }
    for (uint r = row0; r < row1; ++r) {
        vec4 rt = row_table[r];
        vec2 od = vec2(rt.x, rt.y) * rt.z;  // Omega sin theta, Omega cos theta
        for (uint c = col0; c < col1; ++c) {
            uint p = r * u_width + c;
            if (p < u_first || p >= last) continue;
            vec2 ct = column_table[c];
            vec3 d = vec3(od.x * ct.x, od.y, od.x * ct.y);  // Omega d
            vec3 L = texel(p - u_first);
            // Both signs, the other adding exact zeros: constant indices keep the 36 sums in
            // registers (a sign-dependent index put them in slow local memory on NVIDIA).
            for (int ch = 0; ch < 3; ++ch) {
                float part[2] = float[2](max(L[ch], 0.0), max(-L[ch], 0.0));
                for (int s = 0; s < 2; ++s)
                    for (int k = 0; k < 3; ++k) {
                        int v = 6 * ch + 3 * s + k;
                        // Kahan: sum += part d[k], carrying what the addition dropped.
                        precise float y = part[s] * d[k] - comp[v];
                        precise float t = sum[v] + y;
                        comp[v] = (t - sum[v]) - y;
                        sum[v] = t;
                    }
            }
        }
    }
    for (int v = 0; v < 18; ++v)
        cells[18u * cell + uint(v)] = u_accumulate != 0u ? cells[18u * cell + uint(v)] + sum[v] : sum[v];
}
