// libFuzzer harness: the coefficients/golden JSON reader (bake::read_coefficients_json).
//
// The input is written to a temporary file and read back. The only acceptable way to fail is
// bake::InputError; any other exception escapes and libFuzzer reports it, as it does crashes,
// hangs, leaks and ASan/UBSan findings. A document that is accepted must hold radiance and
// irradiance of one supported order with 3 channels each.
//
// Seeds: tests/fuzz/corpus/fuzz_coefficients_json/ (made by tests/fuzz/make_seeds.cpp).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "coefficients_json.h"
#include "errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string path = [] {
        const char* dir = std::getenv("TMPDIR");
        return std::string(dir && *dir ? dir : "/tmp") + "/bake_fuzz_json_" + std::to_string(::getpid()) + ".json";
    }();
    {
        std::FILE* f = std::fopen(path.c_str(), "wb");
        if (!f) std::abort();
        if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
        std::fclose(f);
    }
    try {
        const bake::CoefficientsDocument doc = bake::read_coefficients_json(path);
        const int n = doc.radiance.order;
        if (!bake::is_supported_order(n) || doc.irradiance.order != n ||
            doc.radiance.count() != bake::sh_count(n) || doc.irradiance.count() != bake::sh_count(n))
            std::abort();  // accepted a document that breaks the reader's own contract
    } catch (const bake::InputError&) {
        // the documented way to refuse a file
    }
    std::remove(path.c_str());
    return 0;
}
