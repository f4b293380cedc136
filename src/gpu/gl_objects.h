#pragma once
// OpenGL objects and helpers shared by the GPU modules (gpu_projector.cpp, gpu_exact_irradiance.cpp).
// Needs a current context on the calling thread.
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <glad/gl.h>

#include "gl_context.h"
#include "program_cache.h"

namespace bake {

// GL 4.4 / ARB_buffer_storage, loaded by hand (the generated loader is GL 4.3 core): null when absent.
using BufferStorageFn = void(GLAD_API_PTR*)(GLenum target, GLsizeiptr size, const void* data, GLbitfield flags);
BufferStorageFn& buffer_storage_function();
#ifndef GL_CLIENT_STORAGE_BIT
#define GL_CLIENT_STORAGE_BIT 0x0200
#endif

std::string gl_error_name(GLenum error);
// Throws GpuError naming `stage` if GL recorded an error since the last check.
void check_gl(const char* stage);
void clear_stale_errors();
// A driver log on one line (GpuError's what() is one line).
std::string driver_log_line(std::string log);
// BAKE_TEST_FAULT=what (test hooks).
bool fault_requested(const char* what);
// Waits until the GPU has passed `fence` (however long: a timeout only means "not yet"), then
// deletes it; a null fence is passed. A failed wait (a lost context, say) is a GpuError naming `what`.
void wait_and_delete(GLsync& fence, const char* what);

struct GlBuffer {
    GLuint id = 0;
    std::size_t size = 0;
    bool immutable = false;
    GlBuffer() { glGenBuffers(1, &id); }
    ~GlBuffer() { glDeleteBuffers(1, &id); }
    GlBuffer(const GlBuffer&) = delete;
    GlBuffer& operator=(const GlBuffer&) = delete;
    // (Re)specifies the store, orphaning any previous one still in use by the GPU.
    // usage: GL_STREAM_DRAW for uploads, GL_STREAM_READ for what the CPU reads back (NVIDIA's
    // debug output flags a mismatch).
    void allocate(std::size_t bytes, const void* data = nullptr, GLenum usage = GL_STREAM_DRAW) {
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, id);
        size = std::max<std::size_t>(bytes, 16);
        // The store is at least 16 bytes, `data` only `bytes`: never let GL read past it (ASan
        // caught a 4-byte status word copied as 16).
        glBufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(size), bytes < size ? nullptr : data, usage);
        if (data && bytes < size && bytes > 0)
            glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(bytes), data);
    }
    // Immutable storage (glBufferStorage): flags 0 = GPU access only, which drivers place in
    // device memory. Once per buffer object.
    void allocate_storage(std::size_t bytes, GLbitfield flags, const void* data = nullptr) {
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, id);
        size = std::max<std::size_t>(bytes, 16);
        buffer_storage_function()(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(size), data, flags);
        immutable = true;
    }
    void bind(GLuint binding) const { glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, id); }
    // Copies the first `bytes` to `out` once the shaders' writes are visible; `what` names the
    // read in a GpuError ("reading ... back").
    void read(void* out, std::size_t bytes, const char* what) const {
        glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, id);
        glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(bytes), out);
        check_gl(what);
    }
    // A client-storage buffer the CPU maps to read what the GPU copied into it, of at least
    // `bytes` (kept while large enough).
    void ensure_readback(std::size_t bytes) {
        if (immutable && size >= bytes) return;
        reset();
        allocate_storage(bytes, GL_MAP_READ_BIT | GL_CLIENT_STORAGE_BIT);
    }
    // Such a buffer's first `bytes` to `out`, mapped (the copy into it waited for by the caller's
    // fence); `what` names the read in a GpuError ("reading ... back").
    void read_mapped(void* out, std::size_t bytes, const char* what) const;
    // A fresh buffer object (immutable storage cannot be re-specified).
    void reset() {
        glDeleteBuffers(1, &id);
        glGenBuffers(1, &id);
        size = 0;
        immutable = false;
    }
};

// GPU time of one stage (several tiles or passes, summed) from pairs of GL_TIMESTAMP queries.
// Not GL_TIME_ELAPSED: Mesa's llvmpipe runs compute dispatches outside its elapsed-time queries
// (they read ~0), while timestamps taken before and after a dispatch bracket it on llvmpipe and
// on hardware alike.
class StageTimer {
public:
    ~StageTimer() {
        if (!queries_.empty()) glDeleteQueries(static_cast<GLsizei>(queries_.size()), queries_.data());
    }
    void reset() { used_ = 0; }
    void begin() { glQueryCounter(next(), GL_TIMESTAMP); }
    void end() { glQueryCounter(next(), GL_TIMESTAMP); }
    double total_ms() const {  // waits for the GPU
        GLuint64 total_ns = 0;
        for (std::size_t i = 0; i + 1 < used_; i += 2) {
            GLuint64 start = 0, stop = 0;
            glGetQueryObjectui64v(queries_[i], GL_QUERY_RESULT, &start);
            glGetQueryObjectui64v(queries_[i + 1], GL_QUERY_RESULT, &stop);
            total_ns += stop > start ? stop - start : 0;
        }
        return static_cast<double>(total_ns) * 1e-6;
    }

private:
    GLuint next() {
        if (used_ == queries_.size()) {
            queries_.push_back(0);
            glGenQueries(1, &queries_.back());
        }
        return queries_[used_++];
    }
    std::vector<GLuint> queries_;
    std::size_t used_ = 0;
};

// Compute programs made from the embedded shaders (sh_common.glsl, then the shader, after a
// `#version 430 core` header and the variant's defines), each compiled once per key and kept
// in the program binary cache (program_cache.h). Throws GpuError with the driver's log.
class ComputePrograms {
public:
    explicit ComputePrograms(const GlContextInfo& info);
    ~ComputePrograms();
    ComputePrograms(const ComputePrograms&) = delete;
    ComputePrograms& operator=(const ComputePrograms&) = delete;

    GLuint get(const char* shader_name, const std::string& defines);

    std::size_t compiled() const { return compiled_; }
    const ProgramCache& cache() const { return cache_; }
    // (shader name + defines, linked program) of every program made so far.
    const std::map<std::string, GLuint>& programs() const { return programs_; }

private:
    ProgramCache cache_;
    std::size_t compiled_ = 0;
    std::map<std::string, GLuint> programs_;
};

}  // namespace bake
