#pragma once
// BC6H_UF16 encoding on the GPU (shaders/bc6h_encode.comp): the CPU encoder of bc6h.h at its
// default setting in GLSL, integer for integer, so that the blocks are the CPU's byte for byte
// (tests/test_gpu_bc6h.cpp compares them), of texels already on the GPU; only the blocks come back
// (1 byte a texel, against 16 for the floats). 32 invocations a block, four blocks a work group,
// one dispatch for all the levels and faces (of up to 16 levels from up to two buffers).
// Bc6hQuality::Thorough is the CPU's alone (bc6h_encode_images).
// Needs the context current on this thread; throws GpuError on any GL failure.
#include <cstddef>
#include <memory>
#include <vector>

#include "bc6h.h"
#include "texture_format.h"

namespace bake {

class ComputePrograms;

// Where a level's texels lie in a storage buffer: faces one after another, rows top first, from
// float first_float, floats_a_texel (3 or 4) floats a texel, RGB first.
struct Bc6hBufferLevel {
    unsigned buffer = 0;
    std::size_t first_float = 0;
    int floats_a_texel = 4;
};

class GpuBc6hEncoder {
public:
    explicit GpuBc6hEncoder(ComputePrograms& programs);
    ~GpuBc6hEncoder();
    GpuBc6hEncoder(const GpuBc6hEncoder&) = delete;
    GpuBc6hEncoder& operator=(const GpuBc6hEncoder&) = delete;

    // Compiles the programs ahead of time.
    void prepare();

    // Levels 0 .. levels-1 of a float texture with immutable storage (glTexStorage2D: GL_RGBA32F,
    // GL_RGBA16F, ...), a cube map (target GL_TEXTURE_CUBE_MAP, 6 faces) or a 2D texture
    // (GL_TEXTURE_2D), read through a GL_TEXTURE_2D_ARRAY view of it. mirror_z: each cube face
    // laid out for Bevy (ibl_ktx2.h's mirror_cube_z) as it is encoded.
    EncodedTexture encode_texture(unsigned texture, unsigned target, unsigned internal_format, int width, int height,
                                  int levels, bool mirror_z = false);

    // Levels whose texels are vec4s (RGB used) in `buffer`: level i, of max(1, width >> i) x
    // max(1, height >> i) texels a face, has its faces one after another from texel
    // first_texels[i], rows top first (GpuSpecularPrefilter's layout).
    EncodedTexture encode_buffer(unsigned buffer, int faces, int width, int height, const std::vector<std::size_t>& first_texels,
                                 bool mirror_z = false);

    // encode_buffer in two halves, each level from a buffer of its own, so that other GPU work can
    // be queued behind the encoding without the blocks' read waiting for it: queue_buffers queues
    // the passes and the blocks' copy for reading; take() waits for those alone.
    void queue_buffers(const std::vector<Bc6hBufferLevel>& levels, int faces, int width, int height, bool mirror_z = false);
    EncodedTexture take();

    // GPU time of the last encode's dispatches (milliseconds, GL timestamp queries).
    double last_ms() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace bake
