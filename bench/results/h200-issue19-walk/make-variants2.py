#!/usr/bin/env python3
"""Round 2 of the source pass's variants (on the shader with sqrt_d from inversesqrt and
locate_guessed): python3 make-variants2.py SHADER DIR writes DIR/<variant>/specular_source.comp.
  hoist   the row crossings' 1/ey and the meridians' angle step made once an arc (no division a crossing)
  nrm     normalizations by a refined inverse square root (no division)
  atan1   atan of lo/hi with one division ((lo - c hi) / (hi + c lo), c from a float quotient)
  rcpf    div_d's reciprocal from a float seed and two Newton steps
  combo   nrm + atan1 (hoist and rcpf fail the random-RGBE-over-2^60 test on llvmpipe: 5.6x its bound)"""
import os, sys
src, out = sys.argv[1], sys.argv[2]
base = open(src).read()

def edit(s, old, new):
    assert old in s, old[:80]
    return s.replace(old, new)

RSQ = '''double rsqrt_d(double q) {
    double r = inversesqrt(q);
    r = r * fma(-0.5LF * q * r, r, 1.5LF);
    return r * fma(-0.5LF * q * r, r, 1.5LF);
}
'''
def hoist(s):
    s = edit(s, "        e = dvec3(-m.y * m.x, ey2, -m.y * m.z) * div_d(1.0LF, ey);",
                "        e = dvec3(-m.y * m.x, ey2, -m.y * m.z) * div_d(1.0LF, ey);\n        inv_ey = div_d(1.0LF, ey);")
    s = edit(s, "    double ey = 0.0LF, side = 1.0LF;", "    double ey = 0.0LF, side = 1.0LF, inv_ey = 0.0LF;")
    s = edit(s, "const double c = clamp(div_d(top_at(k_next), ey), -1.0LF, 1.0LF);",
                "const double c = clamp(top_at(k_next) * inv_ey, -1.0LF, 1.0LF);")
    s = edit(s, "    const double per_col = div_d(double(u_width), kTwoPiD);\n    const double f0 = (pa.phi + kPiD) * per_col, f1 = f0 + dphi_ab * per_col;\n    int col = min",
                "    const double per_col = div_d(double(u_width), kTwoPiD), phi_step = div_d(kTwoPiD, double(u_width));\n    const double f0 = (pa.phi + kPiD) * per_col, f1 = f0 + dphi_ab * per_col;\n    int col = min")
    s = edit(s, "col_dphi = (-kPiD + div_d(double(j), per_col)) - pa.phi;", "col_dphi = (-kPiD + double(j) * phi_step) - pa.phi;")
    return s
def nrm(s):
    s = edit(s, "dvec3 normalized(dvec3 a) { return a * div_d(1.0LF, sqrt_d(dot3(a, a))); }",
                RSQ + "dvec3 normalized(dvec3 a) { return a * rsqrt_d(dot3(a, a)); }")
    s = edit(s, """            const double len = sqrt_d(dot3(x, x));
            if (!(len > 0.0LF)) continue;
            x = x * div_d(x.x * c + x.z * s < 0.0LF ? -1.0LF : 1.0LF, len);""",
                """            const double len2 = dot3(x, x);
            if (!(len2 > 0.0LF)) continue;
            x = x * ((x.x * c + x.z * s < 0.0LF ? -1.0LF : 1.0LF) * rsqrt_d(len2));""")
    return s
def atan1(s):
    s = edit(s, """double atan_unit(double t) {""", """double atan_ratio(double lo, double hi) {
    // k = round(8 lo / hi) from a float quotient where hi is in float's range, else by comparisons
    int k = 0;
    if (hi > 1e-30LF && hi < 1e30LF) {
        k = clamp(int(float(lo) / float(hi) * 8.0 + 0.5), 0, 8);
    } else {
        const double l8 = 8.0LF * lo;
        for (int i = 0; i < 8; ++i) k += l8 >= (double(i) + 0.5LF) * hi ? 1 : 0;
    }
    const double c = double(k) * 0.125LF;
    return constants[3 + k] + atan_series(div_d(fma(-c, hi, lo), fma(c, lo, hi)));
}
double atan_unit(double t) {""")
    s = edit(s, "    double r = hi > 0.0LF ? atan_unit(div_d(lo, hi)) : 0.0LF;", "    double r = hi > 0.0LF ? atan_ratio(lo, hi) : 0.0LF;")
    return s
def rcpf(s):
    return edit(s, "layout(local_size_x = 8, local_size_y = 8) in;", """layout(local_size_x = 8, local_size_y = 8) in;
double div_f(double a, double b) {
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
#define div_d div_f""")
variants = {"base": lambda s: s, "hoist": hoist, "nrm": nrm, "atan1": atan1, "rcpf": rcpf,
            "combo": lambda s: atan1(nrm(s))}
for name, f in variants.items():
    os.makedirs(f"{out}/{name}", exist_ok=True)
    open(f"{out}/{name}/specular_source.comp", "w").write(f(base))
print("variants in", out)
