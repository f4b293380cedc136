// OpenGL 4.3 core contexts: headless EGL (device platform, Mesa surfaceless, default display)
// and a hidden GLFW window. See gl_context.h for the order in which backends are tried.
//
// Test hook: BAKE_TEST_FAULT=context makes create() fail as if no backend worked, so the
// callers' "no GPU" paths (exit codes, --device auto fallback) can be tested on any machine.
#include "gl_context.h"

#include <glad/gl.h>
// glad must come before any other GL header; GLFW must not pull in its own.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace bake {
namespace {

bool has_extension(const char* list, const char* name) {
    if (!list) return false;
    const std::size_t n = std::strlen(name);
    for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += n) {
        const bool starts = p == list || p[-1] == ' ';
        const bool ends = p[n] == '\0' || p[n] == ' ';
        if (starts && ends) return true;
    }
    return false;
}

bool fault_requested(const char* what) {
    const char* fault = std::getenv("BAKE_TEST_FAULT");
    return fault && std::strcmp(fault, what) == 0;
}

std::string egl_error_name(EGLint code) {
    switch (code) {
        case EGL_SUCCESS: return "EGL_SUCCESS";
        case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
        case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
        case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
        case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
        case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
        case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
        case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
        case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
        case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
        case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
        default: {
            char buf[32];
            std::snprintf(buf, sizeof buf, "EGL error 0x%04X", static_cast<unsigned>(code));
            return buf;
        }
    }
}

const char* debug_severity_name(GLenum severity) {
    switch (severity) {
        case GL_DEBUG_SEVERITY_HIGH: return "high";
        case GL_DEBUG_SEVERITY_MEDIUM: return "medium";
        case GL_DEBUG_SEVERITY_LOW: return "low";
        default: return "note";
    }
}

const char* debug_type_name(GLenum type) {
    switch (type) {
        case GL_DEBUG_TYPE_ERROR: return "error";
        case GL_DEBUG_TYPE_DEPRECATED_BEHAVIOR: return "deprecated";
        case GL_DEBUG_TYPE_UNDEFINED_BEHAVIOR: return "undefined behaviour";
        case GL_DEBUG_TYPE_PORTABILITY: return "portability";
        case GL_DEBUG_TYPE_PERFORMANCE: return "performance";
        default: return "other";
    }
}

void GLAD_API_PTR print_debug_message(GLenum /*source*/, GLenum type, GLuint id, GLenum severity,
                                      GLsizei /*length*/, const GLchar* message,
                                      const void* /*user*/) {
    // Notifications (buffer placement, shader stats) drown the useful lines; keep the rest.
    if (severity == GL_DEBUG_SEVERITY_NOTIFICATION) return;
    std::fprintf(stderr, "GL debug (%s, %s, id %u): %s\n", debug_type_name(type),
                 debug_severity_name(severity), id, message);
}

// Loads GL with `load`, checks for 4.3 and compute shaders, fills vendor/renderer/version and
// installs the debug callback. Returns an empty string on success, else why it is unusable.
std::string finish_gl_setup(GLADloadfunc load, bool debug_output, GlContextInfo* info) {
    const int version = gladLoadGL(load);
    if (version == 0) return "could not load the OpenGL functions";
    auto str = [](GLenum name) {
        const GLubyte* s = glGetString(name);
        return s ? std::string(reinterpret_cast<const char*>(s)) : std::string("?");
    };
    info->vendor = str(GL_VENDOR);
    info->renderer = str(GL_RENDERER);
    info->version = str(GL_VERSION);
    if (!GLAD_GL_VERSION_4_3)
        return "OpenGL " + info->version + " (" + info->renderer + ") is older than 4.3";
    // Compute shaders are core in 4.3, but check that the limits say they really exist.
    GLint invocations = 0;
    glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &invocations);
    GLint ssbo_bindings = 0;
    glGetIntegerv(GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS, &ssbo_bindings);
    if (glGetError() != GL_NO_ERROR || invocations < 64 || ssbo_bindings < 4)
        return "OpenGL " + info->version + " (" + info->renderer + ") has no usable compute shaders";
    if (debug_output) {
        glEnable(GL_DEBUG_OUTPUT);
        glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);  // messages arrive inside the failing call
        glDebugMessageCallback(print_debug_message, nullptr);
        glDebugMessageControl(GL_DONT_CARE, GL_DONT_CARE, GL_DONT_CARE, 0, nullptr, GL_TRUE);
    }
    return {};
}

// ---------------------------------------------------------------------------------------------
// EGL

// eglTerminate ends every context of a display, and EGL hands out one display per device:
// count our users so that destroying one context leaves the others alive.
std::mutex g_egl_mutex;
std::map<EGLDisplay, int> g_egl_display_users;

bool acquire_egl_display(EGLDisplay display) {
    std::lock_guard<std::mutex> lock(g_egl_mutex);
    int& users = g_egl_display_users[display];
    if (users == 0) {
        EGLint major = 0, minor = 0;
        if (!eglInitialize(display, &major, &minor)) {
            g_egl_display_users.erase(display);
            return false;
        }
    }
    ++users;
    return true;
}

void release_egl_display(EGLDisplay display) {
    std::lock_guard<std::mutex> lock(g_egl_mutex);
    auto it = g_egl_display_users.find(display);
    if (it == g_egl_display_users.end()) return;
    if (--it->second == 0) {
        eglTerminate(display);
        g_egl_display_users.erase(it);
    }
}

class EglContext final : public GlContext {
public:
    EglContext(EGLDisplay display, EGLContext context) : display_(display), context_(context) {}
    ~EglContext() override {
        if (eglGetCurrentContext() == context_)
            eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(display_, context_);
        release_egl_display(display_);
    }
    void set_info(GlContextInfo info) { info_ = std::move(info); }

private:
    EGLDisplay display_;
    EGLContext context_;
};

// A 4.3 core context on an EGL display, current with no surface; nullptr and *why otherwise.
std::unique_ptr<GlContext> try_egl_display(EGLDisplay display, const std::string& backend,
                                           bool debug_output, std::string* why) {
    if (display == EGL_NO_DISPLAY) {
        *why = "no display (" + egl_error_name(eglGetError()) + ")";
        return nullptr;
    }
    if (!acquire_egl_display(display)) {
        *why = "eglInitialize failed (" + egl_error_name(eglGetError()) + ")";
        return nullptr;
    }
    auto fail = [&](const std::string& reason) -> std::unique_ptr<GlContext> {
        *why = reason;
        release_egl_display(display);
        return nullptr;
    };
    const char* extensions = eglQueryString(display, EGL_EXTENSIONS);
    if (!has_extension(extensions, "EGL_KHR_surfaceless_context"))
        return fail("no EGL_KHR_surfaceless_context");
    if (!has_extension(extensions, "EGL_KHR_create_context"))
        return fail("no EGL_KHR_create_context");
    if (!eglBindAPI(EGL_OPENGL_API)) return fail("eglBindAPI(EGL_OPENGL_API) failed");

    // EGL_SURFACE_TYPE defaults to EGL_WINDOW_BIT, which device displays have none of: 0 = any.
    const EGLint config_attribs[] = {EGL_SURFACE_TYPE, 0, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                     EGL_NONE};
    EGLConfig config = EGL_NO_CONFIG_KHR;
    EGLint config_count = 0;
    if (!eglChooseConfig(display, config_attribs, &config, 1, &config_count) || config_count < 1) {
        if (!has_extension(extensions, "EGL_KHR_no_config_context"))
            return fail("no EGLConfig renders OpenGL");
        config = EGL_NO_CONFIG_KHR;
    }
    std::vector<EGLint> context_attribs = {
        EGL_CONTEXT_MAJOR_VERSION_KHR, 4, EGL_CONTEXT_MINOR_VERSION_KHR, 3,
        EGL_CONTEXT_OPENGL_PROFILE_MASK_KHR, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT_KHR};
    if (debug_output) {
        context_attribs.push_back(EGL_CONTEXT_FLAGS_KHR);
        context_attribs.push_back(EGL_CONTEXT_OPENGL_DEBUG_BIT_KHR);
    }
    context_attribs.push_back(EGL_NONE);
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs.data());
    if (context == EGL_NO_CONTEXT)
        return fail("no OpenGL 4.3 core context (" + egl_error_name(eglGetError()) + ")");
    if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
        const std::string err = egl_error_name(eglGetError());
        eglDestroyContext(display, context);
        return fail("eglMakeCurrent without a surface failed (" + err + ")");
    }
    auto result = std::make_unique<EglContext>(display, context);  // owns display + context now
    GlContextInfo info;
    info.backend = backend;
    const std::string problem = finish_gl_setup(
        reinterpret_cast<GLADloadfunc>(eglGetProcAddress), debug_output, &info);
    if (!problem.empty()) {
        *why = problem;
        return nullptr;  // ~EglContext releases everything
    }
    result->set_info(std::move(info));
    return result;
}

std::unique_ptr<GlContext> create_egl(bool debug_output, std::vector<std::string>* failures) {
    const char* client_extensions = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    auto get_platform_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
        eglGetProcAddress("eglGetPlatformDisplayEXT"));
    std::string why;

    // 1. Devices: every EGL device, hardware ones before Mesa's software rasteriser.
    if (has_extension(client_extensions, "EGL_EXT_platform_device") && get_platform_display) {
        auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(
            eglGetProcAddress("eglQueryDevicesEXT"));
        auto query_device_string = reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(
            eglGetProcAddress("eglQueryDeviceStringEXT"));
        EGLint count = 0;
        std::vector<EGLDeviceEXT> devices;
        if (query_devices && query_devices(0, nullptr, &count) && count > 0) {
            devices.resize(static_cast<std::size_t>(count));
            if (!query_devices(count, devices.data(), &count)) count = 0;
            devices.resize(static_cast<std::size_t>(std::max(count, 0)));
        }
        auto is_software = [&](EGLDeviceEXT device) {
            const char* ext = query_device_string ? query_device_string(device, EGL_EXTENSIONS)
                                                  : nullptr;
            return has_extension(ext, "EGL_MESA_device_software");
        };
        std::stable_partition(devices.begin(), devices.end(),
                              [&](EGLDeviceEXT d) { return !is_software(d); });
        if (devices.empty()) failures->push_back("egl-device: no EGL devices");
        for (std::size_t i = 0; i < devices.size(); ++i) {
            EGLDisplay display = get_platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
            if (auto ctx = try_egl_display(display, "egl-device", debug_output, &why)) return ctx;
            failures->push_back("egl-device " + std::to_string(i) +
                                (is_software(devices[i]) ? " (software)" : "") + ": " + why);
        }
    } else {
        failures->push_back("egl-device: no EGL_EXT_platform_device");
    }

    // 2. Mesa's surfaceless platform (render nodes or llvmpipe, no display server).
    if (has_extension(client_extensions, "EGL_MESA_platform_surfaceless") && get_platform_display) {
        EGLDisplay display =
            get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
        if (auto ctx = try_egl_display(display, "egl-surfaceless", debug_output, &why)) return ctx;
        failures->push_back("egl-surfaceless: " + why);
    } else {
        failures->push_back("egl-surfaceless: no EGL_MESA_platform_surfaceless");
    }

    // 3. Whatever the default display is.
    if (auto ctx = try_egl_display(eglGetDisplay(EGL_DEFAULT_DISPLAY), "egl-default", debug_output,
                                   &why))
        return ctx;
    failures->push_back("egl-default: " + why);
    return nullptr;
}

// ---------------------------------------------------------------------------------------------
// GLFW

std::mutex g_glfw_mutex;
int g_glfw_users = 0;
std::string g_glfw_last_error;

void record_glfw_error(int /*code*/, const char* description) {
    g_glfw_last_error = description ? description : "unknown GLFW error";
}

class GlfwContext final : public GlContext {
public:
    explicit GlfwContext(GLFWwindow* window) : window_(window) {}
    ~GlfwContext() override {
        std::lock_guard<std::mutex> lock(g_glfw_mutex);
        if (glfwGetCurrentContext() == window_) glfwMakeContextCurrent(nullptr);
        glfwDestroyWindow(window_);
        if (--g_glfw_users == 0) glfwTerminate();
    }
    void set_info(GlContextInfo info) { info_ = std::move(info); }

private:
    GLFWwindow* window_;
};

std::unique_ptr<GlContext> create_glfw(bool debug_output, std::vector<std::string>* failures) {
    GLFWwindow* window = nullptr;
    {
        std::lock_guard<std::mutex> lock(g_glfw_mutex);
        glfwSetErrorCallback(record_glfw_error);
        g_glfw_last_error.clear();
        if (g_glfw_users == 0 && !glfwInit()) {
            failures->push_back("glfw: glfwInit failed (" + g_glfw_last_error + ")");
            return nullptr;
        }
        glfwDefaultWindowHints();
        glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
        glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_API);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
        glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
        glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, debug_output ? GLFW_TRUE : GLFW_FALSE);
        window = glfwCreateWindow(1, 1, "bake-irradiance", nullptr, nullptr);
        if (!window) {
            failures->push_back("glfw: no hidden OpenGL 4.3 core window (" + g_glfw_last_error + ")");
            if (g_glfw_users == 0) glfwTerminate();
            return nullptr;
        }
        ++g_glfw_users;
        glfwMakeContextCurrent(window);
    }
    auto result = std::make_unique<GlfwContext>(window);
    GlContextInfo info;
    info.backend = "glfw";
    const std::string problem = finish_gl_setup(
        reinterpret_cast<GLADloadfunc>(glfwGetProcAddress), debug_output, &info);
    if (!problem.empty()) {
        failures->push_back("glfw: " + problem);
        return nullptr;
    }
    result->set_info(std::move(info));
    return result;
}

bool display_server_present() {
    const char* x11 = std::getenv("DISPLAY");
    const char* wayland = std::getenv("WAYLAND_DISPLAY");
    return (x11 && *x11) || (wayland && *wayland);
}

}  // namespace

namespace {

#if defined(__SANITIZE_ADDRESS__)
// AddressSanitizer builds only: the OpenGL drivers loaded by now stay loaded to the end of the
// process (RTLD_NODELETE). Mesa's loader unloads its DRI driver when the display goes, and
// LeakSanitizer, which runs after, then cannot name the module of an allocation the driver kept
// ("<unknown module>"), so tests/sanitizer/lsan.supp's driver suppressions could not match.
void keep_gl_drivers_loaded() {
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void*) {
            const std::string name = info->dlpi_name ? info->dlpi_name : "";
            if (name.find("_dri.so") != std::string::npos || name.find("libgallium") != std::string::npos ||
                name.find("libGLX_mesa") != std::string::npos || name.find("libEGL_mesa") != std::string::npos)
                dlopen(name.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
            return 0;
        },
        nullptr);
}
#else
void keep_gl_drivers_loaded() {}
#endif

}  // namespace

std::unique_ptr<GlContext> GlContext::create(GlBackend backend, bool debug_output) {
    if (fault_requested("context"))
        throw GpuError("no OpenGL 4.3 context: forced by BAKE_TEST_FAULT=context");
    std::vector<std::string> failures;
    if (backend == GlBackend::Egl || backend == GlBackend::Auto) {
        if (auto ctx = create_egl(debug_output, &failures)) {
            keep_gl_drivers_loaded();
            return ctx;
        }
    }
    if (backend == GlBackend::Glfw || (backend == GlBackend::Auto && display_server_present())) {
        if (auto ctx = create_glfw(debug_output, &failures)) {
            keep_gl_drivers_loaded();
            return ctx;
        }
    } else if (backend == GlBackend::Auto) {
        failures.push_back("glfw: not tried, neither DISPLAY nor WAYLAND_DISPLAY is set");
    }
    std::string message = "no OpenGL 4.3 context:";
    for (std::size_t i = 0; i < failures.size(); ++i)
        message += (i ? "; " : " ") + failures[i];
    throw GpuError(message);
}

}  // namespace bake
