#pragma once
// Which backend runs each operation of a bake, and what a GPU failure leads to: decided here and
// nowhere else.
//   --device cpu   the CPU; no context is made.
//   --device gpu   the GPU; a failure is the error (exit 5). --compare runs so too.
//   --device auto  the faster path, decided before any work and never by timing: the CPU path for
//                  SH bakes (no context is made: it costs 85-110 ms of a process on the GPU machine,
//                  more than a 2k-8k projection on 16 cores) unless a batch's inputs hold 2^27
//                  texels or more by their headers (about 16 maps of 4096 x 2048: there the GPU's
//                  context pays for itself; bake_app.cpp's large_batch) on a machine with a GPU
//                  device node (no context is tried without one), the GPU for runs with the specular
//                  chain or exact irradiance maps (14 ms against 3.1 s for a 6x256^2 chain), unless
//                  the only OpenGL is a software rasterizer (llvmpipe): then the CPU, with one notice.
//                  A GPU failure falls back: one notice line, the GPU dropped for the rest of the
//                  run, and the operation again on the CPU.
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cpu_backend.h"
#include "gl_context.h"
#include "bake_settings.h"
#include "gpu_backend.h"

namespace bake {

enum class DeviceMode { Auto, Gpu, Cpu };

// The operations a bake runs on a backend (backend.h).
enum class Operation { ProjectSh, ReportCells, ExactIrradiance, ShIrradianceMap, Specular };

// --device auto on a batch of SH bakes: whether the GPU's context pays for itself (~100 ms of a
// process on the H200 machine): inputs of 2^27 texels or more by their headers (about 16 maps of
// 4096 x 2048; 20 of them with --jobs 4: 56.0 maps/s on the GPU, 51.9 on the CPU), on a machine
// with a GPU device node (NVIDIA's control node or a DRM render node; without one the only OpenGL
// is a software rasterizer, and no context is tried). A header that cannot be read counts nothing
// (its input fails later, as on any path). BAKE_TEST_GPU_BATCH_TEXELS sets the limit for tests,
// BAKE_TEST_SOFTWARE_GL_IS_GPU=1 counts llvmpipe as a GPU.
bool gpu_pays_off(const std::vector<BakeJob>& jobs);

class Devices {
public:
    using Notice = std::function<void(const std::string& line)>;

    // Makes the GPU backend unless the mode is Cpu, or Auto without `gpu_work` (the specular chain,
    // exact maps): under Gpu a failure throws GpuError, under Auto it gives one notice and the CPU.
    Devices(DeviceMode mode, bool gpu_work, GlBackend gl, bool debug_output, int threads, Notice notice);

    DeviceMode mode() const { return mode_; }
    Backend& cpu() { return cpu_; }
    GpuBackend* gpu() { return gpu_.get(); }  // while it works; null on the CPU path

    // The backend that runs `op` now.
    Backend& backend_for(Operation op);
    bool on_gpu(Operation op) { return &backend_for(op) == gpu_.get(); }

    // fn(backend) on the backend for `op`. A GpuError under Auto: the notice (naming `label`), the
    // GPU dropped, fn(cpu) once more; under Gpu it propagates. `computed_by` gets the name of the
    // backend whose result is returned.
    template <typename Fn>
    auto run(Operation op, const std::string& label, Fn&& fn, std::string* computed_by = nullptr)
        -> decltype(fn(std::declval<Backend&>())) {
        Backend& backend = backend_for(op);
        if (&backend != gpu_.get()) {
            if (computed_by) *computed_by = backend.name();
            return fn(backend);
        }
        try {
            if (computed_by) *computed_by = backend.name();
            return fn(backend);
        } catch (const GpuError& e) {
            fall_back(label, e);
        }
        if (computed_by) *computed_by = cpu_.name();
        return fn(static_cast<Backend&>(cpu_));
    }

private:
    // Under Auto: the notice and the CPU from now on; otherwise rethrows.
    void fall_back(const std::string& label, const GpuError& e);

    DeviceMode mode_;
    CpuBackend cpu_;
    std::unique_ptr<GpuBackend> gpu_;
    Notice notice_;
};

}  // namespace bake
