#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>
#include <utility>

namespace bake {

// The allocator of image texels. A large block (>= 1 MiB) is an anonymous mapping with
// transparent huge pages asked for: 512x fewer page faults, which on the virtual machines we
// measured cost more than decoding (first touch of 384 MB: 168 ms in 4 KiB pages, 45 ms in
// huge pages, on the GPU machine). Smaller blocks come from calloc. Both come zeroed, so
// elements are default-initialised (not written a second time): a fresh vector(n) or resize(n)
// reads as zeros. (Growing again after shrinking within capacity would keep the old values:
// use assign() for that.)
template <typename T>
struct BulkAllocator {
    using value_type = T;
    static constexpr std::size_t kMapBytes = std::size_t{1} << 20;

    BulkAllocator() = default;
    template <typename U>
    BulkAllocator(const BulkAllocator<U>&) noexcept {}

    T* allocate(std::size_t n) {
        if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_alloc();
        const std::size_t bytes = n * sizeof(T);
        if (bytes >= kMapBytes) {
            void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (p == MAP_FAILED) throw std::bad_alloc();
            ::madvise(p, bytes, MADV_HUGEPAGE);  // a hint: ignored where THP is off
            return static_cast<T*>(p);
        }
        void* p = std::calloc(n ? n : 1, sizeof(T));
        if (!p) throw std::bad_alloc();
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t n) noexcept {
        if (n * sizeof(T) >= kMapBytes) ::munmap(p, n * sizeof(T));
        else std::free(p);
    }
    template <typename U>
    void construct(U* p) noexcept {
        ::new (static_cast<void*>(p)) U;  // default-init: the memory is zero already
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

template <typename T, typename U>
bool operator==(const BulkAllocator<T>&, const BulkAllocator<U>&) noexcept { return true; }
template <typename T, typename U>
bool operator!=(const BulkAllocator<T>&, const BulkAllocator<U>&) noexcept { return false; }

}  // namespace bake
