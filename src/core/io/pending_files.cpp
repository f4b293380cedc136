#include "pending_files.h"

#include <unistd.h>

#include <atomic>
#include <cstring>

namespace bake {

namespace {

constexpr int kSlots = 256;
constexpr std::size_t kPathBytes = 4096;

// A slot is claimed (claimed: a thread owns it), then its path written, then published (ready):
// the handler reads only published slots, whose path is complete and not written while published.
struct Slot {
    std::atomic<bool> claimed{false};
    std::atomic<bool> ready{false};
    char path[kPathBytes];
};

Slot g_slots[kSlots];

}  // namespace

PendingFile::PendingFile(const std::string& path) {
    if (path.size() >= kPathBytes) return;
    for (int i = 0; i < kSlots; ++i) {
        bool expected = false;
        if (!g_slots[i].claimed.compare_exchange_strong(expected, true, std::memory_order_acquire)) continue;
        std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
        g_slots[i].ready.store(true, std::memory_order_release);
        slot_ = i;
        return;
    }
}

PendingFile& PendingFile::operator=(PendingFile&& other) noexcept {
    if (this != &other) {
        release();
        slot_ = other.slot_;
        other.slot_ = -1;
    }
    return *this;
}

void PendingFile::release() {
    if (slot_ < 0) return;
    g_slots[slot_].ready.store(false, std::memory_order_release);
    g_slots[slot_].claimed.store(false, std::memory_order_release);
    slot_ = -1;
}

void remove_all_pending_files() noexcept {
    for (Slot& s : g_slots)
        if (s.ready.load(std::memory_order_acquire)) ::unlink(s.path);
}

}  // namespace bake
