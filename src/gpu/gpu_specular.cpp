#include "gpu_specular.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "ggx.h"
#include "gl_objects.h"
#include "gpu_bc6h.h"
#include "horizon_ring.h"
#include "parallel.h"
#include "stage_progress.h"
#include "trace.h"

namespace bake {

namespace {
// Invocations a texel (shaders/specular_prefilter.comp): level 1 has at least 1024 samples by
// default, 16 for each invocation.
constexpr GLuint kGroupSize = 64;
}

struct GpuSpecularPrefilter::Impl {
    explicit Impl(ComputePrograms& p) : programs(p) {}
    ~Impl() {
        if (texture) glDeleteTextures(1, &texture);
    }
    ComputePrograms& programs;
    GLuint texture = 0;
    GlBuffer output, bright;
    GlBuffer readback;  // client storage: the levels copied for the CPU (ARB_buffer_storage)
    // The levels' sample sets (index: level; 0 unused but for Charlie) for plan_key: made by plan()
    // on other threads, uploaded once into samples[level] (uploaded_key).
    struct SampleSet {
        std::vector<float> packed;  // x, y, z, lod a sample
        double weight = 0;          // Σ z
    };
    using PlanKey = std::tuple<int, int, int, int, double>;  // lobe, levels, samples, source size, lod bias
    PlanKey plan_key{-1, -1, 0, 0, 0.0}, uploaded_key{-1, -1, 0, 0, 0.0};
    std::shared_future<std::vector<SampleSet>> planned;
    std::vector<std::unique_ptr<GlBuffer>> samples;
    static PlanKey key_of(const SpecularSettings& settings, int source_size) {
        return {static_cast<int>(settings.lobe), settings.levels(), settings.samples, source_size, settings.lod_bias};
    }
    // The first level the shader makes: GGX's level 0 is the source's area average, Charlie's is prefiltered.
    static int first_level(SpecularLobe lobe) { return lobe == SpecularLobe::Charlie ? 0 : 1; }
    static std::vector<SampleSet> make_sets(const SpecularSettings& settings, int source_size, int threads) {
        const int levels = settings.levels(), first = first_level(settings.lobe);
        std::vector<SampleSet> sets(static_cast<std::size_t>(std::max(levels, 1)));
        parallel_for(levels - first, resolve_threads(threads, levels - first), [&](int k) {
            const int level = k + first;
            const auto set = specular_sample_set(specular_level_roughness(level, levels), specular_level_samples(settings.samples, level),
                                                 source_size, settings.lod_bias, settings.lobe);
            SampleSet& out = sets[static_cast<std::size_t>(level)];
            out.packed.assign(4 * set.size(), 0.0f);
            for (std::size_t i = 0; i < set.size(); ++i) {
                out.packed[4 * i] = set[i].x;
                out.packed[4 * i + 1] = set[i].y;
                out.packed[4 * i + 2] = set[i].z;
                out.packed[4 * i + 3] = set[i].lod;
                out.weight += set[i].z;
            }
        });
        return sets;
    }
    // Each level's bright parts (index: level; 0 unused: Charlie's level 0 sums its bright texels on
    // the CPU, HorizonBright) of input's bright texels.
    static std::vector<std::vector<float>> make_parts(const SpecularInput& input, int levels, SpecularLobe lobe, int threads) {
        std::vector<std::vector<float>> parts(static_cast<std::size_t>(std::max(levels, 1)));
        parallel_for(levels - 1, resolve_threads(threads, levels - 1), [&](int k) {
            parts[static_cast<std::size_t>(k + 1)] = specular_bright_parts(input, specular_level_roughness(k + 1, levels), lobe);
        });
        return parts;
    }
    // plan_parts: the bright texels and grid (of an input), the level count and lobe its parts are made for.
    SpecularInput parts_for;
    int parts_levels = 0;
    SpecularLobe parts_lobe = SpecularLobe::Ggx;
    std::future<std::vector<std::vector<float>>> planned_parts;
    // The planned parts when they are `input`'s for `levels` and `lobe` (their texels compared), else none.
    std::optional<std::vector<std::vector<float>>> take_parts(const SpecularInput& input, int levels, SpecularLobe lobe) {
        if (!planned_parts.valid()) return std::nullopt;
        std::vector<std::vector<float>> parts = planned_parts.get();  // a throw is the caller's: out of memory
        const auto same = [](const BrightTexel& a, const BrightTexel& b) {
            return a.face == b.face && a.row == b.row && a.col == b.col && std::equal(a.excess, a.excess + 3, b.excess);
        };
        if (levels != parts_levels || lobe != parts_lobe || input.bright_equirect != parts_for.bright_equirect ||
            input.bright_width != parts_for.bright_width ||
            input.bright_height != parts_for.bright_height ||
            !std::equal(input.bright.begin(), input.bright.end(), parts_for.bright.begin(), parts_for.bright.end(), same))
            return std::nullopt;
        return parts;
    }
    StageTimer timer, upload_timer;
    double last_ms = 0, last_upload_ms = 0;
    // set_bc6h: the encoders (made on first use) and the last chain's blocks. Where level 0 is on
    // the GPU already, the chain is encoded in three parts, each with an encoder of its own, so that
    // the card encodes while it would otherwise wait: level 0 (three quarters of the blocks) queued
    // as the prefilter begins, made while the CPU prepares the levels; level 1 right after its pass,
    // beside the smaller levels' passes; the rest behind the levels. Where a batch of 4k maps waits
    // on the GPU, BC6H cost it 4% with one encode behind the levels, 1.5% with level 0's first, and
    // nothing measurable so (bench/NOTES.md).
    bool bc6h_on = false, bc6h_mirror_z = false;
    std::unique_ptr<GpuBc6hEncoder> encoders[3];  // parts: level 0, level 1, the others
    EncodedTexture bc6h_chain;
    double bc6h_ms = 0;
    // Level 0 as vec4s at the output buffer's start, then every level encoded from the buffer.
    void encode_bc6h(const CubeMap& level_zero, const std::vector<std::size_t>& first) {
        const std::size_t texels = static_cast<std::size_t>(level_zero.size) * level_zero.size;
        std::vector<float> rgba(4 * 6 * texels);
        for (int f = 0; f < 6; ++f)
            for (std::size_t i = 0; i < texels; ++i)
                for (int c = 0; c < 3; ++c) rgba[4 * (f * texels + i) + c] = level_zero.faces[f].rgb[3 * i + c];
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, output.id);
        glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(rgba.size() * sizeof(float)), rgba.data());
        check_gl("uploading the specular level 0 for BC6H");
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        bc6h_chain = encoder().encode_buffer(output.id, 6, level_zero.size, level_zero.size, first, bc6h_mirror_z);
        bc6h_ms = encoder().last_ms();
    }
    GpuBc6hEncoder& encoder(int part = 0) {
        if (!encoders[part]) encoders[part] = std::make_unique<GpuBc6hEncoder>(programs);
        return *encoders[part];
    }
    GLuint program(SpecularLobe lobe) {
        // SH_ORDER only sizes sh_common.glsl's basis function, which this shader does not call.
        return programs.get("specular_prefilter.comp", "#define SH_ORDER 1\n#define WG_SIZE " + std::to_string(kGroupSize) + "\n" +
                                                           (lobe == SpecularLobe::Charlie ? "#define CHARLIE_LOBE 1\n" : ""));
    }
    void upload(const std::vector<CubeMap>& mips) {
        if (texture) glDeleteTextures(1, &texture);
        glGenTextures(1, &texture);
        glBindTexture(GL_TEXTURE_CUBE_MAP, texture);
        // Float32: half would round the texels by 2^-11 before any filtering.
        glTexStorage2D(GL_TEXTURE_CUBE_MAP, static_cast<GLsizei>(mips.size()), GL_RGBA32F, mips[0].size, mips[0].size);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 4);  // rows of RGB float: always a multiple of 4 bytes
        upload_timer.reset();
        upload_timer.begin();
        for (std::size_t level = 0; level < mips.size(); ++level)
            for (int f = 0; f < 6; ++f)
                glTexSubImage2D(static_cast<GLenum>(GL_TEXTURE_CUBE_MAP_POSITIVE_X + f), static_cast<GLint>(level), 0, 0,
                                mips[level].size, mips[level].size, GL_RGB, GL_FLOAT, mips[level].faces[f].rgb.data());
        upload_timer.end();
        glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
        glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_MAX_LEVEL, static_cast<GLint>(mips.size() - 1));
        check_gl("uploading the specular source cube");
    }
};

GpuSpecularPrefilter::GpuSpecularPrefilter(ComputePrograms& programs) : impl_(std::make_unique<Impl>(programs)) {}
GpuSpecularPrefilter::~GpuSpecularPrefilter() = default;

void GpuSpecularPrefilter::prepare() { impl_->program(SpecularLobe::Ggx); }

void GpuSpecularPrefilter::plan(const SpecularSettings& settings, int source_size, int threads) {
    Impl& m = *impl_;
    const Impl::PlanKey key = Impl::key_of(settings, source_size);
    if (key == m.plan_key && m.planned.valid()) return;
    m.plan_key = key;
    m.planned = std::async(std::launch::async, [settings, source_size, threads] {
                    trace_event("sample sets begun");
                    std::vector<Impl::SampleSet> sets = Impl::make_sets(settings, source_size, threads);
                    trace_event("sample sets made");
                    return sets;
                }).share();
}

void GpuSpecularPrefilter::plan_parts(SpecularInput bright, const SpecularSettings& settings, int threads) {
    Impl& m = *impl_;
    if (m.planned_parts.valid()) m.planned_parts.wait();  // never two in flight over parts_for
    m.parts_for = std::move(bright);
    m.parts_levels = settings.levels();
    m.parts_lobe = settings.lobe;
    m.planned_parts = std::async(std::launch::async,
                                 [&m, threads] { return Impl::make_parts(m.parts_for, m.parts_levels, m.parts_lobe, threads); });
}

std::vector<CubeMap> GpuSpecularPrefilter::prefilter(const SpecularInput& input, const SpecularSettings& settings, int threads) {
    Impl& m = *impl_;
    m.upload(input.capped_mips);
    std::vector<CubeMap> chain =
        prefilter(m.texture, input.capped_mips[0].size, specular_level_zero(input.mips, settings.base_size), input, settings, threads);
    m.last_upload_ms = m.upload_timer.total_ms();
    return chain;
}

std::vector<CubeMap> GpuSpecularPrefilter::prefilter(unsigned texture, int source_size, CubeMap level_zero,
                                                     const SpecularInput& input, const SpecularSettings& settings,
                                                     int threads) {
    return prefilter(texture, source_size, [&] { return std::move(level_zero); }, input, settings, threads);
}

std::vector<CubeMap> GpuSpecularPrefilter::prefilter(unsigned texture, int source_size,
                                                     const std::function<CubeMap()>& level_zero, const SpecularInput& input,
                                                     const SpecularSettings& settings, int threads,
                                                     const Bc6hBufferLevel* level_zero_on_gpu) {
    Impl& m = *impl_;
    m.bc6h_chain = {};  // this chain's, or none
    const int levels = settings.levels();
    const SpecularLobe lobe = settings.lobe;
    const bool charlie = lobe == SpecularLobe::Charlie;
    const int first_level = Impl::first_level(lobe);
    std::vector<CubeMap> chain;
    // The GGX chain's BC6H (Charlie's level 0 gets its bright texels on the CPU after the read back:
    // the writer encodes that chain); level 0's at once where it is on the GPU.
    const bool encode = m.bc6h_on && !charlie;
    const bool encode_queued = encode && level_zero_on_gpu;
    if (encode_queued) {
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        m.encoder(0).queue_buffers({*level_zero_on_gpu}, 6, settings.base_size, settings.base_size, m.bc6h_mirror_z);
    }
    const GLuint program = m.program(lobe);
    glUseProgram(program);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_CUBE_MAP, texture);
    // Samples near an edge filter across it, with the neighbouring face's texels.
    glEnable(GL_TEXTURE_CUBE_MAP_SEAMLESS);
    glUniform1i(glGetUniformLocation(program, "u_source"), 0);
    m.timer.reset();
    // Every level into one output buffer, read back once at the end; with BC6H on and level 0 not on
    // the GPU, level 0 first (uploaded once level_zero() has it).
    std::vector<std::size_t> first(static_cast<std::size_t>(levels), 0);
    std::size_t total = encode && !encode_queued ? 6 * static_cast<std::size_t>(settings.base_size) * settings.base_size : 0;
    const std::size_t float_first = total;  // the levels the prefilter writes start here
    for (int level = first_level; level < levels; ++level) {
        const int n = settings.base_size >> level;
        first[static_cast<std::size_t>(level)] = total;
        total += 6 * static_cast<std::size_t>(n) * n;
    }
    // The levels' copy for the CPU (below): from device memory into client storage, a copy the
    // GPU makes in order. Where the output itself is the CPU's (GL_STREAM_READ: host memory on
    // NVIDIA), the driver made that copy on the CPU, waiting for the levels (~10 ms a batch input).
    const bool copy_back = total > float_first && buffer_storage_function();
    m.output.allocate(4 * std::max<std::size_t>(total, 1) * sizeof(float), nullptr, copy_back ? GL_DYNAMIC_COPY : GL_STREAM_READ);
    m.output.bind(1);
    // The sample sets (plan(): made while the source was, or by an earlier input), uploaded once
    // for them; each level's bright parts (this input's) on the CPU's threads at once.
    plan(settings, source_size, threads);
    const std::vector<Impl::SampleSet>* planned = nullptr;
    try {
        planned = &m.planned.get();
    } catch (...) {
        m.plan_key = Impl::PlanKey{-1, -1, 0, 0, 0.0};  // a failed plan (out of memory) is made again next time
        throw;
    }
    const std::vector<Impl::SampleSet>& sets = *planned;
    if (m.uploaded_key != m.plan_key) {
        m.samples.clear();
        m.samples.resize(static_cast<std::size_t>(levels));
        for (int level = first_level; level < levels; ++level) {
            const std::vector<float>& packed = sets[static_cast<std::size_t>(level)].packed;
            m.samples[static_cast<std::size_t>(level)] = std::make_unique<GlBuffer>();
            m.samples[static_cast<std::size_t>(level)]->allocate(packed.size() * sizeof(float), packed.data());
        }
        m.uploaded_key = m.plan_key;
    }
    std::optional<std::vector<std::vector<float>>> ahead = m.take_parts(input, levels, lobe);
    const std::vector<std::vector<float>> parts = ahead ? std::move(*ahead) : Impl::make_parts(input, levels, lobe, threads);
    for (int level = first_level; level < levels; ++level) {
        const int n = settings.base_size >> level;
        const double roughness = specular_level_roughness(level, levels);
        const Impl::SampleSet& set = sets[static_cast<std::size_t>(level)];
        const std::vector<float>& packed = set.packed;
        const std::vector<float>& level_parts = parts[static_cast<std::size_t>(level)];
        const double weight = set.weight;
        // Re-specified each level: the driver keeps the previous store for the pass still reading it.
        m.bright.allocate(level_parts.size() * sizeof(float), level_parts.empty() ? nullptr : level_parts.data());
        m.samples[static_cast<std::size_t>(level)]->bind(0);
        m.bright.bind(2);
        glUniform1ui(glGetUniformLocation(program, "u_bright_count"), static_cast<GLuint>(level_parts.size() / 8));
        glUniform1f(glGetUniformLocation(program, "u_alpha"), static_cast<float>(roughness * roughness));
        // Charlie's level 0 has no parts (and its lobe no finite integral): 0, not infinity times 0.
        glUniform1f(glGetUniformLocation(program, "u_inv_lobe"),
                    level > 0 ? static_cast<float>(1.0 / specular_lobe_integral(roughness * roughness, lobe)) : 0.0f);
        glUniform1ui(glGetUniformLocation(program, "u_size"), static_cast<GLuint>(n));
        glUniform1ui(glGetUniformLocation(program, "u_output_offset"), static_cast<GLuint>(first[static_cast<std::size_t>(level)]));
        glUniform1ui(glGetUniformLocation(program, "u_sample_count"), static_cast<GLuint>(packed.size() / 4));
        glUniform1f(glGetUniformLocation(program, "u_inv_weight"), static_cast<float>(1.0 / weight));
        m.timer.begin();
        glDispatchCompute(static_cast<GLuint>(n), static_cast<GLuint>(n), 6);  // a work group a texel
        m.timer.end();
        if (encode_queued && level == 1) {  // level 1's blocks (Impl's encoders), then the prefilter's program and output again
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
            m.encoder(1).queue_buffers({{m.output.id, 4 * first[1], 4}}, 6, n, n, m.bc6h_mirror_z);
            glUseProgram(program);
            m.output.bind(1);
        }
        check_gl("the specular prefilter pass");
        stage_progress::advance(kSpecularProgressUnits);
    }
    trace_event("specular levels queued");
    // The levels' copy into host-visible memory queued right behind them, with a fence: level_zero
    // may queue more work (a batch's next source), and a plain read issued after that would wait
    // for it too. Without ARB_buffer_storage, glGetBufferSubData after level_zero.
    const std::size_t result_bytes = 4 * (total - float_first) * sizeof(float);
    GLsync levels_fence = nullptr;
    if (copy_back) {
        m.readback.ensure_readback(result_bytes);
        glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
        glBindBuffer(GL_COPY_READ_BUFFER, m.output.id);
        glBindBuffer(GL_COPY_WRITE_BUFFER, m.readback.id);
        glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, static_cast<GLintptr>(4 * float_first * sizeof(float)), 0,
                            static_cast<GLsizeiptr>(result_bytes));
        check_gl("queuing the specular levels' read back");
        levels_fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    }
    struct FenceGuard {  // deleted on every way out (level_zero may throw)
        GLsync& fence;
        ~FenceGuard() {
            if (fence) glDeleteSync(fence);
        }
    } guard{levels_fence};
    if (encode_queued && levels > 2) {
        std::vector<Bc6hBufferLevel> sources;
        for (int level = 2; level < levels; ++level) sources.push_back({m.output.id, 4 * first[static_cast<std::size_t>(level)], 4});
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        m.encoder(2).queue_buffers(sources, 6, settings.base_size / 4, settings.base_size / 4, m.bc6h_mirror_z);
        trace_event("specular BC6H queued");
    }
    // Charlie's level 0: its bright texels on each texel's horizon circle, in double on the CPU
    // while the GPU works (HorizonBright), added to the GPU's estimate below.
    std::vector<double> ring;
    if (charlie && !input.bright.empty()) {
        const int n = settings.base_size;
        ring.assign(18 * static_cast<std::size_t>(n) * n, 0.0);
        const HorizonBright horizon(input.bright, input.bright_equirect, input.bright_width, input.bright_height);
        parallel_for(6 * n, resolve_threads(threads, 6 * n), [&](int task) {
            const int face = task / n, row = task % n;
            for (int col = 0; col < n; ++col)
                horizon.add(cube_texel_direction(face, row, col, n), &ring[3 * ((static_cast<std::size_t>(face) * n + row) * n + col)]);
        });
    }
    // Level 0 once the levels are queued: its read waits for the GPU, which has them to do meanwhile.
    // (Charlie's level 0 is the shader's: the source's is read for the checks that go with it, and dropped.)
    CubeMap source_level_zero = level_zero();
    if (!charlie) chain.push_back(std::move(source_level_zero));
    if (encode && !encode_queued) m.encode_bc6h(chain[0], first);
    std::vector<float> result(4 * (total - float_first));
    if (levels_fence) {
        wait_and_delete(levels_fence, "the specular levels");
        m.readback.read_mapped(result.data(), result_bytes, "reading the specular levels back");
    } else if (total > float_first) {
        glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, m.output.id);
        glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, static_cast<GLintptr>(4 * float_first * sizeof(float)),
                           static_cast<GLsizeiptr>(result_bytes), result.data());
        check_gl("reading the specular levels back");
    }
    for (int level = first_level; level < levels; ++level) {
        const int n = settings.base_size >> level;
        const float* src = result.data() + 4 * (first[static_cast<std::size_t>(level)] - float_first);
        CubeMap out(n);
        for (int f = 0; f < 6; ++f)
            for (std::size_t i = 0; i < static_cast<std::size_t>(n) * n; ++i)
                for (int c = 0; c < 3; ++c) out.faces[f].rgb[3 * i + c] = src[4 * (f * static_cast<std::size_t>(n) * n + i) + c];
        if (level == 0 && !ring.empty())
            for (int f = 0; f < 6; ++f)
                for (std::size_t i = 0; i < 3 * static_cast<std::size_t>(n) * n; ++i)
                    out.faces[f].rgb[i] = static_cast<float>(out.faces[f].rgb[i] + ring[3 * f * static_cast<std::size_t>(n) * n + i]);
        chain.push_back(std::move(out));
    }
    if (encode_queued) {
        m.bc6h_chain = m.encoder(0).take();
        m.bc6h_ms = m.encoder(0).last_ms();
        for (int part = 1; part < std::min(levels, 3); ++part) {
            EncodedTexture rest = m.encoder(part).take();
            for (std::vector<std::uint8_t>& level : rest.levels) m.bc6h_chain.levels.push_back(std::move(level));
            m.bc6h_ms += m.encoder(part).last_ms();
        }
        trace_event("specular BC6H read");
    }
    m.last_ms = m.timer.total_ms();
    m.last_upload_ms = 0;
    return chain;
}

void GpuSpecularPrefilter::set_bc6h(bool on, bool mirror_z) {
    impl_->bc6h_on = on;
    impl_->bc6h_mirror_z = mirror_z;
}
const EncodedTexture& GpuSpecularPrefilter::last_bc6h() const { return impl_->bc6h_chain; }
double GpuSpecularPrefilter::last_bc6h_ms() const { return impl_->bc6h_ms; }

double GpuSpecularPrefilter::last_ms() const { return impl_->last_ms; }
double GpuSpecularPrefilter::last_upload_ms() const { return impl_->last_upload_ms; }

}  // namespace bake
