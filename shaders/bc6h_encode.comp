// BC6H_UF16 blocks of float texels, 32 invocations (a warp on NVIDIA) a block, BLOCKS_A_GROUP blocks
// a work group: the default setting of the encoder of src/core/outputs/bc6h.cpp, in the same integers after the
// conversion to half bits, so that both write the same bytes (tests/test_gpu_bc6h.cpp). Change one,
// change the other. The thorough setting is the CPU's alone.
//
// Where the CPU loops over a block, its 32 invocations split it by what they try: invocation p ranks
// partition p, invocation k evaluates mode candidate k, invocation t descent move t, each over the
// whole block alone; the texels' own work (their half bits, the final indices, the packed bytes)
// goes one an invocation. Every decision is taken from values in shared memory that the block's
// invocations read alike, so control flow stays uniform in each block, and integer sums make the
// order of addition moot. The blocks of a group share its barriers: the descent, whose length
// differs from block to block, goes on until the group's last block is done.
//
// NVIDIA's compiler keeps an array indexed at run time in local memory, per invocation: the tables
// live in a storage buffer, a candidate's endpoints are four vectors, and the palettes are indexed
// only by the counters of loops it unrolls. Even so each invocation holds so many registers that
// an H200 multiprocessor runs 20 warps at once (of 64); four blocks a group rather than one took
// the 6x256^2 chain from 5.7 to 4.0 ms there. Its time moves by tens of percent with changes that
// do the same work (bench/NOTES.md): measure every change on the card.
//
// Prepended by src/gpu/gpu_bc6h.cpp: BLOCKS_A_GROUP and GROUP_INVOCATIONS (32 times it);
// SOURCE_BUFFER where the texels are floats in buffers (else a sampler2DArray: a cube map's or 2D
// texture's view); the storage block (binding 2) of the tables of bc6h_tables.h: kModeCode,
// kModeRegions, kModeEpb, kModeDelta (3 a mode), kModeTransformed, kHeaderBits, kBitMap (82 bytes a
// mode, field * 16 + bit, four to a word), kPartitions, kAnchor2, kWeights3, kWeights4; and the
// weights again as constant arrays, kWeights3Unrolled and kWeights4Unrolled, for the palettes'
// loops: indexed there only by the counters of unrolled loops, they become immediates (the
// storage block's cost a load each: 5-6% of the encoder's time on the H200).
layout(local_size_x = GROUP_INVOCATIONS) in;

#ifdef SOURCE_BUFFER
// Two, so that a chain whose level 0 lies elsewhere (GpuSpecularPrefilter's) is one run.
layout(std430, binding = 0) readonly buffer Source { float source_floats[]; };
layout(std430, binding = 3) readonly buffer SecondSource { float second_source_floats[]; };
#else
uniform sampler2DArray u_source;
#endif
layout(std430, binding = 1) writeonly buffer Blocks { uvec4 blocks[]; };

// One dispatch encodes a run of levels, u_first_level onwards, their blocks numbered one after
// another (level by level, face by face, rows of blocks top first): a level too small to fill the
// card then runs beside the others rather than alone, for as long as one group takes.
const int kMaxLevels = 16;
uniform int u_width;                    // level 0's size
uniform int u_height;
uniform int u_first_level;
uniform int u_levels;                   // levels in the run, at most kMaxLevels
uniform uint u_level_end[kMaxLevels];   // the run's blocks up to the end of its level i
uniform uint u_source_offset[kMaxLevels]; // buffers: the run's level i's first float,
uniform uint u_source_stride[kMaxLevels]; // its floats a texel, RGB first (3: RGB, 4: RGBA),
uniform int u_second_source[kMaxLevels];  // 1: in SecondSource
uniform uint u_block_offset;            // the run's first block in `blocks`
uniform int u_mirror_z;                 // 1: face f texel (row, col) from the texel mirrored in z (Bevy's layout)

const int kErrorCap = 8191;
const int kModeCount = 14;
const int kPartitionCount = 32;
const int kCandidateCount = 24;  // four one-region modes, then ten two-region modes on each of two partitions
const int kDescentTries = 8;     // bc6h.cpp's

// A candidate's quantized endpoints: region 0 from a0 to b0, region 1 from a1 to b1 (bc6h.cpp's
// q[0..3]), four vectors rather than an array.
struct Ends {
    ivec3 a0, b0, a1, b1;
};

shared ivec3 s_h[BLOCKS_A_GROUP][16];        // texel i's half bits
shared ivec3 s_t[BLOCKS_A_GROUP][16];        // the smallest unquantized values decoding to them
shared int s_weight[BLOCKS_A_GROUP][16];     // 1 + whole octaves above the dimmest texel (at most 16); 0 for padding
shared ivec3 s_palette[BLOCKS_A_GROUP][32];  // nearest_index: region r's entry j at 16 * r + j
shared uvec2 s_ranked[BLOCKS_A_GROUP][32];   // a partition's or a candidate's error
shared Ends s_fit[BLOCKS_A_GROUP][32];       // partition p's two-region fit, unquantized
shared uvec2 s_half[BLOCKS_A_GROUP][4];      // the one-region candidates' errors over texels 8 .. 15
shared uvec2 s_move[BLOCKS_A_GROUP][2][32];  // the descent's moves' errors, two sets used in turn
shared int s_descending[2][BLOCKS_A_GROUP];  // 1: the block's descent goes on (same two sets)
shared int s_idx[BLOCKS_A_GROUP][16];
shared uint s_byte[BLOCKS_A_GROUP][16];      // the packed block, byte by byte

int g_warp;     // the group's block this invocation works on, 0 .. BLOCKS_A_GROUP-1
int g_lane;     // 0 .. 31 in its block; below 16, the texel it stands for
ivec3 g_h;      // its half bits
ivec3 g_low, g_high;  // the least and the greatest half bits of the block's texels, a channel each
int g_level;    // its block's level (the run's g_run_level), and that level's size
int g_run_level;
int g_width, g_height;

int component(ivec3 v, int c) { return c == 0 ? v.x : (c == 1 ? v.y : v.z); }
ivec3 end_of(Ends q, int k) { return k == 0 ? q.a0 : (k == 1 ? q.b0 : (k == 2 ? q.a1 : q.b1)); }

// Error sums as 64-bit values: (low, high).
uvec2 add64(uvec2 a, uint b) {
    uint carry;
    uint low = uaddCarry(a.x, b, carry);
    return uvec2(low, a.y + carry);
}
uvec2 add64(uvec2 a, uvec2 b) { return add64(a, b.x) + uvec2(0u, b.y); }
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
ivec3 unquantize3(ivec3 q, int epb) { return ivec3(unquantize(q.x, epb), unquantize(q.y, epb), unquantize(q.z, epb)); }

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
ivec3 quantize3(ivec3 x, int epb) { return ivec3(quantize(x.x, epb), quantize(x.y, epb), quantize(x.z, epb)); }

int finish(int x) { return (x * 31) >> 6; }
// ((64 - w) * a + w * b + 32) >> 6 (the specification's), with one product: 64 * a shifts out whole.
int interpolate(int a, int b, int w) { return a + ((w * (b - a) + 32) >> 6); }
ivec3 palette_entry(ivec3 a, ivec3 b, int w) {
    return ivec3(finish(interpolate(a.x, b.x, w)), finish(interpolate(a.y, b.y, w)), finish(interpolate(a.z, b.z, w)));
}
int palette_weight(int regions, int j) { return regions == 2 ? kWeights3[j & 7] : kWeights4[j]; }

uint texel_error(ivec3 p, ivec3 h) {
    ivec3 d = min(abs(p - h), ivec3(kErrorCap));
    return uint(d.x * d.x + d.y * d.y + d.z * d.z);  // at most 3 * 8191^2 < 2^31
}

// The evaluations' texel_error, without its cap where may_cap found that it cannot act (the same
// value). Each evaluation's loop is made for capped false and for true, and a block's invocations
// take the same one but beside a sun: the cap's abs and min were a tenth of the encoder's time.
uint entry_error(ivec3 p, ivec3 h, bool capped) {
    if (capped) return texel_error(p, h);
    ivec3 d = p - h;
    return uint(d.x * d.x + d.y * d.y + d.z * d.z);
}

// Whether an entry of the palettes from a0 to b0 and a1 to b1 (unquantized) can lie further than
// kErrorCap from a texel of the block in a channel. An entry lies between its finished endpoints
// (interpolate and finish are monotone), the texels within g_low .. g_high.
bool may_cap(ivec3 a0, ivec3 b0, ivec3 a1, ivec3 b1) {
    ivec3 lo = ivec3(finish(min(min(a0.x, b0.x), min(a1.x, b1.x))), finish(min(min(a0.y, b0.y), min(a1.y, b1.y))),
                     finish(min(min(a0.z, b0.z), min(a1.z, b1.z))));
    ivec3 hi = ivec3(finish(max(max(a0.x, b0.x), max(a1.x, b1.x))), finish(max(max(a0.y, b0.y), max(a1.y, b1.y))),
                     finish(max(max(a0.z, b0.z), max(a1.z, b1.z))));
    return any(greaterThan(max(hi - g_low, g_high - lo), ivec3(kErrorCap)));
}

int region_of(int regions, int part, int i) { return regions == 2 ? int((kPartitions[part] >> uint(i)) & 1u) : 0; }
bool is_anchor(int regions, int part, int i) { return i == 0 || (regions == 2 && i == int(kAnchor2[part])); }

// Deltas clamped to the mode's range (bc6h.cpp's evaluate does it first).
Ends clamp_deltas(int mode, Ends q) {
    if (kModeTransformed[mode] == 0) return q;
    ivec3 limit = (ivec3(1) << (ivec3(kModeDelta[3 * mode], kModeDelta[3 * mode + 1], kModeDelta[3 * mode + 2]) - 1)) - 1;
    q.b0 = q.a0 + clamp(q.b0 - q.a0, -limit, limit);
    if (kModeRegions[mode] == 2) {
        q.a1 = q.a0 + clamp(q.a1 - q.a0, -limit, limit);
        q.b1 = q.a0 + clamp(q.b1 - q.a0, -limit, limit);
    }
    return q;
}

uvec2 fit_sum(int part, ivec3 pal0[8], ivec3 pal1[8], bool capped) {
    uvec2 total = uvec2(0u);
    for (int i = 0; i < 16; ++i) {
        ivec3 h = s_h[g_warp][i];
        bool second = region_of(2, part, i) == 1;
        int limit = is_anchor(2, part, i) ? 4 : 8;
        uint best = 0xffffffffu;
        for (int j = 0; j < 8; ++j)
            if (j < limit) best = min(best, entry_error(second ? pal1[j] : pal0[j], h, capped));
        total = add64(total, best * uint(s_weight[g_warp][i]));
    }
    return total;
}

// Partition part's rank: the error of its unquantized two-region fit e (bc6h.cpp's evaluate of
// kUnquantized2), in this invocation alone. The palettes are indexed only by the counters of loops
// of constant length, which the compiler unrolls: they stay in registers.
uvec2 evaluate_fit(int part, Ends e) {
    ivec3 pal0[8], pal1[8];
    for (int j = 0; j < 8; ++j) {
        pal0[j] = palette_entry(e.a0, e.b0, kWeights3Unrolled[j]);
        pal1[j] = palette_entry(e.a1, e.b1, kWeights3Unrolled[j]);
    }
    return may_cap(e.a0, e.b0, e.a1, e.b1) ? fit_sum(part, pal0, pal1, true) : fit_sum(part, pal0, pal1, false);
}

uvec2 two_regions_sum(int part, ivec3 pal0[8], ivec3 pal1[8], bool capped) {
    uvec2 total = uvec2(0u);
    for (int i = 0; i < 16; ++i) {
        ivec3 h = s_h[g_warp][i];
        bool anchor = is_anchor(2, part, i);
        uint best = 0xffffffffu;
        if (region_of(2, part, i) == 1) {
            for (int j = 0; j < 4; ++j) best = min(best, entry_error(pal1[j], h, capped));
            if (!anchor)
                for (int j = 4; j < 8; ++j) best = min(best, entry_error(pal1[j], h, capped));
        } else {
            for (int j = 0; j < 4; ++j) best = min(best, entry_error(pal0[j], h, capped));
            if (!anchor)
                for (int j = 4; j < 8; ++j) best = min(best, entry_error(pal0[j], h, capped));
        }
        total = add64(total, best * uint(s_weight[g_warp][i]));
    }
    return total;
}

// A two-region mode's error (q clamped) where every invocation has the same partition (the
// descent's): a texel's region, and whether it is an anchor (half the palette), taken by branches
// all invocations take alike, rather than a select or a test per palette entry.
uvec2 evaluate_two_regions(int mode, int part, Ends q) {
    int epb = kModeEpb[mode];
    ivec3 a0 = unquantize3(q.a0, epb), b0 = unquantize3(q.b0, epb), a1 = unquantize3(q.a1, epb), b1 = unquantize3(q.b1, epb);
    ivec3 pal0[8], pal1[8];
    for (int j = 0; j < 8; ++j) {
        pal0[j] = palette_entry(a0, b0, kWeights3Unrolled[j]);
        pal1[j] = palette_entry(a1, b1, kWeights3Unrolled[j]);
    }
    return may_cap(a0, b0, a1, b1) ? two_regions_sum(part, pal0, pal1, true) : two_regions_sum(part, pal0, pal1, false);
}

uvec2 candidate_sum(bool two, int part, int first, ivec3 pal0[8], ivec3 pal1[8], bool capped) {
    uvec2 total = uvec2(0u);
    uint previous = 0u;
    for (int step = 0; step < 16; ++step) {
        int i = two ? step : first + (step >> 1);
        bool second = two ? region_of(2, part, i) == 1 : (step & 1) != 0;
        int limit = two ? (is_anchor(2, part, i) ? 4 : 8) : (i == 0 && second ? 0 : 8);
        ivec3 h = s_h[g_warp][i];
        uint best = 0xffffffffu;
        for (int j = 0; j < 8; ++j)
            if (j < limit) best = min(best, entry_error(second ? pal1[j] : pal0[j], h, capped));
        if (two || second) total = add64(total, (two ? best : min(best, previous)) * uint(s_weight[g_warp][i]));
        previous = best;
    }
    return total;
}

// A mode candidate's error (q clamped) in one loop shape for both kinds, so that a warp evaluating
// one-region and two-region candidates side by side runs one loop, not each kind's in turn: 16
// steps, each the least error over 8 entries of a palette pair. Two regions: step i is texel i, the
// pair the two regions' palettes. One region (texels first .. first+7): the 16-entry palette as two
// halves, step i texel first + i / 2 against half i % 2, a texel's error the lesser of its two (a
// half of the block takes as long as a two-region candidate).
uvec2 evaluate_candidate(int mode, int part, Ends q, int first) {
    bool two = kModeRegions[mode] == 2;
    int epb = kModeEpb[mode];
    ivec3 a0 = unquantize3(q.a0, epb), b0 = unquantize3(q.b0, epb);
    ivec3 a1 = two ? unquantize3(q.a1, epb) : a0, b1 = two ? unquantize3(q.b1, epb) : b0;
    ivec3 pal0[8], pal1[8];
    for (int j = 0; j < 8; ++j) {
        pal0[j] = palette_entry(a0, b0, two ? kWeights3Unrolled[j] : kWeights4Unrolled[j]);
        pal1[j] = palette_entry(a1, b1, two ? kWeights3Unrolled[j] : kWeights4Unrolled[8 + j]);
    }
    return may_cap(a0, b0, a1, b1) ? candidate_sum(two, part, first, pal0, pal1, true)
                                  : candidate_sum(two, part, first, pal0, pal1, false);
}

uvec2 one_region_sum(int first, ivec3 pal0[8], ivec3 pal1[8], bool capped) {
    uvec2 total = uvec2(0u);
    uint previous = 0u;
    for (int step = 0; step < 16; ++step) {
        int i = first + (step >> 1);
        bool second = (step & 1) != 0;
        ivec3 h = s_h[g_warp][i];
        uint best = 0xffffffffu;
        if (!second || i != 0)  // texel 0, the anchor, takes the first half alone
            for (int j = 0; j < 8; ++j) best = min(best, entry_error(second ? pal1[j] : pal0[j], h, capped));
        if (second) total = add64(total, min(best, previous) * uint(s_weight[g_warp][i]));
        previous = best;
    }
    return total;
}

// evaluate_candidate's one-region kind alone (the descent's, where every invocation has the same
// mode): the half a step takes is then known where the loop unrolls, not a select per entry.
uvec2 evaluate_one_region(int mode, Ends q, int first) {
    int epb = kModeEpb[mode];
    ivec3 a0 = unquantize3(q.a0, epb), b0 = unquantize3(q.b0, epb);
    ivec3 pal0[8], pal1[8];
    for (int j = 0; j < 8; ++j) {
        pal0[j] = palette_entry(a0, b0, kWeights4Unrolled[j]);
        pal1[j] = palette_entry(a0, b0, kWeights4Unrolled[8 + j]);
    }
    return may_cap(a0, b0, a0, b0) ? one_region_sum(first, pal0, pal1, true) : one_region_sum(first, pal0, pal1, false);
}

// The index of this invocation's texel (below 16) for endpoints q (clamped): the nearest entry of
// its region's palette, invocation j making entry j. Called by every invocation alike.
int nearest_index(int mode, int part, Ends q) {
    int regions = kModeRegions[mode], epb = kModeEpb[mode];
    int n = regions == 2 ? 8 : 16;
    if (g_lane < n) {
        int w = palette_weight(regions, g_lane);
        s_palette[g_warp][g_lane] = palette_entry(unquantize3(q.a0, epb), unquantize3(q.b0, epb), w);
        if (regions == 2) s_palette[g_warp][16 + g_lane] = palette_entry(unquantize3(q.a1, epb), unquantize3(q.b1, epb), w);
    }
    sync();
    int idx = 0;
    if (g_lane < 16) {
        int base = 16 * region_of(regions, part, g_lane);
        int limit = is_anchor(regions, part, g_lane) ? n / 2 : n;
        uint best = 0xffffffffu;
        for (int j = 0; j < limit; ++j) {
            uint e = texel_error(s_palette[g_warp][base + j], g_h);
            if (e < best) {
                best = e;
                idx = j;
            }
        }
    }
    return idx;
}

// Unquantized endpoints of region r (see bc6h.cpp's fit_region): e0 on the anchor's side, then e1.
void fit_region(int regions, int part, int r, out ivec3 e0, out ivec3 e1) {
    ivec3 lo = ivec3(0xffff), hi = ivec3(0), sum = ivec3(0);
    int count = 0;
    for (int i = 0; i < 16; ++i) {
        if (region_of(regions, part, i) != r) continue;
        ++count;
        ivec3 t = s_t[g_warp][i];
        lo = min(lo, t);
        hi = max(hi, t);
        sum += t >> 4;
    }
    ivec3 span = hi - lo;
    int k = span.y > span.x ? 1 : 0;
    if (span.z > component(span, k)) k = 2;
    ivec3 mean = sum / count;  // sums of non-negative values: the CPU's truncation
    ivec3 cov = ivec3(0);
    for (int i = 0; i < 16; ++i) {
        if (region_of(regions, part, i) != r) continue;
        ivec3 d = (s_t[g_warp][i] >> 4) - mean;
        cov += d * component(d, k);
    }
    e0 = ivec3(cov.x >= 0 ? lo.x : hi.x, cov.y >= 0 ? lo.y : hi.y, cov.z >= 0 ? lo.z : hi.z);
    e1 = ivec3(cov.x >= 0 ? hi.x : lo.x, cov.y >= 0 ? hi.y : lo.y, cov.z >= 0 ? hi.z : lo.z);
    int anchor = r == 0 ? 0 : int(kAnchor2[part]);
    ivec3 d = (e1 >> 4) - (e0 >> 4);
    ivec3 along = ((s_t[g_warp][anchor] >> 4) - (e0 >> 4)) * d;
    ivec3 len = d * d;
    if (2 * (along.x + along.y + along.z) > len.x + len.y + len.z) {
        ivec3 swap = e0;
        e0 = e1;
        e1 = swap;
    }
}

Ends fit_partition(int regions, int p) {
    Ends e;
    fit_region(regions, p, 0, e.a0, e.b0);
    e.a1 = ivec3(0);
    e.b1 = ivec3(0);
    if (regions == 2) fit_region(regions, p, 1, e.a1, e.b1);
    return e;
}

// Mode m's endpoints quantized from the unquantized fit e (deltas clamped).
Ends quantized(int m, Ends e) {
    int epb = kModeEpb[m];
    Ends q;
    q.a0 = quantize3(e.a0, epb);
    q.b0 = quantize3(e.b0, epb);
    q.a1 = kModeRegions[m] == 2 ? quantize3(e.a1, epb) : ivec3(0);
    q.b1 = kModeRegions[m] == 2 ? quantize3(e.b1, epb) : ivec3(0);
    return clamp_deltas(m, q);
}

// Mode candidate k of the default search, in bc6h.cpp's order: the one-region modes, then every
// two-region mode on partition part0, then on part1. Its mode and partition.
ivec2 candidate(int k, int part0, int part1) {
    int seen = 0;
    for (int m = 0; m < kModeCount; ++m)
        if (kModeRegions[m] == 1 && seen++ == k) return ivec2(m, 0);
    for (int m = 0; m < kModeCount; ++m)
        if (kModeRegions[m] == 2 && seen++ == k) return ivec2(m, part0);
    for (int m = 0; m < kModeCount; ++m)
        if (kModeRegions[m] == 2 && seen++ == k) return ivec2(m, part1);
    return ivec2(-1, 0);
}

// The lowest error of the block's s_ranked[0 .. count), the first of equals (bc6h.cpp keeps a later one only
// when it is strictly better).
int first_lowest(int count) {
    int best = 0;
    for (int k = 1; k < count; ++k)
        if (less64(s_ranked[g_warp][k], s_ranked[g_warp][best])) best = k;
    return best;
}

// The value of bc6h.cpp's pack field f (endpoint k = f / 3 channel f % 3, or deltas from a0; 12:
// the mode number; 13: the partition).
int field_value(int m, int part, Ends q, int f) {
    if (f == 12) return kModeCode[m];
    if (f == 13) return part;
    int k = f / 3, c = f % 3;
    int v = component(end_of(q, k), c);
    if (kModeTransformed[m] != 0 && k > 0) v = (v - component(q.a0, c)) & ((1 << kModeDelta[3 * m + c]) - 1);
    return v;
}

// The block (bc6h.cpp's pack), invocation l making byte l: bits 8l .. 8l + 7, header bits from the
// mode's bit map, then the indices (anchors one bit short). Called by every invocation alike.
uvec4 pack(int m, int part, Ends q) {
    int regions = kModeRegions[m];
    int header = kHeaderBits[m];
    int ib = regions == 2 ? 3 : 4;
    uint byte_value = 0u;
    for (int b = 0; b < 8 && g_lane < 16; ++b) {
        int at = 8 * g_lane + b, bit = 0;
        if (at < header) {
            int at_map = 82 * m + at;
            int entry = int((kBitMap[at_map >> 2] >> uint(8 * (at_map & 3))) & 0xffu);
            bit = (field_value(m, part, q, entry >> 4) >> (entry & 15)) & 1;
        } else {
            // Texel i's index starts at bit i * ib - 1 of them (past the first anchor's short one),
            // one bit earlier past the second anchor's.
            int offset = at - header;
            int second = regions == 2 ? int(kAnchor2[part]) : 16;
            int i = (offset + 2) / ib > second ? (offset + 2) / ib : (offset + 1) / ib;
            int start = i == 0 ? 0 : i * ib - 1 - (i > second ? 1 : 0);
            bit = (s_idx[g_warp][i] >> (offset - start)) & 1;
        }
        byte_value |= uint(bit) << uint(b);
    }
    if (g_lane < 16) s_byte[g_warp][g_lane] = byte_value;
    sync();
    uvec4 block;
    for (int w = 0; w < 4; ++w)
        block[w] = s_byte[g_warp][4 * w] | (s_byte[g_warp][4 * w + 1] << 8) | (s_byte[g_warp][4 * w + 2] << 16) | (s_byte[g_warp][4 * w + 3] << 24);
    return block;
}

// Move t of the descent on q: endpoint t / 6, channel (t % 6) / 2, down by 1 for even t, up
// for odd; a0.x = -1 where it leaves the mode's range [0, top].
Ends moved(Ends q, int t, int top) {
    int k = t / 6, c = (t % 6) / 2, dir = (t & 1) != 0 ? 1 : -1;
    ivec3 by = ivec3(equal(ivec3(c), ivec3(0, 1, 2))) * dir;
    int value = component(end_of(q, k) + by, c);
    if (k == 0) q.a0 += by;
    else if (k == 1) q.b0 += by;
    else if (k == 2) q.a1 += by;
    else q.b1 += by;
    if (value < 0 || value > top) q.a0.x = -1;
    return q;
}

// The texel of face `face` at (row, col), or of its z mirror (ibl_ktx2.cpp's mirrored_in_z).
vec3 fetch(int face, int row, int col) {
    if (u_mirror_z != 0) {
        int n = g_width;
        if (face <= 1) col = n - 1 - col;
        else if (face <= 3) row = n - 1 - row;
        else {
            col = n - 1 - col;
            face = 9 - face;  // +Z <-> -Z
        }
    }
#ifdef SOURCE_BUFFER
    uint at = u_source_offset[g_run_level] + u_source_stride[g_run_level] * uint((face * g_height + row) * g_width + col);
    if (u_second_source[g_run_level] != 0)
        return vec3(second_source_floats[at], second_source_floats[at + 1u], second_source_floats[at + 2u]);
    return vec3(source_floats[at], source_floats[at + 1u], source_floats[at + 2u]);
#else
    return texelFetch(u_source, ivec3(col, row, face), g_level).rgb;
#endif
}

void main() {
    // Work groups in rows of gl_NumWorkGroups.x (at most 65535 a dimension): the block's number in
    // the run. A group's blocks past the run's last encode that one again, unwritten (barriers need
    // them). The blocks of one group may be of different levels.
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint run_blocks = u_level_end[u_levels - 1];
    if (group * uint(BLOCKS_A_GROUP) >= run_blocks) return;  // the whole group alike
    g_warp = int(gl_LocalInvocationIndex) >> 5;
    uint run_block = group * uint(BLOCKS_A_GROUP) + uint(g_warp);
    bool valid = run_block < run_blocks;
    run_block = min(run_block, run_blocks - 1u);
    g_run_level = 0;
    while (run_block >= u_level_end[g_run_level]) ++g_run_level;
    g_level = u_first_level + g_run_level;
    g_width = max(1, u_width >> g_level);
    g_height = max(1, u_height >> g_level);
    int blocks_wide = (g_width + 3) / 4, blocks_high = (g_height + 3) / 4;
    int in_level = int(run_block - (g_run_level == 0 ? 0u : u_level_end[g_run_level - 1]));
    int face = in_level / (blocks_wide * blocks_high);
    int block = in_level % (blocks_wide * blocks_high);
    g_lane = int(gl_LocalInvocationIndex) & 31;
    int texel = g_lane & 15;
    int bx = block % blocks_wide, by = block / blocks_wide;
    int rows = min(4, g_height - 4 * by), cols = min(4, g_width - 4 * bx);
    int y = texel >> 2, x = texel & 3;
    bool counted = y < rows && x < cols;

    // Texel g_lane: its half bits, and the brightest channel (the weight's octaves) through s_weight.
    vec3 v = fetch(face, 4 * by + min(y, rows - 1), 4 * bx + min(x, cols - 1));
    g_h = ivec3(half_bits(v.r), half_bits(v.g), half_bits(v.b));
    int brightest = max(g_h.x, max(g_h.y, g_h.z));
    if (g_lane < 16) {
        s_h[g_warp][texel] = g_h;
        s_t[g_warp][texel] = (g_h * 64 + 30) / 31;
        s_weight[g_warp][texel] = counted ? brightest : 0x7fffffff;
    }
    sync();
    g_low = ivec3(0x7fff);
    g_high = ivec3(0);
    for (int i = 0; i < 16; ++i) {
        g_low = min(g_low, s_h[g_warp][i]);
        g_high = max(g_high, s_h[g_warp][i]);
    }
    int dimmest = 0x7bff;
    for (int i = 0; i < 16; ++i) dimmest = min(dimmest, s_weight[g_warp][i]);
    sync();
    if (g_lane < 16) s_weight[g_warp][texel] = counted ? min(16, 1 + ((brightest - dimmest) >> 10)) : 0;
    sync();

    // The two partitions whose unquantized fits are best: invocation p fits partition p, and keeps
    // the fit for the candidates.
    Ends fit = fit_partition(2, g_lane);
    s_fit[g_warp][g_lane] = fit;
    s_ranked[g_warp][g_lane] = evaluate_fit(g_lane, fit);
    sync();
    uvec2 fit0 = kNoError, fit1 = kNoError;
    int part0 = 0, part1 = 0;
    for (int p = 0; p < kPartitionCount; ++p) {
        uvec2 err = s_ranked[g_warp][p];
        if (less64(err, fit0)) {
            fit1 = fit0;
            part1 = part0;
            fit0 = err;
            part0 = p;
        } else if (less64(err, fit1)) {
            fit1 = err;
            part1 = p;
        }
    }
    sync();

    // The 24 mode candidates, invocation k taking candidate k; the best of them. The one-region
    // candidates (0 .. 3) have twice the palette: invocations 24 .. 27 take their texels 8 .. 15.
    if (g_lane < 28) {
        int k = g_lane < kCandidateCount ? g_lane : g_lane - kCandidateCount;
        ivec2 mp = candidate(k, part0, part1);
        Ends e = kModeRegions[mp.x] == 1 ? fit_partition(1, 0) : s_fit[g_warp][mp.y];
        uvec2 error = evaluate_candidate(mp.x, mp.y, quantized(mp.x, e), g_lane >= kCandidateCount ? 8 : 0);
        if (g_lane < kCandidateCount) s_ranked[g_warp][g_lane] = error;
        else s_half[g_warp][k] = error;
    }
    sync();
    if (g_lane < 4) {
        s_ranked[g_warp][g_lane] = add64(s_ranked[g_warp][g_lane], s_half[g_warp][g_lane]);
    }
    sync();
    int chosen = first_lowest(kCandidateCount);
    ivec2 mp = candidate(chosen, part0, part1);
    int mode = mp.x, part = mp.y;
    Ends cand = quantized(mode, kModeRegions[mode] == 1 ? fit_partition(1, 0) : s_fit[g_warp][part]);
    uvec2 cand_error = s_ranked[g_warp][chosen];

    // Steepest descent (bc6h.cpp's descend): each try evaluates every move of one endpoint value
    // by ±1, invocation t taking move t (a one-region mode's 12 moves split in halves of the block,
    // invocations t and t + 12: its palette is twice as long), and takes the lowest error below the
    // candidate's (the first of equals), at most kDescentTries times. A try of every block of the
    // group at once, one barrier a try, until none of them goes on. The errors alternate between
    // two sets: a set is written again two tries after it was read, past the barrier every
    // invocation crosses after reading it.
    int moves = 12 * kModeRegions[mode];
    bool one = kModeRegions[mode] == 1;
    int top = (1 << kModeEpb[mode]) - 1;
    bool descending = true;
    for (int tr = 0; tr < kDescentTries; ++tr) {
        int set = tr & 1;
        uvec2 e = kNoError;
        if (descending && g_lane < 24) {
            Ends q = moved(cand, one ? g_lane % 12 : g_lane, top);
            if (q.a0.x >= 0)
                e = one ? evaluate_one_region(mode, clamp_deltas(mode, q), g_lane < 12 ? 0 : 8)
                        : evaluate_two_regions(mode, part, clamp_deltas(mode, q));
        }
        s_move[g_warp][set][g_lane] = e;
        if (g_lane == 0) s_descending[set][g_warp] = descending ? 1 : 0;
        sync();
        bool any = false;
        for (int w = 0; w < BLOCKS_A_GROUP; ++w) any = any || s_descending[set][w] != 0;
        if (!any) break;
        if (descending) {
            int taken = -1;
            for (int t = 0; t < moves; ++t) {
                uvec2 et = s_move[g_warp][set][t];
                if (one && et != kNoError) et = add64(et, s_move[g_warp][set][t + 12]);
                if (less64(et, cand_error)) {
                    cand_error = et;
                    taken = t;
                }
            }
            if (taken >= 0) cand = clamp_deltas(mode, moved(cand, taken, top));
            else descending = false;
        }
    }
    int cand_idx = nearest_index(mode, part, cand);
    if (g_lane < 16) s_idx[g_warp][g_lane] = cand_idx;
    sync();
    uvec4 encoded = pack(mode, part, cand);
    if (valid && g_lane == 0) blocks[u_block_offset + run_block] = encoded;
}
