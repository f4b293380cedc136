#pragma once
// DDS files (DirectDraw Surface, Microsoft's "Programming Guide for DDS") with the DX10 header
// extension, written by hand: the format Direct3D, Unreal and Unity take. One file holds a 2D
// texture or a cube map with its whole mip chain, in a texel format of texture_format.h (its DXGI
// format in the DX10 header).
//
// Layout. "DDS ", DDS_HEADER (124 bytes: CAPS | HEIGHT | WIDTH | PIXELFORMAT | MIPMAPCOUNT, and
// LINEARSIZE with the top level's bytes for BC6H, else PITCH with a row's bytes; the pixel format
// only says FOURCC "DX10"; caps TEXTURE, with COMPLEX | MIPMAP when there are several levels, and
// COMPLEX plus CUBEMAP and all six faces for cube maps), DDS_HEADER_DXT10 (dxgiFormat,
// TEXTURE2D, miscFlag TEXTURECUBE for cube maps, arraySize 1, alpha mode unknown), then the data
// face by face, each face's levels from the largest down (a level smaller than a BC6H block is one
// padded block), rows top first. Cube faces are +X -X +Y -Y +Z -Z in the same orientation as the
// KTX2 files' (ktx2_writer.h): what the GL/Vulkan/Direct3D cube sampler expects with no flip.
// DDS holds no key/values: what the texels are and their convention are docs/textures.md's.
#include <cstdint>
#include <string>
#include <vector>

#include "texture_format.h"

namespace bake {

// The file's bytes. Throws std::invalid_argument for a texture that is no texture (validate_texture).
std::vector<std::uint8_t> encode_dds(const EncodedTexture& texture);

// encode_dds written to `path` atomically. Throws OutputError("<path>: <problem>") for any problem.
void write_dds(const std::string& path, const EncodedTexture& texture);

}  // namespace bake
