#pragma once
// The sheen LUT's files (sheen_lut.h computes it), each saying what it holds, as the DFG table's
// (dfg_files.h): the axes and channels in EXR string attributes or PNG tEXt chunks (and, for PNG,
// gAMA 1.0: the values are linear); KTX2: write_sheen_lut_ktx2 (ibl_ktx2.h).
#include <string>

#include "image.h"

namespace bake {

constexpr const char* kSheenLutContent = "sheen LUT: directional albedo of KHR_materials_sheen's Charlie sheen BRDF";
constexpr const char* kSheenLutAxes =
    "columns left to right: N.V = (column + 0.5) / width; rows top to bottom: sheen roughness = "
    "(row + 0.5) / height, Charlie alpha = roughness^2";
constexpr const char* kSheenLutChannels =
    "R = E with the Charlie visibility of Estevez & Kulla 2017 (albedo scaling of the layers below by "
    "1 - max(sheenColor) * E: the glTF sample viewer's sheen_E, read .r); G = B = E with Neubelt's "
    "visibility (sheen IBL = sheenColor * prefiltered Charlie radiance * E: the sample viewer's Charlie "
    "LUT, read .b; Filament's DFG blue)";

// Float RGB EXR (ZIP). Throws OutputError("<path>: <problem>").
void write_sheen_lut_exr(const std::string& path, const Image& table);

// 16-bit RGB PNG: each value clamped to [0, 1] and rounded to the nearest of 65535 levels. E exceeds 1
// at grazing views of smooth sheens (in a 128 x 128 table: N.V below 0.09 and roughness below 0.44,
// up to 22 in its corner texel); the EXR and KTX2 files keep it.
// Throws OutputError("<path>: <problem>").
void write_sheen_lut_png16(const std::string& path, const Image& table);

}  // namespace bake
