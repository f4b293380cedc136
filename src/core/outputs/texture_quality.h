#pragma once
// How far a compressed texture is from the float texels it was made from: the measures of
// docs/textures.md's quality table. Each compares `test` with `reference` texel by texel over R, G
// and B (images of the same size; a chain level's six faces are passed together), sums in double.
#include <vector>

#include "image.h"

namespace bake {

struct TextureErrors {
    // sqrt(sum (test - ref)^2 / sum ref^2): the error's RMS relative to the reference's.
    double relative_rmse = 0;
    // sqrt(mean (log2(max(test, 2^-14)) - log2(max(ref, 2^-14)))^2): in stops; values below the
    // smallest normal half (2^-14) count as 2^-14.
    double log2_rmse = 0;
    // Multi-exposure PSNR (Munkberg, Clarberg, Hasselgren, Akenine-Moller, "High dynamic range
    // texture compression for graphics hardware", SIGGRAPH 2006): each exposure c of the range
    // tone-maps a value x to T(x) = round(255 (2^c x)^(1/2.2)), clamped to [0, 255]; MSE is the mean
    // over exposures and texels of dR^2 + dG^2 + dB^2, mPSNR = 10 log10(3 * 255^2 / MSE) (dB; +inf
    // when equal). The exposures are the integers from floor(-log2 hi) to ceil(-log2 lo), hi the
    // reference's largest channel value and lo the 0.1% quantile of its texels' largest channels
    // above 2^-14: the brightest texel just saturates at the first, the dim ones are seen at the last.
    double mpsnr_db = 0;
    int exposure_lo = 0, exposure_hi = 0;  // the range used
};

// Throws std::invalid_argument when the image lists differ in count or sizes.
TextureErrors compare_textures(const std::vector<const Image*>& test, const std::vector<const Image*>& reference);

}  // namespace bake
