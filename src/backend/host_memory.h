// The host's memory as the backends report it (the CPU adapter's memory, and the host memory a
// CUDA adapter reaches). Header-only: the CUDA plugin is built apart from freedml_backend.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace freedml::backend {

inline uint64_t HostPageSize() {
    long size = sysconf(_SC_PAGESIZE);
    return size > 0 ? static_cast<uint64_t>(size) : 4096;
}

// Bytes of physical memory of this machine; 0 when unknown.
inline uint64_t HostPhysicalBytes() {
    long pages = sysconf(_SC_PHYS_PAGES);
    return pages > 0 ? static_cast<uint64_t>(pages) * HostPageSize() : 0;
}

// What the kernel could still give this process without swapping (MemAvailable of /proc/meminfo);
// 0 when it cannot be read.
inline uint64_t HostAvailableBytes() {
    FILE* file = std::fopen("/proc/meminfo", "r");
    if (!file) return 0;
    char line[256];
    uint64_t bytes = 0;
    while (std::fgets(line, sizeof(line), file)) {
        unsigned long long kib = 0;
        if (std::strncmp(line, "MemAvailable:", 13) == 0 && std::sscanf(line + 13, "%llu", &kib) == 1) {
            bytes = static_cast<uint64_t>(kib) * 1024;
            break;
        }
    }
    std::fclose(file);
    return bytes;
}

// This process's resident memory (the second field of /proc/self/statm, in pages); 0 when unknown.
inline uint64_t ProcessResidentBytes() {
    FILE* file = std::fopen("/proc/self/statm", "r");
    if (!file) return 0;
    unsigned long long size = 0, resident = 0;
    const bool read = std::fscanf(file, "%llu %llu", &size, &resident) == 2;
    std::fclose(file);
    return read ? static_cast<uint64_t>(resident) * HostPageSize() : 0;
}

// A budget of host memory for a process that uses `usage` bytes of it: that plus what is still
// available, never more than the machine has.
inline uint64_t HostBudget(uint64_t usage) {
    uint64_t budget = usage + HostAvailableBytes();
    const uint64_t physical = HostPhysicalBytes();
    return physical != 0 && budget > physical ? physical : budget;
}

}  // namespace freedml::backend
