#pragma once
#include <memory>
#include <stdexcept>
#include <string>

namespace bake {

// The GPU path could not run: no context, no compute shaders, a shader or GL failure.
// what() is one line.
struct GpuError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class GlBackend { Auto, Egl, Glfw };

struct GlContextInfo {
    std::string backend;   // "egl-device", "egl-surfaceless", "egl-default" or "glfw"
    std::string vendor;    // GL_VENDOR
    std::string renderer;  // GL_RENDERER
    std::string version;   // GL_VERSION
};

// An OpenGL 4.3 core context, current on the creating thread for its lifetime.
// EGL: EGL_EXT_platform_device devices (hardware before Mesa's software device), then
// EGL_MESA_platform_surfaceless, then the default display; no surface.
// GLFW: a hidden 1x1 window. Auto: EGL, then GLFW when a display exists.
class GlContext {
public:
    // Throws GpuError naming every backend tried and why it failed.
    // debug_output: install a KHR_debug callback printing driver messages to stderr.
    static std::unique_ptr<GlContext> create(GlBackend backend, bool debug_output = false);
    virtual ~GlContext() = default;
    const GlContextInfo& info() const { return info_; }

protected:
    GlContextInfo info_;
};

}  // namespace bake
