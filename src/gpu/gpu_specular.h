#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "specular_prefilter.h"
#include "texture_format.h"

namespace bake {

class ComputePrograms;
struct Bc6hBufferLevel;

// The prefiltered specular chain on the GPU (specular_prefilter.h), GGX or Charlie (settings.lobe):
// the capped source cube and its solid-angle-weighted mip chain (built on the CPU and uploaded, or
// left on the GPU by GpuSpecularSource::average_resident) are one RGBA32F cube texture, sampled
// trilinearly and seamlessly across faces; shaders/specular_prefilter.comp computes levels 1..n-1
// from per-level sample sets and bright-texel parts made on the CPU; GGX's level 0 is the source's
// mip of the base size, Charlie's the shader's too (samples on the horizon circle), its bright
// texels summed on the CPU meanwhile (HorizonBright) and added.
// Needs the context current on this thread; throws GpuError on any GL failure.
class GpuSpecularPrefilter {
public:
    explicit GpuSpecularPrefilter(ComputePrograms& programs);
    ~GpuSpecularPrefilter();
    GpuSpecularPrefilter(const GpuSpecularPrefilter&) = delete;
    GpuSpecularPrefilter& operator=(const GpuSpecularPrefilter&) = delete;

    // Compiles the program ahead of time.
    void prepare();
    // Starts making the sample sets of `settings`' levels for a source of `source_size` on other
    // threads (they depend on these alone: a batch makes them once); prefilter() takes them, or
    // makes its own when its settings differ.
    void plan(const SpecularSettings& settings, int source_size, int threads = 0);
    // Starts making each level's bright parts (specular_bright_parts) of a batch's next input on
    // other threads, from its bright texels (`bright`'s bright, bright_equirect, bright_width and
    // bright_height; nothing else of it is read) for `settings`' levels; the prefilter() whose
    // input has the same bright texels and levels takes them, or makes its own.
    void plan_parts(SpecularInput bright, const SpecularSettings& settings, int threads = 0);
    // input: prepare_specular_input(source); its capped mips go up as the texture.
    // threads: for the sample sets and bright parts made on the CPU (0: all cores).
    std::vector<CubeMap> prefilter(const SpecularInput& input, const SpecularSettings& settings, int threads = 0);
    // The same from a cube texture already on the GPU (GpuSpecularSource::average_resident: the
    // capped chain, faces of `source_size`, every mip), level 0 given; `input` gives the bright split.
    std::vector<CubeMap> prefilter(unsigned texture, int source_size, CubeMap level_zero, const SpecularInput& input,
                                   const SpecularSettings& settings, int threads = 0);
    // The same with level 0 made by `level_zero`, called once levels 1.. are queued on the GPU (its
    // read back then waits on work already there, not before it: GpuBackend reads the source's
    // status and its level 0 there). The program, the sample sets and the bright parts are made
    // before the first dispatch: while the GPU still makes a source that dispatch_resident queued.
    // With BC6H on, level_zero_on_gpu (if given: level 0's texels where the GPU has them, valid until
    // level_zero returns) is encoded from there, its encoding queued before level_zero is called,
    // which may then queue more work (a batch's next source) without the blocks waiting for it.
    std::vector<CubeMap> prefilter(unsigned texture, int source_size, const std::function<CubeMap()>& level_zero,
                                   const SpecularInput& input, const SpecularSettings& settings, int threads = 0,
                                   const Bc6hBufferLevel* level_zero_on_gpu = nullptr);
    // GPU time of the last prefilter()'s dispatches and of its texture upload (milliseconds).
    double last_ms() const;
    double last_upload_ms() const;

    // With BC6H on, each prefilter() also encodes its chain as BC6H_UF16 where it is (GpuBc6hEncoder,
    // the CPU's default setting byte for byte): level 0 where the GPU has it (level_zero_on_gpu), or
    // else uploaded beside levels 1.. in the output buffer; the blocks (1 byte a texel) come back as
    // last_bc6h(); mirror_z lays the faces out for Bevy (KtxCubeConvention::Bevy). The float chain is
    // still returned (the bake's other outputs use it).
    void set_bc6h(bool on, bool mirror_z = false);
    const EncodedTexture& last_bc6h() const;
    double last_bc6h_ms() const;  // GPU time of the last encoding's dispatches

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace bake
