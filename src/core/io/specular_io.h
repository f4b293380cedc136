#pragma once
// The specular prefiltered cube-map chain (specular_prefilter.h) as files.
//
// The chain: level i (0 = sharpest) of L has faces of N >> i texels, N a power of two, down to 1x1 or
// stopping above it (SpecularSettings::last_size), and holds the environment prefiltered for
// perceptual roughness i / (L - 1) (or the roughness the caller states). Every level is stored
// as the project's cube output is: a vertical strip N_i x 6 N_i, faces +X -X +Y -Y +Z -Z top to
// bottom, each in OpenGL's orientation with row 0 the top row (docs/CONVENTION.md; OpenEXR's own
// envmap=cube faces are these mirrored, see README), float R, G, B.
//
// One file (write_specular_exr): a single-part tiled EXR, 64x64 tiles, MIPMAP_LEVELS, ROUND_DOWN,
// ZIP where it pays (a trial of level 0's face centres compresses to 80% or less; else no
// compression: noisy float texels take 7x the time to save 4%), envmap=cube. File level i is chain level i. OpenEXR's ROUND_DOWN chain of an N x 6N image has
// two levels more than a full cube chain (log2 N + 3 against log2 N + 1): after the 1x6 level (cube
// level log2 N) come a 1x3 and a 1x1 level, which are no cube levels. They hold area averages of
// the level above, so that every OpenEXR reader finds every level it expects: the 1x3 level's
// texels are the means of the 1x6 level's faces (+X, -X), (+Y, -Y), (+Z, -Z); the 1x1 level's texel
// is the mean of the 1x3 level's three (= the mean of all six faces; each mean in double, then
// rounded to float). A chain of L < log2 N + 1 levels fills the file's cube levels L .. log2 N the same
// way, each texel the solid-angle weighted mean of the 2x2 above. Header attributes (besides OpenEXR's own):
//   envmap                  envmap   cube
//   bakeSpecularCubeLevels  int      number of the chain's levels L, 1 .. log2 N + 1 (file levels: log2 N + 3)
//   bakeSpecularRoughness   floatvector  perceptual roughness of cube level 0 .. L-1
//   bakeSpecularConvention  string   the prefilter's convention (SpecularChainInfo::convention)
//   bakeSpecularLayout      string   the strip layout and orientation above, in words
//   bakeSpecularExtraLevels string   what the file levels past the chain hold, in words
//
// Per-level files (write_specular_level_files): one EXR per cube level, as write_exr writes any cube
// output (scanline, ZIP, float RGB, N_i x 6 N_i vertical strip, envmap=cube), named by a pattern
// holding {level}, with string attributes bakeSpecularLevel ("i of L"), bakeSpecularRoughness (the
// level's perceptual roughness) and bakeSpecularConvention.
#include <string>
#include <vector>

#include "cube_map.h"

namespace bake {

// The convention strings the CLI states for its GGX chain and its Charlie (sheen) chain (any other
// string may be passed).
constexpr const char* kSpecularConvention =
    "GGX, alpha = roughness^2, level i: roughness i/(levels-1), N=V=R";
constexpr const char* kSheenConvention =
    "Charlie (Estevez & Kulla 2017 sheen, KHR_materials_sheen), alpha = roughness^2, level i: roughness i/(levels-1), "
    "N=V=R; level 0: the mean over the horizon circle n.l = 0";

struct SpecularChainInfo {           // what the file states about itself (custom header attributes)
    std::vector<double> roughness;   // perceptual roughness per level (stored as float)
    std::string convention;          // e.g. kSpecularConvention
};

// Writes the chain as one tiled, mip-mapped EXR (layout above), atomically (write_atomically): a
// failure leaves `path` as it was and no temporary behind. info.roughness: one value per level, or
// empty for the default i / (levels - 1); info.convention: empty for kSpecularConvention.
// Throws OutputError("<path>: <problem>"), also for a chain that is not one (sizes not N >> i, at
// most down to 1, N a power of two; faces of the wrong size; roughness count not the level count).
void write_specular_exr(const std::string& path, const std::vector<CubeMap>& levels, const SpecularChainInfo& info);

// Reads such a file back: every cube level (the two extra levels are read, to notice a truncated
// file, but not returned). Checks, from the header and before allocating anything: a single-part
// tiled file, MIPMAP_LEVELS with ROUND_DOWN, envmap=cube, a data window N x 6N with N a power of two
// and at most kDefaultMaxPixels (image_io.h) texels, channels R, G and B (any pixel type, read as
// float), and, where present, bakeSpecularCubeLevels between 1 and log2 N + 1 (the levels returned;
// all log2 N + 1 without it) and one bakeSpecularRoughness value a level. Absent bake* attributes
// leave info's fields empty (a file from another tool).
// Any problem, truncation included: InputError("<path>: <problem>"), one line.
std::vector<CubeMap> read_specular_exr(const std::string& path, SpecularChainInfo* info = nullptr);

// Whether `pattern` holds "{level}".
bool has_level_placeholder(const std::string& pattern);

// `pattern` with every "{level}" replaced by the decimal level index; nothing else is touched (use
// expand_output_pattern(..., keep_level = true) first for {stem}, {name}, {index}).
std::string expand_level_placeholder(const std::string& pattern, int level);

// One EXR per cube level, named expand_level_placeholder(pattern, i), i = 0 (sharpest) .. L-1: the
// level as a vertical strip with envmap=cube, through write_exr, stating its roughness (info as for
// write_specular_exr). Returns the names written, in level order. All levels or none (one
// OutputSet, or the caller's when one is open).
// Throws std::invalid_argument when the pattern has no {level}; OutputError("<file>: <problem>")
// otherwise (an invalid chain or roughness count names the pattern).
std::vector<std::string> write_specular_level_files(const std::string& pattern, const std::vector<CubeMap>& levels,
                                                    const SpecularChainInfo& info = {});

}  // namespace bake
