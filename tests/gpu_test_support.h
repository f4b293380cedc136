#pragma once
// An OpenGL context for the GPU tests. Without an OpenGL 4.3 context they FAIL, unless
// BAKE_ALLOW_NO_GL=1 (then they warn and pass): a CI machine that silently lost its GL would
// otherwise test nothing.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "gl_context.h"
#include "gpu_projector.h"

namespace bake::test {

inline bool allow_no_gl() {
    const char* v = std::getenv("BAKE_ALLOW_NO_GL");
    return v && std::string(v) == "1";
}

struct Gpu {
    std::unique_ptr<GlContext> context;
    std::unique_ptr<GpuProjector> projector;
};

// A context and projector, or nothing (after a WARN) when GL is missing and that is allowed.
inline std::optional<Gpu> open_gpu(GlBackend backend = GlBackend::Egl) {
    try {
        Gpu gpu;
        gpu.context = GlContext::create(backend);
        gpu.projector = std::make_unique<GpuProjector>(*gpu.context);
        return gpu;
    } catch (const GpuError& e) {
        if (allow_no_gl()) {
            WARN("GPU test not run (BAKE_ALLOW_NO_GL=1): " << e.what());
            return std::nullopt;
        }
        FAIL("no OpenGL 4.3 context (set BAKE_ALLOW_NO_GL=1 to allow): " << e.what());
    }
    return std::nullopt;
}

}  // namespace bake::test
