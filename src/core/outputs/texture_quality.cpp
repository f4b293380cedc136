#include "texture_quality.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace bake {
namespace {

constexpr double kSmallestNormalHalf = 1.0 / 16384.0;  // 2^-14

int tone(double x, int exposure) {
    const double v = 255.0 * std::pow(std::ldexp(std::max(x, 0.0), exposure), 1.0 / 2.2);
    return static_cast<int>(std::lround(std::clamp(v, 0.0, 255.0)));
}

}  // namespace

TextureErrors compare_textures(const std::vector<const Image*>& test, const std::vector<const Image*>& reference) {
    if (test.size() != reference.size()) throw std::invalid_argument("compare_textures: image counts differ");
    double diff2 = 0, ref2 = 0, log2_sum = 0, count = 0, hi = 0;
    std::vector<double> maxima;  // each reference texel's largest channel above 2^-14
    for (std::size_t k = 0; k < test.size(); ++k) {
        const Image& a = *test[k];
        const Image& b = *reference[k];
        if (a.width != b.width || a.height != b.height) throw std::invalid_argument("compare_textures: image sizes differ");
        for (std::size_t i = 0; i < b.pixel_count(); ++i) {
            double m = 0;
            for (int c = 0; c < 3; ++c) {
                const double x = a.rgb[3 * i + c], r = b.rgb[3 * i + c];
                diff2 += (x - r) * (x - r);
                ref2 += r * r;
                const double l = std::log2(std::max(x, kSmallestNormalHalf)) - std::log2(std::max(r, kSmallestNormalHalf));
                log2_sum += l * l;
                count += 1;
                m = std::max(m, r);
            }
            hi = std::max(hi, m);
            if (m > kSmallestNormalHalf) maxima.push_back(m);
        }
    }
    TextureErrors out;
    out.relative_rmse = ref2 > 0 ? std::sqrt(diff2 / ref2) : (diff2 > 0 ? std::numeric_limits<double>::infinity() : 0.0);
    out.log2_rmse = count > 0 ? std::sqrt(log2_sum / count) : 0.0;
    double lo = hi;
    if (!maxima.empty()) {
        const std::size_t q = maxima.size() / 1000;
        std::nth_element(maxima.begin(), maxima.begin() + static_cast<long>(q), maxima.end());
        lo = maxima[q];
    }
    if (hi <= 0) hi = lo = 1.0;
    out.exposure_lo = static_cast<int>(std::floor(-std::log2(hi)));
    out.exposure_hi = std::max(out.exposure_lo, static_cast<int>(std::ceil(-std::log2(lo))));
    double sum = 0, terms = 0;
    for (int e = out.exposure_lo; e <= out.exposure_hi; ++e)
        for (std::size_t k = 0; k < test.size(); ++k) {
            const Image& a = *test[k];
            const Image& b = *reference[k];
            for (std::size_t i = 0; i < b.pixel_count(); ++i) {
                for (int c = 0; c < 3; ++c) {
                    const int d = tone(a.rgb[3 * i + c], e) - tone(b.rgb[3 * i + c], e);
                    sum += static_cast<double>(d) * d;
                }
                terms += 1;
            }
        }
    const double mse = terms > 0 ? sum / terms : 0.0;
    out.mpsnr_db = mse > 0 ? 10.0 * std::log10(3.0 * 255.0 * 255.0 / mse) : std::numeric_limits<double>::infinity();
    return out;
}

}  // namespace bake
