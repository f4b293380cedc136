#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "cube_map.h"
#include "image.h"
#include "packed_image.h"

namespace bake {

// How an environment is arranged in the image(s) it was loaded from (docs/CONVENTION.md).
enum class Layout {
    Equirect,    // 2:1 lat-long
    HCross,      // 4:3, row 1 = -X +Z +X -Z, +Y above +Z, -Y below +Z
    VCross,      // 3:4, +Y; -X +Z +X; -Y; -Z rotated by 180 degrees
    HStrip,      // 6:1, +X -X +Y -Y +Z -Z
    VStrip,      // 1:6, same order top to bottom (also OpenEXR's envmap=cube arrangement)
    Faces,       // six separate face images
};

const char* layout_name(Layout layout);                     // "equirect", "hcross", ...
std::optional<Layout> parse_layout(const std::string& name);

// Layout implied by an image's aspect ratio, or nothing if it fits none.
std::optional<Layout> detect_layout(int width, int height);

// Face size of a single-image cube layout of the given dimensions, or 0 if they do not fit it.
int cube_face_size(Layout layout, int width, int height);

// Copies the faces out of a cross or strip (a rearrangement of texels, no resampling).
// Precondition: cube_face_size(layout, image.width, image.height) > 0.
CubeMap extract_cube(const Image& image, Layout layout);

// The inverse: arranges a cube in a cross or strip; unused cross cells are black.
Image assemble_cube(const CubeMap& cube, Layout layout);

// An environment as loaded: an equirect image, or a cube map (from any cube layout).
// An equirect image may instead be held packed, as the file encodes it (LoadOptions::packed):
// then `packed` holds the texels and `equirect` is empty until expand_packed_texels().
struct Environment {
    Layout layout = Layout::Equirect;
    Image equirect;      // when layout == Equirect and not packed
    PackedImage packed;  // when layout == Equirect and packed (is_packed())
    CubeMap cube;        // otherwise
    // Nonzero: these texels, final (a bake's input after its texel policies; copies share it), so
    // that a device holding texels of the same identity need not send them again (the GPU's
    // specular source reads what the projection uploaded). 0: unknown, always sent.
    std::uint64_t identity = 0;

    bool is_cube() const { return layout != Layout::Equirect; }
    bool is_packed() const { return !is_cube() && !packed.bytes.empty(); }
    int width() const { return is_cube() ? cube.size : is_packed() ? packed.width : equirect.width; }
    int height() const { return is_cube() ? cube.size : is_packed() ? packed.height : equirect.height; }
    std::size_t texel_count() const {
        return is_cube() ? 6 * static_cast<std::size_t>(cube.size) * cube.size
                         : is_packed() ? packed.pixel_count() : equirect.pixel_count();
    }
};

// A fresh identity for Environment::identity (never 0; unique in the process).
std::uint64_t next_environment_identity();

// Turns packed texels into the float image they stand for (exact) and frees the packed bytes;
// nothing when the environment holds floats already. The CPU path, previews and anything else
// that reads `equirect` or `cube` need floats.
void expand_packed_texels(Environment& env, int threads = 0);

}  // namespace bake
