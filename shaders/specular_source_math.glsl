// The double-precision helpers of shaders/specular_source.comp (included there): the constants the
// host sends, square root, reciprocal square root, division and arctangent without the driver's
// double division or square root.
// Every double constant that float cannot hold exactly comes from the host, so that no compiler's
// handling of double literals can round one (π rounded to float moves the column crossings by 1e-7
// rad and the averages next to a sun by up to 4% on llvmpipe; on the H200 this was tried as the
// cause of its errors and was not it: bench/NOTES.md, measured at b112ca9).
// [0] π, [1] π/2, [2] 2π, [3..11] atan(k/8), [12..18] 1/3, 1/5, ..., 1/15, [19..21] the Rec. 709
// luminance weights.
layout(std430, binding = 4) readonly buffer Constants { double constants[]; };
#define kPiD constants[0]
#define kHalfPiD constants[1]
#define kTwoPiD constants[2]

// Division (div_q) and square root refined by two Newton steps on an exact fma residual: the
// pieces' Δφ must be exact to double rounding, as the column sums of a sun multiply its error.
// None of them uses the driver's double division or square root, which NVIDIA makes in software
// with every special case (the pass 19.4 -> ~10 ms at 4k on the H200 without them,
// bench/NOTES.md, measured at bbee77c). The square root starts from the driver's inverse square
// root, whose value also gives the steps' 1 / (2r): a step's error is the previous one's times
// that factor's relative error, so two give the root to rounding.
double sqrt_d(double x) {
    if (!(x > 0.0LF)) return 0.0LF;
    const double rs = inversesqrt(x), half_inv = 0.5LF * rs;
    double r = x * rs;
    r = fma(fma(-r, r, x), half_inv, r);
    return fma(fma(-r, r, x), half_inv, r);
}

// 1 / sqrt(q) by the driver's inverse square root and two Newton steps: normalizing by it takes
// no division.
double rsqrt_d(double q) {
    double r = inversesqrt(q);
    r = r * fma(-0.5LF * q * r, r, 1.5LF);
    return r * fma(-0.5LF * q * r, r, 1.5LF);
}

// a / b refined as div_d (sh_common.glsl) refines it, from a reciprocal seeded in float where |b|
// is in float's range and refined by two Newton steps (relative error ~1e-28 before rounding)
// instead of the driver's. Within a few ulps of the IEEE quotient (measured on llvmpipe: never
// more than 1e-15 relative), though not always its bits, so the average can differ from the
// CPU's by double rounding (tests/test_gpu_specular_source.cpp).
double div_q(double a, double b) {
    const double m = abs(b);
    double inv;
    if (m > 1e-30LF && m < 1e30LF) {
        inv = double(1.0 / float(b));
        inv = fma(fma(-b, inv, 1.0LF), inv, inv);
        inv = fma(fma(-b, inv, 1.0LF), inv, inv);
    } else {
        inv = 1.0LF / b;
    }
    double q = a * inv;
    q = fma(fma(-q, b, a), inv, q);
    return fma(fma(-q, b, a), inv, q);
}

// dot and cross spelled out, in the CPU's order (vec3.h): the built-ins' double precision is the
// driver's, and these feed every crossing point.
double dot3(dvec3 a, dvec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
dvec3 cross3(dvec3 a, dvec3 b) { return dvec3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }

double top_at(int k) { return grid[k]; }
double row_height_at(int i) { return grid[u_height + 1 + i]; }
double cos_phi_at(int j) { return grid[2 * u_height + 1 + j]; }
double sin_phi_at(int j) { return grid[2 * u_height + 1 + u_width + j]; }

// ---- atan in double: GLSL has no double trigonometry --------------------------------------------

// atan(u) for |u| <= 1/16 by its series to u^15 (the next term is below 2^-64 of u): the same
// polynomial as the CPU's atan2_small.
double atan_series(double u) {
    const double u2 = u * u;
    return u * (1.0LF + u2 * (-constants[12] + u2 * (constants[13] + u2 * (-constants[14] + u2 * (constants[15] +
           u2 * (-constants[16] + u2 * (constants[17] - u2 * constants[18])))))));
}

// atan(t) for t = lo / hi, 0 <= lo <= hi, hi > 0: atan t = atan c + atan((t - c) / (1 + t c))
// with c the nearest k/8, so that the second argument is at most 1/16, taken with one division as
// (lo - c hi) / (hi + c lo); k from a float quotient (or, out of float's range, comparisons).
double atan_ratio(double lo, double hi) {
    int k = 0;
    if (hi > 1e-30LF && hi < 1e30LF) {
        k = clamp(int(float(lo) / float(hi) * 8.0 + 0.5), 0, 8);
    } else {
        const double l8 = 8.0LF * lo;
        for (int i = 0; i < 8; ++i) k += l8 >= (double(i) + 0.5LF) * hi ? 1 : 0;
    }
    const double c = double(k) * 0.125LF;
    return constants[3 + k] + atan_series(div_q(fma(-c, hi, lo), fma(c, lo, hi)));
}

bool sign_bit(double v) { return (unpackDouble2x32(v).y >> 31u) != 0u; }

// atan2(y, x) as C's, signed zeros included (y = ±0 with x < 0 or x = -0 gives ±π).
double atan_double(double y, double x) {
    const double ay = abs(y), ax = abs(x), lo = min(ay, ax), hi = max(ay, ax);
    double r = hi > 0.0LF ? atan_ratio(lo, hi) : 0.0LF;
    if (ay > ax) r = kHalfPiD - r;
    if (sign_bit(x)) r = kPiD - r;
    return sign_bit(y) ? -r : r;
}

// specular_source.cpp's atan2_small: the series where |y| <= x/16, else atan2.
double atan2_small(double y, double x) {
    if (x > 0.0LF && abs(y) <= 0.0625LF * x) return atan_series(div_q(y, x));
    return atan_double(y, x);
}

// ---- The input's texels ------------------------------------------------------------------------

#ifndef TEXEL_FORMAT
#define TEXEL_FORMAT 0
#endif
