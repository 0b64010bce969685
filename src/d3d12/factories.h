// How the device creates the objects that live in other files of this library. The device
// validates nothing that these functions validate themselves. Enums come by const reference: they
// are the application's values, read as integers until validated (enum_value.h), and passing them
// by value would load an out-of-range value as the enum type.
#pragma once

#include "d3d12/internal.h"

namespace freedml::d3d12 {

HRESULT CreateCommandQueue(DeviceInternal& device, const D3D12_COMMAND_QUEUE_DESC* desc, REFIID riid, void** object);
HRESULT CreateCommandAllocator(DeviceInternal& device, const D3D12_COMMAND_LIST_TYPE& type, REFIID riid, void** object);
HRESULT CreateCommandList(DeviceInternal& device, UINT nodeMask, const D3D12_COMMAND_LIST_TYPE& type,
                          ID3D12CommandAllocator* allocator, ID3D12PipelineState* initialState, REFIID riid,
                          void** object);
// ID3D12Device4::CreateCommandList1: created closed, with no allocator.
HRESULT CreateCommandList1(DeviceInternal& device, UINT nodeMask, const D3D12_COMMAND_LIST_TYPE& type,
                           const D3D12_COMMAND_LIST_FLAGS& flags, REFIID riid, void** object);
HRESULT CreateFence(DeviceInternal& device, UINT64 initialValue, const D3D12_FENCE_FLAGS& flags, REFIID riid,
                    void** object);

// Logs, once per process and method, that a method outside the compute subset was called, and
// returns E_NOTIMPL. `device` may be null (the message then goes to the callback and stderr only).
HRESULT ReportUnsupported(DeviceInternal* device, const char* method);

}  // namespace freedml::d3d12
