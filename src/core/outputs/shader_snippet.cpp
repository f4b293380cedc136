#include "shader_snippet.h"

#include <cmath>
#include <cstdio>

namespace bake {

namespace {

// Y_k as an expression in x, y, z (and x2, y2, z2): the constants of sh.cpp / docs/CONVENTION.md.
struct BasisTerm {
    double constant;
    const char* polynomial;  // nullptr: the constant alone
};

const BasisTerm kBasis[kMaxShCount] = {
    {0.282094791773878, nullptr},
    {0.488602511902920, "y"},
    {0.488602511902920, "z"},
    {0.488602511902920, "x"},
    {1.092548430592079, "x * y"},
    {1.092548430592079, "y * z"},
    {0.315391565252520, "(3.0 * z2 - 1.0)"},
    {1.092548430592079, "x * z"},
    {0.546274215296040, "(x2 - y2)"},
    {0.590043589926644, "y * (3.0 * x2 - y2)"},
    {2.890611442640554, "x * y * z"},
    {0.457045799464466, "y * (5.0 * z2 - 1.0)"},
    {0.373176332590115, "z * (5.0 * z2 - 3.0)"},
    {0.457045799464466, "x * (5.0 * z2 - 1.0)"},
    {1.445305721320277, "z * (x2 - y2)"},
    {0.590043589926644, "x * (x2 - 3.0 * y2)"},
    {2.503342941796705, "x * y * (x2 - y2)"},
    {1.770130769779931, "y * z * (3.0 * x2 - y2)"},
    {0.946174695757560, "x * y * (7.0 * z2 - 1.0)"},
    {0.669046543557289, "y * z * (7.0 * z2 - 3.0)"},
    {0.105785546915204, "(35.0 * z2 * z2 - 30.0 * z2 + 3.0)"},
    {0.669046543557289, "x * z * (7.0 * z2 - 3.0)"},
    {0.473087347878780, "(x2 - y2) * (7.0 * z2 - 1.0)"},
    {1.770130769779931, "x * z * (x2 - 3.0 * y2)"},
    {0.625835735449176, "(x2 * (x2 - 3.0 * y2) - y2 * (3.0 * x2 - y2))"},
};

}  // namespace

std::optional<ShaderLanguage> parse_shader_language(const std::string& name) {
    if (name == "glsl") return ShaderLanguage::Glsl;
    if (name == "hlsl") return ShaderLanguage::Hlsl;
    return std::nullopt;
}

std::string shader_float_literal(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    std::string s = buf;
    if (s == "-0") s = "0";
    if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // "n": nan/inf never reach here
    return s;
}

std::string emit_shader_snippet(ShaderLanguage language, const ShCoefficients& e, const std::string& source) {
    const bool glsl = language == ShaderLanguage::Glsl;
    const char* vec3 = glsl ? "vec3" : "float3";
    std::string s;
    s += "// bake-irradiance: diffuse irradiance E(n) of " + source + ", SH order " + std::to_string(e.order) + " (" +
         std::to_string(e.count()) + " coefficients, bands l <= " + std::to_string(e.order - 1) + ").\n";
    s += "// Convention (docs/CONVENTION.md of bake-irradiance): real orthonormal spherical harmonics without the\n"
         "// Condon-Shortley phase, written in the Cartesian components of the unit normal n = (x, y, z), index\n"
         "// k = l*l + l + m; right-handed frame, +Y up, the frame of the environment map (its lat-long centre,\n"
         "// u = 0.5, looks at +X; cube faces in OpenGL order and orientation).\n"
         "// E(n) = sum_k E_k Y_k(n) with E_k = A_l L_k, A = (pi, 2pi/3, pi/4, 0, -pi/24): irradiance, NOT divided\n"
         "// by pi; a Lambertian surface of albedo rho reflects rho * E(n) / pi. n must be unit length.\n";
    bool omitted = false;
    for (int k = 0; k < e.count(); ++k) {
        const Rgb& c = e.rgb[static_cast<size_t>(k)];
        omitted |= c[0] == 0 && c[1] == 0 && c[2] == 0;
    }
    if (omitted) s += "// Coefficients that are exactly zero (band 3 always: A_3 = 0) are left out.\n";
    s += std::string(vec3) + (glsl ? " bakeIrradiance(vec3 n)\n{\n" : " BakeIrradiance(float3 n)\n{\n");
    s += "    float x = n.x, y = n.y, z = n.z;\n";
    if (e.order >= 3) s += "    float x2 = x * x, y2 = y * y, z2 = z * z;\n";
    s += "    " + std::string(vec3) + " e = " + vec3 + "(0.0, 0.0, 0.0);\n";
    for (int k = 0; k < e.count(); ++k) {
        const Rgb& c = e.rgb[static_cast<size_t>(k)];
        if (c[0] == 0 && c[1] == 0 && c[2] == 0) continue;
        const BasisTerm& b = kBasis[k];
        std::string term = shader_float_literal(b.constant);
        if (b.polynomial) term += std::string(" * ") + b.polynomial;
        s += "    e += " + std::string(vec3) + "(" + shader_float_literal(c[0]) + ", " + shader_float_literal(c[1]) +
             ", " + shader_float_literal(c[2]) + ") * (" + term + ");  // l=" + std::to_string(sh_band(k)) +
             " m=" + std::to_string(sh_m(k)) + "\n";
    }
    s += "    return e;\n}\n";
    return s;
}

}  // namespace bake
