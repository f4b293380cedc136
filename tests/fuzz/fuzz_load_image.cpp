// libFuzzer harness: HDR/EXR loading and layout detection (bake::load_environment).
//
// The first byte picks the file type (bit 0: .hdr, else .exr) and whether texels stay packed as
// the GPU path loads them (bit 1: RGBE / half, then expanded); the rest is the file's content,
// written to a temporary file because both decoders read from a path. The only acceptable way to
// fail is bake::InputError; any other exception escapes and libFuzzer reports it, as it does
// crashes, hangs, leaks and ASan/UBSan findings. A small pixel limit keeps each run fast.
//
// Seeds: tests/fuzz/corpus/fuzz_load_image/ (made by tests/fuzz/make_seeds.cpp).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "environment_loader.h"
#include "errors.h"
#include "texel_policy.h"

namespace {

std::string temp_base() {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/bake_fuzz_load_" + std::to_string(::getpid());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    static const std::string base = temp_base();
    const std::string path = base + ((data[0] & 1) ? ".hdr" : ".exr");
    {
        std::FILE* f = std::fopen(path.c_str(), "wb");
        if (!f) std::abort();  // the harness itself is broken: not a finding in the loader
        if (size > 1 && std::fwrite(data + 1, 1, size - 1, f) != size - 1) std::abort();
        std::fclose(f);
    }
    try {
        bake::LoadOptions options;
        options.max_pixels = std::uint64_t{1} << 20;
        options.packed = (data[0] & 2) != 0;
        bake::Environment env = bake::load_environment(path, options);
        // What the CLI does next with a loaded environment: inspect every texel.
        const bake::TexelStats stats = bake::scan_texels(env);
        if (stats.nonfinite > 0) bake::zero_nonfinite(env);
        if (env.is_packed()) bake::expand_packed_texels(env);
    } catch (const bake::InputError&) {
        // the documented way to refuse a file
    }
    std::remove(path.c_str());
    return 0;
}
