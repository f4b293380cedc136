#pragma once
#include <optional>
#include <string>

#include "sh.h"

namespace bake {

enum class ShaderLanguage { Glsl, Hlsl };

std::optional<ShaderLanguage> parse_shader_language(const std::string& name);  // "glsl", "hlsl"

// Source text of one function evaluating the baked irradiance E(n) = sum_k E_k Y_k(n) for a unit
// normal n, with the irradiance coefficients inlined (9 significant digits: float round trip),
// in the convention of docs/CONVENTION.md (stated in a comment at the top of the text).
//   GLSL: vec3 bakeIrradiance(vec3 n)      HLSL: float3 BakeIrradiance(float3 n)
// `source` names the environment in the comment. Ready to paste; needs no other code.
std::string emit_shader_snippet(ShaderLanguage language, const ShCoefficients& irradiance, const std::string& source);

// The float literal the snippets use for v: 9 significant digits, always with '.' or 'e'.
std::string shader_float_literal(double v);

}  // namespace bake
