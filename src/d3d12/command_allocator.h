// ID3D12CommandAllocator. FreeDML's command lists own the commands they record (shared with the
// queue while it runs them), so the allocator holds no memory; it keeps D3D12's rules: one list
// records on it at a time, and Reset waits until nothing recorded on it may still execute.
#pragma once

#include <atomic>

#include "common/com_object.h"
#include "common/private_iids.h"
#include "d3d12/internal.h"

namespace freedml::d3d12 {

class CommandList;

class CommandAllocator final
    : public NamedComObject<CommandAllocator, ID3D12CommandAllocator, ID3D12Pageable, ID3D12DeviceChild, ID3D12Object> {
public:
    CommandAllocator(DeviceInternal& device, D3D12_COMMAND_LIST_TYPE type);

    static CommandAllocator* FromPublic(ID3D12CommandAllocator* allocator);

    HRESULT STDMETHODCALLTYPE GetDevice(REFIID riid, void** device) override;
    HRESULT STDMETHODCALLTYPE Reset() override;

    void* QueryExtraInterface(REFIID riid);

    DeviceInternal& Device() { return device_; }
    D3D12_COMMAND_LIST_TYPE Type() const { return type_; }
    std::string Describe() const;

    // The list recording on this allocator (nullptr when none). One list at a time claims it.
    CommandList* RecordingList() const { return recording_.load(); }
    bool ClaimForRecording(CommandList* list) {
        CommandList* none = nullptr;
        return recording_.compare_exchange_strong(none, list);
    }
    void EndRecording(CommandList* list) {
        CommandList* expected = list;
        recording_.compare_exchange_strong(expected, nullptr);
    }
    // Reset() counts up; a list remembers the generation it recorded in, and a list recorded
    // before the last Reset cannot be executed.
    uint64_t Generation() const { return generation_.load(); }
    // Executions of lists recorded here that a queue has not finished.
    void BeginExecution() { ++inFlight_; }
    void EndExecution() { --inFlight_; }

private:
    DeviceInternal& device_;
    Ref<ID3D12Device> holdDevice_;  // an allocator keeps its device alive
    const D3D12_COMMAND_LIST_TYPE type_;
    std::atomic<CommandList*> recording_{nullptr};
    std::atomic<uint64_t> generation_{1};
    std::atomic<int> inFlight_{0};
};

}  // namespace freedml::d3d12
