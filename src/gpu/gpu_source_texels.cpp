#include "gpu_source_texels.h"

#include <glad/gl.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <EGL/egl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>

#include "equirect.h"

// GL 4.4 / ARB_buffer_storage, loaded by hand: the generated loader is GL 4.3 core.
#ifndef GL_MAP_PERSISTENT_BIT
#define GL_MAP_PERSISTENT_BIT 0x0040
#endif
#ifndef GL_MAP_COHERENT_BIT
#define GL_MAP_COHERENT_BIT 0x0080
#endif
#ifndef GL_DYNAMIC_STORAGE_BIT
#define GL_DYNAMIC_STORAGE_BIT 0x0100
#endif

namespace bake {

namespace {

// Each of 2; pinning more costs a one-shot run more than it saves (bench/NOTES.md).
constexpr std::size_t kStagingBytes = std::size_t{8} << 20;

// memcpy split over a few threads: one thread does not fill host-to-device bandwidth.
void parallel_copy(void* dst, const void* src, std::size_t bytes, unsigned max_threads) {
    const unsigned threads = bytes < (std::size_t{4} << 20)
                                 ? 1u
                                 : std::max(1u, std::min(max_threads, std::thread::hardware_concurrency()));
    const std::size_t part = ceil_div(bytes, threads);
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) {
        const std::size_t begin = t * part;
        if (begin >= bytes) break;
        pool.emplace_back([=] {
            std::memcpy(static_cast<char*>(dst) + begin, static_cast<const char*>(src) + begin,
                        std::min(part, bytes - begin));
        });
    }
    std::memcpy(dst, src, std::min(part, bytes));
    for (auto& th : pool) th.join();
}

// Double-precision lat-long geometry for the shaders (see project_sh.comp): rows
// (sin theta, cos theta, pixel solid angle, 0), columns (cos phi, sin phi).
void fill_equirect_tables(int width, int height, std::vector<float>* rows, std::vector<float>* cols) {
    constexpr double kPi = 3.14159265358979323846;
    rows->assign(static_cast<std::size_t>(height) * 4, 0.0f);
    cols->assign(static_cast<std::size_t>(width) * 2, 0.0f);
    for (int r = 0; r < height; ++r) {
        const double theta = kPi * (r + 0.5) / height;
        float* row = &(*rows)[static_cast<std::size_t>(r) * 4];
        row[0] = static_cast<float>(std::sin(theta));
        row[1] = static_cast<float>(std::cos(theta));
        row[2] = static_cast<float>(equirect_row_solid_angle(r, width, height));
    }
    for (int c = 0; c < width; ++c) {
        const double phi = 2.0 * kPi * (c + 0.5) / width - kPi;
        (*cols)[static_cast<std::size_t>(c) * 2] = static_cast<float>(std::cos(phi));
        (*cols)[static_cast<std::size_t>(c) * 2 + 1] = static_cast<float>(std::sin(phi));
    }
}

}  // namespace

GpuSourceTexels::GpuSourceTexels(const GlContext& context, const GpuLimits& limits) : limits_(limits) {
    // glBufferStorage: core in GL 4.4, else ARB_buffer_storage.
    GLint major = 0, minor = 0, extensions = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    glGetIntegerv(GL_NUM_EXTENSIONS, &extensions);
    bool supported = major > 4 || (major == 4 && minor >= 4);
    for (GLint i = 0; i < extensions && !supported; ++i) {
        const auto* name = reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, static_cast<GLuint>(i)));
        supported = name && std::strcmp(name, "GL_ARB_buffer_storage") == 0;
    }
    clear_stale_errors();
    if (supported) {
        const char* name = "glBufferStorage";
        buffer_storage_function() = context.info().backend == "glfw"
                                        ? reinterpret_cast<BufferStorageFn>(glfwGetProcAddress(name))
                                        : reinterpret_cast<BufferStorageFn>(eglGetProcAddress(name));
        has_buffer_storage_ = buffer_storage_function() != nullptr;
    }
}

GpuSourceTexels::~GpuSourceTexels() {
    unstage();  // its worker writes into the mapped buffers
    for (GLsync& f : staging_fence_)
        if (f) glDeleteSync(f);
    for (int i = 0; i < kStagingSlots; ++i)
        if (staging_map_[i]) {
            glBindBuffer(GL_COPY_READ_BUFFER, staging_[i]->id);
            glUnmapBuffer(GL_COPY_READ_BUFFER);
        }
}

void GpuSourceTexels::check_block(std::size_t bytes, const char* what) const {
    if (bytes > limits_.max_block_bytes)
        throw GpuError(std::string(what) + " needs a " + std::to_string(bytes) +
                       "-byte shader storage block; this GPU allows " + std::to_string(limits_.max_block_bytes) +
                       " (GL_MAX_SHADER_STORAGE_BLOCK_SIZE)");
}

void GpuSourceTexels::upload_equirect_tables(int width, int height, GlBuffer* rows_buffer, GlBuffer* columns_buffer) const {
    std::vector<float> rows, cols;
    fill_equirect_tables(width, height, &rows, &cols);
    check_block(rows.size() * sizeof(float), "the lat-long row table");
    check_block(cols.size() * sizeof(float), "the lat-long column table");
    rows_buffer->allocate(rows.size() * sizeof(float), rows.data());
    columns_buffer->allocate(cols.size() * sizeof(float), cols.data());
}

std::vector<GpuSourceTexels::Tile> GpuSourceTexels::plan_texel_tiles(std::size_t positions, bool cube, std::size_t bpt,
                                                                     const GpuTuning& tuning) const {
    const Pass1Shape shape = Pass1Shape::of(cube, tuning);
    const std::size_t group_positions = shape.positions_per_group();
    std::size_t groups_per_tile =
        std::min(limits_.max_block_bytes / (group_positions * shape.faces * bpt), limits_.max_groups_x);
    if (max_tile_texels_ > 0) groups_per_tile = std::min(groups_per_tile, max_tile_texels_ / (group_positions * shape.faces));
    groups_per_tile = std::max<std::size_t>(groups_per_tile, 1);
    const std::size_t tile_positions = groups_per_tile * group_positions;
    std::vector<Tile> tiles;
    for (std::size_t first = 0; first < positions; first += tile_positions) {
        Tile tile;
        tile.first = first;
        tile.count = std::min(tile_positions, positions - first);
        tile.stride_quads = ceil_div(tile.count, 4);  // each face padded to whole quads
        tile.groups = ceil_div(tile.count, group_positions);
        tiles.push_back(std::move(tile));
    }
    return tiles;
}

std::unique_ptr<GlBuffer> GpuSourceTexels::make_texel_buffer(std::size_t bytes, const GpuTuning& tuning) {
    for (auto it = spare_texels_.begin(); it != spare_texels_.end(); ++it)
        if ((*it)->size == std::max<std::size_t>(bytes, 16)) {
            std::unique_ptr<GlBuffer> spare = std::move(*it);
            spare_texels_.erase(it);
            return spare;
        }
    auto buffer = std::make_unique<GlBuffer>();
    switch (upload_mode(tuning)) {
        case GpuTuning::Upload::BufferData: buffer->allocate(bytes); break;
        case GpuTuning::Upload::Storage: buffer->allocate_storage(bytes, GL_DYNAMIC_STORAGE_BIT); break;
        case GpuTuning::Upload::Staging: buffer->allocate_storage(bytes, 0); break;
    }
    return buffer;
}

void GpuSourceTexels::write(GlBuffer& buffer, std::size_t offset, const void* src, std::size_t bytes, const GpuTuning& tuning) {
    if (bytes == 0) return;
    if (upload_mode(tuning) != GpuTuning::Upload::Staging) {
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffer.id);
        if (src) {
            glBufferSubData(GL_SHADER_STORAGE_BUFFER, static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes), src);
        } else {
            const std::vector<char> zeros(bytes, 0);
            glBufferSubData(GL_SHADER_STORAGE_BUFFER, static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes),
                            zeros.data());
        }
        return;
    }
    ensure_staging(tuning);
    for (std::size_t done = 0; done < bytes;) {
        const std::size_t n = std::min(staging_bytes_, bytes - done);
        const int slot = staging_next_ % staging_slots_;
        staging_next_ = (slot + 1) % staging_slots_;
        // What stage() copied: this chunk of the same input, in the slot it went to.
        bool staged = false;
        if (staged_.base) {
            const char* p = src ? static_cast<const char*>(src) + done : nullptr;
            const std::size_t at = p && p >= staged_.base ? static_cast<std::size_t>(p - staged_.base) : staged_.bytes;
            staged = use_staged_ && at < staged_.bytes && at % staging_bytes_ == 0 &&
                     n == std::min(staging_bytes_, staged_.bytes - at) &&
                     slot == (staged_.first_slot + static_cast<int>(at / staging_bytes_)) % staging_slots_;
            if (staged && staged_.copying.valid()) staged_.copying.get();
            if (!staged) unstage();
        }
        wait_and_delete(staging_fence_[slot], "an upload copy");  // the copy out of this staging buffer must have finished
        if (!staged && src)
            parallel_copy(staging_map_[slot], static_cast<const char*>(src) + done, n, copy_threads_ > 0 ? copy_threads_ : tuning.upload_threads);
        else if (!staged)
            std::memset(staging_map_[slot], 0, n);
        glBindBuffer(GL_COPY_READ_BUFFER, staging_[slot]->id);
        glBindBuffer(GL_COPY_WRITE_BUFFER, buffer.id);
        glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, static_cast<GLintptr>(offset + done),
                            static_cast<GLsizeiptr>(n));
        staging_fence_[slot] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        done += n;
    }
}

bool GpuSourceTexels::stage(const Environment& env, const GpuTuning& tuning) {
    if (staged_.base && env.identity != 0 && staged_.identity == env.identity) return false;  // staged already
    unstage();
    if (upload_mode(tuning) != GpuTuning::Upload::Staging || env.is_cube() || env.identity == 0) return false;
    const std::size_t bytes = env.is_packed() ? env.packed.bytes.size() : env.equirect.rgb.size() * sizeof(float);
    if (bytes == 0) return false;
    upload_total_ = bytes;  // as upload(env, tuning, false) will size them
    wanted_slots_ = kStagingSlots;
    ensure_staging(tuning);
    for (GLsync& fence : staging_fence_) wait_and_delete(fence, "an upload copy");
    staged_.identity = env.identity;
    staged_.base = env.is_packed() ? reinterpret_cast<const char*>(env.packed.bytes.data())
                                   : reinterpret_cast<const char*>(env.equirect.rgb.data());
    staged_.bytes = std::min(bytes, static_cast<std::size_t>(staging_slots_) * staging_bytes_);
    staged_.first_slot = staging_next_ % staging_slots_;
    void* const* maps = staging_map_;
    const int slots = staging_slots_, first = staged_.first_slot;
    const std::size_t chunk = staging_bytes_;
    const char* base = staged_.base;
    const std::size_t total = staged_.bytes;
    // One thread: the batch's other work has the cores (upload()'s copy_threads_).
    staged_.copying = std::async(std::launch::async, [maps, slots, first, chunk, base, total] {
        for (std::size_t at = 0, k = 0; at < total; at += chunk, ++k)
            std::memcpy(maps[(first + static_cast<int>(k)) % slots], base + at, std::min(chunk, total - at));
    });
    return true;
}

void GpuSourceTexels::unstage() {
    if (staged_.copying.valid()) staged_.copying.wait();
    staged_ = Staged{};
}

void GpuSourceTexels::ensure_staging(const GpuTuning&) {
    // Staging buffers sized to this upload (1 to 8 MiB): pinning host memory costs time, so a
    // small input does not pay for 2 x 8 MiB. Grown (re-created) when a larger upload comes.
    const std::size_t mib = std::size_t{1} << 20;
    const std::size_t wanted = std::min(kStagingBytes, std::max(mib, ceil_div(upload_total_, mib) * mib));
    if (staging_[0] && staging_bytes_ < wanted) {
        unstage();
        for (int i = 0; i < kStagingSlots; ++i) {
            if (!staging_[i]) continue;
            wait_and_delete(staging_fence_[i], "an upload copy");  // no copy may still read the buffer we unmap
            glBindBuffer(GL_COPY_READ_BUFFER, staging_[i]->id);
            glUnmapBuffer(GL_COPY_READ_BUFFER);
            staging_map_[i] = nullptr;
            staging_[i].reset();
        }
    }
    staging_slots_ = std::max(staging_slots_, std::min(wanted_slots_, kStagingSlots));
    for (int i = 0; i < staging_slots_; ++i)
        if (!staging_[i]) {
            staging_[i] = std::make_unique<GlBuffer>();
            staging_bytes_ = wanted;
            const GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
            staging_[i]->allocate_storage(staging_bytes_, flags);
            staging_map_[i] = glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(staging_bytes_), flags);
            check_gl("mapping the staging buffer");
            if (!staging_map_[i]) throw GpuError("could not map the texel staging buffer");
        }
}

void GpuSourceTexels::prepare(std::size_t texel_count, std::optional<TexelEncoding> encoding, const GpuTuning& tuning) {
    if (texel_count == 0 || upload_mode(tuning) != GpuTuning::Upload::Staging || !spare_texels_.empty()) return;
    const std::size_t bpt = encoding ? bytes_per_texel(*encoding) : kBytesPerTexel;
    if (texel_count >= (std::size_t{1} << 32)) return;  // too large: upload() will say so
    upload_total_ = texel_count * bpt;
    ensure_staging(tuning);
    for (const Tile& tile : plan_texel_tiles(texel_count, false, bpt, tuning))
        spare_texels_.push_back(make_texel_buffer(tile_bytes(tile, false, bpt), tuning));
    check_gl("creating the upload buffers");
}

void GpuSourceTexels::upload(const Environment& env, const GpuTuning& tuning, bool finish) {
    Resident& r = resident_;
    r = Resident{};  // frees the previous input's tiles
    r.tuning = tuning;
    upload_ms_ = 0;
    const std::size_t texel_count = env.texel_count();
    if (texel_count == 0) {
        r.valid = true;
        return;
    }
    r.cube = env.is_cube();
    r.size = static_cast<std::size_t>(env.width());
    r.symmetric = r.cube && symmetric_face_size(texel_count, tuning) != 0;
    if (env.is_packed()) {
        r.texel_format = env.packed.encoding == TexelEncoding::Rgbe8 ? 1 : 2;
        r.bytes_per_texel = bytes_per_texel(env.packed.encoding);
    }
    upload_total_ = texel_count * r.bytes_per_texel;
    // Queued behind other work, the copies wait for it: enough staging buffers that the CPU's
    // part (the memcpy into them) need not wait for a copy out of one (a 4096 x 2048 .hdr: 32 MiB).
    wanted_slots_ = finish ? 2 : kStagingSlots;
    // Behind other work (a batch's next input) the copy into them runs on this thread alone: the
    // machine's cores are then decoding, writing and summing, and the batch of 20 4k maps with
    // --specular took 0.734 s with one thread, 0.745 with 2, 0.772 with 4 and 0.805 with 8 (H200
    // machine, 16 cores, one lease, alternating; bench/NOTES.md).
    copy_threads_ = finish ? 0 : 1;
    use_staged_ = staged_.base && staged_.identity == env.identity;
    clear_stale_errors();
    // Wall-clock up to glFinish: drivers may copy asynchronously (DMA), which GPU timestamps
    // around glBufferSubData do not bracket, and the first dispatch would absorb the copy.
    const auto start = std::chrono::steady_clock::now();
    if (r.symmetric) upload_symmetric_cube(env, tuning);
    else upload_per_texel(env, tuning);
    spare_texels_.clear();  // prepared for another input than this one
    if (use_staged_) unstage();  // taken
    use_staged_ = false;
    if (finish) glFinish();
    upload_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    check_gl("uploading texels");
    r.valid = true;
}

// Tiles: task ranges in whole work groups, each with the face rows it reads and their mirrors.
void GpuSourceTexels::upload_symmetric_cube(const Environment& env, const GpuTuning& tuning) {
    Resident& r = resident_;
    const std::size_t n = r.size, half_quads = n / (2 * tuning.sym_positions), row_bytes = n * kBytesPerTexel;
    const std::size_t tasks = (n / 2) * half_quads;
    const std::size_t texels_per_task = 24 * tuning.sym_positions;
    const std::size_t group_tasks = tuning.group_size / tuning.coeff_split * tuning.tasks_per_thread;
    r.positions = n * n;
    const std::size_t rows_fit = limits_.max_block_bytes / (12 * row_bytes);  // 6 faces x 2 bands
    std::size_t groups_per_tile = rows_fit > 2 ? (rows_fit - 2) * half_quads / group_tasks : 0;
    groups_per_tile = std::min(groups_per_tile, limits_.max_groups_x);
    if (max_tile_texels_ > 0) groups_per_tile = std::min(groups_per_tile, max_tile_texels_ / (group_tasks * texels_per_task));
    groups_per_tile = std::max<std::size_t>(groups_per_tile, 1);
    const std::size_t tile_tasks = groups_per_tile * group_tasks;
    r.total_groups = ceil_div(tasks, group_tasks);
    for (std::size_t first = 0; first < tasks; first += tile_tasks) {
        Tile tile;
        tile.first = first;
        tile.count = std::min(tile_tasks, tasks - first);
        tile.row_base = first / half_quads;
        tile.rows = ceil_div(first + tile.count, half_quads) - tile.row_base;
        tile.groups = ceil_div(tile.count, group_tasks);
        const std::size_t band_bytes = tile.rows * row_bytes;
        check_block(12 * band_bytes, "a tile of cube texels");
        tile.texels = make_texel_buffer(12 * band_bytes, tuning);
        for (std::size_t f = 0; f < 6; ++f) {
            const float* face = env.cube.faces[f].rgb.data();
            const std::size_t bottom_row = n - tile.row_base - tile.rows;
            write(*tile.texels, 2 * f * band_bytes, face + 3 * tile.row_base * n, band_bytes, tuning);
            write(*tile.texels, (2 * f + 1) * band_bytes, face + 3 * bottom_row * n, band_bytes, tuning);
        }
        check_gl("uploading texels");
        r.tiles.push_back(std::move(tile));
    }
}

// Tiles: texel positions in whole work groups; a cube's 6 faces side by side in each.
void GpuSourceTexels::upload_per_texel(const Environment& env, const GpuTuning& tuning) {
    Resident& r = resident_;
    const std::size_t bpt = r.bytes_per_texel;
    const Pass1Shape shape = Pass1Shape::of(r.cube, tuning);
    r.positions = env.texel_count() / shape.faces;
    const std::size_t group_positions = shape.positions_per_group();
    if (r.positions >= (std::size_t{1} << 32) - group_positions)
        throw GpuError("the input has " + std::to_string(r.positions) +
                       " texels per face or image; the GPU path indexes at most 2^32");
    r.total_groups = ceil_div(r.positions, group_positions);
    if (!r.cube) upload_equirect_tables(env.width(), env.height(), &row_table_, &column_table_);
    for (Tile& tile : plan_texel_tiles(r.positions, r.cube, bpt, tuning)) {
        const std::size_t face_bytes = tile.stride_quads * 4 * bpt;
        tile.texels = make_texel_buffer(tile_bytes(tile, r.cube, bpt), tuning);
        for (std::size_t f = 0; f < shape.faces; ++f) {
            const void* face = r.cube ? static_cast<const void*>(env.cube.faces[f].rgb.data())
                             : env.is_packed() ? static_cast<const void*>(env.packed.bytes.data())
                                               : static_cast<const void*>(env.equirect.rgb.data());
            write(*tile.texels, f * face_bytes, static_cast<const char*>(face) + bpt * tile.first, tile.count * bpt, tuning);
            write(*tile.texels, f * face_bytes + tile.count * bpt, nullptr, (tile.stride_quads * 4 - tile.count) * bpt, tuning);
        }
        check_gl("uploading texels");
        r.tiles.push_back(std::move(tile));
    }
}

}  // namespace bake
