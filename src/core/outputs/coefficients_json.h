#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "layout.h"
#include "sh.h"

namespace bake {

// Everything the tool knows about one bake, as written to the coefficients JSON.
struct BakeRecord {
    std::vector<std::string> inputs;
    Layout layout = Layout::Equirect;
    int source_width = 0, source_height = 0;  // equirect size, or face size twice for cubes
    ShCoefficients radiance;                  // L_lm
    ShCoefficients irradiance;                // E_lm = A_l L_lm
    double solid_angle_sum = 0;
    std::string negative_policy = "keep";     // "keep" or "clamp"
    std::size_t negative_count = 0;
    double negative_min = 0;
    std::string nonfinite_policy = "reject";  // "reject" or "zero"
    std::size_t nonfinite_count = 0;
    std::string computed_by = "cpu";          // "cpu" or "gpu"
    std::string renderer;                     // GL_RENDERER, for the GPU path
    std::string gl_version;                   // GL_VERSION, for the GPU path
    nlohmann::json window;                    // the deringing window applied to the coefficients (null: none given)
    nlohmann::json sh_error;                  // the SH error report (sh_error.h), null when not measured
    nlohmann::json irradiance_map;            // how an irradiance map is made: {"method": "sh" | "exact", ...}
    nlohmann::json rotation;                  // --rotate: {degrees, method}, null without it
    bool sun_asked = false;                   // --extract-sun: the JSON states "sun"
    nlohmann::json sun;                       // sun_lights.h's sun_json of the sun taken out, or null: none found
};

// [r, g, b].
nlohmann::json rgb_json(const Rgb& v);

// The convention every coefficient is expressed in (docs/CONVENTION.md), as a JSON object.
nlohmann::json convention_json();

nlohmann::json to_json(const BakeRecord& record);

// Writes the JSON atomically (temporary file, then rename). Throws OutputError.
void write_coefficients_json(const std::string& path, const BakeRecord& record);

// A coefficients file read back (ours, e.g. a golden file).
struct CoefficientsDocument {
    ShCoefficients radiance;
    ShCoefficients irradiance;
    nlohmann::json json;  // the whole document, for reporting differences of convention or input
};

// Throws InputError("<path>: <problem>") for unreadable files, malformed JSON or missing fields.
CoefficientsDocument read_coefficients_json(const std::string& path);

}  // namespace bake
