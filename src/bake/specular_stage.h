#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "specular_prefilter.h"
#include "texture_format.h"

namespace bake {

class Backend;

// The specular half of a bake (--specular): the source cube, its mip chain and the GGX-prefiltered
// chain on `backend` (the GPU's GpuError propagates: the caller falls back; the CPU runs the same
// estimator in double).
struct SpecularBake {
    SpecularSettings settings;
    SpecularInput input;                 // the source cube (input.mips[0], or kept by the backend), its mips, the bright split
    std::vector<CubeMap> chain;          // level i: roughness i/(levels-1)
    std::string computed_by;             // "gpu" or "cpu"
    int bright_texels = 0;               // texels summed exactly (SpecularInput::bright)
    double source_ms = 0;                // source cube and mips (CPU)
    double prefilter_ms = 0;             // GPU timers, or CPU wall clock
    std::vector<SpecularLevelDifference> reference;  // --compare: against the brute force; else empty
    std::vector<SpecularLevelDifference> estimator;  // --compare on the GPU: against the CPU estimator
    EncodedTexture bc6h;                 // the chain's BC6H blocks where it was made (bake_specular's bc6h), else no levels
};

// A chain wanted as BC6H blocks where it is made (Backend::prefilter_specular), faces laid out for
// Bevy when mirror_z.
struct Bc6hBlocks {
    bool wanted = false;
    bool mirror_z = false;
};

// env: float or packed texels. `source`: a source already prepared from env (another chain of the
// same input, such as --gltf's beside --specular's); used when it has this chain's source size and
// `backend` can read it (in memory, or kept by this backend), instead of building the same exact
// average again. `split`: env's bright split, when made beforehand. `cpu_copy`: keep the source
// in memory (--compare reads it), not only where the backend computed it.
SpecularBake bake_specular(const Environment& env, SpecularSettings settings, Backend& backend, int threads,
                           const SpecularInput* source = nullptr, const BrightSplit* split = nullptr,
                           bool cpu_copy = false, Bc6hBlocks bc6h = {});

// --compare: texels of each level checked against the brute force over the source cube (each
// costs a pass over it: 6 x 512² texels at the default size; the input itself would cost up to 64
// times more, and the source is its exact area average).
constexpr int kSpecularCompareTexels = 48;

// --compare: the chain against the brute-force reference at up to `texels_per_level` texels of each
// level (every texel of the small levels; an even spread of the others), and, when the chain came from
// the GPU, against the CPU estimator (all texels). The bake's source must be in memory (cpu_copy).
void compare_specular(SpecularBake& bake, int texels_per_level, int threads);

// --compare's lines on stdout, one a level: "specular level I (roughness R): against the brute
// force max X of max, mean Y[; GPU against the CPU estimator max X, mean Y]".
std::vector<std::string> describe_specular_comparison(const SpecularBake& bake);

// Writes the chain: one mip-mapped EXR, or one file per level when `path` holds {level}.
// Returns the files written.
std::vector<std::string> write_specular(const std::string& path, const SpecularBake& bake);

// The report's and the stdout lines' view: {files, base_size, levels, roughness, alpha, source_size,
// samples, lod_bias, bright_texels, computed_by, ms: {source, prefilter}, compare: null | {reference, estimator}}.
nlohmann::json specular_json(const SpecularBake& bake, const std::vector<std::string>& files);

}  // namespace bake
