// BC6H_UF16 blocks of float texels, one invocation a block: the default setting of the encoder of
// src/core/outputs/bc6h.cpp statement for statement, in integers after the conversion to half
// bits, so that both write the same bytes (tests/test_gpu_bc6h.cpp). Change one, change the other.
// The thorough setting is the CPU's alone: a search a hundred times longer in one invocation.
//
// Defines (src/gpu/gpu_bc6h.cpp): WG_SIZE, invocations a work group; SOURCE_BUFFER where the
// texels are vec4s in a buffer (else a sampler2DArray: a cube map's or 2D texture's view); the
// tables of bc6h_tables.h as kModeCode, kModeRegions, kModeEpb, kModeDelta (3 a mode),
// kModeTransformed, kHeaderBits, kBitMap (82 bytes a mode, field * 16 + bit, four to a word),
// kPartitions, kAnchor2, kWeights3, kWeights4.
layout(local_size_x = WG_SIZE) in;

#ifdef SOURCE_BUFFER
layout(std430, binding = 0) readonly buffer Source { vec4 source_texels[]; };
#else
uniform sampler2DArray u_source;
#endif
layout(std430, binding = 1) writeonly buffer Blocks { uvec4 blocks[]; };

uniform int u_width;          // the level's size
uniform int u_height;
uniform int u_level;          // texture: the mip level
uniform uint u_source_offset; // buffer: the level's first texel (faces one after another)
uniform uint u_block_offset;  // the level's first block in `blocks` (faces one after another)
uniform int u_mirror_z;       // 1: face f texel (row, col) from the texel mirrored in z (Bevy's layout)

const int kErrorCap = 8191;
const int kModeCount = 14;
const int kPartitionCount = 32;

int g_h[48];       // half bits, texel i channel c at 3 * i + c
int g_t[48];       // the smallest unquantized value decoding to h
int g_weight[16];  // 1 + whole octaves above the dimmest texel (at most 16); 0 for padding

// Error sums as 64-bit values: (low, high).
uvec2 add64(uvec2 a, uint b) {
    uint carry;
    uint low = uaddCarry(a.x, b, carry);
    return uvec2(low, a.y + carry);
}
bool less64(uvec2 a, uvec2 b) { return a.y < b.y || (a.y == b.y && a.x < b.x); }
const uvec2 kNoError = uvec2(0xffffffffu, 0xffffffffu);

struct Candidate {
    int mode;
    int part;
    int q[12];    // quantized endpoints, 3 * endpoint + channel
    int idx[16];
    uvec2 error;
};

Candidate no_candidate() {
    Candidate c;
    c.mode = -1;
    c.part = 0;
    for (int k = 0; k < 12; ++k) c.q[k] = 0;
    for (int i = 0; i < 16; ++i) c.idx[i] = 0;
    c.error = kNoError;
    return c;
}

// The half bits of a float as bc6h.cpp's load_texels takes them (float_to_half of gpu_formats.cpp,
// written with integers: round to nearest even, saturated at 65504; NaN, negatives, 0: 0).
int half_bits(float v) {
    if (!(v > 0.0)) return 0;
    uint u = floatBitsToUint(v);
    if (u >= 0x477fe000u) return 0x7bff;
    if (u < 0x38800000u) {
        if ((u >> 23) == 0u) return 0;
        int e = int(u >> 23) - 127;
        uint m = (u & 0x7fffffu) | 0x800000u;
        int shift = -1 - e;  // the value in units of 2^-24 is m * 2^(e + 1)
        if (shift > 24) return 0;
        uint q = m >> uint(shift);
        uint rem = m & ((1u << uint(shift)) - 1u);
        uint halfway = 1u << uint(shift - 1);
        if (rem > halfway || (rem == halfway && (q & 1u) != 0u)) ++q;
        return int(q);
    }
    uint odd = (u >> 13) & 1u;
    u += uint(15 - 127) * 0x800000u + 0xfffu + odd;
    return int(u >> 13);
}

int unquantize(int q, int epb) {
    if (epb >= 15) return q;
    if (q == 0) return 0;
    if (q == (1 << epb) - 1) return 0xffff;
    return ((q << 15) + 0x4000) >> (epb - 1);
}

int quantize(int x, int epb) {
    int top = (1 << epb) - 1;
    int guess = x >> (16 - epb);
    int best = 0, best_d = 0x7fffffff;
    for (int q = max(guess - 1, 0); q <= min(guess + 1, top); ++q) {
        int d = abs(unquantize(q, epb) - x);
        if (d < best_d) {
            best_d = d;
            best = q;
        }
    }
    return best;
}

int finish(int x) { return (x * 31) >> 6; }
int interpolate(int a, int b, int w) { return ((64 - w) * a + w * b + 32) >> 6; }

int region_of(int regions, int part, int i) { return regions == 2 ? int((kPartitions[part] >> uint(i)) & 1u) : 0; }
bool is_anchor(int regions, int part, int i) { return i == 0 || (regions == 2 && i == int(kAnchor2[part])); }

// A shape: the mode's, or (mode -1) the unquantized two-region one that ranks partitions.
int shape_regions(int mode) { return mode < 0 ? 2 : kModeRegions[mode]; }
int shape_epb(int mode) { return mode < 0 ? 16 : kModeEpb[mode]; }

uvec2 evaluate(int mode, int part, inout int q[12], out int idx[16]) {
    int regions = shape_regions(mode), epb = shape_epb(mode);
    int ends = 2 * regions;
    if (mode >= 0 && kModeTransformed[mode] != 0) {
        for (int k = 1; k < ends; ++k)
            for (int c = 0; c < 3; ++c) {
                int limit = (1 << (kModeDelta[3 * mode + c] - 1)) - 1;
                q[3 * k + c] = q[c] + clamp(q[3 * k + c] - q[c], -limit, limit);
            }
    }
    int n = regions == 2 ? 8 : 16;
    // Loops over palette entries run to 16 with a guard: constant trip counts, which compilers
    // unroll (llvmpipe counts the iterations of loops it does not unroll against a limit).
    int palette[96];  // region r, entry j, channel c at 48 * r + 3 * j + c
    for (int r = 0; r < regions; ++r)
        for (int c = 0; c < 3; ++c) {
            int a = unquantize(q[3 * (2 * r) + c], epb), b = unquantize(q[3 * (2 * r + 1) + c], epb);
            for (int j = 0; j < 16; ++j)
                if (j < n) palette[48 * r + 3 * j + c] = finish(interpolate(a, b, regions == 2 ? kWeights3[j & 7] : kWeights4[j]));
        }
    uvec2 total = uvec2(0u);
    for (int i = 0; i < 16; ++i) {
        int r = region_of(regions, part, i);
        int limit = is_anchor(regions, part, i) ? n / 2 : n;
        uint best = 0xffffffffu;
        int best_j = 0;
        for (int j = 0; j < 16; ++j) {
            if (j >= limit) continue;
            uint e = 0u;
            for (int c = 0; c < 3; ++c) {
                int d = min(abs(palette[48 * r + 3 * j + c] - g_h[3 * i + c]), kErrorCap);
                e += uint(d * d);
            }
            if (e < best) {
                best = e;
                best_j = j;
            }
        }
        idx[i] = best_j;
        total = add64(total, best * uint(g_weight[i]));
    }
    return total;
}

// Unquantized endpoints of region r into e[6 * r ..]: e0 then e1 (see bc6h.cpp's fit_region).
void fit_region(int regions, int part, int r, inout int e[12]) {
    int lo[3] = int[3](0xffff, 0xffff, 0xffff), hi[3] = int[3](0, 0, 0), sum[3] = int[3](0, 0, 0);
    int count = 0;
    for (int i = 0; i < 16; ++i) {
        if (region_of(regions, part, i) != r) continue;
        ++count;
        for (int c = 0; c < 3; ++c) {
            lo[c] = min(lo[c], g_t[3 * i + c]);
            hi[c] = max(hi[c], g_t[3 * i + c]);
            sum[c] += g_t[3 * i + c] >> 4;
        }
    }
    int k = 0;
    for (int c = 1; c < 3; ++c)
        if (hi[c] - lo[c] > hi[k] - lo[k]) k = c;
    int cov[3] = int[3](0, 0, 0);
    for (int i = 0; i < 16; ++i) {
        if (region_of(regions, part, i) != r) continue;
        int dk = (g_t[3 * i + k] >> 4) - sum[k] / count;
        for (int c = 0; c < 3; ++c) cov[c] += ((g_t[3 * i + c] >> 4) - sum[c] / count) * dk;
    }
    int e0[3], e1[3];
    for (int c = 0; c < 3; ++c) {
        bool rising = cov[c] >= 0;
        e0[c] = rising ? lo[c] : hi[c];
        e1[c] = rising ? hi[c] : lo[c];
    }
    int anchor = r == 0 ? 0 : int(kAnchor2[part]);
    int along = 0, len = 0;
    for (int c = 0; c < 3; ++c) {
        int d = (e1[c] >> 4) - (e0[c] >> 4);
        along += ((g_t[3 * anchor + c] >> 4) - (e0[c] >> 4)) * d;
        len += d * d;
    }
    bool swap = 2 * along > len;
    for (int c = 0; c < 3; ++c) {
        e[6 * r + c] = swap ? e1[c] : e0[c];
        e[6 * r + 3 + c] = swap ? e0[c] : e1[c];
    }
}

void fit_partition(int regions, int p, out int e[12]) {
    for (int k = 0; k < 12; ++k) e[k] = 0;
    for (int r = 0; r < regions; ++r) fit_region(regions, p, r, e);
}

Candidate quantized_candidate(int m, int p, int e[12]) {
    Candidate cand = no_candidate();
    cand.mode = m;
    cand.part = p;
    int epb = kModeEpb[m];
    for (int k = 0; k < 2 * kModeRegions[m]; ++k)
        for (int c = 0; c < 3; ++c) cand.q[3 * k + c] = quantize(e[3 * k + c], epb);
    cand.error = evaluate(m, p, cand.q, cand.idx);
    return cand;
}

void refine(inout Candidate cand, int first) {
    int regions = kModeRegions[cand.mode];
    int top = (1 << kModeEpb[cand.mode]) - 1;
    for (int stride = first; stride >= 1; stride >>= 1) {
        bool improved = true;
        for (int pass = 0; pass < 4 && improved; ++pass) {
            improved = false;
            for (int k = 0; k < 2 * regions; ++k)
                for (int c = 0; c < 3; ++c)
                    for (int dir = -1; dir <= 1; dir += 2) {
                        int v = cand.q[3 * k + c] + dir * stride;
                        if (v < 0 || v > top) continue;
                        int q[12] = cand.q;
                        q[3 * k + c] = v;
                        int idx[16];
                        uvec2 e = evaluate(cand.mode, cand.part, q, idx);
                        if (less64(e, cand.error)) {
                            cand.error = e;
                            cand.q = q;
                            cand.idx = idx;
                            improved = true;
                        }
                    }
        }
    }
}

Candidate better(Candidate best, Candidate c) { return less64(c.error, best.error) ? c : best; }

Candidate search() {
    Candidate best = no_candidate();
    int e[12];
    fit_partition(1, 0, e);
    for (int m = 0; m < kModeCount; ++m)
        if (kModeRegions[m] == 1) best = better(best, quantized_candidate(m, 0, e));
    uvec2 fit[2] = uvec2[2](kNoError, kNoError);
    int parts[2] = int[2](0, 0);
    for (int p = 0; p < kPartitionCount; ++p) {
        int q[12];
        fit_partition(2, p, q);
        int idx[16];
        uvec2 err = evaluate(-1, p, q, idx);
        if (less64(err, fit[0])) {
            fit[1] = fit[0];
            parts[1] = parts[0];
            fit[0] = err;
            parts[0] = p;
        } else if (less64(err, fit[1])) {
            fit[1] = err;
            parts[1] = p;
        }
    }
    for (int k = 0; k < 2; ++k) {
        fit_partition(2, parts[k], e);
        for (int m = 0; m < kModeCount; ++m)
            if (kModeRegions[m] == 2) best = better(best, quantized_candidate(m, parts[k], e));
    }
    refine(best, 4);
    return best;
}

uvec4 g_block;
void put_bit(int at, int bit) { g_block[at >> 5] |= uint(bit) << uint(at & 31); }

uvec4 pack(Candidate cand) {
    int m = cand.mode;
    int regions = kModeRegions[m];
    int field[14];
    for (int f = 0; f < 14; ++f) field[f] = 0;
    for (int k = 0; k < 2 * regions; ++k)
        for (int c = 0; c < 3; ++c)
            field[3 * k + c] = (kModeTransformed[m] != 0 && k > 0) ? ((cand.q[3 * k + c] - cand.q[c]) & ((1 << kModeDelta[3 * m + c]) - 1))
                                                                   : cand.q[3 * k + c];
    field[12] = kModeCode[m];
    field[13] = cand.part;
    g_block = uvec4(0u);
    int header = kHeaderBits[m];
    for (int b = 0; b < header; ++b) {
        int at_map = 82 * m + b;
        int entry = int((kBitMap[at_map >> 2] >> uint(8 * (at_map & 3))) & 0xffu);
        put_bit(b, (field[entry >> 4] >> (entry & 15)) & 1);
    }
    int ib = regions == 2 ? 3 : 4;
    int at = header;
    for (int i = 0; i < 16; ++i) {
        int bits = is_anchor(regions, cand.part, i) ? ib - 1 : ib;
        for (int b = 0; b < bits; ++b) put_bit(at++, (cand.idx[i] >> b) & 1);
    }
    return g_block;
}

// The texel of face `face` at (row, col), or of its z mirror (ibl_ktx2.cpp's mirrored_in_z).
vec3 fetch(int face, int row, int col) {
    if (u_mirror_z != 0) {
        int n = u_width;
        if (face <= 1) col = n - 1 - col;
        else if (face <= 3) row = n - 1 - row;
        else {
            col = n - 1 - col;
            face = 9 - face;  // +Z <-> -Z
        }
    }
#ifdef SOURCE_BUFFER
    return source_texels[u_source_offset + uint((face * u_height + row) * u_width + col)].rgb;
#else
    return texelFetch(u_source, ivec3(col, row, face), u_level).rgb;
#endif
}

void main() {
    int blocks_wide = (u_width + 3) / 4, blocks_high = (u_height + 3) / 4;
    int block = int(gl_GlobalInvocationID.x);
    if (block >= blocks_wide * blocks_high) return;
    int face = int(gl_GlobalInvocationID.z);
    int bx = block % blocks_wide, by = block / blocks_wide;
    int rows = min(4, u_height - 4 * by), cols = min(4, u_width - 4 * bx);
    int brightest[16];
    int dimmest = 0x7bff;
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x) {
            int i = 4 * y + x;
            vec3 v = fetch(face, 4 * by + min(y, rows - 1), 4 * bx + min(x, cols - 1));
            brightest[i] = 0;
            for (int c = 0; c < 3; ++c) {
                int h = half_bits(v[c]);
                g_h[3 * i + c] = h;
                g_t[3 * i + c] = (h * 64 + 30) / 31;
                brightest[i] = max(brightest[i], h);
            }
            if (y < rows && x < cols) dimmest = min(dimmest, brightest[i]);
        }
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x) {
            int i = 4 * y + x;
            g_weight[i] = (y < rows && x < cols) ? min(16, 1 + ((brightest[i] - dimmest) >> 10)) : 0;
        }
    blocks[u_block_offset + uint(face * blocks_wide * blocks_high + block)] = pack(search());
}
