// --texture-format through the binary (issue 35): BC6H and DDS outputs, the option's rules, and
// the warning when a format cuts a sun (issue 33 #3). The blocks a run writes are checked against
// the library's encoder run on the float chain the same bake writes as EXR, and the DDS header
// against Microsoft's DXGI numbers.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "errors.h"
#include "ibl_ktx2.h"
#include "image_io.h"
#include "specular_io.h"
#include "test_support.h"
#include "texture_format.h"

using namespace bake;
using namespace bake::test;
namespace fs = std::filesystem;

namespace {

std::uint32_t u32_at(const std::vector<char>& b, std::size_t at) {
    std::uint32_t v = 0;
    std::memcpy(&v, b.data() + at, 4);
    return v;
}

// The DDS header fields this test reads: "DDS ", the 124-byte header, the DX10 extension (dxgiFormat
// first), then the texels; a cube's data face after face, each with every level.
constexpr std::size_t kDdsData = 4 + 124 + 20;
constexpr std::uint32_t kDxgiR16G16B16A16Float = 10, kDxgiBc6hUf16 = 95;

}  // namespace

TEST_CASE("textures: a BC6H chain in DDS holds the encoder's blocks of the bake's float chain", "[cli][textures]") {
    const std::string dir = scratch("cli_textures_bc6h");
    const std::string base = kSample + " --specular-size 16 --device cpu";
    REQUIRE(run_cli(base + " --specular " + dir + "/s.exr").exit_code == 0);
    const CliResult r = run_cli(base + " --specular " + dir + "/s.dds --texture-format bc6h --dfg " + dir + "/d.dds");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const std::vector<CubeMap> chain = read_specular_exr(dir + "/s.exr");
    const EncodedTexture want = encode_texture(cube_chain_images(chain), TextureFormat::Bc6hUFloat);
    const std::vector<char> dds = read_bytes(dir + "/s.dds");
    REQUIRE(dds.size() > kDdsData);
    CHECK(std::string(dds.data(), 4) == "DDS ");
    CHECK(u32_at(dds, 128) == kDxgiBc6hUf16);
    // Face-major: face f's levels one after another.
    std::vector<char> expected;
    const std::size_t levels = want.levels.size();
    for (int face = 0; face < 6; ++face)
        for (std::size_t level = 0; level < levels; ++level) {
            const std::vector<std::uint8_t>& l = want.levels[level];
            const std::size_t face_bytes = l.size() / 6;
            expected.insert(expected.end(), l.begin() + face * face_bytes, l.begin() + (face + 1) * face_bytes);
        }
    REQUIRE(dds.size() == kDdsData + expected.size());
    CHECK(std::equal(expected.begin(), expected.end(), dds.begin() + kDdsData));
    // The DFG table is no HDR colour: written rgba16f under bc6h (docs/textures.md says so).
    CHECK(u32_at(read_bytes(dir + "/d.dds"), 128) == kDxgiR16G16B16A16Float);
}

// The GPU encodes the chain where it makes it (level 0 where the specular source's passes leave it,
// in RGB floats; level 1 after its pass; the others behind the levels): its file is the one the
// CPU's encoder makes of the float chain the same GPU bake writes as EXR, in both cube layouts, and
// for chains of one and two levels, where the later parts are not queued.
TEST_CASE("textures: the GPU's BC6H chain is the CPU encoder's of the GPU's float chain", "[cli][textures][gpu]") {
    const std::string dir = scratch("cli_textures_gpu");
    KtxWriteOptions options;
    options.format = KtxFormat::Bc6hUFloat;
    const struct {
        const char* option;
        std::size_t levels;
    } chains[] = {{"", 5}, {" --specular-levels 1", 1}, {" --specular-levels 2", 2}};
    for (const auto& want : chains) {
        const std::string base = kSample + " --specular-size 16 --device gpu" + want.option;
        const CliResult floats = run_cli(base + " --specular " + dir + "/s.exr");
        if (floats.exit_code == kExitGpuUnavailable && std::getenv("BAKE_ALLOW_NO_GL")) {
            WARN("no OpenGL 4.3 context: " << floats.err);
            return;
        }
        INFO(want.option << ": " << floats.err);
        REQUIRE(floats.exit_code == 0);
        const std::vector<CubeMap> chain = read_specular_exr(dir + "/s.exr");
        REQUIRE(chain.size() == want.levels);
        for (const char* convention : {"gl", "bevy"}) {
            if (want.levels < 5 && std::string(convention) == "bevy") continue;  // the layouts: tested on the whole chain
            const CliResult r =
                run_cli(base + " --specular " + dir + "/s.ktx2 --texture-format bc6h --ktx-convention " + convention);
            INFO(convention << ": " << r.err);
            REQUIRE(r.exit_code == 0);
            KtxCubeConvention c = KtxCubeConvention::Gl;
            REQUIRE(parse_ktx_cube_convention(convention, &c));
            write_specular_ktx2(dir + "/want.ktx2", chain, options, c);
            const std::vector<char> ktx = read_bytes(dir + "/s.ktx2");
            CHECK(u32_at(ktx, 12) == 143u);  // VK_FORMAT_BC6H_UFLOAT_BLOCK
            CHECK(ktx == read_bytes(dir + "/want.ktx2"));
        }
    }
}

TEST_CASE("textures: --texture-format's rules, and its former name", "[cli][textures]") {
    const std::string dir = scratch("cli_textures_rules");
    const std::string in = kSample + " --device cpu ";
    CHECK(run_cli(in + "-o " + dir + "/a.json --texture-format bc6h").exit_code == kExitUsage);  // no texture file
    CHECK(run_cli(in + "-o " + dir + "/a.dds --ktx-zstd 3").exit_code == kExitUsage);            // DDS: no zstd
    CHECK(run_cli(in + "-o " + dir + "/a.dds --bc6h-quality thorough").exit_code == kExitUsage);  // not bc6h
    CHECK(run_cli(in + "-o " + dir + "/a.ktx2 --ktx-format rgba32f --texture-format bc6h").exit_code == kExitUsage);
    CHECK(run_cli(in + "--specular " + dir + "/s_{level}.dds").exit_code == kExitUsage);
    CHECK(fs::is_empty(dir));
    // --ktx-format still works, and names the same thing.
    REQUIRE(run_cli(in + "-o " + dir + "/old.ktx2 --ktx-format rgba32f").exit_code == 0);
    REQUIRE(run_cli(in + "-o " + dir + "/new.ktx2 --texture-format rgba32f").exit_code == 0);
    CHECK(read_bytes(dir + "/old.ktx2") == read_bytes(dir + "/new.ktx2"));
}

// Issue 33 #3: a 3e5 sun was cut to 65504 in rgba16f KTX2 without a word.
TEST_CASE("textures: a format that cuts a sun says so, naming the file, and rgba32f keeps it silent", "[cli][textures]") {
    const std::string dir = scratch("cli_textures_clip");
    Image sky(64, 32);
    for (float& v : sky.rgb) v = 0.5f;
    for (int c = 0; c < 3; ++c) sky.at(10, 20)[c] = 3e5f;
    write_exr(dir + "/sun.exr", sky, EnvmapHint::None);
    const std::string base = dir + "/sun.exr --specular-size 16 --device cpu ";
    for (const char* format : {"rgba16f", "b10g11r11", "e5b9g9r9", "bc6h"}) {
        const CliResult r = run_cli(base + "--specular " + dir + "/s.ktx2 -o " + dir + "/i.dds --texture-format " + format);
        INFO(format << ": " << r.err);
        CHECK(r.exit_code == 0);
        CHECK(r.err.find("warning: " + dir + "/s.ktx2: " + format + " holds values up to") != std::string::npos);
    }
    const CliResult kept = run_cli(base + "--specular " + dir + "/s32.ktx2 --texture-format rgba32f");
    CHECK(kept.exit_code == 0);
    CHECK(kept.err.find("holds values up to") == std::string::npos);
}
