#include "sh_compare.h"

#include <algorithm>
#include <cmath>

namespace bake {

ShComparison compare_sh(const ShCoefficients& value, const ShCoefficients& reference) {
    ShComparison cmp;
    cmp.order = std::min(value.order, reference.order);
    const int count = sh_count(cmp.order);
    for (int ch = 0; ch < 3; ++ch) {
        double s = 0;
        for (int k = 0; k < count; ++k) s += reference.rgb[static_cast<size_t>(k)][ch] * reference.rgb[static_cast<size_t>(k)][ch];
        cmp.reference_norm[ch] = std::sqrt(s);
    }
    for (int k = 0; k < count; ++k) {
        for (int ch = 0; ch < 3; ++ch) {
            CoefficientDifference d;
            d.k = k;
            d.channel = ch;
            d.value = value.rgb[static_cast<size_t>(k)][ch];
            d.reference = reference.rgb[static_cast<size_t>(k)][ch];
            d.abs_diff = std::fabs(d.value - d.reference);
            // An all-zero reference channel: any difference is infinitely relative, none is 0.
            const double norm = cmp.reference_norm[ch];
            d.rel_diff = norm > 0 ? d.abs_diff / norm : (d.abs_diff > 0 ? INFINITY : 0.0);
            if (std::isnan(d.abs_diff)) d.rel_diff = d.abs_diff;
            cmp.max_abs_diff = std::max(cmp.max_abs_diff, d.abs_diff);
            cmp.max_rel_diff = std::max(cmp.max_rel_diff, d.rel_diff);
            if (std::isnan(d.rel_diff)) cmp.max_rel_diff = d.rel_diff;
            cmp.rows.push_back(d);
        }
    }
    return cmp;
}

ImageDifference compare_images(const Image& a, const Image& reference) {
    ImageDifference d;
    const size_t n = std::min(a.rgb.size(), reference.rgb.size());
    for (size_t i = 0; i < n; ++i) {
        d.max_abs_diff = std::max(d.max_abs_diff, std::fabs(static_cast<double>(a.rgb[i]) - reference.rgb[i]));
        d.max_abs_reference = std::max(d.max_abs_reference, std::fabs(static_cast<double>(reference.rgb[i])));
    }
    return d;
}

}  // namespace bake
