#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "cube_map.h"
#include "layout.h"
#include "specular_prefilter.h"
#include "specular_source.h"

namespace bake {

class GpuProjector;

// The specular source cube (specular_source.h's area_average_cube) of a lat-long input on the GPU:
// shaders/specular_source.comp, in double precision, one invocation a cube texel (the texels around
// the poles, which cross every input column, in chunks over many: set_cap_split); it reads the
// input's texels as the projection uploads them (GpuProjector::upload: as the file stores them,
// RGB float, RGBE or half, through its staging path) when they fit one buffer, else from its own
// copy. On llvmpipe the result is within 1e-6 relative of the CPU's (tests/test_gpu_specular_source.cpp),
// not bit for bit, and so on NVIDIA (H100, H200, driver 580) once the shader keeps no double in a
// local array (the driver stores those in single precision: shaders/specular_source.comp says more).
// Needs the context current on this thread; throws GpuError on any GL failure.
class GpuSpecularSource {
public:
    explicit GpuSpecularSource(GpuProjector& projector);
    ~GpuSpecularSource();
    GpuSpecularSource(const GpuSpecularSource&) = delete;
    GpuSpecularSource& operator=(const GpuSpecularSource&) = delete;

    // Whether average() takes env: a lat-long input whose texels fit one storage block and whose
    // cube fits the dispatch limits (cube inputs stay on the CPU).
    bool supports(const Environment& env, int size) const;
    // Sends env's texels and the tables for a cube of `size` (and compiles the program): the next
    // average() of env uses them. Separate so that it can run while the CPU makes the bright split.
    void upload(const Environment& env, int size, int threads = 0);
    // Starts making the tables of a `width` x `height` input's source of face `size` on another
    // thread (the grid and the texels' solid angles: 4-5 ms of CPU on the H200 machine), for the
    // upload() that needs them.
    void plan_tables(int width, int height, int size, int threads = 0);
    // The next average uploads again (the projector's texels are being replaced).
    void forget_upload();
    // area_average_cube(env, size, cap, full, capped) on the GPU (uploading env first unless upload() just did).
    void average(const Environment& env, int size, const LuminanceCap& cap, CubeMap* full, CubeMap* capped, int threads = 0);
    // average() without the read back, for the GPU's prefilter: the mip chains of both cubes built
    // where the pass wrote them (shaders/specular_source_mips.comp, solid-angle weighted as the CPU's
    // cube_mip_chain) and the capped chain (the full one when nothing is capped) left in an RGBA32F
    // cube texture with every mip (resident_texture(), filled by shaders/specular_source_texture.comp).
    // Saves reading 36 MB back and sending them up
    // again (6 x 512² source: 44 + 24 ms on the H200) and the CPU's mips. Needs size >= 2.
    // Returns the resident chains' generation, which the next average or average_resident ends.
    std::uint64_t average_resident(const Environment& env, int size, const LuminanceCap& cap, int threads = 0);
    // average_resident in two halves, so that the CPU prepares the prefilter while the GPU makes the
    // source: dispatch_resident queues the passes and returns their generation at once;
    // check_resident waits for them and reads their status (GpuError, generation 0, on a failed
    // pass). A texture read between the two is not to be trusted until check_resident returns; the
    // read_resident_* calls check first.
    std::uint64_t dispatch_resident(const Environment& env, int size, const LuminanceCap& cap, int threads = 0);
    void check_resident();
    // dispatch_resident for a batch's next input (its texels sent ahead: GpuProjector::upload_ahead),
    // queued behind the work in flight (a chain's levels still sampling the texture it rewrites),
    // without waiting for anything. The dispatch_resident of the same input, size and cap that
    // follows takes these passes instead of queuing them again; anything else queued in between
    // (another input's source, a read of the chains) drops them. Call it once the current chains'
    // status and level 0 are read (take_queued_level): it replaces them.
    std::uint64_t dispatch_ahead(const Environment& env, int size, const LuminanceCap& cap, int threads = 0);
    // read_resident_level(size) in two halves around more GPU work: queue_level_read queues the
    // copy of that level and of the status word right behind the source's passes (where buffer
    // storage is there and the status is unread); take_queued_level waits for those alone (not
    // for what was queued after them: the chain's levels) and checks the status as check_resident.
    void queue_level_read(int size);
    CubeMap take_queued_level(int size);
    // Where the full chain's level of face size `size` lies on the GPU (RGB floats, faces one after
    // another, in a storage buffer the next source's passes rewrite), for work queued behind the
    // source's passes; none where the source has no level of that size, or none is resident.
    struct LevelInBuffer {
        unsigned buffer = 0;
        std::size_t first_float = 0;
    };
    std::optional<LevelInBuffer> full_level_in_buffer(int size) const;
    // What average_resident left: generation (0: none), face size, the prefilter's texture.
    std::uint64_t resident_generation() const;
    int resident_size() const;
    unsigned resident_texture() const;
    // The full (uncapped) chain's level of face size `size` (a mip of the resident source, or its
    // level 0's texels repeated when `size` is larger), read back: the specular chain's level 0.
    CubeMap read_resident_level(int size);
    // Both resident chains read back whole (--compare, tests): full into *full, capped into *capped
    // (*capped = *full when nothing was capped).
    void read_resident_chains(std::vector<CubeMap>* full, std::vector<CubeMap>* capped);

    // The texels of faces +Y and -Y within `rings` rings of their centre (rings < 0: by the input's
    // width, the default) are done in items of about `pieces` edge pieces each, spread over many
    // invocations (shaders/specular_source.comp: a texel at a pole crosses every input column);
    // 0 rings: every texel by one invocation. For tests and tuning; the result is the same to
    // double rounding.
    void set_cap_split(int rings, int pieces = 32);

    // GPU time of the last average()'s dispatch, and the wall clock of its upload (milliseconds).
    double last_ms() const;
    double last_upload_ms() const;
    // "program P, upload U, pass X, read back R" (milliseconds) of the last average(), for --timings.
    std::string last_detail() const;

private:
    // The source pass for `size` (uploading env first unless upload() just did), its timer running.
    void dispatch(const Environment& env, int size, const LuminanceCap& cap, int threads);
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace bake
