// GpuSpecularSource: the resident chains read back (level 0 behind the passes, a level, both chains).
#include "gpu_specular_source_impl.h"

#include <cstring>
#include <string>
#include <utility>

#include "trace.h"

namespace bake {

namespace {
// The level of a `source` chain whose faces are `size` (or the smallest larger), as read_resident_level takes it.
int level_for(int source, int size) {
    int level = 0;
    while ((source >> level) > size && (source >> level) > 1) ++level;
    return level;
}
}  // namespace

void GpuSpecularSource::queue_level_read(int size) {
    Impl& m = *impl_;
    if (m.generation == 0) throw GpuError("the specular source: no resident chain");
    m.drop_level_fence();
    m.queued_generation = m.generation;
    if (!m.unchecked || !m.projector.buffer_storage_available()) return;  // take_queued_level reads it then
    const int level = level_for(m.resident_size, size), s = m.resident_size >> level;
    const std::size_t level_bytes = 18 * static_cast<std::size_t>(s) * s * sizeof(float);  // the full cube, 6 faces of RGB
    const std::size_t bytes = level_bytes + 16;                                           // then the status word
    m.level_readback.ensure_readback(bytes);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glBindBuffer(GL_COPY_WRITE_BUFFER, m.level_readback.id);
    glBindBuffer(GL_COPY_READ_BUFFER, m.output.id);
    glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, static_cast<GLintptr>(level_offset(m.resident_size, level) * sizeof(float)),
                        0, static_cast<GLsizeiptr>(level_bytes));
    glBindBuffer(GL_COPY_READ_BUFFER, m.status.id);
    glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, static_cast<GLintptr>(level_bytes), sizeof(GLuint));
    check_gl("queuing the specular source's level read");
    m.level_fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    m.queued_level = level;
}

CubeMap GpuSpecularSource::take_queued_level(int size) {
    Impl& m = *impl_;
    const std::uint64_t queued_for = m.queued_generation;
    m.queued_generation = 0;
    if (queued_for == 0 || queued_for != m.generation) {
        m.drop_level_fence();
        throw GpuError("the specular source: the level queued for reading was replaced");
    }
    if (m.queued_level < 0) return read_resident_level(size);  // nothing was queued: read it now
    const int s = m.resident_size >> m.queued_level;
    wait_and_delete(m.level_fence, "the specular source's level");
    m.drop_level_fence();
    const std::size_t face_floats = 3 * static_cast<std::size_t>(s) * s;
    const std::size_t level_bytes = 6 * face_floats * sizeof(float);
    CubeMap cube(s);
    GLuint failed = 0;
    glBindBuffer(GL_COPY_WRITE_BUFFER, m.level_readback.id);
    const void* mapped = glMapBufferRange(GL_COPY_WRITE_BUFFER, 0, static_cast<GLsizeiptr>(level_bytes + sizeof failed), GL_MAP_READ_BIT);
    if (!mapped) {
        check_gl("mapping the specular source's level");
        throw GpuError("mapping the specular source's level failed");
    }
    const float* src = static_cast<const float*>(mapped);
    std::memcpy(&failed, static_cast<const char*>(mapped) + level_bytes, sizeof failed);
    if (!failed)
        for (int f = 0; f < 6; ++f) std::copy_n(src + f * face_floats, face_floats, cube.faces[f].rgb.data());
    glUnmapBuffer(GL_COPY_WRITE_BUFFER);
    check_gl("reading the specular source's level back");
    if (m.unchecked) m.conclude_check(failed);
    if (cube.size == size) return cube;
    return specular_level_zero({cube}, size);  // a source smaller than the level: its texels repeated
}

std::optional<GpuSpecularSource::LevelInBuffer> GpuSpecularSource::full_level_in_buffer(int size) const {
    const Impl& m = *impl_;
    if (m.generation == 0) return std::nullopt;
    const int level = level_for(m.resident_size, size);
    if ((m.resident_size >> level) != size) return std::nullopt;
    return LevelInBuffer{m.output.id, level_offset(m.resident_size, level)};
}

std::uint64_t GpuSpecularSource::resident_generation() const { return impl_->generation; }
int GpuSpecularSource::resident_size() const { return impl_->resident_size; }
unsigned GpuSpecularSource::resident_texture() const { return impl_->texture; }

CubeMap GpuSpecularSource::read_resident_level(int size) {
    Impl& m = *impl_;
    check_resident();
    if (m.generation == 0) throw GpuError("the specular source: no resident chain");
    const int level = level_for(m.resident_size, size);
    CubeMap cube(m.resident_size >> level);
    CubeMap* const out[2] = {&cube, nullptr};
    m.read_level(level, 1, out);
    if (cube.size == size) return cube;
    return specular_level_zero({cube}, size);  // a source smaller than the level: its texels repeated
}

void GpuSpecularSource::read_resident_chains(std::vector<CubeMap>* full, std::vector<CubeMap>* capped) {
    Impl& m = *impl_;
    check_resident();
    if (m.generation == 0) throw GpuError("the specular source: no resident chain");
    full->clear();
    capped->clear();
    for (int level = 0, s = m.resident_size; s >= 1; ++level, s /= 2) {
        CubeMap f(s), c(m.resident_cubes == 2 ? s : 0);
        CubeMap* const out[2] = {&f, &c};
        m.read_level(level, m.resident_cubes, out);
        full->push_back(std::move(f));
        if (m.resident_cubes == 2) capped->push_back(std::move(c));
    }
    if (m.resident_cubes == 1) *capped = *full;
}

double GpuSpecularSource::last_ms() const { return impl_->last_ms; }
double GpuSpecularSource::last_upload_ms() const { return impl_->last_upload_ms; }
std::string GpuSpecularSource::last_detail() const {
    char text[300];
    const Impl& m = *impl_;
    if (m.generation != 0)
        std::snprintf(text, sizeof text,
                      "program %.1f, upload %.1f, pass %.1f, mips and texture %.1f (GPU: mips %.1f, texture %.1f; kept on the GPU)",
                      m.last_program_ms, m.last_upload_ms, m.last_ms, m.last_mips_ms, m.last_mips_gpu_ms, m.last_texture_gpu_ms);
    else
        std::snprintf(text, sizeof text, "program %.1f, upload %.1f, pass %.1f, read back %.1f (copy and map %.1f)",
                      m.last_program_ms, m.last_upload_ms, m.last_ms, m.last_read_ms, m.last_map_ms);
    return text;
}

}  // namespace bake
