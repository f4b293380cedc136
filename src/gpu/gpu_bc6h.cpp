#include "gpu_bc6h.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bc6h_tables.h"
#include "gl_objects.h"

namespace bake {
namespace {

// bc6h_tables.h for the shader: one read-only storage buffer (binding 2) whose block is declared
// here, array by array, beside the words that fill it, so that the two cannot drift apart. Not GLSL
// const arrays: NVIDIA's compiler gives each invocation its own copy of one indexed at run time, in
// local memory (with them, and the search's own such arrays, the encoder took 106 ms on the H200
// for a 6x256^2 chain, against 11 ms without: bench/NOTES.md). Arrays indexed only by the
// counters of unrolled loops do go as const arrays too (`constants`): they fold into immediates.
struct Tables {
    std::string block = "layout(std430, binding = 2) readonly buffer Tables {\n";
    std::vector<std::uint32_t> words;
    std::string constants;

    template <std::size_t N>
    void add_constant(const char* name, const std::array<std::uint8_t, N>& values) {
        constants += std::string("const int ") + name + "[" + std::to_string(N) + "] = int[](";
        for (std::size_t i = 0; i < N; ++i) constants += (i ? ", " : "") + std::to_string(values[i]);
        constants += ");\n";
    }

    template <typename T, std::size_t N>
    void add(const char* type, const char* name, const std::array<T, N>& values) {
        block += std::string("    ") + type + " " + name + "[" + std::to_string(N) + "];\n";
        for (T v : values) words.push_back(static_cast<std::uint32_t>(v));
    }
};

Tables make_tables() {
    std::array<int, kBc6hModeCount> code{}, regions{}, epb{}, transformed{}, header{};
    std::array<int, 3 * kBc6hModeCount> delta{};
    std::array<unsigned, 82 * kBc6hModeCount / 4> bit_map{};  // four entries a word, the first in the low byte
    for (int m = 0; m < kBc6hModeCount; ++m) {
        const Bc6hMode& mode = kBc6hModes[m];
        code[m] = mode.code;
        regions[m] = mode.regions;
        epb[m] = mode.epb;
        transformed[m] = mode.transformed ? 1 : 0;
        header[m] = bc6h_header_bits(m);
        for (int c = 0; c < 3; ++c) delta[3 * m + c] = mode.delta[c];
        for (int b = 0; b < 82; ++b) bit_map[(82 * m + b) / 4] |= static_cast<unsigned>(bc6h_bit_map(m)[b]) << (8 * ((82 * m + b) % 4));
    }
    std::array<unsigned, kBc6hPartitionCount> partitions{}, anchors{};
    for (int p = 0; p < kBc6hPartitionCount; ++p) {
        partitions[p] = kBc6hPartitions[p];
        anchors[p] = kBc6hAnchor2[p];
    }
    std::array<int, 8> w3{};
    std::array<int, 16> w4{};
    for (int j = 0; j < 8; ++j) w3[j] = kBc6hWeights3[j];
    for (int j = 0; j < 16; ++j) w4[j] = kBc6hWeights4[j];
    Tables t;
    t.add("int", "kModeCode", code);
    t.add("int", "kModeRegions", regions);
    t.add("int", "kModeEpb", epb);
    t.add("int", "kModeDelta", delta);
    t.add("int", "kModeTransformed", transformed);
    t.add("int", "kHeaderBits", header);
    t.add("uint", "kBitMap", bit_map);
    t.add("uint", "kPartitions", partitions);
    t.add("uint", "kAnchor2", anchors);
    t.add("int", "kWeights3", w3);
    t.add("int", "kWeights4", w4);
    t.block += "};\n";
    t.add_constant("kWeights3Unrolled", kBc6hWeights3);
    t.add_constant("kWeights4Unrolled", kBc6hWeights4);
    return t;
}

// Blocks a work group encodes, a warp each: more than one shares the cost of a group's start among
// them (the H200 ran the chain in 5.7 ms at one, 4.3 at two, 4.0 at four; with the descent, 3.3 at
// two, 3.2 at four, 4.2 at eight; in one dispatch for all levels, 2.6 at two, 2.4 at four;
// bench/NOTES.md).
constexpr int kBlocksAGroup = 4;

// Levels one dispatch encodes at most (the shader's kMaxLevels): a 32768-texel side's chain.
constexpr int kMaxRunLevels = 16;

}  // namespace

struct GpuBc6hEncoder::Impl {
    explicit Impl(ComputePrograms& p) : programs(p) {}
    ~Impl() {
        if (fence) glDeleteSync(fence);
    }
    ComputePrograms& programs;
    GlBuffer blocks;
    GlBuffer readback;  // the blocks' copy in client memory, where ARB_buffer_storage is there
    GlBuffer tables;    // make_tables()'s words, filled on first use
    StageTimer timer;
    double last_ms = 0;
    // What queue() left for take().
    EncodedTexture queued;
    std::vector<std::size_t> level_start;  // level i's first block; last, the blocks' count
    GLsync fence = nullptr;
    bool pending = false;

    GLuint program(bool buffer) {
        // SH_ORDER only sizes sh_common.glsl's basis function, which this shader does not call.
        static const Tables t = make_tables();
        if (tables.size == 0) tables.allocate(t.words.size() * sizeof(std::uint32_t), t.words.data());
        const std::string group = "#define BLOCKS_A_GROUP " + std::to_string(kBlocksAGroup) + "\n#define GROUP_INVOCATIONS " +
                                  std::to_string(32 * kBlocksAGroup) + "\n";
        return programs.get("bc6h_encode.comp", "#define SH_ORDER 1\n" + group + (buffer ? "#define SOURCE_BUFFER\n" : "") + t.block + t.constants);
    }

    // Every level's blocks into one buffer, a dispatch a run of levels (runs[k] to runs[k + 1], in
    // parts of kMaxRunLevels: bind_run(first, count) binds their sources and sets their uniforms
    // first), then the blocks' copy for reading and a fence: take() waits for these alone, not for
    // what is queued after them.
    void queue(GLuint program, int faces, int width, int height, const std::vector<int>& runs, bool mirror_z,
               const std::function<void(int, int)>& bind_run) {
        if (fence) glDeleteSync(fence);
        fence = nullptr;
        pending = false;
        queued = {};
        queued.format = TextureFormat::Bc6hUFloat;
        queued.width = width;
        queued.height = height;
        queued.faces = faces;
        const int levels = runs.back();
        level_start.assign(static_cast<std::size_t>(levels) + 1, 0);
        for (int i = 0; i < levels; ++i)
            level_start[static_cast<std::size_t>(i) + 1] = level_start[static_cast<std::size_t>(i)] +
                bc6h_block_count(std::max(1, width >> i), std::max(1, height >> i)) * static_cast<std::size_t>(faces);
        if (level_start.back() > 0xffffffffu / kBlocksAGroup) throw GpuError("a texture too large for the BC6H encoder");
        const std::size_t bytes = level_start.back() * kBc6hBlockBytes;
        const bool copy_back = buffer_storage_function() != nullptr;
        blocks.allocate(bytes, nullptr, copy_back ? GL_DYNAMIC_COPY : GL_STREAM_READ);
        blocks.bind(1);
        tables.bind(2);
        glUseProgram(program);
        glUniform1i(glGetUniformLocation(program, "u_mirror_z"), mirror_z ? 1 : 0);
        glUniform1i(glGetUniformLocation(program, "u_width"), width);
        glUniform1i(glGetUniformLocation(program, "u_height"), height);
        timer.reset();
        for (std::size_t k = 0; k + 1 < runs.size(); ++k)
            for (int first = runs[k]; first < runs[k + 1]; first += kMaxRunLevels) {
                const int count = std::min(kMaxRunLevels, runs[k + 1] - first);
                bind_run(first, count);
                std::vector<GLuint> level_end;
                const std::size_t run_first_block = level_start[static_cast<std::size_t>(first)];
                for (int i = first; i < first + count; ++i)
                    level_end.push_back(static_cast<GLuint>(level_start[static_cast<std::size_t>(i) + 1] - run_first_block));
                glUniform1i(glGetUniformLocation(program, "u_first_level"), first);
                glUniform1i(glGetUniformLocation(program, "u_levels"), count);
                glUniform1uiv(glGetUniformLocation(program, "u_level_end"), count, level_end.data());
                glUniform1ui(glGetUniformLocation(program, "u_block_offset"), static_cast<GLuint>(run_first_block));
                // kBlocksAGroup blocks a work group, in rows of at most 65535 (the least
                // GL_MAX_COMPUTE_WORK_GROUP_COUNT).
                const std::size_t count_groups = (level_end.back() + kBlocksAGroup - 1) / kBlocksAGroup;
                const auto wide = static_cast<GLuint>(std::min<std::size_t>(count_groups, 65535));
                const auto high = static_cast<GLuint>((count_groups + wide - 1) / wide);
                timer.begin();
                glDispatchCompute(wide, high, 1);
                timer.end();
                check_gl("the BC6H encoding pass");
            }
        if (copy_back) {
            readback.ensure_readback(bytes);
            glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
            glBindBuffer(GL_COPY_READ_BUFFER, blocks.id);
            glBindBuffer(GL_COPY_WRITE_BUFFER, readback.id);
            glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, static_cast<GLsizeiptr>(bytes));
            check_gl("queuing the BC6H blocks' read back");
            fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        }
        pending = true;
    }

    EncodedTexture take() {
        if (!pending) throw GpuError("no BC6H encoding was queued");
        pending = false;
        const std::size_t bytes = level_start.back() * kBc6hBlockBytes;
        std::vector<std::uint8_t> all(bytes);
        if (fence) {
            wait_and_delete(fence, "the BC6H blocks");
            readback.read_mapped(all.data(), bytes, "reading the BC6H blocks back");
        } else {
            blocks.read(all.data(), bytes, "reading the BC6H blocks back");
        }
        EncodedTexture out = std::move(queued);
        for (std::size_t i = 0; i + 1 < level_start.size(); ++i) {
            const std::size_t from = level_start[i] * kBc6hBlockBytes;
            const std::size_t to = level_start[i + 1] * kBc6hBlockBytes;
            out.levels.emplace_back(all.begin() + static_cast<long>(from), all.begin() + static_cast<long>(to));
        }
        last_ms = timer.total_ms();
        return out;
    }
};

GpuBc6hEncoder::GpuBc6hEncoder(ComputePrograms& programs) : impl_(std::make_unique<Impl>(programs)) {}
GpuBc6hEncoder::~GpuBc6hEncoder() = default;

void GpuBc6hEncoder::prepare() {
    impl_->program(true);
    impl_->program(false);
}

EncodedTexture GpuBc6hEncoder::encode_texture(unsigned texture, unsigned target, unsigned internal_format, int width,
                                              int height, int levels, bool mirror_z) {
    const int faces = target == GL_TEXTURE_CUBE_MAP ? 6 : 1;
    GLuint view = 0;
    glGenTextures(1, &view);
    glTextureView(view, GL_TEXTURE_2D_ARRAY, texture, internal_format, 0, static_cast<GLuint>(levels), 0, static_cast<GLuint>(faces));
    check_gl("viewing the texture for BC6H encoding");
    struct ViewGuard {
        GLuint id;
        ~ViewGuard() { glDeleteTextures(1, &id); }
    } guard{view};
    const GLuint program = impl_->program(false);
    glUseProgram(program);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D_ARRAY, view);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER, GL_NEAREST_MIPMAP_NEAREST);
    glUniform1i(glGetUniformLocation(program, "u_source"), 0);
    impl_->queue(program, faces, width, height, {0, levels}, mirror_z, [](int, int) {});
    return impl_->take();
}

void GpuBc6hEncoder::queue_buffers(const std::vector<Bc6hBufferLevel>& levels, int faces, int width, int height, bool mirror_z) {
    for (const Bc6hBufferLevel& l : levels)
        if (l.first_float > 0xffffffffu || (l.floats_a_texel != 3 && l.floats_a_texel != 4))
            throw GpuError("a BC6H source level the encoder cannot address");
    const GLuint program = impl_->program(true);
    // A run takes levels from two buffers at most (the shader's two bindings).
    const int count = static_cast<int>(levels.size());
    std::vector<int> runs{0};
    std::vector<unsigned> buffers;  // the run's
    for (int i = 0; i < count; ++i) {
        const unsigned b = levels[static_cast<std::size_t>(i)].buffer;
        if (std::find(buffers.begin(), buffers.end(), b) != buffers.end()) continue;
        if (buffers.size() == 2) {
            runs.push_back(i);
            buffers.clear();
        }
        buffers.push_back(b);
    }
    runs.push_back(count);
    impl_->queue(program, faces, width, height, runs, mirror_z, [&](int first, int n) {
        std::vector<unsigned> bound;
        std::vector<GLuint> offsets, strides;
        std::vector<GLint> second;
        for (int i = first; i < first + n; ++i) {
            const Bc6hBufferLevel& l = levels[static_cast<std::size_t>(i)];
            if (std::find(bound.begin(), bound.end(), l.buffer) == bound.end()) bound.push_back(l.buffer);
            offsets.push_back(static_cast<GLuint>(l.first_float));
            strides.push_back(static_cast<GLuint>(l.floats_a_texel));
            second.push_back(l.buffer == bound[0] ? 0 : 1);
        }
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, bound[0]);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, bound.back());
        glUniform1uiv(glGetUniformLocation(program, "u_source_offset"), n, offsets.data());
        glUniform1uiv(glGetUniformLocation(program, "u_source_stride"), n, strides.data());
        glUniform1iv(glGetUniformLocation(program, "u_second_source"), n, second.data());
    });
}

EncodedTexture GpuBc6hEncoder::take() { return impl_->take(); }

EncodedTexture GpuBc6hEncoder::encode_buffer(unsigned buffer, int faces, int width, int height,
                                             const std::vector<std::size_t>& first_texels, bool mirror_z) {
    std::vector<Bc6hBufferLevel> levels;
    for (std::size_t first : first_texels) levels.push_back({buffer, 4 * first, 4});
    queue_buffers(levels, faces, width, height, mirror_z);
    return take();
}

double GpuBc6hEncoder::last_ms() const { return impl_->last_ms; }

}  // namespace bake
