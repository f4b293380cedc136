#pragma once
// RGBD, the 8-bit HDR packing of Babylon.js that EXT_lights_image_based's 4-channel PNGs hold, exactly as
// Babylon encodes and decodes it (@babylonjs/core@9.35.0 Shaders/ShadersInclude/helperFunctions.js:104-105,
// toRGBD and fromRGBD, with toGammaSpace/toLinearSpace = pow 1/2.2 and 2.2 as its rgbdDecode shader uses
// them, lines 5 and 44-58):
//   D = clamp(floor(max(255 / max(maxRGB, 1e-7), 1)) / 255, 0, 1),  rgb' = clamp((rgb D)^(1/2.2), 0, 1),
//   stored as bytes round(255 rgb'), round(255 D);   decoded rgb = rgb'^2.2 / D.
// Range: up to 255 (a channel above that is clipped); negative channels become 0.
// Precision lost: every channel's error is within rgbd_error_bound(m) * m, m the texel's brightest channel:
// half a byte step through the gamma, (s^(1/2.2) + 0.5/255)^2.2 / s - 1 with s = m D, at worst 0.5 for
// m >= 1 (D's steps) and m itself below 1 (D = 1): 0.59% for m >= 1, 1.4% at m = 1/8, 5.5% at m = 1/256.
// Measured over 10^5 random texels, m in [2^-8, 255]: reached to within 1% (tests/test_gltf_ibl.cpp).
#include <cstdint>
#include <vector>

#include "image.h"

namespace bake {

double rgbd_error_bound(double max_channel);

void encode_rgbd(const float rgb[3], std::uint8_t out[4]);
void decode_rgbd(const std::uint8_t in[4], float rgb[3]);

// An image as RGBD bytes, rows in order, or in reverse order (flip_rows: the last row first).
std::vector<std::uint8_t> encode_rgbd_image(const Image& image, bool flip_rows);

// 8-bit RGBA pixels as a PNG file's bytes (stb_image_write). Throws std::runtime_error if encoding fails.
std::vector<std::uint8_t> encode_png_rgba8(const std::vector<std::uint8_t>& rgba, int width, int height);

}  // namespace bake
