#include "gl_objects.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

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

void wait_and_delete(GLsync& fence, const char* what) {
    if (!fence) return;
    GLenum status;
    while ((status = glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT, 1000000000)) == GL_TIMEOUT_EXPIRED) {
    }
    glDeleteSync(fence);
    fence = nullptr;
    if (status == GL_WAIT_FAILED) throw GpuError(std::string("waiting for ") + what + " failed (context lost?)");
}

void GlBuffer::read_mapped(void* out, std::size_t bytes, const char* what) const {
    glBindBuffer(GL_COPY_WRITE_BUFFER, id);
    const void* mapped = glMapBufferRange(GL_COPY_WRITE_BUFFER, 0, static_cast<GLsizeiptr>(bytes), GL_MAP_READ_BIT);
    if (!mapped) {
        check_gl(what);
        throw GpuError(std::string(what) + ": the buffer could not be mapped");
    }
    std::memcpy(out, mapped, bytes);
    glUnmapBuffer(GL_COPY_WRITE_BUFFER);
    check_gl(what);
}

bool fault_requested(const char* what) {
    const char* fault = std::getenv("BAKE_TEST_FAULT");
    return fault && std::strcmp(fault, what) == 0;
}

ComputePrograms::ComputePrograms(const GlContextInfo& info) : cache_(info.vendor + "|" + info.renderer + "|" + info.version) {}

ComputePrograms::~ComputePrograms() {
    for (auto& entry : programs_) glDeleteProgram(entry.second);
}

GLuint ComputePrograms::get(const char* shader_name, const std::string& defines) {
    const std::string key = std::string(shader_name) + "\n" + defines;
    auto found = programs_.find(key);
    if (found != programs_.end()) return found->second;

    const char* body = shaders::find(shader_name);
    if (!body) throw GpuError(std::string("shader ") + shader_name + " is not embedded in the binary");
    // For shader work without a rebuild: $BAKE_SHADER_DIR/<name>,
    // where that file exists, replaces the embedded body.
    std::string override_body;
    if (const char* dir = std::getenv("BAKE_SHADER_DIR"); dir && *dir) {
        std::ifstream in(std::string(dir) + "/" + shader_name, std::ios::binary);
        if (in) {
            override_body.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
            body = override_body.c_str();
        }
    }
    // `#include "name.glsl"` lines: the embedded file of that name, in place (source string 3, then
    // the shader's own numbering resumes), so that a shader's helpers can live in a file of their own.
    std::string expanded;
    {
        std::istringstream lines(body);
        int number = 0;
        for (std::string line; std::getline(lines, line);) {
            ++number;
            const std::size_t open = line.find("#include \"");
            if (open != 0) {
                expanded += line + "\n";
                continue;
            }
            const std::string name = line.substr(10, line.find('"', 10) - 10);
            const char* included = shaders::find(name.c_str());
            if (!included) throw GpuError(std::string("shader ") + shader_name + " includes " + name + ", which is not embedded");
            expanded += "#line 1 3\n" + std::string(included) + "\n#line " + std::to_string(number + 1) + " 2\n";
        }
        body = expanded.c_str();
    }
    std::string header = "#version 430 core\n" + defines;
    if (fault_requested("shader-compile"))
        header += "#error forced compile failure (BAKE_TEST_FAULT=shader-compile)\n";
    // Source strings 1 and 2 restart line numbering, so the log's "1:LINE" / "2:LINE" point
    // into sh_common.glsl and the shader file themselves.
    const char* sources[] = {header.c_str(), "#line 1 1\n", shaders::kShader_sh_common_glsl,
                             "\n#line 1 2\n", body};
    std::string full_source;
    for (const char* part : sources) full_source += part;
    if (const GLuint cached = cache_.load(full_source)) {
        programs_.emplace(key, cached);
        if (trace_on()) trace_event((std::string("program loaded: ") + shader_name).c_str());
        return cached;
    }
    const GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
    glShaderSource(shader, 5, sources, nullptr);
    glCompileShader(shader);
    GLint ok = 0;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    auto info_log = [](GLuint object, bool is_program) {
        GLint length = 0;
        if (is_program) glGetProgramiv(object, GL_INFO_LOG_LENGTH, &length);
        else glGetShaderiv(object, GL_INFO_LOG_LENGTH, &length);
        std::string log(static_cast<std::size_t>(std::max(length, 1)), '\0');
        if (is_program) glGetProgramInfoLog(object, length, nullptr, &log[0]);
        else glGetShaderInfoLog(object, length, nullptr, &log[0]);
        log.resize(std::strlen(log.c_str()));
        return driver_log_line(log);
    };
    if (!ok) {
        const std::string log = info_log(shader, false);
        glDeleteShader(shader);
        throw GpuError(std::string("shader ") + shader_name + " failed to compile (source 1 = " +
                       "sh_common.glsl, 2 = " + shader_name + ", 3 = a file it includes): " + log);
    }
    const GLuint prog = glCreateProgram();
    glAttachShader(prog, shader);
    glProgramParameteri(prog, GL_PROGRAM_BINARY_RETRIEVABLE_HINT, GL_TRUE);
    glLinkProgram(prog);
    glDeleteShader(shader);  // freed with the program
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        const std::string log = info_log(prog, true);
        glDeleteProgram(prog);
        throw GpuError(std::string("shader ") + shader_name + " failed to link: " + log);
    }
    check_gl("compiling shaders");
    programs_.emplace(key, prog);
    ++compiled_;
    cache_.store(prog, full_source);
    if (trace_on()) trace_event((std::string("program compiled: ") + shader_name).c_str());
    return prog;
}

}  // namespace bake
