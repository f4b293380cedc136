#include "engine_sh.h"

#include <cstdint>
#include <cstdio>
#include <stdexcept>

#include "atomic_file.h"
#include "errors.h"

namespace bake {
namespace {

constexpr double kPi = 3.14159265358979323846;
// |c_k|: the constants of our basis (docs/CONVENTION.md), k = 0..8.
constexpr double kBasis[9] = {0.282094791773878, 0.488602511902920, 0.488602511902920,
                              0.488602511902920, 1.092548430592079, 1.092548430592079,
                              0.315391565252520, 1.092548430592079, 0.546274215296040};
// The Condon-Shortley phase against ours: m = +-1 negated (k = 1, 3, 5, 7).
constexpr int kCondonShortley[9] = {1, -1, 1, -1, 1, -1, 1, -1, 1};
// Terms odd in x (x, xy, xz) and in z (z, yz, xz): the signs a mirror of that axis gives.
constexpr int kMirrorX[9] = {1, 1, 1, -1, -1, 1, 1, -1, 1};
constexpr int kMirrorZ[9] = {1, 1, -1, 1, 1, -1, 1, -1, 1};

void require_order3(const ShCoefficients& radiance) {
    if (radiance.count() < 9) throw std::invalid_argument("engine SH layouts need order 3 (9 coefficients) or more");
}

Rgb scaled(const Rgb& v, double s) { return {v[0] * s, v[1] * s, v[2] * s}; }

// E_k = A_l L_k for k < 9.
Sh9 irradiance9(const ShCoefficients& radiance) {
    require_order3(radiance);
    Sh9 e;
    for (int k = 0; k < 9; ++k) e[k] = scaled(radiance.rgb[k], clamped_cosine_band_factor(sh_band(k)));
    return e;
}

nlohmann::json sh9_json(const Sh9& v) {
    nlohmann::json rows = nlohmann::json::array();
    for (const Rgb& c : v) rows.push_back({c[0], c[1], c[2]});
    return rows;
}

// A UUID-shaped name derived from the numbers (FNV-1a), so that the same bake writes the same file.
std::string stable_uuid(const Sh9& v) {
    std::uint64_t h = 1469598103934665603ull;
    for (const Rgb& c : v)
        for (double x : c) {
            const auto* b = reinterpret_cast<const unsigned char*>(&x);
            for (std::size_t i = 0; i < sizeof x; ++i) h = (h ^ b[i]) * 1099511628211ull;
        }
    const std::uint64_t g = h * 0x9e3779b97f4a7c15ull;
    char buf[40];
    std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-8%03x-%012llx", static_cast<unsigned>(h >> 32),
                  static_cast<unsigned>(h >> 16) & 0xffffu, static_cast<unsigned>(h) & 0xfffu,
                  static_cast<unsigned>(g >> 52) & 0xfffu, static_cast<unsigned long long>(g & 0xffffffffffffull));
    return buf;
}

// Makes the text, then writes it atomically; a coefficient set that is too short is the path's OutputError.
template <typename Fn>
void write_made(const std::string& path, const Fn& make_text) {
    std::string text;
    try {
        text = make_text();
    } catch (const std::invalid_argument& e) {
        throw OutputError(path + ": " + e.what());
    }
    write_text_atomically(path, text);
}

}  // namespace

Sh9 threejs_light_probe_sh(const ShCoefficients& radiance) {
    require_order3(radiance);
    Sh9 out;
    for (int k = 0; k < 9; ++k) out[k] = radiance.rgb[k];
    return out;
}

nlohmann::json threejs_light_probe_json(const ShCoefficients& radiance, const std::string& name) {
    const Sh9 sh = threejs_light_probe_sh(radiance);
    nlohmann::json flat = nlohmann::json::array();
    for (const Rgb& c : sh) flat.insert(flat.end(), {c[0], c[1], c[2]});
    return {{"metadata", {{"version", 4.7}, {"type", "Object"}, {"generator", "bake-irradiance"}}},
            {"object",
             {{"uuid", stable_uuid(sh)},
              {"type", "LightProbe"},
              {"name", name},
              {"layers", 1},
              {"matrix", {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}},
              {"up", {0, 1, 0}},
              {"color", 16777215},
              {"intensity", 1},
              {"sh", flat}}},
            {"bakeConvention",
             "three.js LightProbe: sh = radiance SH L_lm (not irradiance, not divided by pi) in three.js's basis "
             "(SphericalHarmonics3: the same polynomials as bake-irradiance, no Condon-Shortley phase), world "
             "axes right-handed +Y up as three.js; getIrradianceAt(n) gives E(n)"}};
}

Sh9 filament_sh(const ShCoefficients& radiance, FilamentSh kind, bool mirror_x) {
    const Sh9 e = irradiance9(radiance);
    Sh9 out;
    for (int k = 0; k < 9; ++k) {
        const double mirror = mirror_x ? kMirrorX[k] : 1;
        // cmgen's irradiance in its basis: phase and mirror; pre-scaled: times its signed constant / pi,
        // which takes the phase out again.
        const double s = kind == FilamentSh::Irradiance ? kCondonShortley[k] * mirror : mirror * kBasis[k] / kPi;
        out[k] = scaled(e[k], s);
    }
    return out;
}

std::string filament_sh_text(const ShCoefficients& radiance, FilamentSh kind, bool mirror_x) {
    const Sh9 sh = filament_sh(radiance, kind, mirror_x);
    std::string text;
    for (int k = 0; k < 9; ++k) {
        char line[160];
        std::snprintf(line, sizeof line, "(%18.15f, %18.15f, %18.15f); // L%d%d, irradiance%s\n", sh[k][0], sh[k][1],
                      sh[k][2], sh_band(k), sh_m(k), kind == FilamentSh::PreScaled ? ", pre-scaled base" : "");
        text += line;
    }
    return text;
}

std::array<std::array<double, 9>, 3> unity_sh_l2(const ShCoefficients& radiance) {
    const Sh9 e = irradiance9(radiance);
    std::array<std::array<double, 9>, 3> out{};
    for (int c = 0; c < 3; ++c)
        for (int k = 0; k < 9; ++k) out[c][k] = kMirrorZ[k] * e[k][c] * kBasis[k] / kPi;
    return out;
}

Sh9 babylon_harmonics(const ShCoefficients& radiance) {
    require_order3(radiance);
    Sh9 out;
    for (int k = 0; k < 9; ++k) out[k] = scaled(radiance.rgb[k], kCondonShortley[k]);
    return out;
}

BabylonPolynomial babylon_polynomial(const ShCoefficients& radiance) {
    const Sh9 e = irradiance9(radiance);
    auto t = [&](int k) { return scaled(e[k], kBasis[k] / kPi); };  // E_k |c_k| / pi
    auto sum = [](const Rgb& a, const Rgb& b, double sb, const Rgb& c, double sc) {
        return Rgb{a[0] + sb * b[0] + sc * c[0], a[1] + sb * b[1] + sc * c[1], a[2] + sb * b[2] + sc * c[2]};
    };
    BabylonPolynomial p;
    p.x = t(3);
    p.y = t(1);
    p.z = t(2);
    p.xy = t(4);
    p.yz = t(5);
    p.zx = t(7);
    // 1 = x^2 + y^2 + z^2 on the sphere: the constant and 3z^2 - 1 = 2z^2 - x^2 - y^2 spread over the squares.
    p.xx = sum(t(0), t(6), -1, t(8), 1);
    p.yy = sum(t(0), t(6), -1, t(8), -1);
    p.zz = sum(t(0), t(6), 2, t(8), 0);
    return p;
}

nlohmann::json babylon_json(const ShCoefficients& radiance) {
    const BabylonPolynomial p = babylon_polynomial(radiance);
    auto rgb = [](const Rgb& v) { return nlohmann::json{v[0], v[1], v[2]}; };
    return {{"harmonics", sh9_json(babylon_harmonics(radiance))},
            {"polynomial",
             {{"x", rgb(p.x)}, {"y", rgb(p.y)}, {"z", rgb(p.z)}, {"xx", rgb(p.xx)}, {"yy", rgb(p.yy)},
              {"zz", rgb(p.zz)}, {"xy", rgb(p.xy)}, {"yz", rgb(p.yz)}, {"zx", rgb(p.zx)}}},
            {"bakeConvention",
             "Babylon.js: harmonics = radiance SH (l00, l1_1, l10, l11, l2_2, l2_1, l20, l21, l22) in Babylon's "
             "basis (Condon-Shortley phase), for SphericalPolynomial.FromHarmonics(SphericalHarmonics.FromArray(h)); "
             "polynomial = E/pi (the radiance of a white Lambertian surface) as Babylon's SphericalPolynomial; "
             "glTF's axes (right-handed, +Y up; Babylon's left-handed scenes show glTF content with x negated)"}};
}

nlohmann::json unity_json(const ShCoefficients& radiance) {
    const auto sh = unity_sh_l2(radiance);
    return {{"shr", sh[0]},
            {"shg", sh[1]},
            {"shb", sh[2]},
            {"bakeConvention",
             "Unity SphericalHarmonicsL2: sh[channel, k] = shr/shg/shb[k], Unity's stored convention "
             "(E_k |c_k| / pi, Condon-Shortley signs folded in, what ShadeSH9 sums to E/pi; a constant radiance L "
             "gives sh[c, 0] = L); Unity's left-handed axes: z negated against bake-irradiance's"}};
}

Sh9 gltf_irradiance_coefficients(const ShCoefficients& radiance) {
    const Sh9 e = irradiance9(radiance);
    Sh9 out;
    for (int k = 0; k < 9; ++k) out[k] = scaled(e[k], kCondonShortley[k] * kMirrorZ[k]);
    return out;
}

void write_threejs_light_probe(const std::string& path, const ShCoefficients& radiance) {
    write_made(path, [&] { return threejs_light_probe_json(radiance).dump(2) + "\n"; });
}
void write_filament_sh(const std::string& path, const ShCoefficients& radiance, FilamentSh kind, bool mirror_x) {
    write_made(path, [&] { return filament_sh_text(radiance, kind, mirror_x); });
}
void write_unity_sh(const std::string& path, const ShCoefficients& radiance) {
    write_made(path, [&] { return unity_json(radiance).dump(2) + "\n"; });
}
void write_babylon_sh(const std::string& path, const ShCoefficients& radiance) {
    write_made(path, [&] { return babylon_json(radiance).dump(2) + "\n"; });
}

}  // namespace bake
