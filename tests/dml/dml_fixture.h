// A test fixture that stands up the whole stack through the public APIs only, as an application
// would: a D3D12 device, queue, allocator, command list and fence, a shader-visible descriptor
// heap, and a DirectML device; plus helpers to move bytes in and out of DEFAULT buffers and to
// initialize and dispatch operators. Messages are captured with FreeDMLSetMessageCallback.
#pragma once

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3dx12.h>
#include <dxguids/dxguids.h>
#include <DirectML.h>
#include <freedml/freedml.h>
#include <freedml/helpers.h>
#include <wrl/client.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace freedml_test {

using Microsoft::WRL::ComPtr;

// Distance between two floats in units in the last place (the same sign handling as the conformance
// runner: -0 and +0 are 0 apart).
inline int64_t UlpDistance(float a, float b) {
    auto ordered = [](float f) {
        int32_t bits;
        std::memcpy(&bits, &f, 4);
        return bits < 0 ? -int64_t(bits & 0x7FFFFFFF) : int64_t(bits);
    };
    return std::llabs(ordered(a) - ordered(b));
}

// The FLOAT16 bits of `value`, which must be exactly representable and normal (or zero).
inline uint16_t ExactHalf(double value) {
    if (value == 0) return std::signbit(value) ? 0x8000 : 0;
    int exponent;
    const double fraction = std::frexp(std::fabs(value), &exponent);  // value = fraction * 2^exponent, in [0.5, 1)
    const uint16_t mantissa = uint16_t(std::lround(fraction * 2048.0)) & 0x3FF;
    return uint16_t((value < 0 ? 0x8000 : 0) | ((exponent + 14) << 10) | mantissa);
}

// The value of FLOAT16 bits (subnormals included).
inline double HalfValue(uint16_t h) {
    const int exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
    const double magnitude = exponent ? std::ldexp(1024 + mantissa, exponent - 25) : std::ldexp(mantissa, -24);
    return (h & 0x8000) ? -magnitude : magnitude;
}

// DML_BUFFER_TENSOR_DESC with its arrays, kept alive together.
struct Tensor {
    std::vector<UINT> sizes;
    std::vector<UINT> strides;
    DML_BUFFER_TENSOR_DESC buffer{};
    DML_TENSOR_DESC desc{};

    Tensor(DML_TENSOR_DATA_TYPE type, std::vector<UINT> s, std::vector<UINT> st = {},
           DML_TENSOR_FLAGS flags = DML_TENSOR_FLAG_NONE)
        : sizes(std::move(s)), strides(std::move(st)) {
        buffer.DataType = type;
        buffer.Flags = flags;
        buffer.DimensionCount = static_cast<UINT>(sizes.size());
        buffer.Sizes = sizes.data();
        buffer.Strides = strides.empty() ? nullptr : strides.data();
        buffer.TotalTensorSizeInBytes =
            DMLCalcBufferTensorSize(type, buffer.DimensionCount, sizes.data(), buffer.Strides);
        desc = {DML_TENSOR_TYPE_BUFFER, &buffer};
    }
    Tensor(const Tensor&) = delete;
    Tensor& operator=(const Tensor&) = delete;
    UINT64 Bytes() const { return buffer.TotalTensorSizeInBytes; }
};

inline DML_BINDING_DESC BufferBinding(DML_BUFFER_BINDING* binding) { return {DML_BINDING_TYPE_BUFFER, binding}; }
inline DML_BINDING_DESC NoBinding() { return {DML_BINDING_TYPE_NONE, nullptr}; }

class DmlTest : public ::testing::Test {
protected:
    // The adapter the device is made on: null for D3D12CreateDevice's default.
    virtual IUnknown* Adapter() { return nullptr; }

    void SetUp() override;
    void TearDown() override;

    // Messages reported since the last ClearMessages, joined by newlines.
    std::string Messages();
    void ClearMessages();
    // CreateOperator refuses `desc` with E_INVALIDARG and a message that contains `words`.
    void Refused(DML_OPERATOR_TYPE type, const void* desc, const char* words);
    // CreateOperator accepts `desc`.
    void Accepted(DML_OPERATOR_TYPE type, const void* desc);
    bool DeviceRemoved() { return d3d->GetDeviceRemovedReason() != S_OK; }

    ComPtr<ID3D12Resource> Buffer(UINT64 size, D3D12_HEAP_TYPE heap = D3D12_HEAP_TYPE_DEFAULT,
                                  const wchar_t* name = nullptr);
    // Copies `bytes` into a DEFAULT (or any) buffer at `offset` through an upload buffer and the queue.
    void Upload(ID3D12Resource* destination, const void* bytes, UINT64 size, UINT64 offset = 0);
    template <class T>
    void Upload(ID3D12Resource* destination, const std::vector<T>& values, UINT64 offset = 0) {
        Upload(destination, values.data(), values.size() * sizeof(T), offset);
    }
    std::vector<unsigned char> Readback(ID3D12Resource* source, UINT64 size, UINT64 offset = 0);
    template <class T>
    std::vector<T> ReadbackAs(ID3D12Resource* source, size_t count, UINT64 offset = 0) {
        auto bytes = Readback(source, count * sizeof(T), offset);
        std::vector<T> values(count);
        std::memcpy(values.data(), bytes.data(), count * sizeof(T));
        return values;
    }

    // Closes the command list, executes it, waits for the fence, and reopens the list.
    void ExecuteAndWait();

    ComPtr<IDMLCompiledOperator> Compile(DML_OPERATOR_TYPE type, const void* desc,
                                         DML_EXECUTION_FLAGS flags = DML_EXECUTION_FLAG_NONE);
    // A binding table for `dispatchable` at descriptor index `firstDescriptor` of the heap.
    ComPtr<IDMLBindingTable> Table(IDMLDispatchable* dispatchable, UINT firstDescriptor = 0);
    // Records a dispatch on the open command list (after SetDescriptorHeaps).
    void Record(IDMLDispatchable* dispatchable, IDMLBindingTable* table);
    // Initializes `op`: `ownedInputs` is the BUFFER_ARRAY for it (empty: no owned inputs), the
    // persistent resource is made here when needed and returned.
    ComPtr<ID3D12Resource> Initialize(IDMLCompiledOperator* op, std::vector<DML_BUFFER_BINDING> ownedInputs = {});

    // The usual execution: binds, records, executes, waits. Temporary resource made when needed.
    void Dispatch(IDMLCompiledOperator* op, std::vector<DML_BINDING_DESC> inputs, std::vector<DML_BINDING_DESC> outputs,
                  ID3D12Resource* persistent = nullptr);

    ComPtr<ID3D12Device> d3d;
    ComPtr<ID3D12CommandQueue> queue;
    ComPtr<ID3D12CommandAllocator> allocator;
    ComPtr<ID3D12GraphicsCommandList> list;
    ComPtr<ID3D12Fence> fence;
    UINT64 fenceValue = 0;
    ComPtr<ID3D12DescriptorHeap> heap;
    static constexpr UINT kHeapSize = 4096;
    ComPtr<IDMLDevice> dml;
    ComPtr<IDMLCommandRecorder> recorder;
    UINT descriptorSize = 0;

private:
    static void Capture(FREEDML_MESSAGE_SEVERITY severity, const char* source, const char* text, void* context);
    std::mutex mutex_;
    std::vector<std::string> messages_;
};

}  // namespace freedml_test
