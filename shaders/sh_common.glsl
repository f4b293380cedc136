// Shared by the compute shaders. The host prepends `#version 430 core` and the variant's
// constants: SH_ORDER (bands l < SH_ORDER) and, per shader, WG_SIZE, CUBE_LAYOUT, ...
// Conventions are those of docs/CONVENTION.md and src/core (cube_map.cpp, equirect.cpp, sh.cpp).

#define SH_COUNT (SH_ORDER * SH_ORDER)

// Real orthonormal SH without the Condon-Shortley phase, index k = l*l + l + m; the same
// expressions as bake::eval_sh_basis so that float rounding follows the CPU's evaluation order.
void sh_basis(vec3 d, out float y[SH_COUNT]) {
    float x = d.x, yy = d.y, z = d.z;
    y[0] = 0.282094791773878;
#if SH_ORDER >= 2
    y[1] = 0.488602511902920 * yy;
    y[2] = 0.488602511902920 * z;
    y[3] = 0.488602511902920 * x;
#endif
#if SH_ORDER >= 3
    float x2 = x * x, y2 = yy * yy, z2 = z * z;
    y[4] = 1.092548430592079 * x * yy;
    y[5] = 1.092548430592079 * yy * z;
    y[6] = 0.315391565252520 * (3.0 * z2 - 1.0);
    y[7] = 1.092548430592079 * x * z;
    y[8] = 0.546274215296040 * (x2 - y2);
#endif
#if SH_ORDER >= 4
    y[9] = 0.590043589926644 * yy * (3.0 * x2 - y2);
    y[10] = 2.890611442640554 * x * yy * z;
    y[11] = 0.457045799464466 * yy * (5.0 * z2 - 1.0);
    y[12] = 0.373176332590115 * z * (5.0 * z2 - 3.0);
    y[13] = 0.457045799464466 * x * (5.0 * z2 - 1.0);
    y[14] = 1.445305721320277 * z * (x2 - y2);
    y[15] = 0.590043589926644 * x * (x2 - 3.0 * y2);
#endif
#if SH_ORDER >= 5
    y[16] = 2.503342941796705 * x * yy * (x2 - y2);
    y[17] = 1.770130769779931 * yy * z * (3.0 * x2 - y2);
    y[18] = 0.946174695757560 * x * yy * (7.0 * z2 - 1.0);
    y[19] = 0.669046543557289 * yy * z * (7.0 * z2 - 3.0);
    y[20] = 0.105785546915204 * (35.0 * z2 * z2 - 30.0 * z2 + 3.0);
    y[21] = 0.669046543557289 * x * z * (7.0 * z2 - 3.0);
    y[22] = 0.473087347878780 * (x2 - y2) * (7.0 * z2 - 1.0);
    y[23] = 1.770130769779931 * x * z * (x2 - 3.0 * y2);
    y[24] = 0.625835735449176 * (x2 * (x2 - 3.0 * y2) - y2 * (3.0 * x2 - y2));
#endif
}

// Face coordinate of texel edge `edge` (0..n) or centre (2*i+1 over 2n): the integer numerator
// is exact, so each coordinate is rounded once.
float cube_edge_coord(uint edge, uint n) { return float(2 * int(edge) - int(n)) / float(n); }
float cube_centre_coord(uint i, uint n) { return float(2 * int(i) + 1 - int(n)) / float(n); }

// OpenGL cube-map face table, inverted (docs/CONVENTION.md): unnormalised direction.
vec3 cube_face_direction(uint face, float sc, float tc) {
    switch (face) {
        case 0u: return vec3(1.0, -tc, -sc);
        case 1u: return vec3(-1.0, -tc, sc);
        case 2u: return vec3(sc, 1.0, tc);
        case 3u: return vec3(sc, -1.0, -tc);
        case 4u: return vec3(sc, -tc, 1.0);
        default: return vec3(-sc, -tc, -1.0);
    }
}

vec3 cube_texel_direction(uint face, uint row, uint col, uint n) {
    vec3 d = cube_face_direction(face, cube_centre_coord(col, n), cube_centre_coord(row, n));
    return d * inversesqrt(dot(d, d));
}

// atan(num / den) for num >= 0, den > 0 (a texel triangle's half solid angle is < pi/2).
// GLSL leaves the built-in atan's precision undefined (llvmpipe's is off by ~1e-5 relative),
// so: halve the angle with atan(y/x) = 2 atan(y / (x + sqrt(x^2 + y^2))) (no cancellation for
// x > 0) until the ratio is below 0.1, then the odd series, exact to float precision there
// (first dropped term r^11/11 < 1e-11 r). Texels of faces above a few texels skip the halving.
float atan_ratio(float num, float den) {
    float scale = 1.0;
    for (int i = 0; i < 4 && num >= 0.1 * den; ++i) {  // 4 halvings bring pi/2 to pi/32
        den += sqrt(den * den + num * num);
        scale *= 2.0;
    }
    float r = num / den;
    float r2 = r * r;
    return scale * r * (1.0 - r2 * (1.0 / 3.0 - r2 * (1.0 / 5.0 - r2 * (1.0 / 7.0 - r2 * (1.0 / 9.0)))));
}

// Solid angle of the spherical triangle through the unnormalised corners a, b, c (z = 1) with
// planar determinant det (Van Oosterom & Strackee): tan(Omega/2) = det / den. For texel halves
// det = ds*dt exactly and every term of den is positive, so nothing cancels even for tiny
// texels (the closed form with four corner atans loses all digits in float there).
float triangle_solid_angle(vec3 a, float la, vec3 b, float lb, vec3 c, float lc, float det) {
    float den = la * lb * lc + dot(a, b) * lc + dot(b, c) * la + dot(c, a) * lb;
    return 2.0 * atan_ratio(det, den);
}

// Exact solid angle of texel (row, col) of an n x n face: two triangles, as cube_map.cpp.
float cube_texel_solid_angle(uint row, uint col, uint n) {
    float s0 = cube_edge_coord(col, n), s1 = cube_edge_coord(col + 1u, n);
    float t0 = cube_edge_coord(row, n), t1 = cube_edge_coord(row + 1u, n);
    vec3 p00 = vec3(s0, t0, 1.0), p10 = vec3(s1, t0, 1.0);
    vec3 p11 = vec3(s1, t1, 1.0), p01 = vec3(s0, t1, 1.0);
    float l00 = length(p00), l10 = length(p10), l11 = length(p11), l01 = length(p01);
    float step = 2.0 / float(n);
    float det = step * step;
    return triangle_solid_angle(p00, l00, p10, l10, p11, l11, det) +
           triangle_solid_angle(p00, l00, p11, l11, p01, l01, det);
}

// An RGBE texel (bytes r, g, b, e of a little-endian word): byte * 2^(e - 136), stb_image's value.
// 2^(e - 136) is the float whose exponent field is e - 9, a normal number for e >= 10.
vec3 rgbe_texel(uint w) {
    uint e = w >> 24u;
    float scale = e >= 10u ? uintBitsToFloat((e - 9u) << 23u) : 0.0;
    return vec3(float(w & 255u), float((w >> 8u) & 255u), float((w >> 16u) & 255u)) * scale;
}

#ifdef WORK_GROUP_SUM
// Sum of one vec4[SH_COUNT] per invocation over the work group, written to
// partials_out[first..]:
// a binary tree through shared memory, REDUCE_CHUNK coefficients at a time. Level h adds
// element i + h into i for i < h, so every result has exactly log2(WG_SIZE) roundings in a
// fixed order (deterministic; the error bound in gpu_projector.cpp relies on it). Each
// level's REDUCE_CHUNK * h additions are spread over all invocations.
layout(std430, binding = 1) writeonly buffer PartialsOut { vec4 partials_out[]; };
shared vec4 reduce_buffer[REDUCE_CHUNK * WG_SIZE];

void store_work_group_sum(vec4 acc[SH_COUNT], uint lid, uint first) {
    for (uint base = 0u; base < uint(SH_COUNT); base += uint(REDUCE_CHUNK)) {
        for (uint c = 0u; c < uint(REDUCE_CHUNK); ++c)
            if (base + c < uint(SH_COUNT)) reduce_buffer[c * uint(WG_SIZE) + lid] = acc[base + c];
        barrier();
        for (uint h = uint(WG_SIZE) / 2u, log_h = uint(WG_LOG2) - 1u; h > 0u; h >>= 1u, --log_h) {
            for (uint p = lid; p < uint(REDUCE_CHUNK) * h; p += uint(WG_SIZE)) {
                uint c = p >> log_h, i = p & (h - 1u);
                reduce_buffer[c * uint(WG_SIZE) + i] += reduce_buffer[c * uint(WG_SIZE) + i + h];
            }
            barrier();
        }
        if (lid < uint(REDUCE_CHUNK) && base + lid < uint(SH_COUNT))
            partials_out[first + base + lid] = reduce_buffer[lid * uint(WG_SIZE)];
        barrier();  // the next chunk overwrites reduce_buffer
    }
}
#endif

// a / b in double, refined by two Newton steps on an exact fma residual from the driver's
// reciprocal: GLSL leaves double division's precision to the driver (the "[probe]" test prints
// what it gives). Each step squares the reciprocal's relative error; with an IEEE one the result is
// within an ulp of a / b. (specular_source.comp, specular_source_mips.comp)
double div_d(double a, double b) {
    const double inv = 1.0LF / b;
    double q = a * inv;
    q = fma(fma(-q, b, a), inv, q);
    return fma(fma(-q, b, a), inv, q);
}
