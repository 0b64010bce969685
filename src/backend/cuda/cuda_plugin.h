// The boundary between FreeDML's libraries and the CUDA plugin (libfreedml_cuda.so).
//
// Why a plugin: libd3d12, libdxcore and libdirectml must load and run on every Linux machine,
// with or without an NVIDIA driver. Everything that links CUDA (the CUDA runtime, cuBLASLt, cuDNN)
// lives in one module that the adapter registry dlopens at run time, and only when the driver
// (libcuda.so.1) can be loaded at all. No driver, no plugin or no GPU: zero CUDA adapters, no error.
//
// The plugin is built from this tree by the same compiler, so its entry points pass C++ objects
// (backend::Adapter, dml::OperatorArgs, dml::KernelSet, Status): the ABI version below guards
// against a stale plugin from another build. The CUDA DirectML kernels live in the plugin too; a
// CUDA device hands them to libdirectml (backend::Device::DmlKernels), so the plugin is found and
// loaded in one place only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"

namespace freedml::backend::cuda {

// Bump when anything the two sides share changes shape (backend.h, OperatorArgs, Kernel).
constexpr uint32_t kPluginAbiVersion = 4;

struct PluginApi {
    uint32_t abiVersion;
    // Usable CUDA devices (0 when the driver or the GPU is missing; `whyNone` then says why).
    int (*deviceCount)(std::string* whyNone);
    // The adapter of CUDA device `ordinal`, with the LUID the registry gives it.
    std::unique_ptr<Adapter> (*createAdapter)(int ordinal, const LUID& luid);
};

// The plugin's one exported symbol.
constexpr const char* kPluginEntryName = "FreeDmlCudaPluginEntry";
using PluginEntryFn = const PluginApi* (*)();


// The registry's side (cuda_loader.cpp, linked into every library; no CUDA dependency): appends
// one adapter per CUDA device, LUIDs from `makeLuid(1 + ordinal)`. Messages about why there are
// none go to standard error only when FREEDML_DEBUG=1.
void AppendCudaAdapters(std::vector<std::unique_ptr<Adapter>>* adapters, LUID (*makeLuid)(LONG high));

// Why the last AppendCudaAdapters found no CUDA adapter ("" when it found some).
const std::string& CudaUnavailableReason();

}  // namespace freedml::backend::cuda
