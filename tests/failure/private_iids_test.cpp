// The private interface IDs (src/common/private_iids.h) against the public ones FreeDML's objects
// answer to: a private IID equal to a public one would hand an application an internal pointer.
// (That the private ones differ from each other is a static_assert in the header.)
#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <directx/dxcore.h>
#include <dxguids/dxguids.h>
#include <DirectML.h>

#include <gtest/gtest.h>

#include <cstring>

#include "common/private_iids.h"

namespace freedml_test {
namespace {

TEST(PrivateIids, NoneEqualsAPublicInterfaceId) {
    const GUID publicIids[] = {
        __uuidof(IUnknown), __uuidof(ID3D12Object), __uuidof(ID3D12DeviceChild), __uuidof(ID3D12Pageable),
        __uuidof(ID3D12Device), __uuidof(ID3D12Device1), __uuidof(ID3D12Device2), __uuidof(ID3D12Device3),
        __uuidof(ID3D12Device4), __uuidof(ID3D12Device5), __uuidof(ID3D12Device6), __uuidof(ID3D12Device7),
        __uuidof(ID3D12Device8), __uuidof(ID3D12Device9), __uuidof(ID3D12Heap), __uuidof(ID3D12Heap1),
        __uuidof(ID3D12Resource), __uuidof(ID3D12Resource1), __uuidof(ID3D12Resource2), __uuidof(ID3D12Fence),
        __uuidof(ID3D12Fence1), __uuidof(ID3D12DescriptorHeap), __uuidof(ID3D12CommandAllocator),
        __uuidof(ID3D12CommandList), __uuidof(ID3D12GraphicsCommandList), __uuidof(ID3D12GraphicsCommandList1),
        __uuidof(ID3D12CommandQueue), __uuidof(ID3D12InfoQueue), __uuidof(ID3D12Debug), __uuidof(IDXCoreAdapter),
        __uuidof(IDXCoreAdapterList), __uuidof(IDXCoreAdapterFactory), __uuidof(IDMLObject), __uuidof(IDMLDevice),
        __uuidof(IDMLDevice1), __uuidof(IDMLDeviceChild), __uuidof(IDMLPageable), __uuidof(IDMLOperator),
        __uuidof(IDMLDispatchable), __uuidof(IDMLCompiledOperator), __uuidof(IDMLOperatorInitializer),
        __uuidof(IDMLBindingTable), __uuidof(IDMLCommandRecorder), __uuidof(IDMLDebugDevice),
    };
    for (const GUID& mine : freedml::kPrivateIids) {
        for (const GUID& theirs : publicIids) EXPECT_NE(std::memcmp(&mine, &theirs, sizeof(GUID)), 0);
    }
}

}  // namespace
}  // namespace freedml_test
