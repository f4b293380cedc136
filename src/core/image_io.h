#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "image.h"
#include "layout.h"

namespace bake {

// What the file says about its own arrangement (OpenEXR's `envmap` attribute).
enum class EnvmapHint { None, LatLong, Cube };

struct LoadedImage {
    Image image;
    EnvmapHint envmap = EnvmapHint::None;
};

// Default cap on width * height checked from the header before any pixel is decoded.
constexpr std::uint64_t kDefaultMaxPixels = 1ull << 28;  // 268M pixels: 16384 x 16384

// Loads a Radiance .hdr (stb_image) or OpenEXR .exr (OpenEXR; any compression, scanline or
// tiled, RGB/RGBA/Y, half/float/uint) into RGB float. Throws InputError("<path>: <problem>").
LoadedImage load_image(const std::string& path, std::uint64_t max_pixels = kDefaultMaxPixels);

// Writes an RGB float EXR (ZIP compression) atomically: a temporary file in the same folder,
// renamed over `path` only once complete. Sets the `envmap` attribute when hint != None.
// Throws OutputError("<path>: <problem>").
void write_exr(const std::string& path, const Image& image, EnvmapHint hint);

}  // namespace bake
