#include "gpu_specular_source.h"
#include "gpu_specular_source_impl.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <future>
#include <string>
#include <utility>
#include <vector>

#include "gl_objects.h"
#include "gpu_projector.h"
#include "packed_image.h"
#include "parallel.h"
#include "trace.h"


namespace bake {

GpuSpecularSource::GpuSpecularSource(GpuProjector& projector) : impl_(std::make_unique<Impl>(projector)) {}

void GpuSpecularSource::set_cap_split(int rings, int pieces) {
    impl_->split_rings = rings;
    impl_->split_pieces = std::max(1, pieces);
}

namespace {
// The caps' rings for a `width`-column input: a texel at ring d of a polar face crosses about
// 0.45·width/d input columns (its φ range, √2·(2/n) wide at 2d/n from the pole, twice), against ~20
// for most texels. Measured on the H200 (bench/NOTES.md, "Specular source"; measured at 2c9c7f6, source pass of a
// 512 cube): 4096 columns 26 ms with no caps, 19.6-20 ms with 2 to 16 rings, 20.6 with 29; 8192
// columns 50 ms, 30.5 ms with 4 or 8, 31.2 with 16, 36 with 58. One ring per 1024 columns.
int auto_cap_rings(int width) { return (width + 1023) / 1024; }

// The caps' work list: per item (texel, chunk, chunks), then per cap texel (texel, first item,
// items); a texel at ring d gets about its estimated pieces / `pieces` items (the shader spreads
// its real segments evenly over them, so the estimate sets only the balance).
std::vector<GLint> cap_work_list(int size, int width, int rings, int pieces, int* items, int* texels) {
    std::vector<GLint> list, cap_texels;
    auto ring = [size](int i) { return std::abs(2 * i + 1 - size) / 2; };  // the shader's ring_of
    for (int face = 2; face <= 3; ++face)
        for (int row = 0; row < size; ++row)
            for (int col = 0; col < size; ++col) {
                const int d = std::max(ring(row), ring(col));
                if (d >= rings) continue;
                const double estimate = d == 0 ? width + 16.0 : 0.6 * width / d + 16.0;
                const int chunks = std::max(1, static_cast<int>(std::ceil(estimate / pieces)));
                const GLint texel = (face * size + row) * size + col;
                cap_texels.insert(cap_texels.end(), {texel, static_cast<GLint>(list.size() / 3), chunks});
                for (int k = 0; k < chunks; ++k) list.insert(list.end(), {texel, k, chunks});
            }
    *items = static_cast<int>(list.size() / 3);
    *texels = static_cast<int>(cap_texels.size() / 3);
    list.insert(list.end(), cap_texels.begin(), cap_texels.end());
    return list;
}
}  // namespace
GpuSpecularSource::~GpuSpecularSource() = default;

static std::size_t input_bytes(const Environment& env) {
    return env.is_packed() ? env.packed.bytes.size() : env.equirect.rgb.size() * sizeof(float);
}

bool GpuSpecularSource::supports(const Environment& env, int size) const {
    if (env.is_cube() || size <= 0 || env.width() <= 0 || env.height() <= 0) return false;
    impl_->read_limits();
    const std::size_t groups = (static_cast<std::size_t>(size) + kSourceGroup - 1) / kSourceGroup;
    const std::size_t out_bytes = 6 * 6 * static_cast<std::size_t>(size) * size * sizeof(float);
    const auto block = static_cast<std::size_t>(impl_->max_block);
    return input_bytes(env) <= block && out_bytes <= block && groups <= static_cast<std::size_t>(impl_->max_groups[0]) &&
           groups <= static_cast<std::size_t>(impl_->max_groups[1]) && impl_->max_groups[2] >= 6;
}

void GpuSpecularSource::upload(const Environment& env, int size, int threads) {
    Impl& m = *impl_;
    // Queued ahead already (dispatch_ahead): the texels and tables are there, the passes too.
    if (m.ahead_of(env, size)) return;
    m.uploaded = nullptr;
    if (!supports(env, size)) throw GpuError("the specular source: input not supported on the GPU");
    const unsigned format = !env.is_packed() ? 0u : env.packed.encoding == TexelEncoding::Rgbe8 ? 1u : 2u;
    using Clock = std::chrono::steady_clock;
    const auto program_start = Clock::now();
    m.program = m.programs.get("specular_source.comp", "#define SH_ORDER 1\n#define TEXEL_FORMAT " + std::to_string(format) + "\n");
    m.last_program_ms = std::chrono::duration<double, std::milli>(Clock::now() - program_start).count();
    clear_stale_errors();
    trace_event("specular source: program");
    const auto start = Clock::now();
    const void* data = env.is_packed() ? static_cast<const void*>(env.packed.bytes.data()) : env.equirect.rgb.data();
    // The projector's upload (staging buffers filled on all cores: 16 ms for 8192 x 4096 RGBE on
    // the H100 machine, where one glBufferSubData took 120 ms), when it leaves the texels in one tile.
    m.texel_buffer = 0;
    if (!m.projector.holds(env)) m.projector.upload(env);  // held: leaves the projection its upload's time
    const std::optional<GpuProjector::ResidentTexels> resident = m.projector.resident_equirect();
    const std::size_t texel_count = static_cast<std::size_t>(env.width()) * env.height();
    if (resident && resident->texel_format == format && resident->width == env.width() && resident->height == env.height() &&
        resident->tiles.size() == 1 && resident->tiles[0].first == 0 && resident->tiles[0].count == texel_count) {
        m.texel_buffer = resident->tiles[0].buffer;
    } else {
        // Padded to whole words (a half texel is 6 bytes).
        const std::size_t bytes = input_bytes(env);
        m.texels.allocate((bytes + 3) / 4 * 4, nullptr);
        glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(bytes), data);
        m.texel_buffer = m.texels.id;
    }
    // The tables depend on the input's size and the cube's alone: a batch of maps of one size sends
    // them once, and keeps the chains' buffer (50 MB for a 512 cube: re-specifying it cost the driver).
    trace_event("specular source: texels");
    const int key[3] = {env.width(), env.height(), size};
    if (!std::equal(key, key + 3, m.tables_for)) {
        Impl::Tables tables;
        if (m.planned.valid() && std::equal(key, key + 3, m.planned_for)) tables = m.planned.get();
        else tables = Impl::make_tables(env.width(), env.height(), size, threads);
        const std::vector<double>& grid = tables.grid;
        const std::vector<double>& omega = tables.omega;
        m.grid.allocate(grid.size() * sizeof(double), grid.data());
        // Room for every mip level's solid angles after the source's (average_resident writes them).
        m.omega.allocate(level_floats_before(size, 0) / 36 * sizeof(double), nullptr);
        glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(omega.size() * sizeof(double)), omega.data());
        trace_event("specular source: grid and solid angles");
        // The shader's non-dyadic double constants (shaders/specular_source.comp), so that no
        // compiler's handling of double literals can round them.
        {
            constexpr double kPi = 3.14159265358979323846;
            std::vector<double> c = {kPi, kPi / 2, 2 * kPi};
            for (int k = 0; k <= 8; ++k) c.push_back(std::atan(k / 8.0));
            for (int k = 3; k <= 15; k += 2) c.push_back(1.0 / k);
            for (double w : {0.2126, 0.7152, 0.0722}) c.push_back(w);
            m.constants.allocate(c.size() * sizeof(double), c.data());
        }
        // Both cubes and all their mips (average_resident; average() reads back level 0).
        m.output.allocate(level_floats_before(size, 0) * sizeof(float), nullptr, GL_DYNAMIC_COPY);
        trace_event("specular source: chains' buffer");
        std::fill(m.tables_for, m.tables_for + 3, 0);  // kept only once made without a GL error
    }
    check_gl("uploading the specular source's input");
    std::copy(key, key + 3, m.tables_for);
    trace_event("specular source: tables");
    // The upload's wall clock to the texels' arrival; not ahead, where the GPU still has another
    // input's chain to make first.
    if (!m.queuing_ahead) {
        glFinish();
        trace_event("specular source: finished");
    }
    m.last_upload_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    m.uploaded = data;
    m.uploaded_size = size;
}

void GpuSpecularSource::plan_tables(int width, int height, int size, int threads) {
    Impl& m = *impl_;
    const int key[3] = {width, height, size};
    if (width <= 0 || height <= 0 || size <= 0 || std::equal(key, key + 3, m.tables_for)) return;
    if (m.planned.valid() && std::equal(key, key + 3, m.planned_for)) return;
    std::copy(key, key + 3, m.planned_for);
    m.planned = std::async(std::launch::async, [width, height, size, threads] { return Impl::make_tables(width, height, size, threads); });
}

void GpuSpecularSource::forget_upload() {
    impl_->uploaded = nullptr;
    impl_->texel_buffer = 0;
}

// The source pass: both cubes' level 0 into `output` (uploading env first unless upload() just did).
// Leaves the pass's timer running: its total_ms() waits for it.
void GpuSpecularSource::dispatch(const Environment& env, int size, const LuminanceCap& cap, int threads) {
    Impl& m = *impl_;
    const void* data = env.is_packed() ? static_cast<const void*>(env.packed.bytes.data()) : env.equirect.rgb.data();
    if (m.uploaded != data || m.uploaded_size != size) upload(env, size, threads);
    m.uploaded = nullptr;  // one average an upload
    m.generation = 0;      // `output` is about to be overwritten
    m.unchecked = false;
    m.drop_level_fence();
    const GLuint program = m.program;
    glUseProgram(program);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, m.texel_buffer);
    m.grid.bind(1);
    m.omega.bind(2);
    m.output.bind(3);
    m.constants.bind(4);
    const bool capping = std::isfinite(cap.threshold);
    glUniform1i(glGetUniformLocation(program, "u_size"), size);
    glUniform1i(glGetUniformLocation(program, "u_width"), env.width());
    glUniform1i(glGetUniformLocation(program, "u_height"), env.height());
    glUniform1i(glGetUniformLocation(program, "u_capping"), capping ? 1 : 0);
    glUniform1d(glGetUniformLocation(program, "u_threshold"), capping ? cap.threshold : 0.0);
    // The polar caps' work list (kept while size, width and the split are the same).
    const int rings = std::min(m.split_rings >= 0 ? m.split_rings : auto_cap_rings(env.width()), (size + 1) / 2);
    const int key[4] = {size, env.width(), rings, m.split_pieces};
    if (!std::equal(key, key + 4, m.caps_for)) {
        m.cap_rings = rings;
        std::vector<GLint> list = cap_work_list(size, env.width(), rings, m.split_pieces, &m.cap_item_count, &m.cap_texel_count);
        m.read_limits();
        if ((m.cap_item_count + 63) / 64 > m.max_groups[0]) {  // past the dispatch limit: every texel whole
            m.cap_rings = 0;
            list = cap_work_list(size, env.width(), 0, m.split_pieces, &m.cap_item_count, &m.cap_texel_count);
        }
        if (!list.empty()) {
            m.cap_items.allocate(list.size() * sizeof(GLint), list.data());
            m.partials.allocate(7 * static_cast<std::size_t>(m.cap_item_count) * sizeof(double), nullptr);
        }
        std::copy(key, key + 4, m.caps_for);
    }
    trace_event("specular source: caps");
    glUniform1i(glGetUniformLocation(program, "u_cap_rings"), m.cap_rings);
    const GLint mode = glGetUniformLocation(program, "u_mode"), items = glGetUniformLocation(program, "u_items");
    auto linear_groups = [](int n) { return static_cast<GLuint>((n + 63) / 64); };  // 64 invocations a group
    m.timer.reset();
    m.timer.begin();
    // The caps' long walks first (mode 1), the rest beside them (mode 0: other outputs), then the
    // caps' sums (mode 2).
    if (m.cap_item_count > 0) {
        m.cap_items.bind(5);
        m.partials.bind(6);
        glUniform1i(mode, 1);
        glUniform1i(items, m.cap_item_count);
        glDispatchCompute(linear_groups(m.cap_item_count), 1, 1);
    }
    const GLuint groups = static_cast<GLuint>((size + static_cast<int>(kSourceGroup) - 1) / static_cast<int>(kSourceGroup));
    glUniform1i(mode, 0);
    glDispatchCompute(groups, groups, 6);
    if (m.cap_item_count > 0) {
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        glUniform1i(mode, 2);
        glUniform1i(items, m.cap_texel_count);
        glUniform1i(glGetUniformLocation(program, "u_list_at"), 3 * m.cap_item_count);
        glDispatchCompute(linear_groups(m.cap_texel_count), 1, 1);
    }
    m.timer.end();
    check_gl("the specular source pass");
    trace_event("specular source: pass queued");
}

void GpuSpecularSource::average(const Environment& env, int size, const LuminanceCap& cap, CubeMap* full, CubeMap* capped,
                                int threads) {
    Impl& m = *impl_;
    dispatch(env, size, cap, threads);
    const bool capping = std::isfinite(cap.threshold);
    m.last_ms = m.timer.total_ms();  // waits for the pass
    const auto read_start = std::chrono::steady_clock::now();
    *full = CubeMap(size);
    *capped = capping ? CubeMap(size) : CubeMap();
    // The output is the two cubes as they lie in memory (full, then capped), face after face.
    const std::size_t face_floats = 3 * static_cast<std::size_t>(size) * size;
    auto face_of = [&](int k) -> float* { return (k < 6 ? full : capped)->faces[k % 6].rgb.data(); };
    const int planes = capping ? 12 : 6;
    m.last_map_ms = m.read_output(0, static_cast<std::size_t>(planes) * face_floats, [&](const float* src) {
        parallel_for(planes, resolve_threads(threads, planes),
                     [&](int k) { std::copy_n(src + static_cast<std::size_t>(k) * face_floats, face_floats, face_of(k)); });
    });
    // The shader marks a failure with NaN in every channel of the texel.
    bool ok = true;
    for (int k = 0; k < 6; ++k)
        for (std::size_t i = 0; i < face_floats && ok; i += 3)
            if (std::isnan(face_of(k)[i])) ok = false;
    m.last_read_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - read_start).count();
    if (!ok) throw GpuError("the specular source pass failed (an edge piece outside its column sums)");
}

std::uint64_t GpuSpecularSource::average_resident(const Environment& env, int size, const LuminanceCap& cap, int threads) {
    dispatch_resident(env, size, cap, threads);
    check_resident();
    return impl_->generation;
}

std::uint64_t GpuSpecularSource::dispatch_resident(const Environment& env, int size, const LuminanceCap& cap, int threads) {
    Impl& m = *impl_;
    if (size < 2) throw GpuError("the specular source: a resident chain needs faces of 2 texels or more");
    if (m.ahead_matches(env, size, cap.threshold)) {  // queued by dispatch_ahead
        m.ahead = {};
        trace_event("specular source: queued ahead");
        return m.generation;
    }
    m.ahead = {};
    dispatch(env, size, cap, threads);
    if (fault_requested("specular-source-nan")) {  // test hook: the pass's failure mark on one texel
        const float nan[3] = {NAN, NAN, NAN};
        glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, m.output.id);
        glBufferSubData(GL_SHADER_STORAGE_BUFFER, static_cast<GLintptr>(3 * sizeof nan), sizeof nan, nan);
    }
    const auto start = std::chrono::steady_clock::now();
    const int cubes = std::isfinite(cap.threshold) ? 2 : 1;
    const GLuint mips = m.programs.get("specular_source_mips.comp", "#define SH_ORDER 1\n");
    const GLuint zero = 0;
    m.status.allocate(sizeof zero, &zero);
    m.mips_timer.reset();
    m.mips_timer.begin();
    glUseProgram(mips);
    m.output.bind(0);
    m.omega.bind(1);
    m.status.bind(2);
    int levels = 1;
    for (int fine = size; fine > 1; fine /= 2, ++levels) {
        const int level = levels - 1;
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        glUniform1ui(glGetUniformLocation(mips, "u_fine_size"), static_cast<GLuint>(fine));
        glUniform1ui(glGetUniformLocation(mips, "u_fine_offset"), static_cast<GLuint>(level_offset(size, level)));
        glUniform1ui(glGetUniformLocation(mips, "u_coarse_offset"), static_cast<GLuint>(level_offset(size, level + 1)));
        glUniform1ui(glGetUniformLocation(mips, "u_fine_omega"), static_cast<GLuint>(omega_offset(size, level)));
        glUniform1ui(glGetUniformLocation(mips, "u_coarse_omega"), static_cast<GLuint>(omega_offset(size, level + 1)));
        glUniform1ui(glGetUniformLocation(mips, "u_check_nan"), level == 0 ? 1u : 0u);
        const GLuint groups = static_cast<GLuint>((fine / 2 + static_cast<int>(kSourceGroup) - 1) / static_cast<int>(kSourceGroup));
        glDispatchCompute(groups, groups, static_cast<GLuint>(6 * cubes));
    }
    check_gl("the specular source's mips");
    // The prefilter's texture: the capped chain (the full one when nothing is capped), copied on
    // the GPU from `output` (a pixel unpack buffer) into an RGBA32F cube with every mip.
    if (m.texture == 0 || m.texture_size != size) {
        if (m.texture) glDeleteTextures(1, &m.texture);
        glGenTextures(1, &m.texture);
        glBindTexture(GL_TEXTURE_CUBE_MAP, m.texture);
        glTexStorage2D(GL_TEXTURE_CUBE_MAP, levels, GL_RGBA32F, size, size);
        glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
        glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_MAX_LEVEL, levels - 1);
        m.texture_size = size;
    }
    m.mips_timer.end();
    m.texture_timer.reset();
    m.texture_timer.begin();
    const std::size_t sampled_cube = cubes - 1;
    // Each level by a compute pass into the texture bound as a layered image
    // (shaders/specular_source_texture.comp): a pixel-unpack copy of the RGB rows took the
    // driver 18 ms at 512² (40 at 4k input) on the H200, this 0.1 (bench/NOTES.md; measured at 2c9c7f6).
    const GLuint program = m.programs.get("specular_source_texture.comp", "#define SH_ORDER 1\n");
    glUseProgram(program);
    m.output.bind(0);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    for (int level = 0, s = size; level < levels; ++level, s /= 2) {
        glBindImageTexture(0, m.texture, level, GL_TRUE, 0, GL_WRITE_ONLY, GL_RGBA32F);
        glUniform1ui(glGetUniformLocation(program, "u_size"), static_cast<GLuint>(s));
        glUniform1ui(glGetUniformLocation(program, "u_offset"),
                     static_cast<GLuint>(level_offset(size, level) + sampled_cube * 18 * static_cast<std::size_t>(s) * s));
        const GLuint groups = static_cast<GLuint>((s + static_cast<int>(kSourceGroup) - 1) / static_cast<int>(kSourceGroup));
        glDispatchCompute(groups, groups, 6);
    }
    glBindImageTexture(0, 0, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA32F);
    glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT);
    m.texture_timer.end();
    check_gl("the specular source's texture");
    m.last_mips_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    m.last_read_ms = m.last_map_ms = 0;
    m.resident_size = size;
    m.resident_cubes = cubes;
    m.generation = ++m.last_generation;
    m.unchecked = true;
    return m.generation;
}

std::uint64_t GpuSpecularSource::dispatch_ahead(const Environment& env, int size, const LuminanceCap& cap, int threads) {
    Impl& m = *impl_;
    m.ahead = {};
    if (fault_requested("source-ahead")) throw GpuError("forced by BAKE_TEST_FAULT=source-ahead");  // test hook
    // The passes rewrite the chains' buffer and the texture that the work in flight reads (the
    // previous input's level copy, its levels' samples): after all of it.
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
    m.queuing_ahead = true;
    try {
        dispatch_resident(env, size, cap, threads);
    } catch (...) {
        m.queuing_ahead = false;
        throw;
    }
    m.queuing_ahead = false;
    m.ahead = {env.identity, m.generation, size, cap.threshold};
    return m.generation;
}

void GpuSpecularSource::check_resident() {
    Impl& m = *impl_;
    if (!m.unchecked) return;
    const std::uint64_t generation = std::exchange(m.generation, 0);  // 0 should the read fail
    GLuint failed = 0;
    m.status.read(&failed, sizeof failed, "reading the specular source's status");  // waits for everything queued
    m.generation = generation;
    m.conclude_check(failed);
}

}  // namespace bake
