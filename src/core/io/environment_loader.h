#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "image_io.h"
#include "layout.h"

namespace bake {

struct LoadOptions {
    std::optional<Layout> layout;              // forced layout; otherwise envmap attribute, then aspect
    std::uint64_t max_pixels = kDefaultMaxPixels;
    // Keep an equirect image's texels packed as the file encodes them (RGBE, half) where it can,
    // for the GPU path to upload as they are (Environment::packed). Cube layouts are expanded.
    bool packed = false;
    // Where the readers' notes go as warning lines ("warning: <file>: <note>"), if anywhere.
    std::vector<std::string>* warnings = nullptr;
};

// Loads one image holding a whole environment (equirect, cross or strip).
// The layout is, in order: options.layout, the EXR `envmap` attribute (latlong -> equirect,
// cube -> vertical strip, OpenEXR's arrangement), the aspect ratio. Throws InputError.
Environment load_environment(const std::string& path, const LoadOptions& options = {});

// Loads six square face images, in the order +X, -X, +Y, -Y, +Z, -Z. Throws InputError.
Environment load_environment_faces(const std::array<std::string, 6>& paths, const LoadOptions& options = {});

// Expands a pattern containing "{face}" into the six face file names px, nx, py, ny, pz, nz.
// Returns nothing if the pattern has no "{face}".
std::optional<std::array<std::string, 6>> expand_face_pattern(const std::string& pattern);

}  // namespace bake
