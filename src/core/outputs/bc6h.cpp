#include "bc6h.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "bc6h_tables.h"
#include "gpu_formats.h"
#include "packed_image.h"
#include "parallel.h"

// Written as plain loops over ints: the default setting is the same arithmetic, in the same order
// of decisions, as shaders/bc6h_encode.comp (which splits each block over a work group), so that the
// two write the same bytes; change one, change the other (tests/test_gpu_bc6h.cpp compares them).
namespace bake {
namespace {

constexpr int kErrorCap = 8191;  // half-float steps; see bc6h.h

struct Texels {
    int h[16][3];  // half-float bits, 0..0x7bff
    int t[16][3];  // the smallest unquantized value x with x * 31 / 64 == h: what interpolation aims at
    int weight[16];  // 1 + whole octaves above the block's dimmest texel (by largest channel), at most 16;
                     // 0 for texels that only pad the block
    int low[3], high[3];  // the least and the greatest h of the 16, a channel each
};

struct Candidate {
    int mode = -1;       // index into kBc6hModes
    int partition = 0;
    int q[4][3] = {};    // quantized endpoints (absolute, after the deltas' clamp)
    std::uint64_t error = ~std::uint64_t{0};
};

// Shape of a fit: the mode's, or an unquantized one for ranking partitions.
struct Shape {
    int regions, epb, delta[3];
    bool transformed;
};
Shape shape_of(int mode) {
    const Bc6hMode& m = kBc6hModes[mode];
    return {m.regions, m.epb, {m.delta[0], m.delta[1], m.delta[2]}, m.transformed};
}
constexpr Shape kUnquantized2 = {2, 16, {16, 16, 16}, false};

int unquantize(int q, int epb) {
    if (epb >= 15) return q;
    if (q == 0) return 0;
    if (q == (1 << epb) - 1) return 0xffff;
    return ((q << 15) + 0x4000) >> (epb - 1);
}

// The q whose unquantized value is nearest x (ties: the lower q).
int quantize(int x, int epb) {
    const int top = (1 << epb) - 1;
    const int guess = x >> (16 - epb);
    int best = 0, best_d = 0x7fffffff;
    for (int q = std::max(guess - 1, 0); q <= std::min(guess + 1, top); ++q) {
        const int d = std::abs(unquantize(q, epb) - x);
        if (d < best_d) {
            best_d = d;
            best = q;
        }
    }
    return best;
}

int finish(int x) { return (x * 31) >> 6; }
int interpolate(int a, int b, int w) { return ((64 - w) * a + w * b + 32) >> 6; }

std::uint32_t texel_error(const int p[3], const int h[3]) {
    std::uint32_t e = 0;
    for (int c = 0; c < 3; ++c) {
        const int d = std::min(std::abs(p[c] - h[c]), kErrorCap);
        e += static_cast<std::uint32_t>(d * d);
    }
    return e;
}

int region_of(int regions, int partition, int i) { return regions == 2 ? (kBc6hPartitions[partition] >> i) & 1 : 0; }
bool is_anchor(int regions, int partition, int i) { return i == 0 || (regions == 2 && i == kBc6hAnchor2[partition]); }

// The shape's palettes for quantized endpoints q (deltas clamped to the shape's range, in place):
// region r's entry j at palette[r][j]; its entries' count.
int palettes(const Shape& s, int q[4][3], int palette[2][16][3]) {
    const int ends = 2 * s.regions;
    if (s.transformed) {
        for (int k = 1; k < ends; ++k)
            for (int c = 0; c < 3; ++c) {
                const int limit = (1 << (s.delta[c] - 1)) - 1;  // symmetric, so either endpoint can lead
                q[k][c] = q[0][c] + std::clamp(q[k][c] - q[0][c], -limit, limit);
            }
    }
    const int n = s.regions == 2 ? 8 : 16;
    const std::uint8_t* w = s.regions == 2 ? kBc6hWeights3.data() : kBc6hWeights4.data();
    for (int r = 0; r < s.regions; ++r)
        for (int c = 0; c < 3; ++c) {
            const int a = unquantize(q[2 * r][c], s.epb), b = unquantize(q[2 * r + 1][c], s.epb);
            for (int j = 0; j < n; ++j) palette[r][j][c] = finish(interpolate(a, b, w[j]));
        }
    return n;
}

// Texel i's least error over the first `limit` entries of `palette`; texel_error's cap left out
// where it cannot act (`capped` false), the same value.
template <bool Capped>
std::uint32_t least_error(const int palette[16][3], int limit, const int h[3]) {
    std::uint32_t best = 0xffffffffu;
    for (int j = 0; j < limit; ++j) {
        std::uint32_t e;
        if (Capped) {
            e = texel_error(palette[j], h);
        } else {
            const int dx = palette[j][0] - h[0], dy = palette[j][1] - h[1], dz = palette[j][2] - h[2];
            e = static_cast<std::uint32_t>(dx * dx + dy * dy + dz * dz);
        }
        best = std::min(best, e);
    }
    return best;
}

// The decoded block's error for quantized endpoints q (deltas clamped in place). The cap of
// texel_error acts only where an entry can lie further than kErrorCap from a texel in a channel:
// the entries lie between their finished endpoints (interpolate and finish are monotone), the
// texels between tx.low and tx.high. Elsewhere the error without it is the same, and cheaper (with
// the indices found once, in nearest_indices: the encoder 1.4-1.6x faster, bench/NOTES.md).
std::uint64_t evaluate(const Texels& tx, const Shape& s, int partition, int q[4][3]) {
    int palette[2][16][3];
    const int n = palettes(s, q, palette);
    bool capped = false;
    for (int r = 0; r < s.regions; ++r)
        for (int c = 0; c < 3; ++c) {
            const int lo = std::min(palette[r][0][c], palette[r][n - 1][c]), hi = std::max(palette[r][0][c], palette[r][n - 1][c]);
            capped = capped || hi - tx.low[c] > kErrorCap || tx.high[c] - lo > kErrorCap;
        }
    std::uint64_t total = 0;
    for (int i = 0; i < 16; ++i) {
        const int r = region_of(s.regions, partition, i);
        const int limit = is_anchor(s.regions, partition, i) ? n / 2 : n;
        const std::uint32_t best = capped ? least_error<true>(palette[r], limit, tx.h[i]) : least_error<false>(palette[r], limit, tx.h[i]);
        total += static_cast<std::uint64_t>(best) * static_cast<std::uint32_t>(tx.weight[i]);
    }
    return total;
}

// Each texel's nearest entry (the first of equals) for endpoints q as evaluate leaves them: the
// block's indices, found once, for the chosen candidate.
void nearest_indices(const Texels& tx, const Shape& s, int partition, int q[4][3], std::uint8_t idx[16]) {
    int palette[2][16][3];
    const int n = palettes(s, q, palette);
    for (int i = 0; i < 16; ++i) {
        const int r = region_of(s.regions, partition, i);
        const int limit = is_anchor(s.regions, partition, i) ? n / 2 : n;
        std::uint32_t best = 0xffffffffu;
        int best_j = 0;
        for (int j = 0; j < limit; ++j) {
            const std::uint32_t e = texel_error(palette[r][j], tx.h[i]);
            if (e < best) {
                best = e;
                best_j = j;
            }
        }
        idx[i] = static_cast<std::uint8_t>(best_j);
    }
}

// Unquantized endpoints e0, e1 of region r: the corners of the texels' bounding box along the
// diagonal whose signs the covariance with the widest channel gives, e0 on the anchor's side.
void fit_region(const Texels& tx, int regions, int partition, int r, int e0[3], int e1[3]) {
    int lo[3] = {0xffff, 0xffff, 0xffff}, hi[3] = {0, 0, 0}, sum[3] = {0, 0, 0}, count = 0;
    for (int i = 0; i < 16; ++i) {
        if (region_of(regions, partition, i) != r) continue;
        ++count;
        for (int c = 0; c < 3; ++c) {
            lo[c] = std::min(lo[c], tx.t[i][c]);
            hi[c] = std::max(hi[c], tx.t[i][c]);
            sum[c] += tx.t[i][c] >> 4;
        }
    }
    int k = 0;
    for (int c = 1; c < 3; ++c)
        if (hi[c] - lo[c] > hi[k] - lo[k]) k = c;
    // Covariances on values of 12 bits, so that 16 products fit an int.
    int cov[3] = {0, 0, 0};
    for (int i = 0; i < 16; ++i) {
        if (region_of(regions, partition, i) != r) continue;
        const int dk = (tx.t[i][k] >> 4) - sum[k] / count;
        for (int c = 0; c < 3; ++c) cov[c] += ((tx.t[i][c] >> 4) - sum[c] / count) * dk;
    }
    for (int c = 0; c < 3; ++c) {
        const bool rising = cov[c] >= 0;
        e0[c] = rising ? lo[c] : hi[c];
        e1[c] = rising ? hi[c] : lo[c];
    }
    const int anchor = r == 0 ? 0 : kBc6hAnchor2[partition];
    int along = 0, length = 0;
    for (int c = 0; c < 3; ++c) {
        const int d = (e1[c] >> 4) - (e0[c] >> 4);
        along += ((tx.t[anchor][c] >> 4) - (e0[c] >> 4)) * d;
        length += d * d;
    }
    if (2 * along > length)
        for (int c = 0; c < 3; ++c) std::swap(e0[c], e1[c]);
}

// A candidate of mode m on partition p from unquantized endpoints.
Candidate quantized_candidate(const Texels& tx, int m, int p, const int e[4][3]) {
    Candidate cand;
    cand.mode = m;
    cand.partition = p;
    const Shape s = shape_of(m);
    for (int k = 0; k < 2 * s.regions; ++k)
        for (int c = 0; c < 3; ++c) cand.q[k][c] = quantize(e[k][c], s.epb);
    cand.error = evaluate(tx, s, p, cand.q);
    return cand;
}

void fit_partition(const Texels& tx, int regions, int p, int e[4][3]) {
    for (int r = 0; r < regions; ++r) fit_region(tx, regions, p, r, e[2 * r], e[2 * r + 1]);
}

// Each move of one quantized endpoint value of `from` by ±step that stays in the mode's range, with
// its error: kept in `into` if lower. In the GPU's order of moves (t = 6k + 2c + (dir > 0)). `from`
// is read afresh for each move, so that it may be `into` itself (refine takes each improving move
// as it comes); the number of moves kept is returned.
int keep_better_moves(const Texels& tx, const Candidate& from, int step, Candidate& into) {
    const Shape s = shape_of(from.mode);
    const int top = (1 << s.epb) - 1;
    int kept = 0;
    for (int k = 0; k < 2 * s.regions; ++k)
        for (int c = 0; c < 3; ++c)
            for (int dir = -1; dir <= 1; dir += 2) {
                const int v = from.q[k][c] + dir * step;
                if (v < 0 || v > top) continue;
                int q[4][3];
                std::memcpy(q, from.q, sizeof q);
                q[k][c] = v;
                const std::uint64_t e = evaluate(tx, s, from.partition, q);
                if (e < into.error) {
                    into.error = e;
                    std::memcpy(into.q, q, sizeof q);
                    ++kept;
                }
            }
    return kept;
}

// The thorough setting's local search: each quantized endpoint value moved by ±step while that
// lowers the error, steps halving from `first` to 1, at most four rounds a step.
void refine(const Texels& tx, Candidate& cand, int first) {
    for (int step = first; step >= 1; step >>= 1)
        for (int round = 0; round < 4; ++round)
            if (keep_better_moves(tx, cand, step, cand) == 0) break;
}

// The default's refinement, a steepest descent: each try evaluates every move of one quantized
// endpoint value by ±1 and takes the one that lowers the error most (the first of equals), at most
// kDescentTries times. On the GPU a try is one evaluation in every invocation at once, and a work
// group of four blocks waits for its slowest: the first improving move taken in order, in up to
// four rounds, cost 5.5–9.1 tries a group on real maps' chains, this 3.5–5.6, for −0.04 to +0.06 dB
// of mPSNR (bench/NOTES.md). Eight tries keep the sample sky's detail within the test's 0.5 dB of
// the thorough setting (tests/test_bc6h.cpp); six did not.
constexpr int kDescentTries = 8;

void descend(const Texels& tx, Candidate& cand) {
    for (int t = 0; t < kDescentTries; ++t) {
        Candidate best = cand;
        if (keep_better_moves(tx, cand, 1, best) == 0) return;
        cand = best;
    }
}

void keep_better(Candidate& best, const Candidate& c) {
    if (c.error < best.error) best = c;
}

Candidate search(const Texels& tx, Bc6hQuality quality) {
    Candidate best;
    int e[4][3];
    fit_partition(tx, 1, 0, e);
    if (quality == Bc6hQuality::Default) {
        for (int m = 0; m < kBc6hModeCount; ++m)
            if (kBc6hModes[m].regions == 1) keep_better(best, quantized_candidate(tx, m, 0, e));
        // The two partitions whose unquantized fits are best, each with every two-region mode.
        std::uint64_t fit[2] = {~std::uint64_t{0}, ~std::uint64_t{0}};
        int part[2] = {0, 0};
        for (int p = 0; p < kBc6hPartitionCount; ++p) {
            int q[4][3];
            fit_partition(tx, 2, p, q);
            const std::uint64_t err = evaluate(tx, kUnquantized2, p, q);
            if (err < fit[0]) {
                fit[1] = fit[0];
                part[1] = part[0];
                fit[0] = err;
                part[0] = p;
            } else if (err < fit[1]) {
                fit[1] = err;
                part[1] = p;
            }
        }
        for (int k = 0; k < 2; ++k) {
            fit_partition(tx, 2, part[k], e);
            for (int m = 0; m < kBc6hModeCount; ++m)
                if (kBc6hModes[m].regions == 2) keep_better(best, quantized_candidate(tx, m, part[k], e));
        }
        descend(tx, best);
        return best;
    }
    // Thorough: each mode's best partition, refined; the best of the fourteen.
    for (int m = 0; m < kBc6hModeCount; ++m) {
        Candidate mode_best;
        if (kBc6hModes[m].regions == 1) {
            mode_best = quantized_candidate(tx, m, 0, e);
        } else {
            for (int p = 0; p < kBc6hPartitionCount; ++p) {
                int ep[4][3];
                fit_partition(tx, 2, p, ep);
                keep_better(mode_best, quantized_candidate(tx, m, p, ep));
            }
        }
        refine(tx, mode_best, 1 << std::max(0, kBc6hModes[m].epb - 8));
        keep_better(best, mode_best);
    }
    return best;
}

void put_bit(std::uint8_t* block, int at, int bit) { block[at >> 3] = static_cast<std::uint8_t>(block[at >> 3] | (bit << (at & 7))); }
int get_bit(const std::uint8_t* block, int at) { return (block[at >> 3] >> (at & 7)) & 1; }

Bc6hBlock pack(const Texels& tx, Candidate cand) {
    const Bc6hMode& mode = kBc6hModes[cand.mode];
    std::uint8_t idx[16];
    nearest_indices(tx, shape_of(cand.mode), cand.partition, cand.q, idx);
    int field[14] = {};
    for (int k = 0; k < 2 * mode.regions; ++k)
        for (int c = 0; c < 3; ++c)
            field[3 * k + c] = (mode.transformed && k > 0) ? (cand.q[k][c] - cand.q[0][c]) & ((1 << mode.delta[c]) - 1)
                                                           : cand.q[k][c];
    field[kBc6hFieldMode] = mode.code;
    field[kBc6hFieldPartition] = cand.partition;
    Bc6hBlock block{};
    const std::array<std::uint8_t, 82>& map = bc6h_bit_map(cand.mode);
    const int header = bc6h_header_bits(cand.mode);
    for (int b = 0; b < header; ++b) put_bit(block.data(), b, (field[map[b] >> 4] >> (map[b] & 15)) & 1);
    const int ib = mode.regions == 2 ? 3 : 4;
    int at = header;
    for (int i = 0; i < 16; ++i) {
        const int bits = is_anchor(mode.regions, cand.partition, i) ? ib - 1 : ib;
        for (int b = 0; b < bits; ++b) put_bit(block.data(), at++, (idx[i] >> b) & 1);
    }
    return block;
}

void load_texels(const float rgb[48], std::uint16_t counted, Texels& tx) {
    int brightest[16], dimmest = 0x7bff;
    for (int i = 0; i < 16; ++i) {
        brightest[i] = 0;
        for (int c = 0; c < 3; ++c) {
            const float v = rgb[3 * i + c];
            const int h = v > 0.0f ? float_to_half(v) : 0;  // NaN and negatives: 0
            tx.h[i][c] = h;
            tx.t[i][c] = (h * 64 + 30) / 31;
            brightest[i] = std::max(brightest[i], h);
        }
        if ((counted >> i) & 1) dimmest = std::min(dimmest, brightest[i]);
    }
    for (int i = 0; i < 16; ++i)
        tx.weight[i] = ((counted >> i) & 1) ? std::min(16, 1 + ((brightest[i] - dimmest) >> 10)) : 0;
    for (int c = 0; c < 3; ++c) {
        tx.low[c] = tx.high[c] = tx.h[0][c];
        for (int i = 1; i < 16; ++i) {
            tx.low[c] = std::min(tx.low[c], tx.h[i][c]);
            tx.high[c] = std::max(tx.high[c], tx.h[i][c]);
        }
    }
}

}  // namespace

Bc6hBlock bc6h_encode_block(const float rgb[48], Bc6hQuality quality, std::uint16_t counted) {
    Texels tx;
    load_texels(rgb, counted == 0 ? 0xffff : counted, tx);
    return pack(tx, search(tx, quality));
}

void bc6h_decode_block(const std::uint8_t block[kBc6hBlockBytes], std::uint16_t half_rgb[48]) {
    const int m = bc6h_mode_index(block);
    if (m < 0) {
        std::fill(half_rgb, half_rgb + 48, std::uint16_t{0});
        return;
    }
    const Bc6hMode& mode = kBc6hModes[m];
    int field[14] = {};
    const std::array<std::uint8_t, 82>& map = bc6h_bit_map(m);
    const int header = bc6h_header_bits(m);
    for (int b = 0; b < header; ++b) field[map[b] >> 4] |= get_bit(block, b) << (map[b] & 15);
    const int partition = field[kBc6hFieldPartition];
    int u[4][3];
    for (int k = 0; k < 2 * mode.regions; ++k)
        for (int c = 0; c < 3; ++c) {
            int v = field[3 * k + c];
            if (mode.transformed && k > 0) {
                const int bits = mode.delta[c];
                if (v & (1 << (bits - 1))) v -= 1 << bits;  // sign-extended delta
                v = (field[c] + v) & ((1 << mode.epb) - 1);
            }
            u[k][c] = unquantize(v, mode.epb);
        }
    const int ib = mode.regions == 2 ? 3 : 4;
    const std::uint8_t* w = mode.regions == 2 ? kBc6hWeights3.data() : kBc6hWeights4.data();
    int at = header;
    for (int i = 0; i < 16; ++i) {
        const int bits = is_anchor(mode.regions, partition, i) ? ib - 1 : ib;
        int index = 0;
        for (int b = 0; b < bits; ++b) index |= get_bit(block, at++) << b;
        const int r = region_of(mode.regions, partition, i);
        for (int c = 0; c < 3; ++c)
            half_rgb[3 * i + c] = static_cast<std::uint16_t>(finish(interpolate(u[2 * r][c], u[2 * r + 1][c], w[index])));
    }
}

std::vector<std::uint8_t> bc6h_encode_images(const std::vector<const Image*>& images, Bc6hQuality quality, int threads) {
    // One work item a row of blocks of one image.
    struct Row {
        const Image* image;
        int by;
        std::size_t first_block;
    };
    std::vector<Row> work;
    std::size_t blocks = 0;
    for (const Image* image : images) {
        const int bw = (image->width + 3) / 4, bh = (image->height + 3) / 4;
        for (int by = 0; by < bh; ++by) work.push_back({image, by, blocks + static_cast<std::size_t>(by) * bw});
        blocks += static_cast<std::size_t>(bw) * bh;
    }
    std::vector<std::uint8_t> out(blocks * kBc6hBlockBytes);
    parallel_for(static_cast<int>(work.size()), threads, [&](int i) {
        const Row& row = work[static_cast<std::size_t>(i)];
        const Image& im = *row.image;
        const int bw = (im.width + 3) / 4;
        const int rows = std::min(4, im.height - 4 * row.by);
        for (int bx = 0; bx < bw; ++bx) {
            const int cols = std::min(4, im.width - 4 * bx);
            float rgb[48];
            std::uint16_t counted = 0;
            for (int y = 0; y < 4; ++y)
                for (int x = 0; x < 4; ++x) {
                    const float* p = im.at(4 * row.by + std::min(y, rows - 1), 4 * bx + std::min(x, cols - 1));
                    std::copy(p, p + 3, rgb + 3 * (4 * y + x));
                    if (y < rows && x < cols) counted = static_cast<std::uint16_t>(counted | (1u << (4 * y + x)));
                }
            const Bc6hBlock block = bc6h_encode_block(rgb, quality, counted);
            std::copy(block.begin(), block.end(), out.begin() + static_cast<long>((row.first_block + bx) * kBc6hBlockBytes));
        }
    });
    return out;
}

Image bc6h_decode_image(const std::uint8_t* blocks, int width, int height) {
    Image out(width, height);
    const int bw = (width + 3) / 4, bh = (height + 3) / 4;
    for (int by = 0; by < bh; ++by)
        for (int bx = 0; bx < bw; ++bx) {
            std::uint16_t h[48];
            bc6h_decode_block(blocks + (static_cast<std::size_t>(by) * bw + bx) * kBc6hBlockBytes, h);
            for (int y = 0; y < 4 && 4 * by + y < height; ++y)
                for (int x = 0; x < 4 && 4 * bx + x < width; ++x)
                    for (int c = 0; c < 3; ++c) out.at(4 * by + y, 4 * bx + x)[c] = half_to_float(h[3 * (4 * y + x) + c]);
        }
    return out;
}

}  // namespace bake
