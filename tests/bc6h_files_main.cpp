// bake_bc6h_files DIR: BC6H files for the independent readers (ctest: bc6h_oiio_read,
// bc6h_ktx_parse), each with what our decoder makes of it:
//   encoded.dds, encoded_<level>.f32   an HDR image (a sun, a sky, black and negative texels) of
//                                      36x20 with its whole chain (down to a 1x1 padded block),
//                                      encoded by bc6h.h; our decoder's floats, level by level
//   random.dds, random.f32             64x64 of random blocks, every mode number (reserved ones too)
//   bc6h.ktx2, bc6h_ktx2.json          a cube chain 16..1 as KTX2; its levels' blocks in hex
// tests/bc6h_oiio.py compares OpenImageIO's decoding with the .f32 files bit for bit;
// tests/js/check_bc6h_ktx2.mjs reads the KTX2 file with ktx-parse.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "bc6h.h"
#include "dds_writer.h"
#include "ibl_ktx2.h"
#include "texture_format.h"

using namespace bake;

namespace {

void write_floats(const std::string& path, const Image& im) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(im.rgb.data()), static_cast<std::streamsize>(im.rgb.size() * sizeof(float)));
}

// The 2x box average of a level (odd sizes drop their last row or column), down to 1x1.
Image half_size(const Image& im) {
    Image out(std::max(1, im.width / 2), std::max(1, im.height / 2));
    for (int y = 0; y < out.height; ++y)
        for (int x = 0; x < out.width; ++x)
            for (int c = 0; c < 3; ++c) {
                float sum = 0;
                int n = 0;
                for (int dy = 0; dy < 2; ++dy)
                    for (int dx = 0; dx < 2; ++dx) {
                        const int sy = std::min(2 * y + dy, im.height - 1), sx = std::min(2 * x + dx, im.width - 1);
                        sum += im.at(sy, sx)[c];
                        ++n;
                    }
                out.at(y, x)[c] = sum / static_cast<float>(n);
            }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: bake_bc6h_files DIR\n");
        return 2;
    }
    const std::string dir = argv[1];

    std::vector<Image> chain{Image(36, 20)};
    for (int y = 0; y < 20; ++y)
        for (int x = 0; x < 36; ++x) {
            float* p = chain[0].at(y, x);
            const float sky = 0.05f * std::exp2(0.08f * static_cast<float>(x) - 0.1f * static_cast<float>(y));
            p[0] = sky;
            p[1] = 1.5f * sky;
            p[2] = 3.0f * sky;
            if (y >= 16) p[0] = p[1] = p[2] = 0.0f;  // black ground
            if (y == 17 && x % 3 == 0) p[1] = -0.5f;  // negative texels
        }
    float* sun = chain[0].at(5, 22);
    sun[0] = 90000.0f;  // above the half range
    sun[1] = 60000.0f;
    sun[2] = 30000.0f;
    while (chain.back().width > 1 || chain.back().height > 1) chain.push_back(half_size(chain.back()));
    TextureImages images;
    images.width = 36;
    images.height = 20;
    for (const Image& level : chain) images.levels.push_back({&level});
    const EncodedTexture encoded = encode_texture(images, TextureFormat::Bc6hUFloat);
    write_dds(dir + "/encoded.dds", encoded);
    for (std::size_t i = 0; i < chain.size(); ++i)
        write_floats(dir + "/encoded_" + std::to_string(i) + ".f32",
                     bc6h_decode_image(encoded.levels[i].data(), chain[i].width, chain[i].height));

    // Random blocks: block k takes mode number kCodes[k % 18] over random bits.
    const int codes[18] = {0, 1, 2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31};
    EncodedTexture random;
    random.format = TextureFormat::Bc6hUFloat;
    random.width = random.height = 64;
    std::vector<std::uint8_t> blocks(256 * kBc6hBlockBytes);
    std::mt19937 rng(2024);
    for (std::uint8_t& b : blocks) b = static_cast<std::uint8_t>(rng());
    for (int k = 0; k < 256; ++k) {
        const int code = codes[k % 18];
        const int mask = code < 2 ? 3 : 31;
        blocks[16 * k] = static_cast<std::uint8_t>((blocks[16 * k] & ~mask) | code);
    }
    random.levels.push_back(blocks);
    write_dds(dir + "/random.dds", random);
    write_floats(dir + "/random.f32", bc6h_decode_image(blocks.data(), 64, 64));

    // A cube chain as KTX2.
    std::vector<CubeMap> cubes;
    for (int n = 16; n >= 1; n /= 2) {
        CubeMap cube(n);
        for (int f = 0; f < 6; ++f)
            for (int r = 0; r < n; ++r)
                for (int c = 0; c < n; ++c)
                    for (int ch = 0; ch < 3; ++ch)
                        cube.faces[f].at(r, c)[ch] = std::exp2(0.5f * static_cast<float>(f) + 0.2f * static_cast<float>(r - c + ch));
        cubes.push_back(cube);
    }
    KtxWriteOptions o;
    o.format = TextureFormat::Bc6hUFloat;
    write_specular_ktx2(dir + "/bc6h.ktx2", cubes, o);
    const EncodedTexture ktx = encode_texture(cube_chain_images(cubes), TextureFormat::Bc6hUFloat);
    nlohmann::json expected = {{"width", 16}, {"height", 16}, {"faces", 6}, {"levels", ktx.levels.size()}};
    for (const auto& level : ktx.levels) {
        std::string hex;
        char buf[3];
        for (std::uint8_t b : level) {
            std::snprintf(buf, sizeof buf, "%02x", b);
            hex += buf;
        }
        expected["blocks"].push_back(hex);
    }
    std::ofstream(dir + "/bc6h_ktx2.json") << expected.dump(1) << "\n";
    return 0;
}
