// ID3D12CommandQueue. Each queue has ONE worker thread that runs its submissions (command lists,
// fence signals, fence waits) in submission order over one backend::Stream; methods return at
// once, and fences are how the application learns that work finished.
//
// Inline submissions: on a stream whose work completes on the calling thread (the CPU backend),
// a submission made while the queue is idle (nothing pending, nothing running, no Wait blocking
// it) runs on the submitting thread before ExecuteCommandLists or Signal returns, as the worker
// would have run it next. That saves the two thread wake-ups of a submit-and-wait (tens of
// microseconds on a busy machine), and it keeps every ordering the worker keeps: work submitted
// from other threads meanwhile queues behind it, a queue blocked in a Wait runs nothing inline,
// and fences move only when the work before them has finished. FREEDML_CPU_QUEUE_INLINE=0 (read
// when the queue is made) sends everything through the worker.
//
// Lifetime: releasing the last reference waits for all submitted work to finish (the worker is
// joined). If the queue is then blocked in a Wait for a fence that nothing will signal, the wait
// is abandoned and the work after it is dropped, with a warning, rather than hanging the release.
//
// Device removal: once the device is removed, the queue runs no further command; its pending
// signals set their fences to UINT64_MAX (what every fence of a removed device reads), so that
// nothing waits forever. A failure of the queue's work on the device (a CUDA error: a kernel
// launch, cuBLASLt, cuDNN or the stream itself) removes the device with
// DXGI_ERROR_DRIVER_INTERNAL_ERROR, reported through the stream's failure handler.
//
// Timestamps: GetTimestampFrequency is 1 GHz; GPU and CPU timestamps are both CLOCK_MONOTONIC in
// nanoseconds (on Linux there is no QueryPerformanceCounter to calibrate against).
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "common/com_object.h"
#include "d3d12/internal.h"

namespace freedml::d3d12 {

class CommandAllocator;
class CommandList;
class Fence;
struct Recording;

class CommandQueue final
    : public NamedComObject<CommandQueue, ID3D12CommandQueue, ID3D12Pageable, ID3D12DeviceChild, ID3D12Object> {
public:
    CommandQueue(DeviceInternal& device, const D3D12_COMMAND_QUEUE_DESC& desc);
    ~CommandQueue() override;

    HRESULT STDMETHODCALLTYPE GetDevice(REFIID riid, void** device) override;
    void STDMETHODCALLTYPE UpdateTileMappings(ID3D12Resource*, UINT, const D3D12_TILED_RESOURCE_COORDINATE*,
                                              const D3D12_TILE_REGION_SIZE*, ID3D12Heap*, UINT,
                                              const D3D12_TILE_RANGE_FLAGS*, const UINT*, const UINT*,
                                              D3D12_TILE_MAPPING_FLAGS) override;
    void STDMETHODCALLTYPE CopyTileMappings(ID3D12Resource*, const D3D12_TILED_RESOURCE_COORDINATE*, ID3D12Resource*,
                                            const D3D12_TILED_RESOURCE_COORDINATE*, const D3D12_TILE_REGION_SIZE*,
                                            D3D12_TILE_MAPPING_FLAGS) override;
    void STDMETHODCALLTYPE ExecuteCommandLists(UINT numLists, ID3D12CommandList* const* lists) override;
    void STDMETHODCALLTYPE SetMarker(UINT, const void*, UINT) override {}
    void STDMETHODCALLTYPE BeginEvent(UINT, const void*, UINT) override {}
    void STDMETHODCALLTYPE EndEvent() override {}
    HRESULT STDMETHODCALLTYPE Signal(ID3D12Fence* fence, UINT64 value) override;
    HRESULT STDMETHODCALLTYPE Wait(ID3D12Fence* fence, UINT64 value) override;
    HRESULT STDMETHODCALLTYPE GetTimestampFrequency(UINT64* frequency) override;
    HRESULT STDMETHODCALLTYPE GetClockCalibration(UINT64* gpuTimestamp, UINT64* cpuTimestamp) override;
    D3D12_COMMAND_QUEUE_DESC STDMETHODCALLTYPE GetDesc() override {
        FREEDML_TRACE_D3D12("ID3D12CommandQueue::GetDesc", this);
        return desc_;
    }

    std::string Describe() const;

private:
    struct ListRun {
        CommandList* list;            // holds a reference
        CommandAllocator* allocator;  // holds a reference; nullptr for a list never recorded
        std::shared_ptr<Recording> recording;
    };
    struct Submission {
        enum class Kind { Execute, Signal, Wait } kind;
        std::vector<ListRun> lists;  // Execute
        Fence* fence = nullptr;      // Signal, Wait: holds a reference
        UINT64 value = 0;
    };
    // What the worker and fence waiters share; fence waiters may outlive the queue.
    struct Shared {
        std::mutex mutex;
        std::condition_variable wake;
        std::deque<Submission> pending;
        bool stopping = false;
        bool workerActive = false;  // the worker holds a submission, or work not yet retired
        bool inlineActive = false;  // a submitting thread runs a submission inline
    };

    Fence* ValidateFence(ID3D12Fence* fence, const char* method);
    // Signal and Wait: validate the fence, then queue `kind` with a reference to it.
    HRESULT QueueFenceOperation(Submission::Kind kind, const char* method, const char* shortName, ID3D12Fence* fence,
                                UINT64 value);
    // Queues `submission`; if that throws (out of memory), `submission` is left as it was.
    void Push(Submission&& submission);
    // Inline submissions: TryBeginInline claims the idle queue for the calling thread (false when
    // inline runs are off, or work is pending or running); EndInline gives it back and wakes the
    // worker for what was queued meanwhile.
    bool TryBeginInline();
    void EndInline();
    // Runs the lists of one ExecuteCommandLists on the calling thread (the queue is claimed).
    void RunInline(CommandList* const* lists, size_t count);
    void Run();
    void RunExecute(Submission& submission);
    // Runs one list's commands; false when the device was removed (nothing more may run).
    bool RunRecording(const Recording& recording, ExecutionContext& context);
    void RunWait(Submission& submission);
    // Called from a catch block of the worker or of an inline run: removes the device with the
    // exception's HRESULT; a Signal's fence is set to UINT64_MAX.
    void RemoveAfterException(Submission::Kind kind, Fence* fence) noexcept;
    // Waits for the stream, then releases what the retired submissions held: their lists count as
    // executing, and their resources stay alive, until the backend has finished with them.
    void RetireAll();
    static void ReleaseSubmission(Submission& submission);
    bool Removed() const { return device_.RemovedReason() != S_OK; }
    // The backend stream's failure handler (called on the worker thread).
    void OnStreamFailure(const std::string& text);

    DeviceInternal& device_;
    Ref<ID3D12Device> holdDevice_;  // a queue keeps its device alive (destroyed last)
    const D3D12_COMMAND_QUEUE_DESC desc_;
    std::unique_ptr<backend::Stream> stream_;
    const bool inlineAllowed_;  // the stream completes work on the calling thread, and inline runs are on
    std::shared_ptr<Shared> shared_;
    bool abandoned_ = false;              // worker only
    std::vector<Submission> retired_;     // worker only: run, not yet known finished
    std::thread worker_;
};

}  // namespace freedml::d3d12
