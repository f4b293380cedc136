// BC6H on the GPU. The GL's own decoder (its texture units: Mesa's on llvmpipe, the driver's on a
// card) against ours: blocks uploaded as GL_COMPRESSED_RGB_BPTC_UNSIGNED_FLOAT, read back through a
// sampler (texelFetch in a compute shader), compared bit for bit with bc6h_decode_block. And the GPU
// encoder (gpu_bc6h.h) against the CPU's default setting: the same bytes, from a cube texture, a 2D
// texture, a buffer, in our layout and Bevy's.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bc6h.h"
#include "gl_objects.h"
#include "gpu_bc6h.h"
#include "ibl_ktx2.h"
#include "gpu_formats.h"
#include "gpu_specular.h"
#include "specular_prefilter.h"
#include "gpu_test_support.h"
#include "packed_image.h"

using namespace bake;
using namespace bake::test;

namespace {

// A compute program from one source string (this test's own shader), or FAIL with the log.
GLuint compile(const char* source) {
    const GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
    glShaderSource(shader, 1, &source, nullptr);
    glCompileShader(shader);
    GLint ok = 0;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    char log[2048] = "";
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    INFO(log);
    REQUIRE(ok);
    const GLuint program = glCreateProgram();
    glAttachShader(program, shader);
    glLinkProgram(program);
    glDeleteShader(shader);
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    REQUIRE(ok);
    return program;
}

constexpr const char* kFetch = R"(#version 430 core
layout(local_size_x = 8, local_size_y = 8) in;
uniform sampler2D u_texture;
uniform ivec2 u_size;
layout(std430, binding = 0) buffer Out { vec4 texels[]; };
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x < u_size.x && p.y < u_size.y) texels[p.y * u_size.x + p.x] = texelFetch(u_texture, p, 0);
}
)";

// The texels the GL's sampler returns for `blocks` (width x height, rows of blocks top first, the
// upload's row 0 being texel row 0), RGB.
std::vector<float> gl_decode(const std::vector<std::uint8_t>& blocks, int width, int height) {
    GLuint texture = 0;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glCompressedTexImage2D(GL_TEXTURE_2D, 0, GL_COMPRESSED_RGB_BPTC_UNSIGNED_FLOAT, width, height, 0,
                           static_cast<GLsizei>(blocks.size()), blocks.data());
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    check_gl("uploading BC6H blocks");
    const GLuint program = compile(kFetch);
    glUseProgram(program);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, texture);
    glUniform1i(glGetUniformLocation(program, "u_texture"), 0);
    glUniform2i(glGetUniformLocation(program, "u_size"), width, height);
    GlBuffer out;
    out.allocate(static_cast<std::size_t>(width) * height * 16, nullptr, GL_STREAM_READ);
    out.bind(0);
    glDispatchCompute(static_cast<GLuint>((width + 7) / 8), static_cast<GLuint>((height + 7) / 8), 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    std::vector<float> rgba(static_cast<std::size_t>(width) * height * 4);
    out.read(rgba.data(), rgba.size() * sizeof(float), "reading the sampled texels");
    glDeleteProgram(program);
    glDeleteTextures(1, &texture);
    std::vector<float> rgb;
    for (std::size_t i = 0; i < rgba.size(); i += 4) rgb.insert(rgb.end(), rgba.begin() + static_cast<long>(i), rgba.begin() + static_cast<long>(i) + 3);
    return rgb;
}

// Bit for bit: the GL's floats against our decoder's halves; the number of values that differ,
// with the first one described in `first`.
std::size_t differences(const std::vector<float>& gl, const Image& ours, std::string& first) {
    std::size_t bad = 0;
    for (std::size_t k = 0; k < gl.size(); ++k) {
        std::uint32_t a, b;
        std::memcpy(&a, &gl[k], 4);
        std::memcpy(&b, &ours.rgb[k], 4);
        if (a != b && bad++ == 0)
            first = "value " + std::to_string(k) + ": GL " + std::to_string(gl[k]) + ", ours " + std::to_string(ours.rgb[k]);
    }
    return bad;
}

}  // namespace

TEST_CASE("GPU: the GL's BC6H decoder equals ours bit for bit (random blocks of every mode, encoded images)", "[gpu][bc6h]") {
    auto gpu = open_gpu();
    if (!gpu) return;
    INFO("GL_RENDERER " << gpu->context->info().renderer);
    // Random bits under each mode number, the reserved ones (black) included.
    const int codes[18] = {0, 1, 2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31};
    std::vector<std::uint8_t> random(1024 * kBc6hBlockBytes);
    std::mt19937 rng(35);
    for (std::uint8_t& b : random) b = static_cast<std::uint8_t>(rng());
    for (int k = 0; k < 1024; ++k) {
        const int code = codes[k % 18], mask = code < 2 ? 3 : 31;
        random[16 * static_cast<std::size_t>(k)] = static_cast<std::uint8_t>((random[16 * static_cast<std::size_t>(k)] & ~mask) | code);
    }
    std::string first;
    const std::size_t random_bad = differences(gl_decode(random, 128, 128), bc6h_decode_image(random.data(), 128, 128), first);
    INFO(first);
    CHECK(random_bad == 0);
    // Our encoder's blocks of an HDR image (a sun, black, a gradient over 20 octaves), 30 x 18:
    // blocks past the edges too.
    Image im(30, 18);
    for (int y = 0; y < 18; ++y)
        for (int x = 0; x < 30; ++x)
            for (int c = 0; c < 3; ++c)
                im.at(y, x)[c] = y > 15 ? 0.0f : std::exp2(0.7f * static_cast<float>(x) - 12.0f + 0.4f * static_cast<float>(c * y));
    im.at(3, 7)[0] = 1e5f;
    for (Bc6hQuality q : {Bc6hQuality::Default, Bc6hQuality::Thorough}) {
        const std::vector<std::uint8_t> blocks = bc6h_encode_images({&im}, q, 2);
        std::string where;
        const std::size_t bad = differences(gl_decode(blocks, 30, 18), bc6h_decode_image(blocks.data(), 30, 18), where);
        INFO(where);
        CHECK(bad == 0);
    }
}

namespace {

// HDR test content: a sky over 20 octaves, a sun above the half range, black and negative texels,
// noise; texel values differ between faces and levels.
void fill(Image& im, int face, int level, std::mt19937& rng) {
    std::uniform_real_distribution<float> noise(0.8f, 1.25f);
    for (int y = 0; y < im.height; ++y)
        for (int x = 0; x < im.width; ++x)
            for (int c = 0; c < 3; ++c)
                im.at(y, x)[c] = std::exp2(0.9f * static_cast<float>(x) - 0.6f * static_cast<float>(y) + 0.3f * static_cast<float>(c + face) -
                                           static_cast<float>(level) - 6.0f) * noise(rng);
    if (im.width > 2) {
        im.at(1, 2)[0] = 2e5f;
        im.at(im.height - 1, 0)[1] = -3.0f;
        im.at(im.height - 1, 1)[0] = im.at(im.height - 1, 1)[1] = im.at(im.height - 1, 1)[2] = 0.0f;
    }
}

std::vector<CubeMap> test_cubes(int n, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<CubeMap> chain;
    for (int size = n, level = 0; size >= 1; size /= 2, ++level) {
        CubeMap cube(size);
        for (int f = 0; f < 6; ++f) fill(cube.faces[f], f, level, rng);
        chain.push_back(cube);
    }
    return chain;
}

// The CPU encoder's bytes of every level.
std::vector<std::vector<std::uint8_t>> cpu_levels(const std::vector<CubeMap>& chain, Bc6hQuality q) {
    std::vector<std::vector<std::uint8_t>> out;
    for (const CubeMap& level : chain) {
        std::vector<const Image*> faces;
        for (const Image& f : level.faces) faces.push_back(&f);
        out.push_back(bc6h_encode_images(faces, q, 2));
    }
    return out;
}

// Blocks that differ between two encodings, level by level.
std::size_t differing_blocks(const EncodedTexture& gpu, const std::vector<std::vector<std::uint8_t>>& cpu) {
    REQUIRE(gpu.levels.size() == cpu.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < cpu.size(); ++i) {
        REQUIRE(gpu.levels[i].size() == cpu[i].size());
        for (std::size_t b = 0; b < cpu[i].size(); b += kBc6hBlockBytes)
            if (!std::equal(cpu[i].begin() + static_cast<long>(b), cpu[i].begin() + static_cast<long>(b + kBc6hBlockBytes),
                            gpu.levels[i].begin() + static_cast<long>(b)))
                ++bad;
    }
    return bad;
}

GLuint cube_texture(const std::vector<CubeMap>& chain, GLenum internal_format) {
    GLuint texture = 0;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_CUBE_MAP, texture);
    glTexStorage2D(GL_TEXTURE_CUBE_MAP, static_cast<GLsizei>(chain.size()), internal_format, chain[0].size, chain[0].size);
    for (std::size_t level = 0; level < chain.size(); ++level)
        for (int f = 0; f < 6; ++f)
            glTexSubImage2D(static_cast<GLenum>(GL_TEXTURE_CUBE_MAP_POSITIVE_X + f), static_cast<GLint>(level), 0, 0, chain[level].size,
                            chain[level].size, GL_RGB, GL_FLOAT, chain[level].faces[f].rgb.data());
    check_gl("uploading the test cube");
    return texture;
}

}  // namespace

TEST_CASE("GPU BC6H encoder: the CPU's bytes from a cube texture, in our layout and Bevy's", "[gpu][bc6h]") {
    auto gpu = open_gpu();
    if (!gpu) return;
    GpuBc6hEncoder encoder(gpu->projector->programs());
    {
        const std::vector<CubeMap> chain = test_cubes(16, 1);
        const GLuint texture = cube_texture(chain, GL_RGBA32F);
        const EncodedTexture ours =
            encoder.encode_texture(texture, GL_TEXTURE_CUBE_MAP, GL_RGBA32F, 16, 16, static_cast<int>(chain.size()));
        CHECK(ours.faces == 6);
        CHECK(differing_blocks(ours, cpu_levels(chain, Bc6hQuality::Default)) == 0);
        const EncodedTexture bevy =
            encoder.encode_texture(texture, GL_TEXTURE_CUBE_MAP, GL_RGBA32F, 16, 16, static_cast<int>(chain.size()), true);
        CHECK(differing_blocks(bevy, cpu_levels(specular_chain_for(chain, KtxCubeConvention::Bevy), Bc6hQuality::Default)) == 0);
        glDeleteTextures(1, &texture);
    }
    // Half-float texels: the CPU encodes the same halves.
    std::vector<CubeMap> chain = test_cubes(16, 2);
    const GLuint texture = cube_texture(chain, GL_RGBA16F);
    for (CubeMap& level : chain)
        for (Image& f : level.faces)
            for (float& v : f.rgb) v = half_to_float(float_to_half(v));
    const EncodedTexture ours = encoder.encode_texture(texture, GL_TEXTURE_CUBE_MAP, GL_RGBA16F, 16, 16, static_cast<int>(chain.size()));
    CHECK(differing_blocks(ours, cpu_levels(chain, Bc6hQuality::Default)) == 0);
    glDeleteTextures(1, &texture);
}

TEST_CASE("GPU BC6H encoder: the CPU's bytes from a 2D texture with edge blocks, and from a buffer", "[gpu][bc6h]") {
    auto gpu = open_gpu();
    if (!gpu) return;
    GpuBc6hEncoder encoder(gpu->projector->programs());
    // 30 x 18 with its chain down to 1 x 1.
    std::mt19937 rng(3);
    std::vector<Image> levels;
    for (int w = 30, h = 18, l = 0;; w = std::max(1, w / 2), h = std::max(1, h / 2), ++l) {
        levels.emplace_back(w, h);
        fill(levels.back(), 0, l, rng);
        if (w == 1 && h == 1) break;
    }
    GLuint texture = 0;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glTexStorage2D(GL_TEXTURE_2D, static_cast<GLsizei>(levels.size()), GL_RGBA32F, 30, 18);
    for (std::size_t l = 0; l < levels.size(); ++l)
        glTexSubImage2D(GL_TEXTURE_2D, static_cast<GLint>(l), 0, 0, levels[l].width, levels[l].height, GL_RGB, GL_FLOAT,
                        levels[l].rgb.data());
    const EncodedTexture ours =
        encoder.encode_texture(texture, GL_TEXTURE_2D, GL_RGBA32F, 30, 18, static_cast<int>(levels.size()));
    glDeleteTextures(1, &texture);
    std::vector<std::vector<std::uint8_t>> cpu;
    for (const Image& im : levels) cpu.push_back(bc6h_encode_images({&im}, Bc6hQuality::Default, 2));
    CHECK(ours.faces == 1);
    CHECK(differing_blocks(ours, cpu) == 0);

    // Noise over 40 octaves, the hardest blocks (the longest searches), as a buffer.
    {
        Image noise(64, 64);
        std::uniform_real_distribution<float> exponent(-20.0f, 20.0f);
        for (float& v : noise.rgb) v = std::exp2(exponent(rng));
        std::vector<float> rgba;
        for (std::size_t i = 0; i < noise.pixel_count(); ++i) rgba.insert(rgba.end(), {noise.rgb[3 * i], noise.rgb[3 * i + 1], noise.rgb[3 * i + 2], 1.0f});
        GlBuffer buffer;
        buffer.allocate(rgba.size() * sizeof(float), rgba.data());
        CHECK(differing_blocks(encoder.encode_buffer(buffer.id, 1, 64, 64, {0}), {bc6h_encode_images({&noise}, Bc6hQuality::Default, 2)}) == 0);
    }

    // A cube chain as vec4s in a buffer, levels after some other data (GpuSpecularPrefilter's layout).
    const std::vector<CubeMap> chain = test_cubes(16, 4);
    std::vector<float> texels(4 * 100, -1.0f);
    std::vector<std::size_t> first;
    for (const CubeMap& level : chain) {
        first.push_back(texels.size() / 4);
        for (const Image& f : level.faces)
            for (std::size_t i = 0; i < f.pixel_count(); ++i) texels.insert(texels.end(), {f.rgb[3 * i], f.rgb[3 * i + 1], f.rgb[3 * i + 2], 7.0f});
    }
    GlBuffer buffer;
    buffer.allocate(texels.size() * sizeof(float), texels.data());
    for (bool mirror : {false, true}) {
        const EncodedTexture from_buffer = encoder.encode_buffer(buffer.id, 6, 16, 16, first, mirror);
        CHECK(differing_blocks(from_buffer, cpu_levels(mirror ? specular_chain_for(chain, KtxCubeConvention::Bevy) : chain,
                                                       Bc6hQuality::Default)) == 0);
    }

    // The same levels (16 x 16 to 1 x 1) from four buffers: levels 0, 2 and 4 as RGB floats in
    // buffers of their own, 1 and 3 in the vec4 buffer above. A dispatch reads two buffers at most:
    // three runs.
    std::vector<GlBuffer> rgb((chain.size() + 1) / 2);
    std::vector<Bc6hBufferLevel> spread;
    for (std::size_t l = 0; l < chain.size(); ++l) {
        if (l % 2 == 1) {
            spread.push_back({buffer.id, 4 * first[l], 4});
            continue;
        }
        std::vector<float> floats(6, -1.0f);  // an offset of two texels
        for (const Image& f : chain[l].faces) floats.insert(floats.end(), f.rgb.begin(), f.rgb.end());
        rgb[l / 2].allocate(floats.size() * sizeof(float), floats.data());
        spread.push_back({rgb[l / 2].id, 6, 3});
    }
    encoder.queue_buffers(spread, 6, 16, 16);
    CHECK(differing_blocks(encoder.take(), cpu_levels(chain, Bc6hQuality::Default)) == 0);
    CHECK(encoder.last_ms() >= 0);
}

TEST_CASE("GPU specular prefilter with BC6H on: the blocks are the CPU's encoding of the chain it returns", "[gpu][bc6h][specular]") {
    auto gpu = open_gpu();
    if (!gpu) return;
    GpuSpecularPrefilter pre(gpu->projector->programs());
    const std::vector<CubeMap> source = test_cubes(32, 5);
    SpecularSettings settings;
    settings.base_size = 16;
    settings.samples = 64;
    const SpecularInput input = prepare_specular_input(source[0]);
    const std::vector<CubeMap> plain = pre.prefilter(input, settings);
    for (bool mirror : {false, true}) {
        pre.set_bc6h(true, mirror);
        const std::vector<CubeMap> chain = pre.prefilter(input, settings);
        // The floats as without BC6H.
        REQUIRE(chain.size() == plain.size());
        for (std::size_t l = 0; l < chain.size(); ++l)
            for (int f = 0; f < 6; ++f) CHECK(chain[l].faces[f].rgb == plain[l].faces[f].rgb);
        const EncodedTexture& blocks = pre.last_bc6h();
        CHECK(blocks.width == 16);
        CHECK(blocks.faces == 6);
        CHECK(differing_blocks(blocks, cpu_levels(mirror ? specular_chain_for(chain, KtxCubeConvention::Bevy) : chain,
                                                  Bc6hQuality::Default)) == 0);
        CHECK(pre.last_bc6h_ms() >= 0);
    }
}
