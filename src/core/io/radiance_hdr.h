#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace bake {


// What decode_radiance_scanlines writes: the file's RGBE bytes, or their RGB float values.
enum class RadianceTarget { Rgbe8, Float };

// Decodes the pixels of a Radiance .hdr in the layout nearly every file has ("-Y H +X W" with
// 8 <= W < 32768, every scanline new-style RLE) on `threads` threads (<= 0: all cores).
// A cheap sequential pass finds where each scanline starts (its run and dump lengths), then the
// scanlines are decoded in parallel, band by band, the next band read while this one decodes,
// so that memory beyond `out` stays two bands whatever the file's size (a band grows for a
// scanline longer than itself, up to 16 times the longest one without zero-count padding).
//
// `out` holds width * height texels of the target (4 bytes or 3 floats each), rows top to bottom.
// Returns true when every texel was written, bit-identical to stb_image's decoding. Returns
// false, `out` then partly written, for everything else: another layout, a flat (uncompressed)
// or old-style RLE scanline, corrupt or truncated data, a header that does not say width x
// height. The caller then decodes with stb_image, whose handling (and error messages) of those
// files stays the reference.
// Whether decode_radiance_scanlines can succeed, from the header and the file's size alone (a
// scanline of width texels is at least 4 + 8 * ceil(width / 127) bytes): callers ask before they
// allocate the output, so that a header claiming a huge image over a few bytes costs nothing.
bool radiance_scanlines_plausible(const std::string& path, int width, int height);

// band_bytes: the size of a band (tests make it small to cut scanlines at many band edges).
constexpr std::size_t kRadianceBandBytes = std::size_t{16} << 20;
bool decode_radiance_scanlines(const std::string& path, int width, int height, RadianceTarget target, void* out,
                               int threads = 0, std::size_t band_bytes = kRadianceBandBytes);

}  // namespace bake
