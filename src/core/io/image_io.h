#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include <utility>

#include "image.h"
#include "layout.h"
#include "packed_image.h"

namespace bake {

// What the file says about its own arrangement (OpenEXR's `envmap` attribute).
enum class EnvmapHint { None, LatLong, Cube };

struct LoadedImage {
    Image image;         // RGB float, unless packed holds the texels
    PackedImage packed;  // load_image_packed: the texels as the file encodes them (then image is empty)
    EnvmapHint envmap = EnvmapHint::None;
    std::vector<std::string> notes;  // what the reader chose that the user should know (warnings)
    bool is_packed() const { return !packed.bytes.empty(); }
    int width() const { return is_packed() ? packed.width : image.width; }
    int height() const { return is_packed() ? packed.height : image.height; }
};

// Default cap on width * height checked from the header before any pixel is decoded.
constexpr std::uint64_t kDefaultMaxPixels = 1ull << 28;  // 268M pixels: 16384 x 16384

// Loads a Radiance .hdr (stb_image) or OpenEXR .exr (OpenEXR; any compression, scanline or
// tiled, RGB/RGBA/Y, half/float/uint) into RGB float. Throws InputError("<path>: <problem>").
LoadedImage load_image(const std::string& path, std::uint64_t max_pixels = kDefaultMaxPixels);

// Like load_image, but keeps the texels packed where the file's own encoding allows it: a .hdr
// as RGBE bytes (decoded on all cores), an EXR whose R, G, B are all half as halves. Other files
// (float or Y/chroma EXRs, .hdr files that only stb reads) come back as float, as from load_image.
LoadedImage load_image_packed(const std::string& path, std::uint64_t max_pixels = kDefaultMaxPixels);

// The width and height a .hdr or .exr header states, without decoding anything; nullopt for any
// file that is not one or not a regular file (the loaders then say what is wrong; a FIFO is never
// opened). For work that can start early.
std::optional<std::pair<int, int>> read_image_size(const std::string& path);

// The file name's last extension, lower case, with its dot (".exr"); "" when there is none.
std::string lower_extension(const std::string& path);

// OpenEXR's global thread pool, one thread a core, set once (every EXR reader and writer calls it).
void init_openexr_threads();

// Writes an RGB float EXR (ZIP compression) atomically: a temporary file in the same folder,
// renamed over `path` only once complete. Sets the `envmap` attribute when hint != None.
// Throws OutputError("<path>: <problem>").
// `attributes`: string attributes of the header (name, value), saying what the file holds.
using ExrAttributes = std::vector<std::pair<std::string, std::string>>;
void write_exr(const std::string& path, const Image& image, EnvmapHint hint, const ExrAttributes& attributes = {});

}  // namespace bake
