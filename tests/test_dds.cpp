// DDS files (src/core/outputs/dds_writer.h, ibl_dds.h) read back by a reader written here from
// Microsoft's "DDS" programming guide (DDS_HEADER, DDS_PIXELFORMAT, DDS_HEADER_DXT10) and the
// DXGI_FORMAT numbers: header fields, the data's face-major order, every texel against the format's
// rounding (BC6H: the encoder's blocks). tests/bc6h_oiio.py reads BC6H DDS files with OpenImageIO.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "bc6h.h"
#include "dds_writer.h"
#include "dfg.h"
#include "errors.h"
#include "gpu_formats.h"
#include "ibl_dds.h"
#include "test_support.h"

using namespace bake;

namespace {

std::uint32_t u32(const std::vector<std::uint8_t>& b, std::size_t at) {
    REQUIRE(at + 4 <= b.size());
    return b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (static_cast<std::uint32_t>(b[at + 3]) << 24);
}

struct ParsedDds {
    std::uint32_t flags, height, width, pitch_or_size, depth, mips, pf_size, pf_flags, caps, caps2;
    std::uint32_t dxgi, dimension, misc, array_size, misc2;
    std::string fourcc;
    std::vector<std::uint8_t> data;  // after the headers
};

ParsedDds parse(const std::vector<std::uint8_t>& b) {
    REQUIRE(b.size() >= 148);
    REQUIRE(std::string(b.begin(), b.begin() + 4) == "DDS ");
    REQUIRE(u32(b, 4) == 124);  // DDS_HEADER.dwSize
    ParsedDds p;
    p.flags = u32(b, 8);
    p.height = u32(b, 12);
    p.width = u32(b, 16);
    p.pitch_or_size = u32(b, 20);
    p.depth = u32(b, 24);
    p.mips = u32(b, 28);
    p.pf_size = u32(b, 76);
    p.pf_flags = u32(b, 80);
    p.fourcc = std::string(b.begin() + 84, b.begin() + 88);
    p.caps = u32(b, 108);
    p.caps2 = u32(b, 112);
    p.dxgi = u32(b, 128);
    p.dimension = u32(b, 132);
    p.misc = u32(b, 136);
    p.array_size = u32(b, 140);
    p.misc2 = u32(b, 144);
    p.data.assign(b.begin() + 148, b.end());
    return p;
}

std::vector<std::uint8_t> read_file(const std::string& path) {
    const std::vector<char> c = test::read_bytes(path);
    return std::vector<std::uint8_t>(c.begin(), c.end());
}

// DXGI_FORMAT values (dxgiformat.h).
std::uint32_t dxgi_of(TextureFormat f) {
    switch (f) {
        case TextureFormat::Rgba32Float: return 2;   // DXGI_FORMAT_R32G32B32A32_FLOAT
        case TextureFormat::Rgba16Float: return 10;  // DXGI_FORMAT_R16G16B16A16_FLOAT
        case TextureFormat::B10G11R11UFloat: return 26;  // DXGI_FORMAT_R11G11B10_FLOAT
        case TextureFormat::E5B9G9R9UFloat: return 67;   // DXGI_FORMAT_R9G9B9E5_SHAREDEXP
        case TextureFormat::Bc6hUFloat: return 95;       // DXGI_FORMAT_BC6H_UF16
    }
    return 0;
}

// One texel of a per-texel format decoded by the format's definition, against the rounding of the
// value written (as tests/test_ktx2.cpp checks KTX2 texels).
void check_texel(TextureFormat f, const std::uint8_t* p, const float* rgb) {
    std::uint32_t w[4];
    std::memcpy(w, p, static_cast<std::size_t>(texture_block_bytes(f)));
    float got[4] = {0, 0, 0, 1}, want[3];
    switch (f) {
        case TextureFormat::Rgba16Float:
            for (int c = 0; c < 4; ++c) got[c] = half_to_float(static_cast<std::uint16_t>(c % 2 ? w[c / 2] >> 16 : w[c / 2]));
            for (int c = 0; c < 3; ++c) want[c] = half_to_float(float_to_half(rgb[c]));
            break;
        case TextureFormat::Rgba32Float:
            std::memcpy(got, w, 16);
            std::memcpy(want, rgb, 12);
            break;
        case TextureFormat::B10G11R11UFloat:
            unpack_b10g11r11(w[0], got);
            unpack_b10g11r11(pack_b10g11r11(rgb[0], rgb[1], rgb[2]), want);
            break;
        case TextureFormat::E5B9G9R9UFloat:
            unpack_e5b9g9r9(w[0], got);
            unpack_e5b9g9r9(pack_e5b9g9r9(rgb[0], rgb[1], rgb[2]), want);
            break;
        case TextureFormat::Bc6hUFloat: FAIL("BC6H is checked by blocks");
    }
    for (int c = 0; c < 3; ++c) REQUIRE(got[c] == want[c]);
    REQUIRE(got[3] == 1.0f);
}

// A cube chain whose texels all differ (as test_ktx2.cpp's).
std::vector<CubeMap> test_chain(int n) {
    std::vector<CubeMap> chain;
    for (int size = n, level = 0; size >= 1; size /= 2, ++level) {
        CubeMap cube(size);
        for (int f = 0; f < 6; ++f)
            for (int r = 0; r < size; ++r)
                for (int c = 0; c < size; ++c)
                    for (int ch = 0; ch < 3; ++ch)
                        cube.faces[f].at(r, c)[ch] = static_cast<float>(std::exp2(0.37 * f + 0.11 * r - 0.07 * c + 1.3 * ch - level));
        chain.push_back(cube);
    }
    return chain;
}

const TextureFormat kAll[] = {TextureFormat::Rgba16Float, TextureFormat::Rgba32Float, TextureFormat::B10G11R11UFloat,
                              TextureFormat::E5B9G9R9UFloat, TextureFormat::Bc6hUFloat};

// The file against the images: headers for a texture of `faces` faces, then each face's levels.
void check_dds(const ParsedDds& p, const TextureImages& images, TextureFormat f, Bc6hQuality quality) {
    const bool cube = images.faces == 6, bc6h = f == TextureFormat::Bc6hUFloat;
    const auto levels = static_cast<std::uint32_t>(images.levels.size());
    // DDSD_CAPS | HEIGHT | WIDTH | PIXELFORMAT | MIPMAPCOUNT, and LINEARSIZE (compressed) or PITCH.
    CHECK(p.flags == (0x1u | 0x2u | 0x4u | 0x1000u | 0x20000u | (bc6h ? 0x80000u : 0x8u)));
    CHECK(p.width == static_cast<std::uint32_t>(images.width));
    CHECK(p.height == static_cast<std::uint32_t>(images.height));
    const std::uint32_t blocks_wide = static_cast<std::uint32_t>((images.width + 3) / 4);
    CHECK(p.pitch_or_size == (bc6h ? blocks_wide * static_cast<std::uint32_t>((images.height + 3) / 4) * 16
                                   : static_cast<std::uint32_t>(images.width * texture_block_bytes(f))));
    CHECK(p.depth == 0);
    CHECK(p.mips == levels);
    CHECK(p.pf_size == 32);
    CHECK(p.pf_flags == 0x4);  // DDPF_FOURCC
    CHECK(p.fourcc == "DX10");
    // DDSCAPS_TEXTURE, COMPLEX for cubes and chains, MIPMAP for chains; CUBEMAP and its six faces.
    CHECK(p.caps == (0x1000u | ((cube || levels > 1) ? 0x8u : 0u) | (levels > 1 ? 0x400000u : 0u)));
    CHECK(p.caps2 == (cube ? 0xfe00u : 0u));
    CHECK(p.dxgi == dxgi_of(f));
    CHECK(p.dimension == 3);  // DDS_DIMENSION_TEXTURE2D
    CHECK(p.misc == (cube ? 0x4u : 0u));  // DDS_RESOURCE_MISC_TEXTURECUBE
    CHECK(p.array_size == 1);
    CHECK(p.misc2 == 0);
    std::size_t at = 0;
    for (int face = 0; face < images.faces; ++face)
        for (std::uint32_t level = 0; level < levels; ++level) {
            INFO("face " << face << " level " << level);
            const Image& im = *images.levels[level][static_cast<std::size_t>(face)];
            const std::size_t bytes = texture_image_bytes(f, im.width, im.height);
            REQUIRE(at + bytes <= p.data.size());
            if (bc6h) {
                const std::vector<std::uint8_t> blocks = bc6h_encode_images({&im}, quality, 1);
                CHECK(std::equal(blocks.begin(), blocks.end(), p.data.begin() + static_cast<long>(at)));
            } else {
                for (std::size_t t = 0; t < im.pixel_count(); ++t)
                    check_texel(f, p.data.data() + at + t * static_cast<std::size_t>(texture_block_bytes(f)), &im.rgb[3 * t]);
            }
            at += bytes;
        }
    CHECK(at == p.data.size());
}

}  // namespace

TEST_CASE("dds: a cube chain in every format: DX10 header, TEXTURECUBE, each face's levels in order", "[dds]") {
    const std::vector<CubeMap> chain = test_chain(8);  // 8, 4, 2, 1: the last two one padded block each
    const TextureImages images = cube_chain_images(chain);
    for (TextureFormat f : kAll) {
        INFO(texture_format_name(f));
        check_dds(parse(encode_dds(encode_texture(images, f))), images, f, Bc6hQuality::Default);
    }
}

TEST_CASE("dds: 2D textures: the lat-long irradiance map and the DFG table, one level", "[dds]") {
    Image equirect(32, 16);
    for (std::size_t i = 0; i < equirect.rgb.size(); ++i) equirect.rgb[i] = static_cast<float>(0.001 * i * i);
    const std::string dir = test::scratch("dds_2d");
    for (TextureFormat f : kAll) {
        INFO(texture_format_name(f));
        DdsWriteOptions o;
        o.format = f;
        o.bc6h_quality = Bc6hQuality::Thorough;
        write_irradiance_equirect_dds(dir + "/e.dds", equirect, o);
        check_dds(parse(read_file(dir + "/e.dds")), image_2d_images(equirect), f, Bc6hQuality::Thorough);
        if (f == TextureFormat::Bc6hUFloat) continue;
        const Image dfg = compute_dfg_table(16);
        write_dfg_dds(dir + "/d.dds", dfg, o);
        check_dds(parse(read_file(dir + "/d.dds")), image_2d_images(dfg), f, o.bc6h_quality);
    }
}

TEST_CASE("dds: the specular chain and irradiance cube writers, in our layout and Bevy's", "[dds]") {
    const std::vector<CubeMap> chain = test_chain(4);
    const std::string dir = test::scratch("dds_cubes");
    DdsWriteOptions o;
    o.format = TextureFormat::Rgba32Float;
    write_specular_dds(dir + "/s.dds", chain, o);
    check_dds(parse(read_file(dir + "/s.dds")), cube_chain_images(chain), o.format, o.bc6h_quality);
    write_specular_dds(dir + "/sb.dds", chain, o, KtxCubeConvention::Bevy);
    check_dds(parse(read_file(dir + "/sb.dds")), cube_chain_images(specular_chain_for(chain, KtxCubeConvention::Bevy)),
              o.format, o.bc6h_quality);
    write_irradiance_cube_dds(dir + "/i.dds", chain[0], o, KtxCubeConvention::Bevy);
    const std::vector<CubeMap> bevy{irradiance_cube_for(chain[0], KtxCubeConvention::Bevy)};
    check_dds(parse(read_file(dir + "/i.dds")), cube_chain_images(bevy), o.format, o.bc6h_quality);
    // Blocks made elsewhere go in as they are.
    const EncodedTexture given = encode_texture(cube_chain_images(chain), TextureFormat::Bc6hUFloat);
    write_specular_dds(dir + "/g.dds", given);
    check_dds(parse(read_file(dir + "/g.dds")), cube_chain_images(chain), TextureFormat::Bc6hUFloat, Bc6hQuality::Default);
}

TEST_CASE("dds: the DFG table is refused as BC6H, and what is no texture is refused, leaving nothing behind", "[dds]") {
    const std::string dir = test::scratch("dds_refused");
    DdsWriteOptions o;
    o.format = TextureFormat::Bc6hUFloat;
    try {
        write_dfg_dds(dir + "/d.dds", compute_dfg_table(16), o);
        FAIL("no error");
    } catch (const OutputError& e) {
        CHECK(std::string(e.what()) == dir + "/d.dds: " + kDfgNotBc6h);
    }
    EncodedTexture bad = encode_texture(cube_chain_images(test_chain(4)), TextureFormat::Rgba16Float);
    bad.levels[1].resize(bad.levels[1].size() - 8);
    CHECK_THROWS_AS(encode_dds(bad), std::invalid_argument);
    CHECK_THROWS_AS(write_dds(dir + "/x.dds", bad), OutputError);
    bad = encode_texture(cube_chain_images(test_chain(4)), TextureFormat::Rgba16Float);
    bad.height = 2;  // a cube that is not square
    CHECK_THROWS_AS(encode_dds(bad), std::invalid_argument);
    CHECK(std::filesystem::is_empty(dir));
}
