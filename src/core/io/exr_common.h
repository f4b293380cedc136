#pragma once
// OpenEXR pieces shared by image_io.cpp, exr_io.cpp and specular_io.cpp. Core-internal: it exposes OpenEXR's
// types, which the rest of the tool does not see.
#include <cstddef>
#include <cstdint>
#include <string>

#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>

#include "image_io.h"

namespace bake {

// Part 0's header, read without constructing an input file (which would size its offset tables
// and buffers from the data window), so that absurd sizes are refused before any allocation: the
// magic number, the version, every attribute's declared size against the file's, and deep data
// are checked first. Throws InputError("<path>: <problem>"). `version`: the file's version field.
Imf::Header read_exr_header(const std::string& path, int* version = nullptr);

// R, G, B slices of `type` interleaved in `base` (`channel_bytes` apart, 3 to a texel), for reading
// or writing the data window `dw` straight from it.
Imf::FrameBuffer interleaved_rgb(Imf::PixelType type, char* base, std::size_t channel_bytes, const Imath::Box2i& dw);

// Refuses a size that is not positive or has more pixels than max_pixels (from the header, before
// any allocation). Throws InputError("<path>: <problem>").
void check_image_size(const std::string& path, long long width, long long height, std::uint64_t max_pixels);

// An OpenEXR file as an image (part 0, level 0), any compression. half_out: when given and R, G
// and B are all half, they are read into it as they are (6 bytes a texel) and the image stays
// empty. Throws InputError (and OpenEXR's exceptions, which image_io turns into InputError).
LoadedImage load_exr(const std::string& path, std::uint64_t max_pixels, PackedImage* half_out = nullptr);

}  // namespace bake
