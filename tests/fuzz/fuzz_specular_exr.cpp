// libFuzzer harness: reading a specular chain back (bake::read_specular_exr), the reader users and
// --compare point at files they did not write. The input is the file's content, written to a
// temporary file (OpenEXR reads from a path). The only acceptable way to fail is
// bake::InputError; any other exception escapes and libFuzzer reports it, as it does crashes,
// hangs, leaks and ASan/UBSan findings.
//
// Seeds: tests/fuzz/corpus/fuzz_specular_exr/ (made by tests/fuzz/make_seeds.cpp).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "errors.h"
#include "specular_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string path = [] {
        const char* dir = std::getenv("TMPDIR");
        return std::string(dir && *dir ? dir : "/tmp") + "/bake_fuzz_specular_" + std::to_string(::getpid()) + ".exr";
    }();
    {
        std::FILE* f = std::fopen(path.c_str(), "wb");
        if (!f) std::abort();  // the harness itself is broken: not a finding in the reader
        if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
        std::fclose(f);
    }
    try {
        bake::SpecularChainInfo info;
        const auto levels = bake::read_specular_exr(path, &info);
        // What a caller does next: walk every texel of every level.
        double sum = 0;
        for (const auto& level : levels)
            for (const auto& face : level.faces)
                for (float v : face.rgb) sum += v;
        (void)sum;
    } catch (const bake::InputError&) {
    }
    return 0;
}
