// How the device creates the objects that live in other files of this library. The device
// validates nothing that these functions validate themselves.
#pragma once

#include "d3d12/internal.h"

namespace freedml::d3d12 {

HRESULT CreateCommandQueue(DeviceInternal& device, const D3D12_COMMAND_QUEUE_DESC* desc, REFIID riid, void** object);
HRESULT CreateCommandAllocator(DeviceInternal& device, D3D12_COMMAND_LIST_TYPE type, REFIID riid, void** object);
HRESULT CreateCommandList(DeviceInternal& device, UINT nodeMask, D3D12_COMMAND_LIST_TYPE type,
                          ID3D12CommandAllocator* allocator, ID3D12PipelineState* initialState, REFIID riid,
                          void** object);
// ID3D12Device4::CreateCommandList1: created closed, with no allocator.
HRESULT CreateCommandList1(DeviceInternal& device, UINT nodeMask, D3D12_COMMAND_LIST_TYPE type,
                           D3D12_COMMAND_LIST_FLAGS flags, REFIID riid, void** object);
HRESULT CreateFence(DeviceInternal& device, UINT64 initialValue, D3D12_FENCE_FLAGS flags, REFIID riid, void** object);

// Logs, once per process and method, that a method outside the compute subset was called, and
// returns E_NOTIMPL. `device` may be null (the message then goes to the callback and stderr only).
HRESULT ReportUnsupported(DeviceInternal* device, const char* method);

}  // namespace freedml::d3d12
