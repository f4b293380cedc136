// Inputs found by the libFuzzer harnesses (tests/fuzz/) that once broke a contract, kept as
// regression tests. Each is embedded here as bytes (shortened to what still reproduces).
#include <catch2/catch.hpp>

#include <filesystem>
#include <cstdint>
#include <fstream>
#include <string>

#include "coefficients_json.h"
#include "errors.h"
#include "image_io.h"
#include "specular_io.h"

namespace fs = std::filesystem;

namespace {

std::string write_file(const std::string& name, const std::string& bytes) {
    fs::create_directories("fuzz_regressions");
    const std::string path = "fuzz_regressions/" + name;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    return path;
}

// read_coefficients_json's contract: only InputError, one line, starting with "<path>: ".
void require_one_line_input_error(const std::string& path) {
    try {
        bake::read_coefficients_json(path);
        FAIL("accepted " << path);
    } catch (const bake::InputError& e) {
        const std::string what = e.what();
        INFO(what);
        CHECK(what.rfind(path + ": ", 0) == 0);
        CHECK(what.find('\n') == std::string::npos);
    }
    // Anything else (nlohmann's out_of_range before the fix) escapes and fails the test case.
}

}  // namespace

TEST_CASE("fuzz regression: a number beyond double's range in a coefficients JSON is an InputError",
          "[fuzz][json]") {
    // fuzz_coefficients_json, crash-5e7c20a9...: nlohmann::json throws out_of_range (406, "number
    // overflow") rather than parse_error for 1e031738, which escaped read_coefficients_json as a
    // non-InputError (the CLI would have called it an internal error, exit 1). The first 45 bytes
    // of the fuzzer's input: the parser fails at the number, before the truncation.
    require_one_line_input_error(write_file("crash-5e7c20a9.json", "{\"irradiance\":[[-1.0,1e-300,0],[-1.0,1e031738"));
    require_one_line_input_error(write_file("overflow_radiance.json", "{\"radiance\": [[1e999, 0, 0]]}"));
    require_one_line_input_error(write_file("overflow_negative.json", "{\"radiance\": [[0, -1e400, 0]]}"));
    // Not errors of that kind: underflow becomes 0, an integer beyond 64 bits becomes a double.
    const bake::CoefficientsDocument doc = bake::read_coefficients_json(
        write_file("edge_numbers.json", "{\"radiance\": [[1e-400, 18446744073709551616, -9223372036854775809]], "
                                        "\"irradiance\": [[0, 0, 0]]}"));
    CHECK(doc.radiance.rgb[0][0] == 0.0);
    CHECK(doc.radiance.rgb[0][1] == 18446744073709551616.0);
    CHECK(doc.radiance.rgb[0][2] == -9223372036854775808.0);
}

TEST_CASE("fuzz regression: an EXR attribute claiming more bytes than the file holds is refused before allocation",
          "[fuzz][exr]") {
    // fuzz_load_image: a 500-byte EXR declared a 1.67 GB attribute, which OpenEXR allocates before
    // reading. Made here from a valid file by patching the size of its 'compression' attribute.
    bake::Image img(4, 2);
    bake::write_exr("attr_ok.exr", img, bake::EnvmapHint::None);
    std::string bytes;
    {
        std::ifstream in("attr_ok.exr", std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    const std::string key = std::string("compression") + '\0' + "compression" + '\0';
    const size_t at = bytes.find(key);
    REQUIRE(at != std::string::npos);
    const size_t size_field = at + key.size();
    REQUIRE(bytes[size_field] == 1);  // one byte of value, as OpenEXR writes it
    for (const std::uint32_t claim : {0x63800000u, 0x7fffffffu, 0xffffffffu}) {
        std::string patched = bytes;
        for (int i = 0; i < 4; ++i) patched[size_field + static_cast<size_t>(i)] = static_cast<char>(claim >> (8 * i));
        std::ofstream("attr_huge.exr", std::ios::binary) << patched;
        INFO("claimed size 0x" << std::hex << claim);
        try {
            bake::load_image("attr_huge.exr");
            FAIL("accepted");
        } catch (const bake::InputError& e) {
            const std::string what = e.what();
            CHECK(what.rfind("attr_huge.exr: ", 0) == 0);
            CHECK(what.find("attribute 'compression'") != std::string::npos);
        }
    }
    CHECK(bake::load_image("attr_ok.exr").image.width == 4);  // the unpatched file still loads
}

TEST_CASE("fuzz regression: the attribute walk steps through a channel list as OpenEXR reads it", "[fuzz][exr]") {
    // fuzz_specular_exr: a 1179-byte tiled EXR whose channel list ends before its declared size;
    // a walk stepping by declared sizes took the list's end for the header's, while OpenEXR read
    // on and allocated 1.3 GB for an attribute '@'. Both readers must refuse it from the header.
    const std::string file =
        std::string(BAKE_TEST_DATA_DIR) + "/../fuzz/corpus/fuzz_specular_exr/regression_chlist_then_huge_opaque.exr";
    for (int reader = 0; reader < 2; ++reader) {
        try {
            if (reader == 0)
                bake::load_image(file);
            else
                bake::read_specular_exr(file);
            FAIL("accepted");
        } catch (const bake::InputError& e) {
            INFO(e.what());
            CHECK(std::string(e.what()).find("attribute '@' claims 1342177536 bytes") != std::string::npos);
        }
    }
}
