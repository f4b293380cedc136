// The command line's rules, through the real binary: options that would change nothing are usage
// errors naming them, file names are checked, checks (--compare, --golden) write their outputs,
// messages say what to do in one printable line. Each case is a defect of issue 18's table, seen
// at cf1a2fa, whose number the comment gives.
#include <catch2/catch.hpp>

#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfInputFile.h>
#include <OpenEXR/ImfStringAttribute.h>
#include <png.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "errors.h"
#include "image_io.h"
#include "test_support.h"

using namespace bake;
using namespace bake::test;
namespace fs = std::filesystem;

namespace {

void check_usage_error(const CliResult& r, const std::string& mention) {
    INFO("stderr: " << r.err);
    CHECK(r.exit_code == kExitUsage);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find(mention) != std::string::npos);
}

}  // namespace

// #11, #7: accepted silently (and --device cpu --compare ran the GPU).
TEST_CASE("rules: an option that would have no effect is a usage error naming it", "[cli][rules]") {
    const std::string dir = scratch("rules_no_effect");
    const std::string json_out = kSample + " -o " + dir + "/a.json";
    struct Case {
        std::string args, mention;
    };
    const Case cases[] = {
        {json_out + " --device cpu --compare", "--compare: checks the GPU path against the CPU path"},
        {json_out + " -q -v", "--quiet: contradicts --verbose"},
        {json_out + " --tolerance 1e-3", "--tolerance: has no effect without --compare or --golden"},
        {json_out + " --abs-tolerance 1e-3", "--abs-tolerance: has no effect without --golden"},
        {json_out + " --specular-size 64", "--specular-size: has no effect without --specular"},
        {json_out + " --specular-samples 64", "--specular-samples: has no effect without --specular"},
        {json_out + " --dfg-size 64", "--dfg-size: has no effect without --dfg"},
        {json_out + " --preview-width 64", "--preview-width: has no effect without --preview"},
        {json_out + " --preview-exposure 2", "--preview-exposure: has no effect without --preview"},
        {json_out + " --irradiance exact", "--irradiance: has no effect (exact) without an irradiance map"},
        {json_out + " --size 64", "--size: has no effect without an irradiance map"},
        {json_out + " --output-layout equirect", "--output-layout: has no effect without an irradiance map"},
        {json_out + " --device cpu --gl egl", "--gl: has no effect with --device cpu"},
        {"--dfg " + dir + "/d.png --compare", "--compare: has no effect without an input"},
        {"--dfg " + dir + "/d.png --golden " + dir + "/g.json", "--golden: has no effect without an input"},
        {json_out + " --ktx-convention bevy", "--ktx-convention: has no effect without a .ktx2 or .dds cube map"},
        {json_out + " --dfg " + dir + "/d.ktx2 --ktx-convention gl", "--ktx-convention: has no effect without a .ktx2 or .dds cube map"},
        {kSample + " -o " + dir + "/m.ktx2 --output-layout equirect --ktx-convention gl",
         "--ktx-convention: has no effect without a .ktx2 or .dds cube map"},
        {"--dfg " + dir + "/d.ktx2 --ktx-convention bevy", "--ktx-convention: has no effect without an input"},
        {kSample + " -o " + dir + "/m.ktx2 --specular " + dir + "/s.ktx2 --output-layout equirect --ktx-convention bevy",
         "--ktx-convention: bevy lays out cube maps for Bevy's EnvironmentMapLight"},
    };
    for (const Case& c : cases) check_usage_error(run_cli(c.args), c.mention);
    CHECK(fs::is_empty(dir));  // nothing written by any of them
    // The same options where they do apply are accepted.
    CHECK(run_cli(kSample + " -o " + dir + "/m.exr --size 4 --output-layout equirect --irradiance exact --device cpu")
              .exit_code == 0);
    CHECK(run_cli(kSample + " -o " + dir + "/m.ktx2 --size 4 --ktx-convention bevy --device cpu").exit_code == 0);
    CHECK(run_cli(kSample + " --specular " + dir + "/s.ktx2 --specular-size 4 --ktx-convention bevy --device cpu").exit_code == 0);
    // --jobs and --fail-fast with a single input only warn: the count of inputs comes from a glob.
    const CliResult r = run_cli(json_out + " --device cpu --jobs 3 --fail-fast");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("warning: --jobs has no effect with a single input") != std::string::npos);
    CHECK(r.err.find("warning: --fail-fast has no effect with a single input") != std::string::npos);
}

// #4: the DFG table was overwritten despite --no-clobber.
TEST_CASE("rules: --no-clobber keeps an existing DFG table and report", "[cli][rules]") {
    const std::string dir = scratch("rules_clobber_dfg");
    std::ofstream(dir + "/keep.png") << "old";
    CliResult r = run_cli("--dfg " + dir + "/keep.png --no-clobber");
    INFO(r.err);
    CHECK(r.exit_code == kExitOutput);
    CHECK(r.err.find(dir + "/keep.png: exists (--no-clobber)") != std::string::npos);
    CHECK(slurp(dir + "/keep.png") == "old");
    std::ofstream(dir + "/r.json") << "old";
    r = run_cli(kSample + " -o " + dir + "/a.json --device cpu --no-clobber --report " + dir + "/r.json");
    CHECK(r.exit_code == kExitOutput);
    CHECK(slurp(dir + "/r.json") == "old");
    CHECK_FALSE(file_exists(dir + "/a.json"));
}

// #12: a --compare failure wrote no outputs while a --golden failure did. One rule now: both
// write them, and the exit code says the check failed.
TEST_CASE("rules: a failed --compare writes the outputs as a failed --golden does", "[cli][rules][gpu]") {
    const std::string dir = scratch("rules_compare_outputs");
    const CliResult r = run_cli(kSample + " --compare --tolerance 1e-12 -o " + dir + "/c.json -o " + dir + "/c.exr --size 4");
    INFO(r.err);
    CHECK(r.exit_code == kExitCompareMismatch);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find(kSample + ": compare: max relative difference") != std::string::npos);  // #15: names the input
    CHECK(file_exists(dir + "/c.json"));
    CHECK(file_exists(dir + "/c.exr"));
}

// #13: the README's first bake has negative irradiance (min -0.16), which only the JSON said.
TEST_CASE("rules: negative SH irradiance (ringing) is warned about, and --window auto removes it", "[cli][rules]") {
    const std::string dir = scratch("rules_negative");
    CliResult r = run_cli(kSample + " -o " + dir + "/a.json --device cpu --warn-error 0.05");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    // One SH quality line: the mean error (beyond 5%), then the negative part.
    CHECK(line_count(r.err) == 1);
    const std::regex negative("warning: .*sample_sky.hdr: order-3 SH irradiance is off by .*; it is negative in some "
                              "directions \\(min -[0-9.e-]+ in [RGB], [0-9.]+% of its mean: ringing\\); --window auto "
                              "makes it non-negative\n");
    CHECK(std::regex_search(r.err, negative));
    // The warning's number is the JSON's own minimum.
    const nlohmann::json j = read_json(dir + "/a.json");
    const double min_g = j["window"]["min_irradiance_after"][1].get<double>();
    CHECK(min_g < 0);
    CHECK(j["window"]["nonnegative"] == false);
    CHECK(j["window"]["nonnegative_tolerance"].get<double>() > 0);
    r = run_cli(kSample + " -o " + dir + "/b.json --device cpu --warn-error 0.05 --window auto");
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("negative in some directions") == std::string::npos);
    CHECK(read_json(dir + "/b.json")["window"]["nonnegative"] == true);
}

// #15: messages that said the wrong thing, or nothing useful.
TEST_CASE("rules: usage messages say what is wanted, in one printable line", "[cli][rules]") {
    const std::string dir = scratch("rules_messages");
    const std::string json_out = kSample + " -o " + dir + "/a.json";
    check_usage_error(run_cli(json_out + " --order 3.5"), "--order: '3.5' is not one of 3, 5");
    for (const std::string& bad : {json_out + " --preview " + dir + "/p.png --preview-exposure -1",
                                   json_out + " --golden " + dir + "/g.json --tolerance 0"}) {
        const CliResult r = run_cli(bad);
        check_usage_error(r, "is not a finite number");
        CHECK(r.err.size() < 200);  // no 309-digit limit
    }
    check_usage_error(run_cli("--dfg " + dir + "/a.png --dfg " + dir + "/b.png"), "--dfg: given 2 times; it takes one value");
    check_usage_error(run_cli(kSample + " --faces a b c d e f -o " + dir + "/a.json"),
                      "give either input files or --faces with six files, not both");
    check_usage_error(run_cli(json_out + " --out-dir " + dir), "give -o for the outputs of one input, or --out-dir");
    // A corrupt EXR whose attribute name holds a byte that is not text: escaped, not printed raw.
    std::string exr("\x76\x2f\x31\x01\x02\x00\x00\x00", 8);
    exr += std::string("screenWindowCente\xff", 18) + '\0' + "v2f" + '\0' + std::string("\xff\xff\xff\x7f", 4);
    std::ofstream(dir + "/corrupt.exr", std::ios::binary) << exr;
    const CliResult r = run_cli(dir + "/corrupt.exr -o " + dir + "/c.json --device cpu");
    INFO(r.err);
    CHECK(r.exit_code == kExitInput);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find(dir + "/corrupt.exr") != std::string::npos);
    for (char c : r.err) CHECK((c == '\n' || (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f)));
}

// #17: accepted, writing files literally named irr_{level}.exr or a hidden ".exr".
TEST_CASE("rules: output names that cannot be meant are refused", "[cli][rules]") {
    const std::string dir = scratch("rules_names");
    check_usage_error(run_cli(kSample + " --emit glsl " + dir + "/x.hlsl"), "named as the other language's file");
    check_usage_error(run_cli(kSample + " --emit hlsl " + dir + "/x.glsl"), "named as the other language's file");
    check_usage_error(run_cli(kSample + " -o '" + dir + "/irr_{level}.exr'"), "unknown placeholder {level}");
    check_usage_error(run_cli(kSample + " -o " + dir + "/.exr"), "has no file name before its extension");
    check_usage_error(run_cli(kSample + " -o " + dir + "/a.json --report '" + dir + "/{stem}.json'"),
                      "--report names one file for the whole run");
    CHECK(fs::is_empty(dir));
    // With one input, -o takes the placeholders of --name as --preview and --golden do.
    const CliResult r = run_cli(kSample + " -o '" + dir + "/{stem}_irr.json' --device cpu");
    CHECK(r.exit_code == 0);
    CHECK(file_exists(dir + "/sample_sky_irr.json"));
}

// #19: --jobs 2 by default decoded ahead on a 2-core CPU path too, costing time and memory there;
// and --device auto, which bakes SH on the CPU, still decoded ahead as if the GPU baked. On 16
// cores the CPU path gains from decoding ahead (bench/NOTES.md), so the rule is by threads.
TEST_CASE("rules: --jobs auto decodes ahead where the GPU bakes or the CPU has 8+ threads", "[cli][rules][batch]") {
    const std::string dir = scratch("rules_jobs");
    const std::string batch = kSample + " " + kSky + " --out-dir " + dir + " --name '{stem}.json' --report " + dir + "/r.json";
    auto jobs = [&](const std::string& options) {
        REQUIRE(run_cli(batch + " " + options).exit_code == 0);
        return read_json(dir + "/r.json")["settings"]["jobs"].get<int>();
    };
    CHECK(jobs("--device cpu --threads 2") == 0);
    CHECK(jobs("--device auto --threads 2") == 0);  // SH on the CPU: no context is made
    CHECK(jobs("--device cpu --threads 8") == 2);
    CHECK(jobs("--device auto --threads 16") == 2);
    CHECK(jobs("--device cpu --threads 2 --jobs 3") == 3);
}

// #20: --help showed no defaults for these.
TEST_CASE("rules: --help shows every default", "[cli][rules]") {
    const CliResult r = run_cli("--help");
    REQUIRE(r.exit_code == 0);
    const std::pair<const char*, const char*> expected[] = {
        {"--specular-size", "=256"}, {"--specular-samples", "=1024"}, {"--dfg-size", "=128"},
        {"--threads", "=0"},         {"--jobs", "=auto"},            {"--progress", "=auto"}};
    for (const auto& [option, value] : expected) {
        bool found = false;
        for (const std::string& line : lines_of(r.out))
            if (line.find(std::string("  ") + option + " ") != std::string::npos && line.find(value) != std::string::npos)
                found = true;
        INFO(option << " " << value);
        CHECK(found);
    }
}

// #5: a 128x64 EXR of finite 3e38 texels gave L00 = 1.06e39 and an irradiance map of +Inf, exit 0.
TEST_CASE("rules: values beyond float's range in an output are an input error, nothing written", "[cli][rules]") {
    const std::string dir = scratch("rules_float_range");
    Image big(128, 64);
    for (float& v : big.rgb) v = 3e38f;
    write_exr(dir + "/big.exr", big, EnvmapHint::None);
    fs::create_directories(dir + "/out");
    for (const char* device : {"cpu", "auto"}) {
        const CliResult r = run_cli(dir + "/big.exr -o " + dir + "/out/a.json -o " + dir + "/out/a.exr --device " + device);
        INFO(r.err);
        CHECK(r.exit_code == kExitInput);
        CHECK(line_count(r.err) == 1);
        CHECK(r.err.find(dir + "/big.exr: texel values too large for float outputs: a radiance coefficient is 1.06e+39") !=
              std::string::npos);
        CHECK(fs::is_empty(dir + "/out"));
    }
}

namespace {

// The string attributes of an EXR's header, read by OpenEXR.
std::map<std::string, std::string> exr_strings(const std::string& path) {
    Imf::InputFile file(path.c_str());
    std::map<std::string, std::string> out;
    for (auto it = file.header().begin(); it != file.header().end(); ++it)
        if (const auto* s = dynamic_cast<const Imf::StringAttribute*>(&it.attribute())) out[it.name()] = s->value();
    return out;
}

// What libpng reads of a PNG's gAMA, sRGB and tEXt chunks.
struct PngChunks {
    bool has_gamma = false, has_srgb = false;
    double gamma = 0;
    std::map<std::string, std::string> text;
};
PngChunks png_chunks(const std::string& path) {
    PngChunks c;
    std::FILE* f = std::fopen(path.c_str(), "rb");
    REQUIRE(f);
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png_create_info_struct(png);
    png_init_io(png, f);
    png_read_info(png, info);
    c.has_gamma = png_get_gAMA(png, info, &c.gamma) != 0;
    int intent = 0;
    c.has_srgb = png_get_sRGB(png, info, &intent) != 0;
    png_textp text = nullptr;
    const int n = png_get_text(png, info, &text, nullptr);
    for (int i = 0; i < n; ++i) c.text[text[i].key] = text[i].text;
    png_destroy_read_struct(&png, &info, nullptr);
    std::fclose(f);
    return c;
}

}  // namespace

// #16: the irradiance EXR did not say E or E/pi, the order or the source; the DFG files did not
// state their axes; the DFG PNG had no gAMA chunk (readers took its linear values as sRGB).
TEST_CASE("rules: every file says what it holds", "[cli][rules]") {
    const std::string dir = scratch("rules_self_describing");
    REQUIRE(run_cli(kSample + " -o " + dir + "/irr.exr --preview " + dir + "/p.png --device cpu").exit_code == 0);
    const auto irr = exr_strings(dir + "/irr.exr");
    REQUIRE(irr.count("bakeQuantity"));
    CHECK(irr.at("bakeQuantity").find("not divided by pi") != std::string::npos);
    CHECK(irr.at("bakeMethod") == "SH of order 3, window none");
    CHECK(irr.at("bakeSource") == kSample);
    CHECK(irr.at("bakeLayout").find("cube as a vertical strip") == 0);
    CHECK(irr.at("bakeGenerator").find("bake-irradiance 0.") == 0);
    REQUIRE(run_cli(kSample + " -o " + dir + "/e.exr --irradiance exact --output-layout equirect --size 4 --order 5 --device cpu")
                .exit_code == 0);
    const auto exact = exr_strings(dir + "/e.exr");
    CHECK(exact.at("bakeMethod").find("the exact convolution of the source") == 0);
    CHECK(exact.at("bakeLayout").find("lat-long: row 0 = top") == 0);

    REQUIRE(run_cli("--dfg " + dir + "/d.exr --dfg-size 8").exit_code == 0);
    REQUIRE(run_cli("--dfg " + dir + "/d.png --dfg-size 8").exit_code == 0);
    const auto dfg = exr_strings(dir + "/d.exr");
    CHECK(dfg.at("bakeAxes").find("N.V = (column + 0.5) / width") != std::string::npos);
    CHECK(dfg.at("bakeChannels").find("R = A, the scale of F0") == 0);
    const PngChunks dfg_png = png_chunks(dir + "/d.png");
    CHECK(dfg_png.has_gamma);
    CHECK(dfg_png.gamma == Approx(1.0));
    CHECK_FALSE(dfg_png.has_srgb);
    CHECK(dfg_png.text.at("Description").find("perceptual roughness") != std::string::npos);
    // The preview is display-referred sRGB and says so.
    CHECK(png_chunks(dir + "/p.png").has_srgb);
}
