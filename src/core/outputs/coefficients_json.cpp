#include "coefficients_json.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "atomic_file.h"
#include "errors.h"

namespace bake {

namespace {

nlohmann::json coefficients_array(const ShCoefficients& c) {
    nlohmann::json a = nlohmann::json::array();
    for (const Rgb& v : c.rgb) a.push_back(rgb_json(v));
    return a;
}

ShCoefficients parse_coefficients(const nlohmann::json& a, const std::string& path, const char* field) {
    auto bad = [&](const std::string& why) { return InputError(path + ": field '" + field + "' " + why); };
    if (!a.is_array()) throw bad("is missing or not an array");
    const int n = static_cast<int>(std::lround(std::sqrt(static_cast<double>(a.size()))));
    if (a.empty() || n * n != static_cast<int>(a.size()) || !is_supported_order(n))
        throw bad("has " + std::to_string(a.size()) + " entries, not 1, 4, 9, 16 or 25");
    ShCoefficients c(n);
    for (size_t k = 0; k < a.size(); ++k) {
        const nlohmann::json& v = a[k];
        if (!v.is_array() || v.size() != 3) throw bad("entry " + std::to_string(k) + " is not [r, g, b]");
        for (size_t ch = 0; ch < 3; ++ch) {
            if (!v[ch].is_number()) throw bad("entry " + std::to_string(k) + " holds a non-number");
            c.rgb[k][ch] = v[ch].get<double>();
        }
    }
    return c;
}

}  // namespace

nlohmann::json rgb_json(const Rgb& v) { return {v[0], v[1], v[2]}; }

nlohmann::json convention_json() {
    return {
        {"document", "docs/CONVENTION.md of bake-irradiance"},
        {"basis", "real orthonormal spherical harmonics without the Condon-Shortley phase, Cartesian in the unit "
                  "direction (x, y, z): Y00=0.282095, Y1-1=0.488603y, Y10=0.488603z, Y11=0.488603x, "
                  "Y2-2=1.092548xy, Y2-1=1.092548yz, Y20=0.315392(3z^2-1), Y21=1.092548xz, "
                  "Y22=0.546274(x^2-y^2); bands 3 and 4 as docs/CONVENTION.md"},
        {"ordering", "k = l*l + l + m, m = -l..l; each entry [r, g, b]"},
        {"normalization", "orthonormal over the sphere: integral of Y_k Y_j = delta_kj"},
        {"axes", "right-handed, +Y up"},
        {"equirect", "row 0 = top; u=(col+0.5)/W, v=(row+0.5)/H; theta=pi*v from +Y, phi=2*pi*u-pi; "
                     "d=(sin(theta)cos(phi), cos(theta), sin(theta)sin(phi)): u=0 -> -X, u=0.25 -> -Z, "
                     "u=0.5 -> +X, u=0.75 -> +Z"},
        {"cube_faces", "OpenGL order +X,-X,+Y,-Y,+Z,-Z and orientation, row 0 = top; sc=2(col+0.5)/N-1, "
                       "tc=2(row+0.5)/N-1: +X (1,-tc,-sc), -X (-1,-tc,sc), +Y (sc,1,tc), -Y (sc,-1,-tc), "
                       "+Z (sc,-tc,1), -Z (-sc,-tc,-1)"},
        {"projection", "L_lm = sum over source texels of L * Y_lm(texel centre) * exact texel solid angle"},
        {"irradiance", "E_lm = A_l * L_lm, A = (pi, 2pi/3, pi/4, 0, -pi/24); E(n) = sum E_lm Y_lm(n), "
                       "not divided by pi"},
    };
}

nlohmann::json to_json(const BakeRecord& r) {
    nlohmann::json input = {
        {"files", r.inputs},
        {"layout", layout_name(r.layout)},
        {"width", r.source_width},
        {"height", r.source_height},
    };
    const double four_pi = 4.0 * 3.14159265358979323846;
    nlohmann::json j = {
        {"generator", "bake-irradiance"},
        {"order", r.radiance.order},
        {"count", r.radiance.count()},
        {"radiance", coefficients_array(r.radiance)},
        {"irradiance", coefficients_array(r.irradiance)},
        {"convention", convention_json()},
        {"input", input},
        {"solid_angle_sum", r.solid_angle_sum},
        {"solid_angle_sum_minus_4pi", r.solid_angle_sum - four_pi},
        {"negative_texels", {{"policy", r.negative_policy}, {"count", r.negative_count}, {"min", r.negative_min}}},
        {"nonfinite_texels", {{"policy", r.nonfinite_policy}, {"count", r.nonfinite_count}}},
        {"computed_by", {{"path", r.computed_by}}},
    };
    if (!r.window.is_null()) j["window"] = r.window;
    if (!r.sh_error.is_null()) j["sh_error"] = r.sh_error;
    if (!r.irradiance_map.is_null()) j["irradiance_map"] = r.irradiance_map;
    if (r.sun_asked) j["sun"] = r.sun;
    if (!r.rotation.is_null()) j["input"]["rotation"] = r.rotation;
    if (r.computed_by == "gpu") {
        j["computed_by"]["renderer"] = r.renderer;
        j["computed_by"]["gl_version"] = r.gl_version;
    }
    return j;
}

void write_coefficients_json(const std::string& path, const BakeRecord& record) {
    // nlohmann's dump prints doubles with the shortest text that round-trips (max_digits10 at most).
    // File names need not be UTF-8: invalid bytes become U+FFFD instead of an exception.
    const std::string text = to_json(record).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    write_text_atomically(path, text);
}

CoefficientsDocument read_coefficients_json(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw InputError(path + ": is a folder, not a JSON file");
    if (!std::filesystem::exists(path, ec)) throw InputError(path + ": no such file");
    if (!std::filesystem::is_regular_file(path, ec)) throw InputError(path + ": not a regular file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open");
    std::stringstream ss;
    ss << in.rdbuf();
    CoefficientsDocument doc;
    try {
        doc.json = nlohmann::json::parse(ss.str());
    } catch (const nlohmann::json::exception& e) {
        // parse_error, and out_of_range for numbers beyond double (e.g. 1e999): both malformed input.
        std::string what = e.what();
        for (char& c : what)
            if (c == '\n' || c == '\r') c = ' ';
        throw InputError(path + ": malformed JSON: " + what);
    }
    if (!doc.json.is_object()) throw InputError(path + ": not a JSON object");
    doc.radiance = parse_coefficients(doc.json.contains("radiance") ? doc.json["radiance"] : nlohmann::json(), path,
                                      "radiance");
    // A file written by this tool has both fields: a missing one is a damaged or hand-made file,
    // whose check would quietly compare less than it claims.
    if (!doc.json.contains("irradiance")) throw InputError(path + ": field 'irradiance' is missing");
    doc.irradiance = parse_coefficients(doc.json["irradiance"], path, "irradiance");
    if (doc.irradiance.order != doc.radiance.order)
        throw InputError(path + ": 'radiance' and 'irradiance' have different orders");
    if (const auto order = doc.json.find("order"); order != doc.json.end() &&
                                                   !(order->is_number_integer() && order->get<long long>() == doc.radiance.order))
        throw InputError(path + ": field 'order' is " + one_line(order->dump()) + " but 'radiance' has " +
                         std::to_string(doc.radiance.count()) + " entries (order " + std::to_string(doc.radiance.order) + ")");
    return doc;
}

}  // namespace bake
