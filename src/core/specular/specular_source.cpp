#include "specular_source.h"

#include <algorithm>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <vector>

#include "equirect.h"
#include "packed_image.h"
#include "parallel.h"

namespace bake {

namespace {

constexpr double kPi = 3.14159265358979323846;

Vec3 cross(const Vec3& a, const Vec3& b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
Vec3 scaled(const Vec3& a, double s) { return {a.x * s, a.y * s, a.z * s}; }
Vec3 sum_of(const Vec3& a, const Vec3& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }

// atan2(y, x) for x > 0 by its series where |y| <= x/16 (pieces of an edge are far shorter than a
// radian): the terms to t^15 reach double precision there (the next is below 2^-64 of t); libm's
// atan2 elsewhere. Half the time of the lat-long source went to atan2.
double atan2_small(double y, double x) {
    if (!(x > 0) || !(std::fabs(y) <= 0.0625 * x)) return std::atan2(y, x);
    const double t = y / x, t2 = t * t;
    return t * (1 + t2 * (-1.0 / 3 + t2 * (1.0 / 5 + t2 * (-1.0 / 7 + t2 * (1.0 / 9 + t2 * (-1.0 / 11 + t2 * (1.0 / 13 - t2 / 15)))))));
}

// Input texels as doubles: RGB, then (with a finite cap) the capped RGB.
class InputReader {
public:
    InputReader(const Environment& env, const LuminanceCap& cap) : env_(env), cap_(cap), capping_(std::isfinite(cap.threshold)) {}
    int channels() const { return capping_ ? 6 : 3; }
    void equirect(int row, int col, double* out) const {
        if (env_.is_packed()) {
            float t[3];
            expand_packed_texel(env_.packed, static_cast<std::size_t>(row) * env_.packed.width + col, t);
            finish(t, out);
        } else {
            finish(env_.equirect.at(row, col), out);
        }
    }
    void cube(int face, int row, int col, double* out) const { finish(env_.cube.faces[face].at(row, col), out); }

private:
    void finish(const float* t, double* out) const {
        for (int c = 0; c < 3; ++c) out[c] = t[c];
        if (!capping_) return;
        if (!(texel_luminance(t) > cap_.threshold)) {  // apply's own test: most texels are kept as they are
            for (int c = 0; c < 3; ++c) out[3 + c] = t[c];
            return;
        }
        float keep[3];
        cap_.apply(t, keep);
        for (int c = 0; c < 3; ++c) out[3 + c] = keep[c];
    }
    const Environment& env_;
    LuminanceCap cap_;
    bool capping_;
};

// ---- Cube input: overlaps of two grids of the same face ----------------------------------------

// Input texels k overlapping cube texels [i, i + 1) of n: k·n < (i + 1)·N and (k + 1)·n > i·N.
void overlap_range(int i, int n, int big_n, int* first, int* last) {
    *first = static_cast<int>(static_cast<long long>(i) * big_n / n);
    *last = static_cast<int>((static_cast<long long>(i + 1) * big_n + n - 1) / n) - 1;
}

void average_cube_texel(const InputReader& in, int n_in, int face, int row, int col, int n, double* out) {
    int r0, r1, c0, c1;
    overlap_range(row, n, n_in, &r0, &r1);
    overlap_range(col, n, n_in, &c0, &c1);
    double sum[6] = {0, 0, 0, 0, 0, 0}, weight = 0;
    for (int r = r0; r <= r1; ++r)
        for (int c = c0; c <= c1; ++c) {
            // The overlap rectangle, both grids' edges spelled the same way (a cube of the input's
            // size copies its texels bit for bit).
            const double s0 = std::max(2.0 * col / n, 2.0 * c / n_in) - 1, s1 = std::min(2.0 * (col + 1) / n, 2.0 * (c + 1) / n_in) - 1;
            const double t0 = std::max(2.0 * row / n, 2.0 * r / n_in) - 1, t1 = std::min(2.0 * (row + 1) / n, 2.0 * (r + 1) / n_in) - 1;
            if (!(s1 > s0 && t1 > t0)) continue;
            const double w = cube_rect_solid_angle(s0, s1, t0, t1);
            double v[6];
            in.cube(face, r, c, v);
            for (int ch = 0; ch < in.channels(); ++ch) sum[ch] += w * v[ch];
            weight += w;
        }
    // Divided by the sum of the overlaps (the texel's solid angle up to rounding).
    for (int ch = 0; ch < in.channels(); ++ch) out[ch] = sum[ch] / weight;
}

// ---- Lat-long input: Green's theorem along the cube texel's edges -------------------------------

// The input's rows and columns in (φ, h).
struct EquirectGrid {
    int width = 0, height = 0;
    std::vector<double> top;               // top[k] = cos(π k / H): row i spans h in [top[i + 1], top[i]]
    std::vector<double> row_height;        // top[i] - top[i + 1] (so that F is continuous across rows)
    std::vector<double> cos_phi, sin_phi;  // boundary meridian j at φ_j = -π + 2π j / W, j < W

    EquirectGrid(int w, int h) : width(w), height(h), top(h + 1), row_height(h), cos_phi(w), sin_phi(w) {
        for (int k = 0; k <= h; ++k) top[k] = std::cos(kPi * k / h);
        top[0] = 1;
        top[h] = -1;
        for (int i = 0; i < h; ++i) row_height[i] = top[i] - top[i + 1];
        for (int j = 0; j < w; ++j) {
            const double phi = -kPi + 2.0 * kPi * j / w;
            cos_phi[j] = std::cos(phi);
            sin_phi[j] = std::sin(phi);
        }
    }
    int row_of(double h) const {
        int i = static_cast<int>(std::acos(std::max(-1.0, std::min(1.0, h))) * height / kPi);
        i = std::min(height - 1, std::max(0, i));
        while (i > 0 && h > top[i]) --i;
        while (i < height - 1 && h < top[i + 1]) ++i;
        return i;
    }
    int col_of(double x, double z) const {
        const int j = static_cast<int>(std::floor((std::atan2(z, x) + kPi) * width / (2.0 * kPi)));
        return std::min(width - 1, std::max(0, j));
    }
    bool in_row(int i, double h) const { return i >= 0 && i < height && h <= top[i] && h >= top[i + 1]; }
    // Between boundary meridians j and j + 1 (columns narrower than π: W >= 3).
    bool in_col(int j, double x, double z) const {
        j = (j + width) % width;
        const int k = j + 1 == width ? 0 : j + 1;
        return cos_phi[j] * z - sin_phi[j] * x >= 0 && x * sin_phi[k] - z * cos_phi[k] >= 0;
    }
    // The input texel of direction d (unnormalised), trying `row`, `col` and their neighbours first:
    // consecutive pieces of an arc lie in neighbouring texels.
    void locate(const Vec3& d, int* row, int* col) const {
        const double h = d.y / length(d);
        if (!in_row(*row, h)) {
            if (in_row(*row - 1, h)) --*row;
            else if (in_row(*row + 1, h)) ++*row;
            else *row = row_of(h);
        }
        if (width < 3) {
            *col = col_of(d.x, d.z);
        } else if (!in_col(*col, d.x, d.z)) {
            if (in_col(*col - 1, d.x, d.z)) *col = (*col + width - 1) % width;
            else if (in_col(*col + 1, d.x, d.z)) *col = (*col + 1) % width;
            else *col = col_of(d.x, d.z);
        }
    }
};

// A point of an edge: unit direction, horizontal radius, azimuth and input row, made once for each
// cube corner and shared by the edges that meet there.
struct ArcPoint {
    Vec3 d;
    double r, phi;
    int row;
};
ArcPoint arc_point(const Vec3& d, const EquirectGrid& g) {
    return {d, std::sqrt(d.x * d.x + d.z * d.z), std::atan2(d.z, d.x), g.row_of(d.y)};
}

// A piece of an edge inside one input texel: Δφ and ∫h dφ along it.
struct Piece {
    int row, col;
    double dphi, area;
};
// A point where an arc crosses an input row or column boundary.
struct Crossing {
    double key;  // increases along the arc: sin τ, then 2 - sin τ past a quarter turn (τ: angle from the start)
    Vec3 p;
    double dphi;  // φ(p) - φ(start) where known exactly (column boundaries), else NaN
};
struct Scratch {
    std::vector<Piece> pieces;
    std::vector<Crossing> rows, cols, all;
};

double arc_key(double c, double s) { return c >= 0 ? s : 2.0 - s; }

// Row boundaries crossed by a monotone arc a -> b (plane normal m, u: a's tangent toward b), in
// travel order. With e the circle's highest point and w = m x e (horizontal), the circle is
// cos σ e + sin σ w and h = e.y cos σ: each boundary h_k is met at cos σ = h_k / e.y, on the side
// of e the arc lies on (it does not pass e or -e).
void row_crossings(const ArcPoint& pa, const ArcPoint& pb, const Vec3& m, const Vec3& u, double key_end, const EquirectGrid& g,
                   std::vector<Crossing>& xs) {
    xs.clear();
    const Vec3 &a = pa.d, &b = pb.d;
    const double lo = std::min(a.y, b.y), hi = std::max(a.y, b.y), ey2 = 1 - m.y * m.y;
    if (!(hi > lo) || !(ey2 > 0)) return;
    const double ey = std::sqrt(ey2);
    const Vec3 e = scaled({-m.y * m.x, ey2, -m.y * m.z}, 1.0 / ey), w = cross(m, e);
    const double side = dot(sum_of(a, b), w) < 0 ? -1.0 : 1.0;
    for (int k = (b.y < a.y ? pa.row : pb.row) + 1; k < g.height && g.top[k] > lo; ++k) {
        if (!(g.top[k] < hi)) continue;
        const double c = std::max(-1.0, std::min(1.0, g.top[k] / ey)), s = side * std::sqrt(std::max(0.0, 1 - c * c));
        const Vec3 p = sum_of(scaled(e, c), scaled(w, s));
        xs.push_back({std::min(key_end, std::max(0.0, arc_key(dot(a, p), dot(u, p)))), p, NAN});
    }
    if (b.y > a.y) std::reverse(xs.begin(), xs.end());
}

// Column boundaries crossed by the arc a -> b (plane normal m), in travel order: φ is monotone
// along an arc that misses the poles, and each boundary meridian meets it where the planes meet.
void column_crossings(const ArcPoint& pa, const ArcPoint& pb, const Vec3& m, const Vec3& u, double key_end, const EquirectGrid& g,
                      std::vector<Crossing>& xs, int* start_col) {
    xs.clear();
    const Vec3 &a = pa.d, &b = pb.d;
    const double dphi = 2.0 * atan2_small(a.x * b.z - a.z * b.x, pa.r * pb.r + a.x * b.x + a.z * b.z);
    const double phi_a = pa.phi, per_col = g.width / (2.0 * kPi);
    const double f0 = (phi_a + kPi) * per_col, f1 = f0 + dphi * per_col;
    *start_col = std::min(g.width - 1, std::max(0, static_cast<int>(std::floor(f0))));
    if (dphi == 0) return;
    const long long j0 = static_cast<long long>(std::floor(std::min(f0, f1))) + 1;
    const long long j1 = static_cast<long long>(std::ceil(std::max(f0, f1))) - 1;
    const long long step = dphi > 0 ? 1 : -1;
    long long j = dphi > 0 ? j0 : j1;
    int jm = static_cast<int>(((j % g.width) + g.width) % g.width);
    for (; j0 <= j && j <= j1; j += step, jm = (jm + static_cast<int>(step) + g.width) % g.width) {
        const double c = g.cos_phi[jm], s = g.sin_phi[jm];
        Vec3 x = cross(m, {-s, 0, c});
        const double len = length(x);
        if (!(len > 0)) continue;
        x = scaled(x, (x.x * c + x.z * s < 0 ? -1.0 : 1.0) / len);
        const double key = std::min(key_end, std::max(0.0, arc_key(dot(a, x), dot(u, x))));
        xs.push_back({key, x, (-kPi + static_cast<double>(j) / per_col) - phi_a});
    }
}

// Cuts the arc a -> b (unit vectors, plane normal m, h monotone along it) at every input row and
// column boundary it crosses and appends the pieces. Δφ and ∫h dφ are measured from a to each
// crossing (so the pieces' parts add up to the arc's exactly) and differenced.
void monotone_arc_pieces(const ArcPoint& pa, const ArcPoint& pb, const Vec3& m, const EquirectGrid& g, Scratch& sc) {
    const Vec3 &a = pa.d, &b = pb.d;
    const Vec3 u = cross(m, a);  // a's tangent toward b
    const double key_end = arc_key(dot(a, b), dot(cross(a, b), m));
    int row = pa.row, col;  // where the arc starts: a hint for locating its first piece
    row_crossings(pa, pb, m, u, key_end, g, sc.rows);
    column_crossings(pa, pb, m, u, key_end, g, sc.cols, &col);
    std::vector<Crossing>& all = sc.all;
    all.clear();
    all.push_back({0, a, 0});
    std::merge(sc.rows.begin(), sc.rows.end(), sc.cols.begin(), sc.cols.end(), std::back_inserter(all),
               [](const Crossing& p, const Crossing& q) { return p.key < q.key; });
    all.push_back({key_end, b, NAN});
    const double ra = pa.r, ta = a.y / (1 + ra);  // ta: tan(latitude / 2)
    double prev_dphi = 0, prev_area = 0;
    for (std::size_t i = 1; i < all.size(); ++i) {
        const Vec3& p = all[i].p;
        const double rp = std::sqrt(p.x * p.x + p.z * p.z), tp = p.y / (1 + rp);
        const double cr = a.x * p.z - a.z * p.x, dt = ra * rp + a.x * p.x + a.z * p.z;
        const double dphi = std::isnan(all[i].dphi) ? 2.0 * atan2_small(cr, dt) : all[i].dphi;
        const double area = 2.0 * atan2_small(cr * (ta + tp), dt * (1 + ta * tp));
        if (dphi != prev_dphi) {
            g.locate(sum_of(all[i - 1].p, p), &row, &col);
            sc.pieces.push_back({row, col, dphi - prev_dphi, area - prev_area});
        }
        prev_dphi = dphi;
        prev_area = area;
    }
}

// Appends the pieces of the great-circle arc a -> b (unit, not a meridian, shorter than π).
void arc_pieces(const ArcPoint& pa, const ArcPoint& pb, const EquirectGrid& g, Scratch& sc) {
    const Vec3 &a = pa.d, &b = pb.d;
    const Vec3 m = normalize(cross(a, b));
    // The circle's highest point is +Y projected onto its plane; cut there (or at the lowest) to
    // keep h monotone along each part.
    const double ey = 1 - m.y * m.y;
    if (ey > 0) {
        const Vec3 e = scaled({-m.y * m.x, ey, -m.y * m.z}, 1.0 / std::sqrt(ey));
        for (double sign : {1.0, -1.0}) {
            const Vec3 x = scaled(e, sign);
            if (dot(cross(a, x), m) > 0 && dot(cross(x, b), m) > 0) {
                const ArcPoint px = arc_point(x, g);
                monotone_arc_pieces(pa, px, m, g, sc);
                monotone_arc_pieces(px, pb, m, g, sc);
                return;
            }
        }
    }
    monotone_arc_pieces(pa, pb, m, g, sc);
}

// A cube corner: its face direction as cube_face_direction gives it (for the meridian test) and
// as an arc point.
struct Corner {
    Vec3 raw;
    ArcPoint point;
};

// Appends the pieces of the cube edge p -> q; none along a meridian (dφ = 0; exactly detected for
// the cube's meridian edges, whose face directions have parallel horizontal parts).
void edge_pieces(const Corner& p, const Corner& q, const EquirectGrid& g, Scratch& sc) {
    if (p.raw.x * q.raw.z - p.raw.z * q.raw.x == 0) return;
    arc_pieces(p.point, q.point, g, sc);
}

// ∫ L dΩ over cube texel (face, row, col) of an n-face, from the pieces of its four edges: ∮ F dφ
// counter-clockwise in face coordinates (s, t), which is counter-clockwise in (φ, h) too (both
// charts see the sphere from inside). edges[e]: a range of pieces and its sign (-1: reversed).
void integrate_texel_equirect(const InputReader& in, const EquirectGrid& g, int face, int row, int col, int n,
                              const std::vector<Piece>& pieces, const std::size_t (*edges)[3], double* out) {
    // F = ∫_h^h0 L from a row boundary h0 above the texel; at a pole the texel touches, from that
    // pole (F = 0 there, where the chart's boundary runs along the pole).
    const double s0 = 2.0 * col / n - 1, s1 = 2.0 * (col + 1) / n - 1, t0 = 2.0 * row / n - 1, t1 = 2.0 * (row + 1) / n - 1;
    const bool pole = s0 <= 0 && s1 >= 0 && t0 <= 0 && t1 >= 0;
    const bool north = pole && face == static_cast<int>(CubeFace::PosY), south = pole && face == static_cast<int>(CubeFace::NegY);
    int base = south ? g.height - 1 : north ? 0 : g.height;
    if (!north && !south)
        for (int e = 0; e < 4; ++e)
            for (std::size_t i = edges[e][0]; i < edges[e][1]; ++i) base = std::min(base, pieces[i].row);
    const int ch = in.channels();
    for (int c = 0; c < ch; ++c) out[c] = 0;
    // North: F = Σ_{base <= i < row} L_i dh_i + L (top[row] - h);
    // south: F = -∫_{-1}^h L = -Σ_{row < i <= base} L_i dh_i + L (top[row + 1] - h).
    // The column sums, kept per column (most pieces share a column with a piece of the facing edge)
    // and extended row by row from `base` toward the pole-ward or equator-ward side.
    struct ColumnSum {
        int col, row;  // Σ over rows [base, row) (north) or (row, base] (south) of column col
        double sum[6];
    };
    ColumnSum cache[16];
    for (ColumnSum& cs : cache) cs.col = -1;
    const int step = south ? -1 : 1;
    for (int e = 0; e < 4; ++e) {
        const double sign = edges[e][2] ? -1.0 : 1.0;
        for (std::size_t i = edges[e][0]; i < edges[e][1]; ++i) {
            const Piece& p = pieces[i];
            const double dphi = sign * p.dphi, area = sign * p.area;
            if ((p.row - base) * step < 0) throw std::logic_error("area_average_cube: a piece beyond the column sums' base");
            ColumnSum& cs = cache[p.col & 15];
            if (cs.col != p.col || (p.row - cs.row) * step < 0) {
                cs.col = p.col;
                cs.row = base;
                for (double& x : cs.sum) x = 0;
            }
            double l[6];
            for (; cs.row != p.row; cs.row += step) {
                in.equirect(cs.row, p.col, l);
                for (int c = 0; c < ch; ++c) cs.sum[c] += l[c] * g.row_height[cs.row];
            }
            in.equirect(p.row, p.col, l);
            const double local = (south ? g.top[p.row + 1] : g.top[p.row]) * dphi - area, column_sign = south ? -1.0 : 1.0;
            for (int c = 0; c < ch; ++c) out[c] += column_sign * cs.sum[c] * dphi + l[c] * local;
        }
    }
}

// Cube rows [r0, r1) of one face from a lat-long input. Every edge is cut into pieces once, in its
// canonical direction (s or t increasing), and read by both texels it bounds.
void average_band_equirect(const InputReader& in, const EquirectGrid& g, int face, int r0, int r1, int n, CubeMap* full,
                           CubeMap* capped) {
    Scratch sc;
    const int rows = r1 - r0;
    std::vector<Corner> corners;
    for (int k = r0; k <= r1; ++k)
        for (int c = 0; c <= n; ++c) {
            const Vec3 raw = cube_face_direction(face, 2.0 * c / n - 1, 2.0 * k / n - 1);
            corners.push_back({raw, arc_point(normalize(raw), g)});
        }
    auto corner = [&](int k, int c) -> const Corner& { return corners[static_cast<std::size_t>(k - r0) * (n + 1) + c]; };
    // Horizontal edges (row boundary k, column c), then vertical ones (row r, column boundary k).
    std::vector<std::size_t> h_at(static_cast<std::size_t>(rows + 1) * n + 1), v_at(static_cast<std::size_t>(rows) * (n + 1) + 1);
    for (int k = r0; k <= r1; ++k)
        for (int c = 0; c < n; ++c) {
            h_at[static_cast<std::size_t>(k - r0) * n + c] = sc.pieces.size();
            edge_pieces(corner(k, c), corner(k, c + 1), g, sc);
        }
    h_at.back() = sc.pieces.size();
    for (int r = r0; r < r1; ++r)
        for (int k = 0; k <= n; ++k) {
            v_at[static_cast<std::size_t>(r - r0) * (n + 1) + k] = sc.pieces.size();
            edge_pieces(corner(r, k), corner(r + 1, k), g, sc);
        }
    v_at.back() = sc.pieces.size();
    for (int r = r0; r < r1; ++r)
        for (int c = 0; c < n; ++c) {
            const std::size_t h = static_cast<std::size_t>(r - r0) * n + c, v = static_cast<std::size_t>(r - r0) * (n + 1) + c;
            // (s0,t0) -> (s1,t0) -> (s1,t1) -> (s0,t1): bottom-row edge, right edge, then both reversed.
            const std::size_t edges[4][3] = {
                {h_at[h], h_at[h + 1], 0}, {v_at[v + 1], v_at[v + 2], 0}, {h_at[h + n], h_at[h + n + 1], 1}, {v_at[v], v_at[v + 1], 1}};
            double sum[6];
            integrate_texel_equirect(in, g, face, r, c, n, sc.pieces, edges, sum);
            const double inv = 1.0 / cube_texel_solid_angle(r, c, n);
            float* o = full->faces[face].at(r, c);
            for (int ch = 0; ch < 3; ++ch) o[ch] = static_cast<float>(sum[ch] * inv);
            if (in.channels() == 6) {
                float* k = capped->faces[face].at(r, c);
                for (int ch = 0; ch < 3; ++ch) k[ch] = static_cast<float>(sum[3 + ch] * inv);
            }
        }
}

// ---- The input as rows of texels, for the bright split -----------------------------------------

// A lat-long's rows, or a cube's 6·N face rows (face by face), with each texel's solid angle.
class InputRows {
public:
    explicit InputRows(const Environment& env) : env_(env), cube_(env.is_cube()), width_(env.width()) {
        if (cube_)
            for (int r = 0; r < width_; ++r)
                for (int c = 0; c < width_; ++c) face_omega_.push_back(cube_texel_solid_angle(r, c, width_));
    }
    int count() const { return cube_ ? 6 * width_ : env_.height(); }
    int width() const { return width_; }
    // Row `row` as RGB floats (width x 3).
    void read(int row, float* out) const {
        if (cube_) std::copy_n(env_.cube.faces[row / width_].at(row % width_, 0), 3 * width_, out);
        else if (env_.is_packed()) expand_packed_row(env_.packed, row, out);
        else std::copy_n(env_.equirect.at(row, 0), 3 * width_, out);
    }
    // The solid angles of row `row`'s texels: a face row's, or (lat-long) `width` times the row's one.
    const double* omegas(int row, std::vector<double>& buf) const {
        if (cube_) return &face_omega_[static_cast<std::size_t>(row % width_) * width_];
        buf.assign(static_cast<std::size_t>(width_), equirect_row_solid_angle(row, width_, env_.height()));
        return buf.data();
    }
    BrightTexel texel(int row, int col) const {
        return cube_ ? BrightTexel{row / width_, row % width_, col, {0, 0, 0}} : BrightTexel{-1, row, col, {0, 0, 0}};
    }

private:
    const Environment& env_;
    bool cube_;
    int width_;
    std::vector<double> face_omega_;
};

struct Candidate {
    double lum;
    int row, col;
};

// Keeps the `keep` largest candidates (any order).
void keep_largest(std::vector<Candidate>& c, std::size_t keep) {
    if (c.size() <= keep) return;
    std::nth_element(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(keep), c.end(),
                     [](const Candidate& a, const Candidate& b) { return a.lum > b.lum; });
    c.resize(keep);
}

}  // namespace

std::vector<BrightTexel> split_bright_texels(const Environment& env, double factor, int max_bright, LuminanceCap* cap,
                                             int threads) {
    const InputRows rows(env);
    // Blocks of rows of about 2^18 texels, summed block by block and merged in order.
    const int per_block = std::max(1, (1 << 18) / std::max(1, rows.width()));
    const int blocks = (rows.count() + per_block - 1) / per_block;
    std::vector<double> lum_sum(static_cast<std::size_t>(blocks)), omega_sum(static_cast<std::size_t>(blocks));
    // Each row's largest |luminance| (pass 1), so that pass 2 reads only the rows that hold a
    // candidate (none of the others can: the same texels, the same order, fewer reads).
    std::vector<double> row_max(static_cast<std::size_t>(rows.count()), 0.0);
    double skip_below = -1;  // pass 2: rows whose largest is not above this are skipped
    auto for_texels = [&](int block, const auto& fn) {
        std::vector<float> buf(3 * static_cast<std::size_t>(rows.width()));
        std::vector<double> omega_buf;
        for (int r = block * per_block; r < std::min(rows.count(), (block + 1) * per_block); ++r) {
            if (!(row_max[static_cast<std::size_t>(r)] > skip_below)) continue;
            rows.read(r, buf.data());
            const double* omega = rows.omegas(r, omega_buf);
            for (int c = 0; c < rows.width(); ++c) fn(r, c, &buf[3 * static_cast<std::size_t>(c)], omega[c]);
        }
    };
    parallel_for(blocks, resolve_threads(threads, blocks), [&](int b) {
        double l = 0, o = 0;
        for_texels(b, [&](int r, int, const float* t, double omega) {
            const double lum = texel_luminance(t);
            l += omega * lum;
            o += omega;
            double& m = row_max[static_cast<std::size_t>(r)];
            if (lum > m) m = lum;
        });
        lum_sum[static_cast<std::size_t>(b)] = l;
        omega_sum[static_cast<std::size_t>(b)] = o;
    });
    double mean = 0, omega = 0;
    for (int b = 0; b < blocks; ++b) {
        mean += lum_sum[static_cast<std::size_t>(b)];
        omega += omega_sum[static_cast<std::size_t>(b)];
    }
    mean /= omega;
    *cap = LuminanceCap{};
    if (!(mean > 0)) return {};
    // Texels above factor x mean, at most max_bright + 1 a block (those hold the largest overall).
    skip_below = factor * mean;
    const std::size_t keep = static_cast<std::size_t>(std::max(0, max_bright)) + 1;
    std::vector<std::vector<Candidate>> found(static_cast<std::size_t>(blocks));
    parallel_for(blocks, resolve_threads(threads, blocks), [&](int b) {
        std::vector<Candidate>& c = found[static_cast<std::size_t>(b)];
        for_texels(b, [&](int r, int col, const float* t, double) {
            const double lum = texel_luminance(t);
            if (!(lum > factor * mean)) return;
            c.push_back({lum, r, col});
            if (c.size() >= 2 * keep) keep_largest(c, keep);
        });
        keep_largest(c, keep);
    });
    std::vector<Candidate> all;
    for (const auto& c : found) all.insert(all.end(), c.begin(), c.end());
    double threshold = factor * mean;
    if (all.size() > keep - 1) {  // more than max_bright: the cap rises to the (max_bright + 1)-th largest
        keep_largest(all, keep);
        double kth = INFINITY;
        for (const Candidate& c : all) kth = std::min(kth, c.lum);
        threshold = std::max(factor * mean, kth);
    }
    cap->threshold = threshold;
    std::sort(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) { return a.row != b.row ? a.row < b.row : a.col < b.col; });
    std::vector<BrightTexel> out;
    std::vector<float> buf(3 * static_cast<std::size_t>(rows.width()));
    int loaded = -1;
    for (const Candidate& c : all) {
        if (!(c.lum > threshold)) continue;
        if (c.row != loaded) rows.read(loaded = c.row, buf.data());
        const float* t = &buf[3 * static_cast<std::size_t>(c.col)];
        float k[3];
        cap->apply(t, k);
        BrightTexel b = rows.texel(c.row, c.col);
        for (int ch = 0; ch < 3; ++ch) b.excess[ch] = t[ch] - k[ch];
        out.push_back(b);
    }
    return out;
}

double texel_luminance(const float* t) { return std::fabs(0.2126 * t[0] + 0.7152 * t[1] + 0.0722 * t[2]); }

bool LuminanceCap::apply(const float* rgb, float* keep) const {
    const double lum = texel_luminance(rgb);
    if (!(lum > threshold)) {
        std::copy_n(rgb, 3, keep);
        return false;
    }
    const double scale = threshold / lum;
    for (int c = 0; c < 3; ++c) keep[c] = static_cast<float>(rgb[c] * scale);
    return true;
}

std::vector<double> equirect_source_grid(int width, int height) {
    const EquirectGrid g(width, height);
    std::vector<double> out(g.top);
    out.insert(out.end(), g.row_height.begin(), g.row_height.end());
    out.insert(out.end(), g.cos_phi.begin(), g.cos_phi.end());
    out.insert(out.end(), g.sin_phi.begin(), g.sin_phi.end());
    return out;
}

void area_average_cube(const Environment& env, int size, const LuminanceCap& cap, CubeMap* full, CubeMap* capped, int threads) {
    if (size <= 0) throw std::invalid_argument("area_average_cube: size must be positive");
    const InputReader in(env, cap);
    *full = CubeMap(size);
    *capped = in.channels() == 6 ? CubeMap(size) : CubeMap();
    if (env.is_cube()) {
        parallel_for(6 * size, resolve_threads(threads, 6 * size), [&](int task) {
            const int face = task / size, row = task % size;
            for (int col = 0; col < size; ++col) {
                double v[6];
                average_cube_texel(in, env.cube.size, face, row, col, size, v);
                float* o = full->faces[face].at(row, col);
                for (int ch = 0; ch < 3; ++ch) o[ch] = static_cast<float>(v[ch]);
                if (in.channels() == 6) {
                    float* k = capped->faces[face].at(row, col);
                    for (int ch = 0; ch < 3; ++ch) k[ch] = static_cast<float>(v[3 + ch]);
                }
            }
        });
        return;
    }
    const EquirectGrid grid(env.width(), env.height());
    // Bands of up to 8 rows: fewer edges cut twice, still tens of tasks a face at the usual sizes.
    const int band = std::max(1, std::min(8, size / 4)), bands = (size + band - 1) / band;
    parallel_for(6 * bands, resolve_threads(threads, 6 * bands), [&](int task) {
        const int face = task / bands, r0 = task % bands * band;
        average_band_equirect(in, grid, face, r0, std::min(size, r0 + band), size, full, capped);
    });
}

}  // namespace bake
