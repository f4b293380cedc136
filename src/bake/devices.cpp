#include "devices.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "image_io.h"

namespace bake {

namespace {

// A renderer that runs on the CPU: slower there than the CPU path itself. The test hook
// BAKE_TEST_SOFTWARE_GL_IS_GPU=1 lets the tests run --device auto's GPU path on llvmpipe.
bool software_renderer(const std::string& renderer) {
    if (const char* hook = std::getenv("BAKE_TEST_SOFTWARE_GL_IS_GPU"); hook && std::string(hook) == "1") return false;
    for (const char* name : {"llvmpipe", "softpipe", "SwiftShader", "swrast"})
        if (renderer.find(name) != std::string::npos) return true;
    return false;
}

bool gpu_device_present() {
    if (const char* hook = std::getenv("BAKE_TEST_SOFTWARE_GL_IS_GPU"); hook && std::string(hook) == "1") return true;
    std::error_code ec;
    if (std::filesystem::exists("/dev/nvidiactl", ec)) return true;
    for (const auto& entry : std::filesystem::directory_iterator("/dev/dri", ec))
        if (entry.path().filename().string().rfind("renderD", 0) == 0) return true;
    return false;
}

}  // namespace

bool gpu_pays_off(const std::vector<BakeJob>& jobs) {
    if (jobs.size() < 2 || !gpu_device_present()) return false;
    std::uint64_t limit = std::uint64_t{1} << 27;
    if (const char* hook = std::getenv("BAKE_TEST_GPU_BATCH_TEXELS"); hook && *hook) limit = std::strtoull(hook, nullptr, 10);
    std::uint64_t total = 0;
    for (const BakeJob& job : jobs) {
        for (const std::string& file : job.faces.empty() ? std::vector<std::string>{job.label} : job.faces)
            if (const auto size = read_image_size(file); size && size->first > 0 && size->second > 0)
                total += static_cast<std::uint64_t>(size->first) * static_cast<std::uint64_t>(size->second);
        if (total >= limit) return true;
    }
    return false;
}

Devices::Devices(DeviceMode mode, bool gpu_work, GlBackend gl, bool debug_output, int threads, Notice notice)
    : mode_(mode), cpu_(threads), notice_(std::move(notice)) {
    if (mode_ == DeviceMode::Cpu || (mode_ == DeviceMode::Auto && !gpu_work)) return;
    try {
        gpu_ = std::make_unique<GpuBackend>(gl, debug_output, threads);
    } catch (const GpuError& e) {
        if (mode_ == DeviceMode::Gpu) throw;
        notice_(std::string("notice: no usable OpenGL 4.3 context (") + e.what() + "); using the CPU path");
        return;
    }
    if (mode_ == DeviceMode::Auto && software_renderer(gpu_->info().renderer)) {
        notice_("notice: the only OpenGL here is '" + gpu_->info().renderer +
                "', a software rasterizer, slower than the CPU path: using the CPU path (--device gpu uses it)");
        gpu_.reset();
    }
}

Backend& Devices::backend_for(Operation) {
    if (gpu_) return *gpu_;
    return cpu_;
}

void Devices::fall_back(const std::string& label, const GpuError& e) {
    if (mode_ != DeviceMode::Auto) throw e;
    notice_("notice: " + label + ": GPU path failed (" + e.what() + "); using the CPU path");
    gpu_.reset();
}

}  // namespace bake
