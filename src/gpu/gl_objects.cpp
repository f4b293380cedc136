#include "gl_objects.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <vector>

#include "embedded_shaders.h"
#include "trace.h"

namespace bake {

BufferStorageFn& buffer_storage_function() {
    static BufferStorageFn fn = nullptr;
    return fn;
}

std::string gl_error_name(GLenum error) {
    switch (error) {
        case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
        case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
        case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
        case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
        case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY (out of GPU memory)";
        case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
        case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
        case 0x0507: return "GL_CONTEXT_LOST (the GPU was reset or the context lost)";
        default: {
            char buf[32];
            std::snprintf(buf, sizeof buf, "GL error 0x%04X", error);
            return buf;
        }
    }
}

// Throws GpuError naming `stage` if GL recorded an error since the last check.
void check_gl(const char* stage) {
    const GLenum error = glGetError();
    if (error == GL_NO_ERROR) return;
    std::string message = std::string("OpenGL error after ") + stage + ": " + gl_error_name(error);
    // GL keeps one flag per error kind; clear the rest so the next operation starts clean.
    for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; ++i) {
    }
    throw GpuError(message);
}

void clear_stale_errors() {
    for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; ++i) {
    }
}

// The info log on one line (GpuError's what() is one line).
std::string driver_log_line(std::string log) {
    while (!log.empty() && (log.back() == '\n' || log.back() == '\r' || log.back() == ' '))
        log.pop_back();
    std::string out;
    for (char c : log) {
        if (c == '\n') out += " | ";
        else if (c != '\r') out += c;
    }
    return out;
}

bool fault_requested(const char* what) {
    const char* fault = std::getenv("BAKE_TEST_FAULT");
    return fault && std::strcmp(fault, what) == 0;
}

// A program on its way: from the cache's binary, or compiling (shader kept for its log).
struct ComputePrograms::Pending {
    std::string name, full_source;
    std::vector<std::string> sources;  // compile(): the strings given to glShaderSource
    GLuint program = 0, shader = 0;
    bool from_cache = false;
};

ComputePrograms::ComputePrograms(const GlContextInfo& info) : cache_(info.vendor + "|" + info.renderer + "|" + info.version) {
    // As many driver threads as it likes for preload()'s programs (0xFFFFFFFF: the driver's choice).
    if (GLAD_GL_ARB_parallel_shader_compile) glMaxShaderCompilerThreadsARB(0xFFFFFFFFu);
    else if (GLAD_GL_KHR_parallel_shader_compile) glMaxShaderCompilerThreadsKHR(0xFFFFFFFFu);
}

ComputePrograms::~ComputePrograms() {
    for (auto& entry : programs_) glDeleteProgram(entry.second);
    for (auto& entry : pending_) {
        glDeleteProgram(entry.second->program);
        if (entry.second->shader) glDeleteShader(entry.second->shader);
    }
}


namespace {

std::string info_log(GLuint object, bool is_program) {
    GLint length = 0;
    if (is_program) glGetProgramiv(object, GL_INFO_LOG_LENGTH, &length);
    else glGetShaderiv(object, GL_INFO_LOG_LENGTH, &length);
    std::string log(static_cast<std::size_t>(std::max(length, 1)), '\0');
    if (is_program) glGetProgramInfoLog(object, length, nullptr, &log[0]);
    else glGetShaderInfoLog(object, length, nullptr, &log[0]);
    log.resize(std::strlen(log.c_str()));
    return driver_log_line(log);
}

// Compile and link queued; nothing here waits for the driver (its threads do them where
// ARB_parallel_shader_compile is there).
void start_compile(ComputePrograms::Pending& p) {
    const char* strings[5];
    for (std::size_t i = 0; i < p.sources.size(); ++i) strings[i] = p.sources[i].c_str();
    p.shader = glCreateShader(GL_COMPUTE_SHADER);
    glShaderSource(p.shader, static_cast<GLsizei>(p.sources.size()), strings, nullptr);
    glCompileShader(p.shader);
    p.program = glCreateProgram();
    glAttachShader(p.program, p.shader);
    glProgramParameteri(p.program, GL_PROGRAM_BINARY_RETRIEVABLE_HINT, GL_TRUE);
    glLinkProgram(p.program);
    p.from_cache = false;
}

}  // namespace

ComputePrograms::Pending ComputePrograms::start(const char* shader_name, const std::string& defines) {
    const char* body = shaders::find(shader_name);
    if (!body) throw GpuError(std::string("shader ") + shader_name + " is not embedded in the binary");
    Pending p;
    p.name = shader_name;
    // For shader work without a rebuild (bench/results' experiments): $BAKE_SHADER_DIR/<name>,
    // where that file exists, replaces the embedded body.
    std::string override_body;
    if (const char* dir = std::getenv("BAKE_SHADER_DIR"); dir && *dir) {
        std::ifstream in(std::string(dir) + "/" + shader_name, std::ios::binary);
        if (in) {
            override_body.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
            body = override_body.c_str();
        }
    }
    std::string header = "#version 430 core\n" + defines;
    if (fault_requested("shader-compile"))
        header += "#error forced compile failure (BAKE_TEST_FAULT=shader-compile)\n";
    // Source strings 1 and 2 restart line numbering, so the log's "1:LINE" / "2:LINE" point
    // into sh_common.glsl and the shader file themselves.
    p.sources = {header, "#line 1 1\n", shaders::kShader_sh_common_glsl, "\n#line 1 2\n", body};
    for (const std::string& part : p.sources) p.full_source += part;
    if (const GLuint cached = cache_.begin_load(p.full_source)) {
        p.program = cached;
        p.from_cache = true;
    } else {
        start_compile(p);
    }
    return p;
}

GLuint ComputePrograms::finish(Pending& p) {
    if (p.from_cache) {
        if (cache_.finish_load(p.program)) {
            if (trace_on()) trace_event(("program loaded: " + p.name).c_str());
            return p.program;
        }
        start_compile(p);  // the driver refused the binary: compiled after all
    }
    GLint ok = 0;
    glGetShaderiv(p.shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        const std::string log = info_log(p.shader, false);
        glDeleteProgram(p.program);
        glDeleteShader(p.shader);
        throw GpuError("shader " + p.name + " failed to compile (source 1 = sh_common.glsl, 2 = " + p.name + "): " + log);
    }
    glDeleteShader(p.shader);  // freed with the program
    glGetProgramiv(p.program, GL_LINK_STATUS, &ok);
    if (!ok) {
        const std::string log = info_log(p.program, true);
        glDeleteProgram(p.program);
        throw GpuError("shader " + p.name + " failed to link: " + log);
    }
    check_gl("compiling shaders");
    ++compiled_;
    cache_.store(p.program, p.full_source);
    if (trace_on()) trace_event(("program compiled: " + p.name).c_str());
    return p.program;
}

void ComputePrograms::preload(const char* shader_name, const std::string& defines) {
    const std::string key = std::string(shader_name) + "\n" + defines;
    if (programs_.count(key) || pending_.count(key)) return;
    pending_.emplace(key, std::make_unique<Pending>(start(shader_name, defines)));
    if (trace_on()) trace_event((std::string("program preloading: ") + shader_name).c_str());
}

GLuint ComputePrograms::get(const char* shader_name, const std::string& defines) {
    const std::string key = std::string(shader_name) + "\n" + defines;
    auto found = programs_.find(key);
    if (found != programs_.end()) return found->second;
    std::unique_ptr<Pending> p;
    if (auto pending = pending_.find(key); pending != pending_.end()) {
        p = std::move(pending->second);
        pending_.erase(pending);
    } else {
        p = std::make_unique<Pending>(start(shader_name, defines));
    }
    const GLuint program = finish(*p);
    programs_.emplace(key, program);
    return program;
}

}  // namespace bake
