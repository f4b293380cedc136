#pragma once
#include <array>
#include <vector>

#include "image.h"
#include "sh.h"

namespace bake {

// One coefficient and channel of a comparison between a result and a reference.
struct CoefficientDifference {
    int k = 0, channel = 0;
    double value = 0, reference = 0;
    double abs_diff = 0;
    double rel_diff = 0;  // abs_diff / norm of the reference's coefficient vector for this channel
};

// Coefficient-wise comparison over the coefficients both have (the lower order).
// The relative measure divides by the channel's whole coefficient-vector norm, not by the
// coefficient itself: coefficients near zero would otherwise make any rounding look huge.
struct ShComparison {
    int order = 0;                            // common order compared
    std::vector<CoefficientDifference> rows;  // k-major, then channel
    std::array<double, 3> reference_norm{};   // ||reference channel vector||_2 over common coefficients
    double max_abs_diff = 0;
    double max_rel_diff = 0;
};

ShComparison compare_sh(const ShCoefficients& value, const ShCoefficients& reference);

// Largest |a - b| over all channel values of two images of equal size, and the largest |b|.
struct ImageDifference {
    double max_abs_diff = 0;
    double max_abs_reference = 0;
};
ImageDifference compare_images(const Image& a, const Image& reference);

}  // namespace bake
