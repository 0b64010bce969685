// The CPU backend: the "FreeDML CPU" adapter. Every memory pool is ordinary host memory, so the
// CPU can read any heap (the front end still refuses Map on DEFAULT heaps, as D3D12 does), and a
// stream runs its work at once on the calling thread (the queue's worker).
#pragma once

#include <memory>

#include "backend/backend.h"

namespace freedml::backend::cpu {

// Bytes of physical memory of this machine (what the CPU adapter reports as shared memory and
// the bound above which an allocation is refused).
uint64_t PhysicalMemoryBytes();

// Host memory as a DXCore memory budget: currentUsage is this process's resident memory, budget
// that plus the memory the kernel reports available (MemAvailable), at most the physical memory.
MemoryBudget HostMemoryBudget();

// Threads a CPU device's kernels share: FREEDML_CPU_THREADS when it is a whole number from 1 (at
// most 256), else the machine's cores, at most 64. Read when the device is made.
unsigned CpuThreadCount();

// Whether FREEDML_CPU_AS_HARDWARE is set (to anything but "" or "0"): the CPU adapter then presents
// itself as a hardware adapter (IsHardware, the GPU hardware-type and D3D12 graphics attributes),
// for programs that refuse software adapters. Read when the adapters are found.
bool CpuPresentedAsHardware();

// The CPU adapter, with the LUID the registry gives it.
std::unique_ptr<Adapter> CreateCpuAdapter(const LUID& luid);

}  // namespace freedml::backend::cpu
