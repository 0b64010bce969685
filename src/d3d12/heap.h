// ID3D12Heap: one allocation of backend memory. Committed resources get an implicit heap of their
// own (never handed to the application), so every resource lives on a Heap.
#pragma once

#include <memory>

#include "backend/backend.h"
#include "common/com_object.h"

namespace freedml::d3d12 {

class Device;

// Checks heap properties and flags; `where` names the call for messages. `uma`: the adapter's
// memory is the host's (D3D12_FEATURE_ARCHITECTURE's UMA), which decides the CUSTOM heaps it takes.
// Sets *pool to where the bytes live.
Status ValidateHeapProperties(const D3D12_HEAP_PROPERTIES* properties, const D3D12_HEAP_FLAGS& flags, const char* where,
                              bool uma, backend::MemoryPool* pool);
// CreateHeap's description: properties, flags, size and alignment.
Status ValidateHeapDesc(const D3D12_HEAP_DESC* desc, bool uma, backend::MemoryPool* pool);
// GetCustomHeapProperties: the CUSTOM equivalent of a DEFAULT, UPLOAD or READBACK heap on a UMA or
// a discrete (NUMA) adapter. False for any other type.
bool CustomEquivalent(const D3D12_HEAP_TYPE& type, bool uma, D3D12_HEAP_PROPERTIES* properties);
// Whether the CPU may Map resources on a heap with these properties.
bool HeapIsMappable(const D3D12_HEAP_PROPERTIES& properties);
const char* HeapTypeName(const D3D12_HEAP_TYPE& type);

class Heap final : public NamedComObject<Heap, ID3D12Heap1, ID3D12Heap, ID3D12Pageable, ID3D12DeviceChild, ID3D12Object> {
public:
    // Allocates the heap's memory. `desc` must have passed ValidateHeapDesc.
    static Status Create(Device* device, const D3D12_HEAP_DESC& desc, backend::MemoryPool pool, bool implicit,
                         Heap** heap);

    // Our Heap behind a public pointer, or nullptr when it is not a FreeDML heap (borrowed).
    static Heap* FromPublic(ID3D12Heap* heap);
    void* QueryExtraInterface(REFIID riid);

    // ID3D12DeviceChild
    HRESULT STDMETHODCALLTYPE GetDevice(REFIID riid, void** device) override;
    // ID3D12Heap, ID3D12Heap1
    D3D12_HEAP_DESC STDMETHODCALLTYPE GetDesc() override {
        FREEDML_TRACE_D3D12("ID3D12Heap::GetDesc", this);
        return desc_;
    }
    HRESULT STDMETHODCALLTYPE GetProtectedResourceSession(REFIID riid, void** session) override;

    const D3D12_HEAP_DESC& Desc() const { return desc_; }
    backend::Memory& Memory() { return *memory_; }
    uint64_t Id() const { return id_; }
    bool Implicit() const { return implicit_; }
    Device* Owner() const { return device_.Get(); }

private:
    Heap(Device* device, const D3D12_HEAP_DESC& desc, std::unique_ptr<backend::Memory> memory, bool implicit);
    ~Heap() override;

    Ref<Device> device_;  // a heap keeps its device alive
    D3D12_HEAP_DESC desc_;
    std::unique_ptr<backend::Memory> memory_;
    uint64_t id_;
    bool implicit_;
};

}  // namespace freedml::d3d12
