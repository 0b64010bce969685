#include "allocation_failure.h"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>
#include <thread>

namespace freedml_test {
namespace {

std::atomic<bool> armed{false};
std::atomic<bool> fired{false};
std::atomic<int64_t> remaining{0};
std::atomic<FailOn> where{FailOn::ThisThread};
std::thread::id armingThread;

// True when this allocation is the one to fail.
bool ShouldFail() {
    if (!armed.load(std::memory_order_acquire)) return false;
    bool same = std::this_thread::get_id() == armingThread;
    if (same != (where.load() == FailOn::ThisThread)) return false;
    if (remaining.fetch_sub(1) != 0) return false;
    armed.store(false);
    fired.store(true);
    return true;
}

void* Allocate(std::size_t size, std::size_t alignment, bool nothrow) {
    if (ShouldFail()) {
        if (nothrow) return nullptr;
        throw std::bad_alloc();
    }
    if (size == 0) size = 1;
    void* memory = nullptr;
    if (alignment <= alignof(std::max_align_t)) {
        memory = std::malloc(size);
    } else if (posix_memalign(&memory, alignment, size) != 0) {
        memory = nullptr;
    }
    if (!memory && !nothrow) throw std::bad_alloc();
    return memory;
}

}  // namespace

void ArmAllocationFailure(uint64_t index, FailOn on) {
    armingThread = std::this_thread::get_id();
    where.store(on);
    remaining.store(static_cast<int64_t>(index));
    fired.store(false);
    armed.store(true, std::memory_order_release);
}

bool DisarmAllocationFailure() {
    armed.store(false);
    return fired.load();
}

}  // namespace freedml_test

using freedml_test::Allocate;

void* operator new(std::size_t size) { return Allocate(size, 0, false); }
void* operator new[](std::size_t size) { return Allocate(size, 0, false); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return Allocate(size, 0, true); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return Allocate(size, 0, true); }
void* operator new(std::size_t size, std::align_val_t alignment) {
    return Allocate(size, static_cast<std::size_t>(alignment), false);
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
    return Allocate(size, static_cast<std::size_t>(alignment), false);
}
void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
    return Allocate(size, static_cast<std::size_t>(alignment), true);
}
void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
    return Allocate(size, static_cast<std::size_t>(alignment), true);
}
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete[](void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete(void* memory, std::align_val_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::align_val_t) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t, std::align_val_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::size_t, std::align_val_t) noexcept { std::free(memory); }
void operator delete(void* memory, const std::nothrow_t&) noexcept { std::free(memory); }
void operator delete[](void* memory, const std::nothrow_t&) noexcept { std::free(memory); }
void operator delete(void* memory, std::align_val_t, const std::nothrow_t&) noexcept { std::free(memory); }
void operator delete[](void* memory, std::align_val_t, const std::nothrow_t&) noexcept { std::free(memory); }
