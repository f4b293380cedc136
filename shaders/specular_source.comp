// The specular source cube from a lat-long input on the GPU: the exact area average of the input
// over every cube texel, the same method as the CPU's area_average_cube
// (src/core/specular/specular_source.{h,cpp}: Green's theorem along the texel's four edges, each
// great-circle arc cut at every input row and column boundary it crosses), in double precision
// (GL 4.0 core). One invocation a cube texel (the polar caps' in chunks: below): it cuts its own four edges (the CPU cuts each edge
// once for both texels it bounds) and walks the input column of each piece from the row of the
// texel's highest point, the same sums in the same order as the CPU's column sums. Differences
// from the CPU: that row is found from the corners and the arcs' highest points (the CPU takes the
// lowest row a piece touches: the same row, but where the point lies on a row boundary; Green's
// theorem holds for any), libm's atan2 is replaced by atan_double below (error ~1e-16), and the
// compiler may contract products into fma. Where the texels are of one order of magnitude the
// result, rounded to float, is within a few ulps of the CPU's (tests/test_gpu_specular_source.cpp
// bounds it by 1e-6 relative); where a column's texels span many (random RGBE over 2^60) both
// are exact only to double rounding of the column sums, which then exceeds a dim texel's value.
//
// Constants from the host: TEXEL_FORMAT (0 RGB float, 1 RGBE bytes, 2 RGB half; the input as the
// file stores it, one texel after another). Uniforms: u_size (cube face), u_width, u_height (the
// input), u_capping (a finite luminance cap: the capped average too), u_threshold (the cap).
// Output: the average's cube (RGB floats, face by face, rows top to bottom), then the capped average's.
// An internal inconsistency writes NaN (the host then throws).
//
// The polar caps in chunks. A texel's boundary crosses every input column its φ range spans, so a
// texel at a pole walks all W columns (4096 pieces at 4k) while one at the equator walks ~20: one
// invocation a texel made the pass as long as the pole texel's serial walk (30 ms at 4k, 54 at 8k
// on the H200, for a few GFLOP of work). The texels of faces +Y and -Y within u_cap_rings rings of
// the face's centre (the caps) are therefore done in three modes (u_mode):
//   0  every texel outside the caps, whole (8 x 8 invocations a group over (col, row, face));
//   1  one invocation a work item of the caps (the host's list: texel, chunk k, chunks K): the
//      texel's arcs, cut at its input column crossings into S segments, numbered along the arcs in
//      order; item k takes segments [k·ceil(S/K), (k+1)·ceil(S/K)) as sub-arcs (each a monotone
//      arc from one column crossing to another: the same pieces as the whole arc's walk) and
//      writes its sums to `partials`;
//   2  one invocation a cap texel: its items' sums added in item order, divided by its solid angle.
// The sums differ from mode 0's only in the order of addition (double rounding).
layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, binding = 0) readonly buffer Texels { uint texel_words[]; };
// top[H + 1] (cos(π k / H), top[0] = 1, top[H] = -1), row_height[H] (top[i] - top[i + 1]),
// cos_phi[W], sin_phi[W] (boundary meridian j at φ = -π + 2π j / W), computed on the host.
layout(std430, binding = 1) readonly buffer Grid { double grid[]; };
layout(std430, binding = 2) readonly buffer TexelOmega { double texel_omega[]; };  // cube_texel_solid_angle(r, c, n)
layout(std430, binding = 3) writeonly buffer Averages { float averages[]; };

uniform int u_size;
uniform int u_width;
uniform int u_height;
uniform int u_capping;
uniform double u_threshold;
uniform int u_mode;       // 0, 1, 2: above
uniform int u_cap_rings;  // the caps' rings (0: no caps)
uniform int u_items;      // mode 1: work items; mode 2: cap texels
uniform int u_list_at;    // mode 2: where the cap texels' list starts in cap_items
// Mode 1: per item (texel index (face·n + row)·n + col, chunk, chunks); mode 2, from u_list_at:
// per cap texel (texel index, its first item, its items).
layout(std430, binding = 5) readonly buffer CapItems { int cap_items[]; };
// Per item: the full sums (rgb), the capped sums (rgb), failed (0 or 1).
layout(std430, binding = 6) buffer Partials { double partials[]; };

#include "specular_source_math.glsl"

// Half k of the packed texels: both halves unpacked and one picked. No local array (see "No local
// arrays of doubles" above main()), and not unpackHalf2x16(word >> 16).x, which NVIDIA's driver 580
// decoded wrongly here (garbage for the odd halves; llvmpipe was right).
double half_at(uint k) {
    const vec2 pair = unpackHalf2x16(texel_words[k >> 1u]);
    return double((k & 1u) != 0u ? pair.y : pair.x);
}

// The texel as the host expands it (RGBE: byte · 2^(e-136), exactly, subnormals included).
dvec3 input_texel(int row, int col) {
    const uint i = uint(row) * uint(u_width) + uint(col);
#if TEXEL_FORMAT == 1
    const uint w = texel_words[i], e = w >> 24u;
    if (e == 0u) return dvec3(0.0LF);
    const double scale = packDouble2x32(uvec2(0u, (e + 887u) << 20u));  // 2^(e - 136)
    return dvec3(double(w & 255u), double((w >> 8u) & 255u), double((w >> 16u) & 255u)) * scale;
#elif TEXEL_FORMAT == 2
    return dvec3(half_at(3u * i), half_at(3u * i + 1u), half_at(3u * i + 2u));
#else
    return dvec3(uintBitsToFloat(texel_words[3u * i]), uintBitsToFloat(texel_words[3u * i + 1u]),
                 uintBitsToFloat(texel_words[3u * i + 2u]));
#endif
}

// The texel and, when capping, LuminanceCap::apply's capped texel (rounded to float as the host does).
void texel_values(int row, int col, out dvec3 full, out dvec3 capped) {
    const dvec3 t = input_texel(row, col);
    full = t;
    dvec3 keep = t;
    if (u_capping != 0) {
        const double lum = abs(constants[19] * t.x + constants[20] * t.y + constants[21] * t.z);
        if (lum > u_threshold) {
            const double scale = div_q(u_threshold, lum);
            keep = dvec3(vec3(t * scale));
        }
    }
    capped = keep;
}

// ---- The input's grid (EquirectGrid) -----------------------------------------------------------

int row_of(double h) {
    // A float guess, then exact comparisons with the boundaries.
    int i = int(acos(float(clamp(h, -1.0LF, 1.0LF))) * float(u_height) / 3.14159265f);
    i = min(u_height - 1, max(0, i));
    while (i > 0 && h > top_at(i)) --i;
    while (i < u_height - 1 && h < top_at(i + 1)) ++i;
    return i;
}
int col_of(double x, double z) {
    const int j = int(floor(div_q((atan_double(z, x) + kPiD) * double(u_width), kTwoPiD)));
    return min(u_width - 1, max(0, j));
}
bool in_row(int i, double h) { return i >= 0 && i < u_height && h <= top_at(i) && h >= top_at(i + 1); }
bool in_col(int j, double x, double z) {
    j = (j + u_width) % u_width;
    const int k = j + 1 == u_width ? 0 : j + 1;
    return cos_phi_at(j) * z - sin_phi_at(j) * x >= 0.0LF && x * sin_phi_at(k) - z * cos_phi_at(k) >= 0.0LF;
}
void locate(dvec3 d, inout int row, inout int col) {
    const double h = div_q(d.y, sqrt_d(dot3(d, d)));
    if (!in_row(row, h)) {
        if (in_row(row - 1, h)) --row;
        else if (in_row(row + 1, h)) ++row;
        else row = row_of(h);
    }
    if (u_width < 3) {
        col = col_of(d.x, d.z);
    } else if (!in_col(col, d.x, d.z)) {
        if (in_col(col - 1, d.x, d.z)) col = (col + u_width - 1) % u_width;
        else if (in_col(col + 1, d.x, d.z)) col = (col + 1) % u_width;
        else col = col_of(d.x, d.z);
    }
}

// locate's cell, found faster from a guess (row_guess, col_guess: the cell the arc's last crossing
// leads into). Where d lies strictly inside the guessed cell no other cell holds it, so locate,
// from any start, gives that cell; strictly inside is decided from h by rsqrt_d (error ~1e-16
// where the driver's inverse square root is good to 1e-5) by a margin of 1e-12, and by the
// column's exact sign tests.
// Elsewhere (no guess yet, -1: before the arc's first crossing; a point within 1e-12 of a row
// boundary, on a boundary, or not in the guessed cell: a crossing nearly tangent to a row
// boundary, whose point is ill-conditioned, can be taken in the wrong order) locate itself
// decides, from the previous piece's cell as before.
void locate_guessed(dvec3 d, int row_guess, int col_guess, inout int row, inout int col) {
    if (u_width >= 3 && row_guess >= 0 && row_guess < u_height) {
        const double h = d.y * rsqrt_d(dot3(d, d));
        const int k = (col_guess + 1) % u_width;
        if (h < top_at(row_guess) - 1e-12LF && h > top_at(row_guess + 1) + 1e-12LF &&
            cos_phi_at(col_guess) * d.z - sin_phi_at(col_guess) * d.x > 0.0LF && d.x * sin_phi_at(k) - d.z * cos_phi_at(k) > 0.0LF) {
            row = row_guess;
            col = col_guess;
            return;
        }
    }
    locate(d, row, col);
}

dvec3 normalized(dvec3 a) { return a * rsqrt_d(dot3(a, a)); }

struct ArcPoint {
    dvec3 d;
    double r, phi;
    int row;
};
ArcPoint arc_point(dvec3 d) {
    ArcPoint p;
    p.d = d;
    p.r = sqrt_d(d.x * d.x + d.z * d.z);
    p.phi = atan_double(d.z, d.x);
    p.row = row_of(d.y);
    return p;
}

double arc_key(double c, double s) { return c >= 0.0LF ? s : 2.0LF - s; }

// ---- One texel's integral ----------------------------------------------------------------------

// The texel's state: the column sums' base row, north or south, the sums, a failure flag.
int g_base;
bool g_south;
dvec3 g_out_full, g_out_capped;  // not arrays: see "No local arrays of doubles" above main()
bool g_failed;

// A piece inside input texel (row, col): Δφ and ∫h dφ along it (signed for the edge's direction).
// F(h) = ∫_h^h0 L from the base row's top boundary h0: the column's texels between the base row
// and the piece's row (subtracted for a piece above the base row, which the CPU's base, the lowest
// row any piece touches, never has; this one can, by a row, where the texel's highest point lies
// on a row boundary), then the piece's own texel. South: F = -∫_{-1}^h L from the south pole.
void add_piece(int row, int col, double dphi, double area) {
    const int step = g_south ? -1 : 1;
    const bool above = !g_south && row < g_base;
    const double local = (g_south ? top_at(row + 1) : top_at(row)) * dphi - area;
    const double column_sign = g_south ? -1.0LF : 1.0LF, walk_sign = above ? -1.0LF : 1.0LF;
    // Rows summed: [base, row) north, (row, base] south, [row, base) above (subtracted); the
    // walk ends on the piece's row (or, above, on the base row, not summed).
    const int first = above ? row : g_base, end = above ? g_base : row;
    dvec3 sum_full = dvec3(0.0LF), sum_capped = dvec3(0.0LF), own_full = dvec3(0.0LF), own_capped = dvec3(0.0LF);
    for (int r = first;; r += step) {
        dvec3 l_full, l_capped;
        texel_values(r, col, l_full, l_capped);
        if (r == row) {
            own_full = l_full;
            own_capped = l_capped;
        }
        if (r == end) break;
        const double dh = walk_sign * row_height_at(r);
        sum_full += l_full * dh;
        sum_capped += l_capped * dh;
    }
    g_out_full += column_sign * sum_full * dphi + own_full * local;
    g_out_capped += column_sign * sum_capped * dphi + own_capped * local;
}

// The arc a -> b (h monotone along it; plane normal m) cut at the input's row and column
// boundaries in travel order (specular_source.cpp's monotone_arc_pieces, with the two lists of
// crossings merged as they are made), each piece added with `sign`.
void monotone_arc(ArcPoint pa, ArcPoint pb, dvec3 m, double sign) {
    const dvec3 a = pa.d, b = pb.d;
    const dvec3 u = cross3(m, a);
    const double key_end = arc_key(dot3(a, b), dot3(cross3(a, b), m));
    // Row crossings: boundaries k in [k_first, k_end) (top[k] strictly between the ends' heights).
    const double lo = min(a.y, b.y), hi = max(a.y, b.y), ey2 = 1.0LF - m.y * m.y;
    int k_first = 0, k_end = 0;
    dvec3 e = dvec3(0.0LF), w = dvec3(0.0LF);
    double ey = 0.0LF, side = 1.0LF;
    if (hi > lo && ey2 > 0.0LF) {
        ey = sqrt_d(ey2);
        e = dvec3(-m.y * m.x, ey2, -m.y * m.z) * div_q(1.0LF, ey);
        w = cross3(m, e);
        side = dot3(a + b, w) < 0.0LF ? -1.0LF : 1.0LF;
        k_first = (b.y < a.y ? pa.row : pb.row) + 1;
        while (k_first < u_height && top_at(k_first) > lo && !(top_at(k_first) < hi)) ++k_first;
        k_end = k_first;
        while (k_end < u_height && top_at(k_end) > lo) ++k_end;
    }
    const bool rows_down = b.y < a.y;  // h decreasing: k increasing
    int k_next = rows_down ? k_first : k_end - 1;
    // Column crossings: meridians j0..j1 in the direction of travel.
    const double dphi_ab = 2.0LF * atan2_small(a.x * b.z - a.z * b.x, pa.r * pb.r + a.x * b.x + a.z * b.z);
    const double per_col = div_q(double(u_width), kTwoPiD);
    const double f0 = (pa.phi + kPiD) * per_col, f1 = f0 + dphi_ab * per_col;
    int col = min(u_width - 1, max(0, int(floor(f0))));
    int row = pa.row;
    int j0 = 1, j1 = 0, jstep = 1;
    if (dphi_ab != 0.0LF) {
        j0 = int(floor(min(f0, f1))) + 1;
        j1 = int(ceil(max(f0, f1))) - 1;
        jstep = dphi_ab > 0.0LF ? 1 : -1;
    }
    int j_next = jstep > 0 ? j0 : j1;

    const double ra = pa.r, ta = div_q(a.y, 1.0LF + ra);
    double prev_dphi = 0.0LF, prev_area = 0.0LF;
    dvec3 prev_p = a;
    bool have_row = false, have_col = false;
    double row_key = 0.0LF, col_key = 0.0LF, col_dphi = 0.0LF;
    dvec3 row_p = dvec3(0.0LF), col_p = dvec3(0.0LF);
    // The cell the next piece lies in, as the crossing that ends the previous piece says
    // (locate_guessed): -1 until the arc's first crossing is taken.
    int col_j = 0, row_k = 0, kind = 0;  // the crossing just taken: meridian col_j, boundary row_k; kind 1 column, 2 row
    int row_guess = -1, col_guess = -1;
    for (int guard = 0; guard < 1000000; ++guard) {
        // The next row crossing, then the next column crossing, when not made yet.
        if (!have_row && k_next >= k_first && k_next < k_end) {
            const double c = clamp(div_q(top_at(k_next), ey), -1.0LF, 1.0LF);
            const double s = side * sqrt_d(max(0.0LF, 1.0LF - c * c));
            row_k = k_next;
            row_p = e * c + w * s;
            row_key = min(key_end, max(0.0LF, arc_key(dot3(a, row_p), dot3(u, row_p))));
            have_row = true;
            k_next += rows_down ? 1 : -1;
        }
        while (!have_col && j_next >= j0 && j_next <= j1) {
            const int j = j_next;
            j_next += jstep;
            const int jm = (j + 2 * u_width) % u_width;  // j > -W: GLSL leaves % of negatives undefined
            const double c = cos_phi_at(jm), s = sin_phi_at(jm);
            dvec3 x = cross3(m, dvec3(-s, 0.0LF, c));
            const double len2 = dot3(x, x);
            if (!(len2 > 0.0LF)) continue;
            x = x * ((x.x * c + x.z * s < 0.0LF ? -1.0LF : 1.0LF) * rsqrt_d(len2));
            col_key = min(key_end, max(0.0LF, arc_key(dot3(a, x), dot3(u, x))));
            col_p = x;
            col_j = j;
            col_dphi = (-kPiD + div_q(double(j), per_col)) - pa.phi;
            have_col = true;
        }
        // std::merge's order: a column crossing first only when strictly before the row crossing.
        dvec3 p;
        double dphi;
        bool known;
        bool last = false;
        if (have_col && (!have_row || col_key < row_key)) {
            p = col_p;
            dphi = col_dphi;
            known = true;
            have_col = false;
            kind = 1;
        } else if (have_row) {
            p = row_p;
            dphi = 0.0LF;
            known = false;
            have_row = false;
            kind = 2;
        } else {
            p = b;
            dphi = 0.0LF;
            known = false;
            last = true;
        }
        const double rp = sqrt_d(p.x * p.x + p.z * p.z), tp = div_q(p.y, 1.0LF + rp);
        const double cr = a.x * p.z - a.z * p.x, dt = ra * rp + a.x * p.x + a.z * p.z;
        if (!known) dphi = 2.0LF * atan2_small(cr, dt);
        const double area = 2.0LF * atan2_small(cr * (ta + tp), dt * (1.0LF + ta * tp));
        if (dphi != prev_dphi) {
            locate_guessed(prev_p + p, row_guess, col_guess, row, col);  // locate's until the first crossing
            add_piece(row, col, sign * (dphi - prev_dphi), sign * (area - prev_area));
        }
        // Past meridian j going east the next piece is in column j, going west in j - 1; past row
        // boundary k going down in row k, going up in k - 1. Before the first crossing of a kind,
        // the guess is the cell located last.
        if (row_guess < 0) {
            row_guess = row;
            col_guess = col;
        }
        if (kind == 1) col_guess = ((jstep > 0 ? col_j : col_j - 1) + 2 * u_width) % u_width;
        else if (kind == 2) row_guess = rows_down ? row_k : row_k - 1;
        kind = 0;
        prev_dphi = dphi;
        prev_area = area;
        prev_p = p;
        if (last) return;
    }
    g_failed = true;
}

// cube_face_direction (docs/CONVENTION.md).
dvec3 face_direction(int face, double s, double t) {
    if (face == 0) return dvec3(1.0LF, -t, -s);
    if (face == 1) return dvec3(-1.0LF, -t, s);
    if (face == 2) return dvec3(s, 1.0LF, t);
    if (face == 3) return dvec3(s, -1.0LF, -t);
    if (face == 4) return dvec3(s, -t, 1.0LF);
    return dvec3(-s, -t, -1.0LF);
}

// No local arrays of doubles. NVIDIA's GLSL compiler (driver 580, H100 and H200) keeps a double
// stored in a local array that is indexed by a variable in single precision: `double a[3]; a[k] = x;`
// reads back x rounded to float (measured: 1/sqrt(5) came back as 0.44721359014511108), which moved
// the crossings by 1e-8 and the texels next to a sun by up to 8e-5 relative. The points, normals and
// arc ends below are kept as their bits (uvec2, exact in any storage) and rebuilt where used.
uvec2 g_vec_bits[48];  // 16 vectors, x y z: points at 0..7, the arcs' plane normals at 8..15
uvec2 g_pt_bits[16];   // 8 ArcPoints' r and phi (their d is the point's direction)
int g_pt_row[8];
const int kNormals = 8;
void set_vec(int i, dvec3 v) {
    g_vec_bits[3 * i] = unpackDouble2x32(v.x);
    g_vec_bits[3 * i + 1] = unpackDouble2x32(v.y);
    g_vec_bits[3 * i + 2] = unpackDouble2x32(v.z);
}
dvec3 vec_at(int i) {
    return dvec3(packDouble2x32(g_vec_bits[3 * i]), packDouble2x32(g_vec_bits[3 * i + 1]), packDouble2x32(g_vec_bits[3 * i + 2]));
}
void set_pt(int i, ArcPoint p) {
    g_pt_bits[2 * i] = unpackDouble2x32(p.r);
    g_pt_bits[2 * i + 1] = unpackDouble2x32(p.phi);
    g_pt_row[i] = p.row;
}
ArcPoint pt_at(int i) {
    ArcPoint p;
    p.d = vec_at(i);
    p.r = packDouble2x32(g_pt_bits[2 * i]);
    p.phi = packDouble2x32(g_pt_bits[2 * i + 1]);
    p.row = g_pt_row[i];
    return p;
}

// The texel's monotone arcs: points (vec_at / pt_at), arcs g_arcs[i] (point indices) with plane
// normal vec_at(kNormals + i) and sign g_signs[i] (±1: exact in any storage), and the column sums'
// base (g_base, g_south). Returns the texel's 1 / solid angle.
ivec2 g_arcs[8];
double g_signs[8];
int g_arc_count;
double texel_arcs(int face, int row, int col) {
    const int n = u_size;
    const double s0 = div_q(2.0LF * double(col), double(n)) - 1.0LF, s1 = div_q(2.0LF * double(col + 1), double(n)) - 1.0LF;
    const double t0 = div_q(2.0LF * double(row), double(n)) - 1.0LF, t1 = div_q(2.0LF * double(row + 1), double(n)) - 1.0LF;
    // Corners counter-clockwise in (s, t): (s0,t0), (s1,t0), (s1,t1), (s0,t1); the edges in the
    // CPU's canonical directions (s or t increasing) and their signs in the loop.
    const dvec3 raw0 = face_direction(face, s0, t0), raw1 = face_direction(face, s1, t0), raw2 = face_direction(face, s1, t1),
                raw3 = face_direction(face, s0, t1);
    const ivec2 edge[4] = ivec2[4](ivec2(0, 1), ivec2(1, 2), ivec2(3, 2), ivec2(0, 3));
    const double edge_sign[4] = double[4](1.0LF, 1.0LF, -1.0LF, -1.0LF);
    // Points: the corners, then the highest or lowest points where an edge passes one.
    set_vec(0, normalized(raw0));
    set_vec(1, normalized(raw1));
    set_vec(2, normalized(raw2));
    set_vec(3, normalized(raw3));
    int points = 4;
    g_arc_count = 0;
    double top = max(max(vec_at(0).y, vec_at(1).y), max(vec_at(2).y, vec_at(3).y));
    for (int e = 0; e < 4; ++e) {
        const dvec3 p = edge[e].x == 0 ? raw0 : edge[e].x == 1 ? raw1 : edge[e].x == 2 ? raw2 : raw3;
        const dvec3 q = edge[e].y == 0 ? raw0 : edge[e].y == 1 ? raw1 : edge[e].y == 2 ? raw2 : raw3;
        if (p.x * q.z - p.z * q.x == 0.0LF) continue;  // a meridian: dφ = 0 along it
        const dvec3 a = vec_at(edge[e].x), b = vec_at(edge[e].y);
        const dvec3 m = normalized(cross3(a, b));
        const double ey = 1.0LF - m.y * m.y;
        int cut = -1;
        if (ey > 0.0LF) {
            const dvec3 up = dvec3(-m.y * m.x, ey, -m.y * m.z) * div_q(1.0LF, sqrt_d(ey));
            for (int k = 0; k < 2 && cut < 0; ++k) {
                const dvec3 x = k == 0 ? up : -up;
                if (dot3(cross3(a, x), m) > 0.0LF && dot3(cross3(x, b), m) > 0.0LF) {
                    cut = points;
                    set_vec(points++, x);
                    top = max(top, x.y);
                }
            }
        }
        if (cut < 0) {
            g_arcs[g_arc_count] = edge[e];
        } else {
            g_arcs[g_arc_count] = ivec2(edge[e].x, cut);
            set_vec(kNormals + g_arc_count, m);
            g_signs[g_arc_count++] = edge_sign[e];
            g_arcs[g_arc_count] = ivec2(cut, edge[e].y);
        }
        set_vec(kNormals + g_arc_count, m);
        g_signs[g_arc_count++] = edge_sign[e];
    }
    for (int i = 0; i < points; ++i) set_pt(i, arc_point(vec_at(i)));

    // The column sums' base: the pole for the texels that touch one (F = 0 there), else the row of
    // the texel's highest point (the CPU's: the lowest row a piece touches).
    const bool pole = s0 <= 0.0LF && s1 >= 0.0LF && t0 <= 0.0LF && t1 >= 0.0LF;
    const bool north = pole && face == 2;
    g_south = pole && face == 3;
    g_failed = false;
    g_base = g_south ? u_height - 1 : north ? 0 : row_of(top);
    g_out_full = dvec3(0.0LF);
    g_out_capped = dvec3(0.0LF);
    return div_q(1.0LF, texel_omega[row * n + col]);
}

// The column crossings of arc pa -> pb as monotone_arc makes them: meridians j0..j1 (none when
// j0 > j1), in the direction jstep.
void arc_columns(ArcPoint pa, ArcPoint pb, out int j0, out int j1, out int jstep) {
    const dvec3 a = pa.d, b = pb.d;
    const double dphi_ab = 2.0LF * atan2_small(a.x * b.z - a.z * b.x, pa.r * pb.r + a.x * b.x + a.z * b.z);
    const double per_col = div_q(double(u_width), kTwoPiD);
    const double f0 = (pa.phi + kPiD) * per_col, f1 = f0 + dphi_ab * per_col;
    j0 = 1;
    j1 = 0;
    jstep = 1;
    if (dphi_ab != 0.0LF) {
        j0 = int(floor(min(f0, f1))) + 1;
        j1 = int(ceil(max(f0, f1))) - 1;
        jstep = dphi_ab > 0.0LF ? 1 : -1;
    }
}

// Point k of the arc pa -> pb (normal m) cut at its column crossings: 0 is pa, crossings + 1 is pb,
// k between is the k-th crossing in travel order (monotone_arc's point for that meridian).
ArcPoint arc_cut(ArcPoint pa, ArcPoint pb, dvec3 m, int k, int j0, int j1, int jstep) {
    if (k == 0) return pa;
    if (k > j1 - j0 + 1) return pb;
    const int j = jstep > 0 ? j0 + k - 1 : j1 - (k - 1);
    const int jm = (j + 2 * u_width) % u_width;
    const double c = cos_phi_at(jm), s = sin_phi_at(jm);
    dvec3 x = cross3(m, dvec3(-s, 0.0LF, c));
    const double len2 = dot3(x, x);
    if (!(len2 > 0.0LF)) {
        g_failed = true;  // an arc in a meridian's plane has no crossings (monotone_arc skips them)
        return pa;
    }
    x = x * ((x.x * c + x.z * s < 0.0LF ? -1.0LF : 1.0LF) * rsqrt_d(len2));
    return arc_point(x);
}

int ring_of(int i) { return abs(2 * i + 1 - u_size) / 2; }  // 0 for the texel(s) at the face's centre

void write_average(int face, int row, int col, dvec3 full, dvec3 capped, bool failed, double inv) {
    const int n = u_size;
    // Planar, as the host's cubes lie: the full cube's faces (RGB rows), then the capped cube's.
    const uint o = 3u * ((uint(face) * uint(n) + uint(row)) * uint(n) + uint(col)), plane = 18u * uint(n) * uint(n);
    for (int c = 0; c < 3; ++c) {
        averages[o + uint(c)] = failed ? uintBitsToFloat(0x7fc00000u) : float(full[c] * inv);
        averages[o + uint(c) + plane] = failed ? uintBitsToFloat(0x7fc00000u) : float(capped[c] * inv);
    }
}

// Every function is inlined where it is called: the heavy ones (monotone_arc, arc_point) are called
// from few places, which keeps the program small.
void main() {
    const int n = u_size;
    const int index = int(gl_WorkGroupID.x) * 64 + int(gl_LocalInvocationIndex);  // modes 1 and 2
    if (u_mode == 2) {
        if (index >= u_items) return;
        const int at = u_list_at + 3 * index;
        const int texel = cap_items[at], first = cap_items[at + 1], count = cap_items[at + 2];
        dvec3 full = dvec3(0.0LF), capped = dvec3(0.0LF);
        bool failed = false;
        for (int i = first; i < first + count; ++i) {
            full += dvec3(partials[7 * i], partials[7 * i + 1], partials[7 * i + 2]);
            capped += dvec3(partials[7 * i + 3], partials[7 * i + 4], partials[7 * i + 5]);
            failed = failed || partials[7 * i + 6] != 0.0LF;
        }
        const int col = texel % n, row = (texel / n) % n, face = texel / (n * n);
        write_average(face, row, col, full, capped, failed, div_q(1.0LF, texel_omega[row * n + col]));
        return;
    }
    int face, row, col, chunk = 0, chunks = 1;
    if (u_mode == 1) {
        if (index >= u_items) return;
        const int texel = cap_items[3 * index];
        chunk = cap_items[3 * index + 1];
        chunks = cap_items[3 * index + 2];
        col = texel % n;
        row = (texel / n) % n;
        face = texel / (n * n);
    } else {
        col = int(gl_GlobalInvocationID.x);
        row = int(gl_GlobalInvocationID.y);
        face = int(gl_GlobalInvocationID.z);
        if (col >= n || row >= n) return;
        if ((face == 2 || face == 3) && ring_of(row) < u_cap_rings && ring_of(col) < u_cap_rings) return;  // mode 1's
    }
    const double inv = texel_arcs(face, row, col);
    // The segments this invocation takes: all (mode 0: one an arc, never cut), or its chunk's.
    int lo = 0, hi = 1 << 30;
    if (u_mode == 1) {
        int total = 0;
        for (int i = 0; i < g_arc_count; ++i) {
            int j0, j1, jstep;
            arc_columns(pt_at(g_arcs[i].x), pt_at(g_arcs[i].y), j0, j1, jstep);
            total += max(0, j1 - j0 + 1) + 1;
        }
        const int per = (total + chunks - 1) / chunks;
        lo = chunk * per;
        hi = min(total, lo + per);
    }
    int offset = 0;
    for (int i = 0; i < g_arc_count && offset < hi; ++i) {
        const ArcPoint pa = pt_at(g_arcs[i].x), pb = pt_at(g_arcs[i].y);
        const dvec3 m = vec_at(kNormals + i);
        int j0 = 1, j1 = 0, jstep = 1;
        if (u_mode == 1) arc_columns(pa, pb, j0, j1, jstep);
        const int segments = max(0, j1 - j0 + 1) + 1;
        const int first = max(lo - offset, 0), end = min(hi - offset, segments);
        if (first < end) monotone_arc(arc_cut(pa, pb, m, first, j0, j1, jstep), arc_cut(pa, pb, m, end, j0, j1, jstep), m, g_signs[i]);
        offset += segments;
    }
    if (u_mode == 0) {
        write_average(face, row, col, g_out_full, g_out_capped, g_failed, inv);
        return;
    }
    const int o = 7 * index;
    partials[o] = g_out_full.x;
    partials[o + 1] = g_out_full.y;
    partials[o + 2] = g_out_full.z;
    partials[o + 3] = g_out_capped.x;
    partials[o + 4] = g_out_capped.y;
    partials[o + 5] = g_out_capped.z;
    partials[o + 6] = g_failed ? 1.0LF : 0.0LF;
}
