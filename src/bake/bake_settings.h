#pragma once
// What a bake is asked to do, independent of how the command line spelled it.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "backend.h"
#include "environment_loader.h"
#include "golden_check.h"
#include "ibl_ktx2.h"
#include "ktx2_writer.h"
#include "shader_snippet.h"
#include "sh_window.h"
#include "specular_prefilter.h"

namespace bake {

// Coefficients are always projected at order 5: the SH error report measures orders 3 and 5
// whatever was asked, and lower bands do not depend on the order projected (the CPU path's
// order-3 sums are the same bits either way).
constexpr int kProjectedOrder = 5;

// --gltf's chain stops at this face size (roughness 1 there), as EXT_lights_image_based's viewers do.
constexpr int kGltfLastSize = 16;

struct BakeSettings {
    LoadOptions load;                 // layout, size limit (packed texels are kept)
    bool clamp_negative = false;      // texel policies
    bool replace_nonfinite = false;
    int order = 3;
    MapShape map;                     // the irradiance map's shape (cube N, or lat-long 4N x 2N)
    bool exact_map = false;           // --irradiance exact
    ShWindowKind window = ShWindowKind::None;
    double window_cutoff = 0;
    double warn_error = 0.05;
    bool compare = false;
    double tolerance = 1e-5;          // --compare
    GoldenTolerance golden;
    SpecularSettings specular;        // base_size and samples
    SpecularSettings sheen;           // --sheen: the same, with the Charlie lobe
    double rotate_degrees = 0;        // --rotate: turned about +Y before anything
    KtxWriteOptions ktx;              // every .ktx2 output (--ktx-format, --ktx-zstd)
    KtxCubeConvention ktx_convention = KtxCubeConvention::Gl;  // .ktx2 cubes: whose lookup (--ktx-convention)
    int gltf_last_size = kGltfLastSize;
    int preview_width = 512;
    double preview_exposure = 0;
    int threads = 0;
    bool extract_sun = false;         // --extract-sun: the sun taken out of the map before anything is baked
    std::string generator = "bake-irradiance";  // the tool and its version, stated in the outputs
    // --skip-unchanged: the options that shape the outputs, as canonical text; a manifest of each
    // input's bake (bake_manifest.h) is written with its outputs. Empty: none.
    std::string fingerprint;
};

// One input and everything it produces (names expanded).
struct BakeJob {
    int index = 1;
    std::string label;                 // the input as given (first face file for --faces)
    std::vector<std::string> faces;    // six face files given with --faces (empty otherwise)
    std::vector<std::string> outputs;  // -o / --name files, each written by its extension's format
    bool named = false;                // the outputs come from --name patterns (a batch), not -o
    std::string golden, preview;
    std::string specular;              // may hold {level}
    std::string sheen;                 // may hold {level}
    std::vector<std::pair<ShaderLanguage, std::string>> emits;
    std::string gltf;                                            // --gltf: .gltf or .glb
    std::vector<std::pair<std::string, std::string>> sh_formats;  // --sh-format: engine, file
    std::vector<std::pair<std::string, std::string>> sun_formats; // --sun-format: engine, file
};

}  // namespace bake
