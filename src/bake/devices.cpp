#include "devices.h"

namespace bake {

Devices::Devices(DeviceMode mode, GlBackend gl, bool debug_output, int threads, Notice notice)
    : mode_(mode), cpu_(threads), notice_(std::move(notice)) {
    if (mode_ == DeviceMode::Cpu) return;
    try {
        gpu_ = std::make_unique<GpuBackend>(gl, debug_output);
    } catch (const GpuError& e) {
        if (mode_ == DeviceMode::Gpu) throw;
        notice_(std::string("notice: no usable OpenGL 4.3 context (") + e.what() + "); using the CPU path");
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
