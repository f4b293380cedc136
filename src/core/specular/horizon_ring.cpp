#include "horizon_ring.h"

#include <algorithm>
#include <cmath>

#include "cube_map.h"
#include "equirect.h"
#include "ggx.h"

namespace bake {
namespace {

constexpr double kTwoPi = 2.0 * kPi;

Vec3 cross(const Vec3& a, const Vec3& b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }

// The circle n·l = 0 as l(ψ) = cos ψ e1 + sin ψ e2.
struct Circle {
    Vec3 n, e1, e2;
    explicit Circle(const Vec3& dir) : n(dir) {
        const Vec3 up = std::fabs(n.y) < 0.999 ? Vec3{0, 1, 0} : Vec3{1, 0, 0};
        e1 = normalize(cross(up, n));
        e2 = cross(n, e1);
    }
};

// An arc ψ in [lo, hi] (hi - lo <= 2π; empty when hi <= lo).
struct Arc {
    double lo, hi;
};

// The half of the circle where p·l >= 0: the half circle centred on atan2(p·e2, p·e1). When p is
// along n the circle lies in the plane p·l = 0, an edge shared by two texels whose half-spaces face
// opposite ways: the one with p·n > 0 takes all of it, the other none.
Arc half_circle(const Circle& c, const Vec3& p) {
    const double a = dot(p, c.e1), b = dot(p, c.e2);
    if (std::fabs(a) + std::fabs(b) <= 1e-14 * length(p)) return dot(p, c.n) > 0 ? Arc{0.0, kTwoPi} : Arc{0.0, 0.0};
    const double centre = std::atan2(b, a);
    return {centre - 0.5 * kPi, centre + 0.5 * kPi};
}

// Length of the overlap of two arcs (each at most the whole circle): b's copies that can meet a.
double overlap(const Arc& a, const Arc& b) {
    if (a.hi <= a.lo || b.hi <= b.lo) return 0;
    const double shift = kTwoPi * std::floor((a.lo - b.lo) / kTwoPi);  // b.lo + shift in (a.lo - 2π, a.lo]
    double total = 0;
    for (int k = 0; k < 2; ++k) {
        const double lo = b.lo + shift + k * kTwoPi, hi = b.hi + shift + k * kTwoPi;
        total += std::max(0.0, std::min(a.hi, hi) - std::max(a.lo, lo));
    }
    return total;
}

// The arc of `a` (at most a half circle, or the whole circle) inside half_circle(p): one arc, since
// both are convex.
Arc intersect_half(const Circle& c, const Arc& a, const Vec3& p) {
    const Arc h = half_circle(c, p);
    if (h.hi <= h.lo || a.hi <= a.lo) return {0.0, 0.0};
    if (h.hi - h.lo >= kTwoPi) return a;
    if (a.hi - a.lo >= kTwoPi) return h;
    const double mid = 0.5 * (a.lo + a.hi), centre = 0.5 * (h.lo + h.hi);
    const double near = centre + kTwoPi * std::round((mid - centre) / kTwoPi);
    return {std::max(a.lo, near - 0.5 * kPi), std::min(a.hi, near + 0.5 * kPi)};
}

}  // namespace

double horizon_arc_in_cube_texel(const Vec3& n, int face, int row, int col, int size) {
    const Circle c(n);
    // Face coordinates are linear in l: l ∝ M + s S + t T, so s >= s0 is (S - s0 M)·l >= 0, and so on.
    const Vec3 m = cube_face_direction(face, 0.0, 0.0);
    const Vec3 s = cube_face_direction(face, 1.0, 0.0), t = cube_face_direction(face, 0.0, 1.0);
    const Vec3 sv = {s.x - m.x, s.y - m.y, s.z - m.z}, tv = {t.x - m.x, t.y - m.y, t.z - m.z};
    const double s0 = 2.0 * col / size - 1.0, s1 = 2.0 * (col + 1) / size - 1.0;
    const double t0 = 2.0 * row / size - 1.0, t1 = 2.0 * (row + 1) / size - 1.0;
    auto plane = [&](double km, double ks, double kt) {  // km M + ks S + kt T
        return Vec3{km * m.x + ks * sv.x + kt * tv.x, km * m.y + ks * sv.y + kt * tv.y, km * m.z + ks * sv.z + kt * tv.z};
    };
    Arc a = half_circle(c, m);
    for (const Vec3& p : {plane(-s0, 1, 0), plane(s1, -1, 0), plane(-t0, 0, 1), plane(t1, 0, -1)}) a = intersect_half(c, a, p);
    return std::max(0.0, a.hi - a.lo);
}

double horizon_arc_in_equirect_texel(const Vec3& n, int row, int col, int width, int height) {
    const Circle c(n);
    // The wedge between the texel's meridians (at most a half turn when width >= 2).
    Arc wedge{0.0, kTwoPi};
    if (width >= 2) {
        const double phi0 = -kPi + kTwoPi * col / width, phi1 = -kPi + kTwoPi * (col + 1) / width;
        wedge = intersect_half(c, half_circle(c, {-std::sin(phi0), 0.0, std::cos(phi0)}), {std::sin(phi1), 0.0, -std::cos(phi1)});
    }
    // The band y1 <= y < y0: y(ψ) = R cos(ψ - ψy) on the circle. The arc where y >= y1 less the arc
    // where y >= y0 (inside it).
    const double y0 = std::cos(kPi * row / height), y1 = std::cos(kPi * (row + 1) / height);
    const double a = c.e1.y, b = c.e2.y, r = std::sqrt(a * a + b * b);
    if (r <= 1e-14) return y1 < 0.0 && 0.0 <= y0 ? wedge.hi - wedge.lo : 0.0;  // the equator: y = 0 all along
    const double centre = std::atan2(b, a);
    auto above = [&](double y) {  // the arc where y(ψ) >= y
        const double half = std::acos(std::clamp(y / r, -1.0, 1.0));
        return Arc{centre - half, centre + half};
    };
    return std::max(0.0, overlap(wedge, above(y1)) - overlap(wedge, above(y0)));
}

HorizonBright::HorizonBright(const std::vector<BrightTexel>& bright, bool equirect, int width, int height)
    : equirect_(equirect), width_(width), height_(height) {
    texels_.reserve(bright.size());
    for (const BrightTexel& b : bright) {
        Texel t{};
        t.texel = b;
        double radius;
        if (equirect) {
            t.centre = equirect_texel_direction(b.row, b.col, width, height);
            // Along the meridian, then along the parallel (longer than the great-circle distance).
            const double sin_max = std::max(std::sin(kPi * b.row / height), std::sin(kPi * (b.row + 1) / height));
            radius = 0.5 * (kPi / height + kTwoPi / width * sin_max);
        } else {
            t.centre = cube_texel_direction(b.face, b.row, b.col, width);
            radius = 0;  // the farthest point of a convex spherical quadrilateral is a corner
            for (int k = 0; k < 4; ++k) {
                const Vec3 corner = normalize(
                    cube_face_direction(b.face, 2.0 * (b.col + (k & 1)) / width - 1.0, 2.0 * (b.row + (k >> 1)) / width - 1.0));
                radius = std::max(radius, std::acos(std::clamp(dot(corner, t.centre), -1.0, 1.0)));
            }
        }
        t.reach = radius < 0.5 * kPi ? std::sin(radius) * (1.0 + 1e-9) + 1e-12 : 2.0;
        texels_.push_back(t);
    }
}

void HorizonBright::add(const Vec3& n, double out[3]) const {
    for (const Texel& t : texels_) {
        if (std::fabs(dot(n, t.centre)) > t.reach) continue;  // the circle passes beyond the texel
        const BrightTexel& b = t.texel;
        const double arc = equirect_ ? horizon_arc_in_equirect_texel(n, b.row, b.col, width_, height_)
                                     : horizon_arc_in_cube_texel(n, b.face, b.row, b.col, width_);
        if (arc <= 0) continue;
        for (int ch = 0; ch < 3; ++ch) out[ch] += b.excess[ch] * arc / kTwoPi;
    }
}

}  // namespace bake
