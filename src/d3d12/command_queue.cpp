#include "d3d12/command_queue.h"

#include <time.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

#include "common/trace.h"
#include "d3d12/command_allocator.h"
#include "d3d12/command_list.h"
#include "d3d12/commands.h"
#include "d3d12/enum_value.h"
#include "d3d12/factories.h"
#include "d3d12/fence.h"

namespace freedml::d3d12 {

namespace {

Status ValidateQueueDesc(const D3D12_COMMAND_QUEUE_DESC* desc) {
    INVALID_IF(!desc, "pDesc is null.");
    FREEDML_TRY(ValidateListType(desc->Type));
    INVALID_IF(Raw(desc->Type) == D3D12_COMMAND_LIST_TYPE_BUNDLE, "Type is BUNDLE; bundles are not run by queues.");
    INVALID_IF(desc->Priority != D3D12_COMMAND_QUEUE_PRIORITY_NORMAL &&
                   desc->Priority != D3D12_COMMAND_QUEUE_PRIORITY_HIGH &&
                   desc->Priority != D3D12_COMMAND_QUEUE_PRIORITY_GLOBAL_REALTIME,
               "Priority (%d) is not NORMAL (0), HIGH (100) or GLOBAL_REALTIME (10000).", desc->Priority);
    INVALID_IF(Raw(desc->Flags) & ~D3D12_COMMAND_QUEUE_FLAG_DISABLE_GPU_TIMEOUT,
               "Flags (0x%x) has bits that are not D3D12_COMMAND_QUEUE_FLAGS.", static_cast<unsigned>(Raw(desc->Flags)));
    INVALID_IF(desc->NodeMask > 1, "NodeMask (0x%x) names a node that does not exist; FreeDML devices have one node.",
               desc->NodeMask);
    return {};
}

// FREEDML_CPU_QUEUE_INLINE=0 keeps every submission on the queue's worker (command_queue.h).
bool InlineRunsEnabled() {
    const char* value = std::getenv("FREEDML_CPU_QUEUE_INLINE");
    return !(value && std::strcmp(value, "0") == 0);
}

UINT64 MonotonicNanoseconds() {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<UINT64>(now.tv_sec) * 1000000000ull + static_cast<UINT64>(now.tv_nsec);
}

}  // namespace

CommandQueue::CommandQueue(DeviceInternal& device, const D3D12_COMMAND_QUEUE_DESC& desc)
    : device_(device),
      holdDevice_(Ref<ID3D12Device>::Share(device.PublicDevice())),
      desc_(desc),
      stream_(device.Backend().CreateStream([this](const std::string& text) { OnStreamFailure(text); })),
      inlineAllowed_(stream_->CompletesOnReturn() && InlineRunsEnabled()),
      shared_(std::make_shared<Shared>()) {
    worker_ = std::thread([this] { Run(); });
}

CommandQueue::~CommandQueue() {
    {
        std::lock_guard lock(shared_->mutex);
        shared_->stopping = true;
    }
    shared_->wake.notify_all();
    worker_.join();
    stream_.reset();
}

HRESULT CommandQueue::GetDevice(REFIID riid, void** device) {
    FREEDML_TRACE_D3D12("ID3D12CommandQueue::GetDevice", this, riid, device);
    if (!device) return E_POINTER;
    return device_.PublicDevice()->QueryInterface(riid, device);
}

std::string CommandQueue::Describe() const {
    return Format("%s (%s)", NamedObject("command queue", Name()).c_str(), ListTypeName(desc_.Type));
}

void CommandQueue::UpdateTileMappings(ID3D12Resource*, UINT, const D3D12_TILED_RESOURCE_COORDINATE*,
                                      const D3D12_TILE_REGION_SIZE*, ID3D12Heap*, UINT, const D3D12_TILE_RANGE_FLAGS*,
                                      const UINT*, const UINT*, D3D12_TILE_MAPPING_FLAGS) {
    FREEDML_TRACE_D3D12("ID3D12CommandQueue::UpdateTileMappings", this);
    ReportUnsupported(&device_, "ID3D12CommandQueue::UpdateTileMappings");
}

void CommandQueue::CopyTileMappings(ID3D12Resource*, const D3D12_TILED_RESOURCE_COORDINATE*, ID3D12Resource*,
                                    const D3D12_TILED_RESOURCE_COORDINATE*, const D3D12_TILE_REGION_SIZE*,
                                    D3D12_TILE_MAPPING_FLAGS) {
    FREEDML_TRACE_D3D12("ID3D12CommandQueue::CopyTileMappings", this);
    ReportUnsupported(&device_, "ID3D12CommandQueue::CopyTileMappings");
}

void CommandQueue::ExecuteCommandLists(UINT numLists, ID3D12CommandList* const* lists) {
    FREEDML_TRACE_D3D12("ID3D12CommandQueue::ExecuteCommandLists", this, numLists, FREEDML_TRACE_LIST(lists, numLists));
    GuardedOrRemove(device_, "ID3D12CommandQueue::ExecuteCommandLists", [&] {
        // Like D3D12's runtime: a bad call is dropped whole; the two errors that mean the application
        // lost track of execution (a list still running, an allocator reset under a closed list) also
        // remove the device.
        auto drop = [&](const std::string& text, bool remove) {
            std::string message = Format("ID3D12CommandQueue::ExecuteCommandLists on %s: %s The call is dropped%s.",
                                         Describe().c_str(), text.c_str(), remove ? " and the device is removed" : "");
            if (remove) {
                device_.RemoveDevice(DXGI_ERROR_INVALID_CALL, message);
            } else {
                device_.Report(D3D12_MESSAGE_SEVERITY_ERROR, D3D12_MESSAGE_CATEGORY_EXECUTION, message);
            }
        };
        if (numLists == 0) return;
        if (!lists) return drop(Format("ppCommandLists is null with NumCommandLists %u.", numLists), false);
        // Most calls pass a list or two: their pointers stay on the stack.
        constexpr UINT kStackLists = 8;
        CommandList* stackImpls[kStackLists];
        std::vector<CommandList*> heapImpls;
        CommandList** impls = stackImpls;
        if (numLists > kStackLists) {
            heapImpls.resize(numLists);
            impls = heapImpls.data();
        }
        for (UINT i = 0; i < numLists; ++i) {
            CommandList* list = CommandList::FromPublic(lists[i]);
            if (!lists[i]) return drop(Format("ppCommandLists[%u] is null.", i), false);
            if (!list) return drop(Format("ppCommandLists[%u] is not a FreeDML command list.", i), false);
            if (&list->Device() != &device_) return drop(Format("ppCommandLists[%u] was created on another device.", i), false);
            if (list->Type() != desc_.Type) {
                return drop(Format("ppCommandLists[%u] (%s) is not of the queue's type %s.", i, list->Describe().c_str(),
                                   ListTypeName(desc_.Type)),
                            false);
            }
            if (list->IsOpen()) {
                return drop(Format("ppCommandLists[%u] (%s) is open; Close it before executing.", i,
                                   list->Describe().c_str()),
                            false);
            }
            if (list->CloseFailed()) {
                return drop(Format("ppCommandLists[%u] (%s) failed to Close (a recording error) and cannot be executed.",
                                   i, list->Describe().c_str()),
                            false);
            }
            CommandAllocator* allocator = list->Allocator();
            if (allocator && allocator->Generation() != list->AllocatorGeneration()) {
                return drop(Format("ppCommandLists[%u] (%s) was recorded on %s, which was reset after the list was "
                                   "closed; its commands are gone. Reset and record the list again.",
                                   i, list->Describe().c_str(), allocator->Describe().c_str()),
                            true);
            }
            impls[i] = list;
        }
        for (UINT i = 0; i < numLists; ++i) {
            if (impls[i]->TryBeginExecution()) continue;
            for (UINT k = 0; k < i; ++k) impls[k]->EndExecution();
            return drop(Format("ppCommandLists[%u] (%s) is still executing (or appears twice in this call); a command "
                               "list may be executed again only after its previous execution finished (wait on a "
                               "fence).",
                               i, impls[i]->Describe().c_str()),
                        true);
        }
        if (TryBeginInline()) return RunInline(impls, numLists);
        Submission submission{Submission::Kind::Execute, {}, nullptr, 0};
        try {
            submission.lists.reserve(numLists);
            for (UINT i = 0; i < numLists; ++i) {
                CommandList* list = impls[i];
                ListRun run{list, list->Allocator(), list->Recorded()};
                list->AddRef();
                if (run.allocator) {
                    run.allocator->AddRef();
                    run.allocator->BeginExecution();
                }
                submission.lists.push_back(std::move(run));
            }
            Push(std::move(submission));
        } catch (...) {
            // Nothing was queued (out of memory): give back what was taken, so that the lists can
            // be executed again, and let the guard answer.
            for (ListRun& run : submission.lists) {
                if (run.allocator) {
                    run.allocator->EndExecution();
                    run.allocator->Release();
                }
                run.list->Release();
            }
            for (UINT i = 0; i < numLists; ++i) impls[i]->EndExecution();
            throw;
        }
    });
}

bool CommandQueue::TryBeginInline() {
    if (!inlineAllowed_) return false;
    std::lock_guard lock(shared_->mutex);
    if (!shared_->pending.empty() || shared_->workerActive || shared_->inlineActive || shared_->stopping) return false;
    shared_->inlineActive = true;
    return true;
}

void CommandQueue::EndInline() {
    bool queued;
    {
        std::lock_guard lock(shared_->mutex);
        shared_->inlineActive = false;
        queued = !shared_->pending.empty();
    }
    if (queued) shared_->wake.notify_all();
}

void CommandQueue::RunInline(CommandList* const* lists, size_t count) {
    // The caller holds its lists until the call returns, and the run ends before that, so no
    // references are taken; the allocators count the execution as on the worker (Reset refuses
    // an allocator whose lists are executing).
    for (size_t i = 0; i < count; ++i) {
        if (CommandAllocator* allocator = lists[i]->Allocator()) allocator->BeginExecution();
    }
    try {
        if (!Removed()) {
            StateTrackingScope scope;  // one per ExecuteCommandLists: see commands.h
            ExecutionContext context{device_, *stream_, &scope};
            for (size_t i = 0; i < count; ++i) {
                const Recording* recording = lists[i]->RecordedNow();
                if (recording && !RunRecording(*recording, context)) break;
            }
        }
    } catch (...) {
        // As on the worker: an exception at execution time removes the device.
        RemoveAfterException(Submission::Kind::Execute, nullptr);
    }
    for (size_t i = 0; i < count; ++i) {
        if (CommandAllocator* allocator = lists[i]->Allocator()) allocator->EndExecution();
        lists[i]->EndExecution();
    }
    EndInline();
}

Fence* CommandQueue::ValidateFence(ID3D12Fence* fence, const char* method) {
    Fence* impl = Fence::FromPublic(fence);
    std::string problem;
    if (!fence) {
        problem = "pFence is null.";
    } else if (!impl) {
        problem = "pFence is not a FreeDML fence.";
    } else if (&impl->Device() != &device_) {
        problem = Format("pFence (%s) was created on another device; FreeDML fences are not shared across devices.",
                         impl->Describe().c_str());
    }
    if (problem.empty()) return impl;
    Fail(device_, Error(E_INVALIDARG, "ID3D12CommandQueue::%s on %s: %s", method, Describe().c_str(), problem.c_str()),
         D3D12_MESSAGE_CATEGORY_EXECUTION);
    return nullptr;
}

HRESULT CommandQueue::Signal(ID3D12Fence* fence, UINT64 value) {
    FREEDML_TRACE_D3D12("ID3D12CommandQueue::Signal", this, fence, value);
    return QueueFenceOperation(Submission::Kind::Signal, "ID3D12CommandQueue::Signal", "Signal", fence, value);
}

HRESULT CommandQueue::Wait(ID3D12Fence* fence, UINT64 value) {
    FREEDML_TRACE_D3D12("ID3D12CommandQueue::Wait", this, fence, value);
    return QueueFenceOperation(Submission::Kind::Wait, "ID3D12CommandQueue::Wait", "Wait", fence, value);
}

HRESULT CommandQueue::QueueFenceOperation(Submission::Kind kind, const char* method, const char* shortName,
                                          ID3D12Fence* fence, UINT64 value) {
    return Guarded(device_, method, [&]() -> HRESULT {
        Fence* impl = ValidateFence(fence, shortName);
        if (!impl) return E_INVALIDARG;
        if (Removed()) return DXGI_ERROR_DEVICE_REMOVED;
        // An idle queue signals at once (nothing before the signal is left to finish); a Wait for a
        // value the fence already has is nothing to do. Anything else goes to the worker.
        if (kind == Submission::Kind::Signal && TryBeginInline()) {
            struct End {
                CommandQueue* queue;
                ~End() { queue->EndInline(); }
            } end{this};
            impl->SignalFromQueue(Removed() ? UINT64_MAX : value);
            return S_OK;
        }
        if (kind == Submission::Kind::Wait && impl->GetCompletedValue() >= value && TryBeginInline()) {
            // Checked again with the queue claimed: the value may have changed meanwhile (a signal
            // may move it backwards).
            const bool reached = impl->GetCompletedValue() >= value;
            EndInline();
            if (reached) return S_OK;
        }
        impl->AddRef();
        Ref<Fence> held(impl);  // given back if queuing fails
        Push({kind, {}, impl, value});
        held.Detach();  // the worker releases it
        return S_OK;
    });
}

HRESULT CommandQueue::GetTimestampFrequency(UINT64* frequency) {
    FREEDML_TRACE_D3D12("ID3D12CommandQueue::GetTimestampFrequency", this, frequency);
    if (!frequency) return E_POINTER;
    *frequency = 1000000000ull;
    return S_OK;
}

HRESULT CommandQueue::GetClockCalibration(UINT64* gpuTimestamp, UINT64* cpuTimestamp) {
    FREEDML_TRACE_D3D12("ID3D12CommandQueue::GetClockCalibration", this, gpuTimestamp, cpuTimestamp);
    if (!gpuTimestamp || !cpuTimestamp) return E_POINTER;
    *gpuTimestamp = *cpuTimestamp = MonotonicNanoseconds();
    return S_OK;
}

void CommandQueue::Push(Submission&& submission) {
    {
        std::lock_guard lock(shared_->mutex);
        shared_->pending.push_back(std::move(submission));
    }
    shared_->wake.notify_all();
}

void CommandQueue::OnStreamFailure(const std::string& text) {
    // What D3D12 reports when the driver loses a device: the work cannot be trusted, and nothing
    // the application did wrong was caught by validation.
    device_.RemoveDevice(DXGI_ERROR_DRIVER_INTERNAL_ERROR,
                         Format("While running the work of %s on the device: %s", Describe().c_str(), text.c_str()));
}

// ---- The worker --------------------------------------------------------------------------------

void CommandQueue::Run() {
    std::unique_lock lock(shared_->mutex);
    for (;;) {
        if (shared_->pending.empty() || shared_->inlineActive) {
            if (!retired_.empty()) {
                // Idle: let what ran count as finished before the queue is free for inline runs.
                lock.unlock();
                try {
                    RetireAll();
                } catch (...) {
                    RemoveAfterException(Submission::Kind::Execute, nullptr);
                    for (Submission& submission : retired_) ReleaseSubmission(submission);
                    retired_.clear();
                }
                lock.lock();
                continue;
            }
            shared_->workerActive = false;
            if (shared_->stopping && shared_->pending.empty()) break;
            shared_->wake.wait(lock, [&] {
                return (!shared_->pending.empty() && !shared_->inlineActive) || shared_->stopping;
            });
            continue;
        }
        Submission submission = std::move(shared_->pending.front());
        shared_->pending.pop_front();
        shared_->workerActive = true;
        lock.unlock();
        bool retired = false;
        try {
            if (!abandoned_) {
                switch (submission.kind) {
                    case Submission::Kind::Execute: RunExecute(submission); break;
                    case Submission::Kind::Signal:
                        RetireAll();
                        submission.fence->SignalFromQueue(Removed() ? UINT64_MAX : submission.value);
                        break;
                    case Submission::Kind::Wait: RunWait(submission); break;
                }
            }
            retired_.push_back(std::move(submission));
            retired = true;
        } catch (...) {
            // Nobody can be handed an HRESULT at execution time: a C++ exception from a command or a
            // kernel (no memory for scratch, a oneDNN error) removes the device, as a GPU fault
            // does. The rest of the work is skipped and every fence reads UINT64_MAX.
            RemoveAfterException(submission.kind, submission.fence);
            if (!retired) {
                try {
                    stream_->Finish();
                } catch (...) {  // the device is removed already
                }
                ReleaseSubmission(submission);
            }
        }
        lock.lock();
    }
}

void CommandQueue::RemoveAfterException(Submission::Kind kind, Fence* fence) noexcept {
    ExceptionFailure failure = CurrentExceptionFailure();
    const char* work = kind == Submission::Kind::Execute  ? "the work of ExecuteCommandLists"
                       : kind == Submission::Kind::Signal ? "a Signal"
                                                          : "a Wait";
    const HRESULT reason = RemovalReason(failure);
    try {
        device_.RemoveDevice(reason, Format("%s while %s ran on %s (a C++ exception at execution time).",
                                            failure.what, work, Describe().c_str()));
    } catch (...) {
        try {
            device_.RemoveDevice(reason, std::string());  // no memory for the whole message
        } catch (...) {  // the reason is set before any message is built
        }
    }
    if (kind == Submission::Kind::Signal && fence) fence->SignalFromQueue(UINT64_MAX);
}

bool CommandQueue::RunRecording(const Recording& recording, ExecutionContext& context) {
    for (const auto& command : recording.commands) {
        if (Removed()) return false;  // a removed device runs nothing more
        command->Execute(context);
    }
    return true;
}

void CommandQueue::RunExecute(Submission& submission) {
    if (Removed()) return;
    StateTrackingScope scope;  // one per ExecuteCommandLists: see commands.h
    ExecutionContext context{device_, *stream_, &scope};
    for (ListRun& run : submission.lists) {
        if (run.recording && !RunRecording(*run.recording, context)) return;
    }
}

void CommandQueue::RunWait(Submission& submission) {
    Fence* fence = submission.fence;
    const UINT64 value = submission.value;
    if (fence->GetCompletedValue() >= value) return;
    RetireAll();  // the wait may be long; let what ran so far count as finished
    std::shared_ptr<Shared> shared = shared_;
    fence->AddWaiter(value, [shared] {
        std::lock_guard lock(shared->mutex);
        shared->wake.notify_all();
    });
    std::unique_lock lock(shared_->mutex);
    // GetCompletedValue reads UINT64_MAX once the device is removed, which ends the wait too.
    while (fence->GetCompletedValue() < value) {
        if (shared_->stopping) {
            size_t dropped = shared_->pending.size();
            abandoned_ = true;
            lock.unlock();
            device_.Report(D3D12_MESSAGE_SEVERITY_WARNING, D3D12_MESSAGE_CATEGORY_EXECUTION,
                           Format("ID3D12CommandQueue::Release: %s was released while waiting for %s to reach %llu; "
                                  "the wait is abandoned and the %zu submissions after it are dropped.",
                                  Describe().c_str(), fence->Describe().c_str(),
                                  static_cast<unsigned long long>(value), dropped));
            return;
        }
        shared_->wake.wait_for(lock, std::chrono::milliseconds(50));
    }
}

void CommandQueue::RetireAll() {
    if (retired_.empty()) return;
    stream_->Finish();
    for (Submission& submission : retired_) ReleaseSubmission(submission);
    retired_.clear();
}

void CommandQueue::ReleaseSubmission(Submission& submission) {
    for (ListRun& run : submission.lists) {
        if (run.recording) run.recording->executing.store(false);  // the list may have a newer one by now
        run.recording.reset();
        run.list->Release();
        if (run.allocator) {
            run.allocator->EndExecution();
            run.allocator->Release();
        }
    }
    submission.lists.clear();
    if (submission.fence) submission.fence->Release();
    submission.fence = nullptr;
}

// ---- Creation ----------------------------------------------------------------------------------

HRESULT CreateCommandQueue(DeviceInternal& device, const D3D12_COMMAND_QUEUE_DESC* desc, REFIID riid, void** object) {
    Status status = ValidateQueueDesc(desc);
    if (!status.ok()) {
        return Fail(device, status.AddContext("calling ID3D12Device::CreateCommandQueue"),
                    D3D12_MESSAGE_CATEGORY_STATE_CREATION);
    }
    if (!IsSupportedListType(desc->Type)) {
        return ReportUnsupported(&device,
                                 Format("ID3D12Device::CreateCommandQueue of type %s", ListTypeName(desc->Type)).c_str());
    }
    if (ValidateOnly(object)) return kValidatedOnly;
    return HandOut(new CommandQueue(device, *desc), riid, object);
}

}  // namespace freedml::d3d12
