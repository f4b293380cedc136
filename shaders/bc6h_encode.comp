// BC6H_UF16 blocks of float texels, one work group of 16 invocations a block (one a texel): the
// default setting of the encoder of src/core/outputs/bc6h.cpp, in the same integers after the
// conversion to half bits, so that both write the same bytes (tests/test_gpu_bc6h.cpp). Change one,
// change the other. The thorough setting is the CPU's alone.
//
// Where the CPU loops over a block, the work group splits it: a candidate's palette by entry and
// its error by texel (evaluate_shared: the greedy refinement, whose moves depend on one another),
// or the 32 partitions and 24 mode candidates by invocation (evaluate_alone). Every decision is
// taken from values in shared memory that all invocations read alike, so control flow stays
// uniform in the group, as barrier() requires, and integer sums make the order of addition moot.
// One invocation a block, as the CPU does it, took NVIDIA's compiler minutes (the search unrolled
// into hundreds of copies) and ran 5 times slower than this on the H200 (bench/NOTES.md).
//
// Defines (src/gpu/gpu_bc6h.cpp): SOURCE_BUFFER where the texels are vec4s in a buffer (else a
// sampler2DArray: a cube map's or 2D texture's view); the tables of bc6h_tables.h as kModeCode,
// kModeRegions, kModeEpb, kModeDelta (3 a mode), kModeTransformed, kHeaderBits, kBitMap (82 bytes
// a mode, field * 16 + bit, four to a word), kPartitions, kAnchor2, kWeights3, kWeights4.
layout(local_size_x = 16) in;

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
const int kCandidateCount = 24;  // four one-region modes, then ten two-region modes on each of two partitions

shared int s_h[48];         // half bits, texel i channel c at 3 * i + c
shared int s_t[48];         // the smallest unquantized value decoding to h
shared int s_weight[16];    // 1 + whole octaves above the dimmest texel (at most 16); 0 for padding
shared int s_palette[96];   // region r, entry j, channel c at 48 * r + 3 * j + c
shared uint s_error[16];    // evaluate_shared: texel i's weighted error
shared uvec2 s_ranked[32];  // a partition's or a candidate's error
shared int s_idx[16];

int g_lane;   // the texel this invocation stands for
int g_my_h[3];

// Error sums as 64-bit values: (low, high).
uvec2 add64(uvec2 a, uint b) {
    uint carry;
    uint low = uaddCarry(a.x, b, carry);
    return uvec2(low, a.y + carry);
}
bool less64(uvec2 a, uvec2 b) { return a.y < b.y || (a.y == b.y && a.x < b.x); }
const uvec2 kNoError = uvec2(0xffffffffu, 0xffffffffu);

void sync() {
    memoryBarrierShared();
    barrier();
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
int palette_weight(int regions, int j) { return regions == 2 ? kWeights3[j & 7] : kWeights4[j]; }

int region_of(int regions, int part, int i) { return regions == 2 ? int((kPartitions[part] >> uint(i)) & 1u) : 0; }
bool is_anchor(int regions, int part, int i) { return i == 0 || (regions == 2 && i == int(kAnchor2[part])); }

// A shape: the mode's, or (mode -1) the unquantized two-region one that ranks partitions.
int shape_regions(int mode) { return mode < 0 ? 2 : kModeRegions[mode]; }
int shape_epb(int mode) { return mode < 0 ? 16 : kModeEpb[mode]; }

// Deltas clamped to the mode's range, in place (bc6h.cpp's evaluate does it first).
void clamp_deltas(int mode, inout int q[12]) {
    if (mode < 0 || kModeTransformed[mode] == 0) return;
    for (int k = 1; k < 2 * kModeRegions[mode]; ++k)
        for (int c = 0; c < 3; ++c) {
            int limit = (1 << (kModeDelta[3 * mode + c] - 1)) - 1;
            q[3 * k + c] = q[c] + clamp(q[3 * k + c] - q[c], -limit, limit);
        }
}

// bc6h.cpp's evaluate for the whole block in this invocation alone (q clamped first by the caller).
uvec2 evaluate_alone(int mode, int part, int q[12]) {
    int regions = shape_regions(mode), epb = shape_epb(mode);
    int n = regions == 2 ? 8 : 16;
    int palette[96];
    for (int r = 0; r < regions; ++r)
        for (int c = 0; c < 3; ++c) {
            int a = unquantize(q[3 * (2 * r) + c], epb), b = unquantize(q[3 * (2 * r + 1) + c], epb);
            for (int j = 0; j < n; ++j) palette[48 * r + 3 * j + c] = finish(interpolate(a, b, palette_weight(regions, j)));
        }
    uvec2 total = uvec2(0u);
    for (int i = 0; i < 16; ++i) {
        int r = region_of(regions, part, i);
        int limit = is_anchor(regions, part, i) ? n / 2 : n;
        uint best = 0xffffffffu;
        for (int j = 0; j < limit; ++j) {
            int d0 = min(abs(palette[48 * r + 3 * j] - s_h[3 * i]), kErrorCap);
            int d1 = min(abs(palette[48 * r + 3 * j + 1] - s_h[3 * i + 1]), kErrorCap);
            int d2 = min(abs(palette[48 * r + 3 * j + 2] - s_h[3 * i + 2]), kErrorCap);
            best = min(best, uint(d0 * d0) + uint(d1 * d1) + uint(d2 * d2));
        }
        total = add64(total, best * uint(s_weight[i]));
    }
    return total;
}

// The same with the whole group: invocation j makes palette entry j, invocation i finds texel i's
// nearest entry (its index in idx). Called by every invocation alike; q is clamped in place.
uvec2 evaluate_shared(int mode, int part, inout int q[12], out int idx) {
    clamp_deltas(mode, q);
    int regions = kModeRegions[mode], epb = kModeEpb[mode];
    int n = regions == 2 ? 8 : 16;
    if (g_lane < n)
        for (int r = 0; r < regions; ++r)
            for (int c = 0; c < 3; ++c) {
                int a = unquantize(q[3 * (2 * r) + c], epb), b = unquantize(q[3 * (2 * r + 1) + c], epb);
                s_palette[48 * r + 3 * g_lane + c] = finish(interpolate(a, b, palette_weight(regions, g_lane)));
            }
    sync();
    int r = region_of(regions, part, g_lane);
    int limit = is_anchor(regions, part, g_lane) ? n / 2 : n;
    uint best = 0xffffffffu;
    idx = 0;
    for (int j = 0; j < limit; ++j) {
        int d0 = min(abs(s_palette[48 * r + 3 * j] - g_my_h[0]), kErrorCap);
        int d1 = min(abs(s_palette[48 * r + 3 * j + 1] - g_my_h[1]), kErrorCap);
        int d2 = min(abs(s_palette[48 * r + 3 * j + 2] - g_my_h[2]), kErrorCap);
        uint e = uint(d0 * d0) + uint(d1 * d1) + uint(d2 * d2);
        if (e < best) {
            best = e;
            idx = j;
        }
    }
    s_error[g_lane] = best * uint(s_weight[g_lane]);
    sync();
    uvec2 total = uvec2(0u);
    for (int i = 0; i < 16; ++i) total = add64(total, s_error[i]);
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
            lo[c] = min(lo[c], s_t[3 * i + c]);
            hi[c] = max(hi[c], s_t[3 * i + c]);
            sum[c] += s_t[3 * i + c] >> 4;
        }
    }
    int k = 0;
    for (int c = 1; c < 3; ++c)
        if (hi[c] - lo[c] > hi[k] - lo[k]) k = c;
    int cov[3] = int[3](0, 0, 0);
    for (int i = 0; i < 16; ++i) {
        if (region_of(regions, part, i) != r) continue;
        int dk = (s_t[3 * i + k] >> 4) - sum[k] / count;
        for (int c = 0; c < 3; ++c) cov[c] += ((s_t[3 * i + c] >> 4) - sum[c] / count) * dk;
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
        along += ((s_t[3 * anchor + c] >> 4) - (e0[c] >> 4)) * d;
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

// Mode m's endpoints quantized from the unquantized fit e (deltas clamped).
void quantized(int m, int e[12], out int q[12]) {
    for (int k = 0; k < 12; ++k) q[k] = 0;
    for (int k = 0; k < 2 * kModeRegions[m]; ++k)
        for (int c = 0; c < 3; ++c) q[3 * k + c] = quantize(e[3 * k + c], kModeEpb[m]);
    clamp_deltas(m, q);
}

// Mode candidate k of the default search, in bc6h.cpp's order: the one-region modes, then every
// two-region mode on partition parts[0], then on parts[1]. Its mode and partition.
ivec2 candidate(int k, int parts[2]) {
    int seen = 0;
    for (int m = 0; m < kModeCount; ++m)
        if (kModeRegions[m] == 1 && seen++ == k) return ivec2(m, 0);
    for (int p = 0; p < 2; ++p)
        for (int m = 0; m < kModeCount; ++m)
            if (kModeRegions[m] == 2 && seen++ == k) return ivec2(m, parts[p]);
    return ivec2(-1, 0);
}

// The lowest error of s_ranked[0 .. count), the first of equals (bc6h.cpp keeps a later one only
// when it is strictly better).
int first_lowest(int count) {
    int best = 0;
    for (int k = 1; k < count; ++k)
        if (less64(s_ranked[k], s_ranked[best])) best = k;
    return best;
}

uvec4 g_block;
void put_bit(int at, int bit) { g_block[at >> 5] |= uint(bit) << uint(at & 31); }

uvec4 pack(int m, int part, int q[12]) {
    int regions = kModeRegions[m];
    int field[14];
    for (int f = 0; f < 14; ++f) field[f] = 0;
    for (int k = 0; k < 2 * regions; ++k)
        for (int c = 0; c < 3; ++c)
            field[3 * k + c] = (kModeTransformed[m] != 0 && k > 0) ? ((q[3 * k + c] - q[c]) & ((1 << kModeDelta[3 * m + c]) - 1)) : q[3 * k + c];
    field[12] = kModeCode[m];
    field[13] = part;
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
        int bits = is_anchor(regions, part, i) ? ib - 1 : ib;
        for (int b = 0; b < bits; ++b) put_bit(at++, (s_idx[i] >> b) & 1);
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
    // Work groups in rows of gl_NumWorkGroups.x (at most 65535 a dimension): the block's number.
    int block = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
    if (block >= blocks_wide * blocks_high) return;  // the whole group alike
    int face = int(gl_WorkGroupID.z);
    g_lane = int(gl_LocalInvocationIndex);
    int bx = block % blocks_wide, by = block / blocks_wide;
    int rows = min(4, u_height - 4 * by), cols = min(4, u_width - 4 * bx);
    int y = g_lane >> 2, x = g_lane & 3;
    bool counted = y < rows && x < cols;

    // Texel g_lane: its half bits, and the brightest channel (the weight's octaves) through s_weight.
    vec3 v = fetch(face, 4 * by + min(y, rows - 1), 4 * bx + min(x, cols - 1));
    int brightest = 0;
    for (int c = 0; c < 3; ++c) {
        int h = half_bits(v[c]);
        g_my_h[c] = h;
        s_h[3 * g_lane + c] = h;
        s_t[3 * g_lane + c] = (h * 64 + 30) / 31;
        brightest = max(brightest, h);
    }
    s_weight[g_lane] = counted ? brightest : 0x7fffffff;
    sync();
    int dimmest = 0x7bff;
    for (int i = 0; i < 16; ++i) dimmest = min(dimmest, s_weight[i]);
    sync();
    s_weight[g_lane] = counted ? min(16, 1 + ((brightest - dimmest) >> 10)) : 0;
    sync();

    // The two partitions whose unquantized fits are best: invocation l fits partitions l and l + 16.
    for (int p = g_lane; p < kPartitionCount; p += 16) {
        int e[12];
        fit_partition(2, p, e);
        s_ranked[p] = evaluate_alone(-1, p, e);
    }
    sync();
    uvec2 fit[2] = uvec2[2](kNoError, kNoError);
    int parts[2] = int[2](0, 0);
    for (int p = 0; p < kPartitionCount; ++p) {
        uvec2 err = s_ranked[p];
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
    sync();

    // The 24 mode candidates, invocation l taking candidates l and l + 16; the best of them.
    for (int k = g_lane; k < kCandidateCount; k += 16) {
        ivec2 mp = candidate(k, parts);
        int e[12], q[12];
        fit_partition(kModeRegions[mp.x], mp.y, e);
        quantized(mp.x, e, q);
        s_ranked[k] = evaluate_alone(mp.x, mp.y, q);
    }
    sync();
    ivec2 mp = candidate(first_lowest(kCandidateCount), parts);
    int mode = mp.x, part = mp.y;
    int cand_q[12];
    {
        int e[12];
        fit_partition(kModeRegions[mode], part, e);
        quantized(mode, e, cand_q);
    }
    int cand_idx;
    uvec2 cand_error = evaluate_shared(mode, part, cand_q, cand_idx);

    // Local search (bc6h.cpp's refine from 4): each quantized endpoint value moved by ±step while
    // that lowers the error, one move at a time in the CPU's order.
    int regions = kModeRegions[mode];
    int top = (1 << kModeEpb[mode]) - 1;
    for (int step = 4; step >= 1; step >>= 1) {
        bool improved = true;
        for (int round = 0; round < 4 && improved; ++round) {
            improved = false;
            for (int t = 0; t < 12 * regions; ++t) {
                int k = t / 6, c = (t % 6) / 2, dir = (t & 1) != 0 ? 1 : -1;
                int value = cand_q[3 * k + c] + dir * step;
                if (value < 0 || value > top) continue;
                int q[12] = cand_q;
                q[3 * k + c] = value;
                int idx;
                uvec2 e = evaluate_shared(mode, part, q, idx);
                if (less64(e, cand_error)) {
                    cand_error = e;
                    cand_q = q;
                    cand_idx = idx;
                    improved = true;
                }
            }
        }
    }

    s_idx[g_lane] = cand_idx;
    sync();
    if (g_lane == 0) blocks[u_block_offset + uint(face * blocks_wide * blocks_high + block)] = pack(mode, part, cand_q);
}
