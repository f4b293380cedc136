#include "rgbd.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC  // private copy: other translation units embed stb too
#define STBI_WRITE_NO_STDIO     // PNG to memory only
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_image_write.h>
#pragma GCC diagnostic pop

namespace bake {
namespace {

constexpr float kGamma = 2.2f;  // Babylon's LinearEncodePowerApprox

std::uint8_t to_byte(float v) {  // a GPU's float -> unorm8 conversion: clamp, round to nearest
    return static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f));
}

}  // namespace

double rgbd_error_bound(double max_channel) {
    // The brightest channel is stored as s^(1/2.2), s = m D; half a byte step up, back through the gamma,
    // relative to s. s is m below 1 (D = 1) and at least 0.5 from 1 up (D's steps).
    const double s = max_channel >= 1.0 ? 0.5 : std::max(max_channel, 1e-30);
    const double step = std::pow(std::pow(s, 1.0 / kGamma) + 0.5 / 255.0, kGamma) / s - 1.0;
    return step * 1.001;  // float arithmetic of the decode
}

void encode_rgbd(const float rgb[3], std::uint8_t out[4]) {
    const float max_rgb = std::max(std::max(std::max(rgb[0], rgb[1]), rgb[2]), 1e-7f);  // maxEps
    const float d = std::clamp(std::floor(std::max(255.0f / max_rgb, 1.0f)) / 255.0f, 0.0f, 1.0f);
    for (int c = 0; c < 3; ++c) out[c] = to_byte(std::pow(std::max(rgb[c] * d, 0.0f), 1.0f / kGamma));
    out[3] = to_byte(d);
}

void decode_rgbd(const std::uint8_t in[4], float rgb[3]) {
    const float d = in[3] / 255.0f;
    for (int c = 0; c < 3; ++c) rgb[c] = d > 0 ? std::pow(in[c] / 255.0f, kGamma) / d : 0.0f;
}

std::vector<std::uint8_t> encode_rgbd_image(const Image& image, bool flip_rows) {
    std::vector<std::uint8_t> out(image.pixel_count() * 4);
    for (int r = 0; r < image.height; ++r) {
        const int src = flip_rows ? image.height - 1 - r : r;
        for (int c = 0; c < image.width; ++c)
            encode_rgbd(image.at(src, c), &out[(static_cast<std::size_t>(r) * image.width + c) * 4]);
    }
    return out;
}

std::vector<std::uint8_t> encode_png_rgba8(const std::vector<std::uint8_t>& rgba, int width, int height) {
    std::vector<std::uint8_t> png;
    auto sink = [](void* context, void* data, int size) {
        auto* out = static_cast<std::vector<std::uint8_t>*>(context);
        out->insert(out->end(), static_cast<std::uint8_t*>(data), static_cast<std::uint8_t*>(data) + size);
    };
    if (!stbi_write_png_to_func(sink, &png, width, height, 4, rgba.data(), width * 4))
        throw std::runtime_error("PNG encoding failed");
    return png;
}

}  // namespace bake
