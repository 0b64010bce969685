// ID3D12CommandQueue: creation, execution order, fences across queues, refusals, removal, threads.
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "exec_test.h"

namespace freedml_test {
namespace {

class D3D12ExecQueue : public ExecTest {};

TEST_F(D3D12ExecQueue, CreationIsValidated) {
    ComPtr<ID3D12CommandQueue> queue;
    EXPECT_EQ(device()->CreateCommandQueue(nullptr, IID_PPV_ARGS(&queue)), E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("pDesc is null")) << messages().Dump();

    D3D12_COMMAND_QUEUE_DESC desc = {};
    desc.Type = D3D12_COMMAND_LIST_TYPE_BUNDLE;
    EXPECT_EQ(device()->CreateCommandQueue(&desc, IID_PPV_ARGS(&queue)), E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("Type is BUNDLE")) << messages().Dump();
    desc.Type = static_cast<D3D12_COMMAND_LIST_TYPE>(42);
    EXPECT_EQ(device()->CreateCommandQueue(&desc, IID_PPV_ARGS(&queue)), E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("type (42) is not a D3D12_COMMAND_LIST_TYPE")) << messages().Dump();
    desc.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
    desc.Priority = 5;
    EXPECT_EQ(device()->CreateCommandQueue(&desc, IID_PPV_ARGS(&queue)), E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("Priority (5)")) << messages().Dump();
    desc.Priority = 0;
    desc.Flags = static_cast<D3D12_COMMAND_QUEUE_FLAGS>(0x10);
    EXPECT_EQ(device()->CreateCommandQueue(&desc, IID_PPV_ARGS(&queue)), E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("Flags (0x10)")) << messages().Dump();
    desc.Flags = D3D12_COMMAND_QUEUE_FLAG_NONE;
    desc.NodeMask = 2;
    EXPECT_EQ(device()->CreateCommandQueue(&desc, IID_PPV_ARGS(&queue)), E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("NodeMask (0x2)")) << messages().Dump();
    desc.NodeMask = 0;
    desc.Type = D3D12_COMMAND_LIST_TYPE_VIDEO_DECODE;
    EXPECT_EQ(device()->CreateCommandQueue(&desc, IID_PPV_ARGS(&queue)), E_NOTIMPL);
    EXPECT_FALSE(queue);
    desc.Type = D3D12_COMMAND_LIST_TYPE_COMPUTE;
    EXPECT_EQ(device()->CreateCommandQueue(&desc, __uuidof(ID3D12CommandQueue), nullptr), S_FALSE);
}

TEST_F(D3D12ExecQueue, DescTimestampsAndInterfaces) {
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_COMPUTE, D3D12_COMMAND_QUEUE_PRIORITY_HIGH,
                                     D3D12_COMMAND_QUEUE_FLAG_DISABLE_GPU_TIMEOUT, 1};
    ComPtr<ID3D12CommandQueue> queue;
    ASSERT_EQ(device()->CreateCommandQueue(&desc, IID_PPV_ARGS(&queue)), S_OK);
    D3D12_COMMAND_QUEUE_DESC got = queue->GetDesc();
    EXPECT_EQ(got.Type, desc.Type);
    EXPECT_EQ(got.Priority, desc.Priority);
    EXPECT_EQ(got.Flags, desc.Flags);
    EXPECT_EQ(got.NodeMask, desc.NodeMask);

    UINT64 frequency = 0, gpu0 = 0, cpu0 = 0, gpu1 = 0, cpu1 = 0;
    EXPECT_EQ(queue->GetTimestampFrequency(&frequency), S_OK);
    EXPECT_EQ(frequency, 1000000000u);
    EXPECT_EQ(queue->GetTimestampFrequency(nullptr), E_POINTER);
    EXPECT_EQ(queue->GetClockCalibration(&gpu0, &cpu0), S_OK);
    EXPECT_EQ(queue->GetClockCalibration(&gpu1, &cpu1), S_OK);
    EXPECT_GT(gpu0, 0u);
    EXPECT_GE(gpu1, gpu0);
    EXPECT_GE(cpu1, cpu0);
    EXPECT_EQ(queue->GetClockCalibration(nullptr, &cpu0), E_POINTER);

    ComPtr<ID3D12Pageable> pageable;
    ComPtr<ID3D12DeviceChild> child;
    ComPtr<ID3D12Fence> notAFence;
    EXPECT_EQ(queue.As(&pageable), S_OK);
    EXPECT_EQ(queue.As(&child), S_OK);
    EXPECT_EQ(queue.As(&notAFence), E_NOINTERFACE);
    ComPtr<ID3D12Device> owner;
    ASSERT_EQ(queue->GetDevice(IID_PPV_ARGS(&owner)), S_OK);
    EXPECT_EQ(owner.Get(), device());
    EXPECT_EQ(queue->SetName(L"compute queue"), S_OK);
    queue->SetMarker(0, nullptr, 0);
    queue->BeginEvent(0, nullptr, 0);
    queue->EndEvent();
}

TEST_F(D3D12ExecQueue, UploadDefaultReadbackRoundTrip) {
    constexpr size_t kCount = 1000;
    auto upload = MakeUpload(device(), kCount * 4);
    auto gpu = MakeBuffer(device(), D3D12_HEAP_TYPE_DEFAULT, kCount * 4, D3D12_RESOURCE_STATE_COPY_DEST);
    auto readback = MakeReadback(device(), kCount * 4);
    std::vector<uint32_t> data(kCount);
    for (size_t i = 0; i < kCount; ++i) data[i] = static_cast<uint32_t>(i * 2654435761u);
    Write(upload.Get(), data);

    Lane lane(device());
    lane.list->CopyBufferRegion(gpu.Get(), 0, upload.Get(), 0, kCount * 4);
    auto barrier = CD3DX12_RESOURCE_BARRIER::Transition(gpu.Get(), D3D12_RESOURCE_STATE_COPY_DEST,
                                                        D3D12_RESOURCE_STATE_COPY_SOURCE);
    lane.list->ResourceBarrier(1, &barrier);
    lane.list->CopyResource(readback.Get(), gpu.Get());
    lane.Run();
    EXPECT_EQ(Read<uint32_t>(readback.Get(), kCount), data);

    // Regions with offsets: the middle 10 values, written 4 values in.
    lane.list->CopyBufferRegion(readback.Get(), 16, upload.Get(), 400, 40);
    lane.Run();
    auto part = Read<uint32_t>(readback.Get(), 10, 16);
    EXPECT_EQ(part, std::vector<uint32_t>(data.begin() + 100, data.begin() + 110));
    EXPECT_EQ(messages().Errors(), 0u) << messages().Dump();
}

// A queue made with FREEDML_CPU_QUEUE_INLINE set to `inlineRuns` ("0": every submission goes
// through the queue's worker; "1": an idle CPU queue runs submissions on the calling thread).
ComPtr<ID3D12CommandQueue> MakeQueue(ID3D12Device* device, const char* inlineRuns,
                                     D3D12_COMMAND_LIST_TYPE type = D3D12_COMMAND_LIST_TYPE_DIRECT) {
    const char* before = std::getenv("FREEDML_CPU_QUEUE_INLINE");
    const std::string saved = before ? before : "";
    setenv("FREEDML_CPU_QUEUE_INLINE", inlineRuns, 1);
    D3D12_COMMAND_QUEUE_DESC desc = {};
    desc.Type = type;
    ComPtr<ID3D12CommandQueue> queue;
    EXPECT_EQ(device->CreateCommandQueue(&desc, IID_PPV_ARGS(&queue)), S_OK);
    if (before) {
        setenv("FREEDML_CPU_QUEUE_INLINE", saved.c_str(), 1);
    } else {
        unsetenv("FREEDML_CPU_QUEUE_INLINE");
    }
    return queue;
}

class D3D12ExecQueueModes : public D3D12ExecQueue, public ::testing::WithParamInterface<const char*> {};

INSTANTIATE_TEST_SUITE_P(InlineAndWorker, D3D12ExecQueueModes, ::testing::Values("1", "0"),
                         [](const ::testing::TestParamInfo<const char*>& param) {
                             return std::string(param.param[0] == '0' ? "WorkerOnly" : "InlineWhenIdle");
                         });

TEST_P(D3D12ExecQueueModes, WorkRunsInSubmissionOrder) {
    // 64 submissions each write their index into the same 4 bytes; 64 more copy a chain
    // buffer[k] -> buffer[k + 1]. Any reordering leaves a wrong value.
    constexpr uint32_t kSteps = 64;
    auto sources = MakeUpload(device(), kSteps * 4);
    std::vector<uint32_t> indices(kSteps);
    for (uint32_t i = 0; i < kSteps; ++i) indices[i] = i + 1;
    Write(sources.Get(), indices);
    auto target = MakeReadback(device(), 4);
    std::vector<ComPtr<ID3D12Resource>> chain;
    for (uint32_t i = 0; i <= kSteps; ++i) {
        chain.push_back(MakeBuffer(device(), D3D12_HEAP_TYPE_DEFAULT, 4, D3D12_RESOURCE_STATE_COMMON));
    }
    auto chainEnd = MakeReadback(device(), 4);

    ComPtr<ID3D12CommandQueue> queue = MakeQueue(device(), GetParam());
    ASSERT_TRUE(queue);
    std::vector<ComPtr<ID3D12CommandAllocator>> allocators(2 * kSteps + 1);
    std::vector<ComPtr<ID3D12GraphicsCommandList>> lists(2 * kSteps + 1);
    for (size_t i = 0; i < lists.size(); ++i) {
        ASSERT_EQ(device()->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT, IID_PPV_ARGS(&allocators[i])), S_OK);
        ASSERT_EQ(device()->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocators[i].Get(), nullptr,
                                              IID_PPV_ARGS(&lists[i])),
                  S_OK);
    }
    lists[0]->CopyBufferRegion(chain[0].Get(), 0, sources.Get(), 4 * (kSteps - 1), 4);
    for (uint32_t i = 0; i < kSteps; ++i) {
        lists[1 + i]->CopyBufferRegion(target.Get(), 0, sources.Get(), 4 * i, 4);
        lists[1 + kSteps + i]->CopyBufferRegion(chain[i + 1].Get(), 0, chain[i].Get(), 0, 4);
    }
    lists.back()->CopyBufferRegion(chainEnd.Get(), 0, chain[kSteps].Get(), 0, 4);
    // The last list copies the chain's end out; the loop above recorded it as the last chain link
    // and the readback in one list.
    for (auto& list : lists) ASSERT_EQ(list->Close(), S_OK);
    for (auto& list : lists) {
        ID3D12CommandList* one[] = {list.Get()};
        queue->ExecuteCommandLists(1, one);
    }
    ComPtr<ID3D12Fence> fence;
    ASSERT_EQ(device()->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence)), S_OK);
    ASSERT_EQ(queue->Signal(fence.Get(), 1), S_OK);
    ASSERT_EQ(fence->SetEventOnCompletion(1, nullptr), S_OK);
    EXPECT_EQ(Read<uint32_t>(target.Get(), 1)[0], kSteps);
    EXPECT_EQ(Read<uint32_t>(chainEnd.Get(), 1)[0], kSteps);
}

TEST_F(D3D12ExecQueue, CrossQueueWaitSubmittedBeforeTheSignal) {
    auto upload = MakeUpload(device(), 64);
    auto shared = MakeBuffer(device(), D3D12_HEAP_TYPE_DEFAULT, 64, D3D12_RESOURCE_STATE_COMMON);
    auto readback = MakeReadback(device(), 64);
    std::vector<uint32_t> data(16);
    for (uint32_t i = 0; i < 16; ++i) data[i] = 100 + i;
    Write(upload.Get(), data);

    Lane a(device()), b(device(), D3D12_COMMAND_LIST_TYPE_COMPUTE);
    ComPtr<ID3D12Fence> produced;
    ASSERT_EQ(device()->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&produced)), S_OK);

    // Queue B first: wait for A's fence, then copy the shared buffer out.
    b.list->CopyResource(readback.Get(), shared.Get());
    ASSERT_EQ(b.list->Close(), S_OK);
    ASSERT_EQ(b.queue->Wait(produced.Get(), 1), S_OK);
    b.Execute();
    ASSERT_EQ(b.queue->Signal(b.fence.Get(), 1), S_OK);

    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(b.fence->GetCompletedValue(), 0u) << "queue B ran past its Wait";

    // Queue A produces the data, then signals.
    a.list->CopyResource(shared.Get(), upload.Get());
    ASSERT_EQ(a.list->Close(), S_OK);
    a.Execute();
    ASSERT_EQ(a.queue->Signal(produced.Get(), 1), S_OK);

    ASSERT_EQ(b.fence->SetEventOnCompletion(1, nullptr), S_OK);
    EXPECT_EQ(Read<uint32_t>(readback.Get(), 16), data);
}

TEST_P(D3D12ExecQueueModes, SubmissionsFromManyThreadsKeepEachThreadsOrder) {
    // Four threads share one queue; each executes a list that writes its round number into the
    // thread's own word, then signals the thread's fence with that round. Whichever thread runs a
    // submission (inline or the worker), a fence value seen means that round's write is visible.
    constexpr int kThreads = 4, kRounds = 40;
    ComPtr<ID3D12CommandQueue> queue = MakeQueue(device(), GetParam());
    ASSERT_TRUE(queue);
    auto sources = MakeUpload(device(), kRounds * 4);
    std::vector<uint32_t> rounds(kRounds);
    for (uint32_t r = 0; r < kRounds; ++r) rounds[r] = r + 1;
    Write(sources.Get(), rounds);
    auto target = MakeReadback(device(), kThreads * 4);
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            ComPtr<ID3D12CommandAllocator> allocator;
            ComPtr<ID3D12GraphicsCommandList> list;
            ComPtr<ID3D12Fence> fence;
            if (device()->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT, IID_PPV_ARGS(&allocator)) != S_OK ||
                device()->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator.Get(), nullptr,
                                            IID_PPV_ARGS(&list)) != S_OK ||
                device()->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence)) != S_OK) {
                ++failures;
                return;
            }
            list->Close();
            for (uint32_t r = 0; r < kRounds; ++r) {
                allocator->Reset();
                list->Reset(allocator.Get(), nullptr);
                list->CopyBufferRegion(target.Get(), 4 * t, sources.Get(), 4 * r, 4);
                list->Close();
                ID3D12CommandList* one[] = {list.Get()};
                queue->ExecuteCommandLists(1, one);
                if (queue->Signal(fence.Get(), r + 1) != S_OK || fence->SetEventOnCompletion(r + 1, nullptr) != S_OK) {
                    ++failures;
                    return;
                }
                if (Read<uint32_t>(target.Get(), 1, 4 * t)[0] != r + 1) ++failures;
            }
        });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(messages().Errors(), 0u) << messages().Dump();
}

TEST_F(D3D12ExecQueue, IdleCpuQueueHasTheWorkDoneWhenExecuteReturns) {
    // The inline path (command_queue.h): nothing pending, so the copy and the signal run on this
    // thread before the calls return, and the fence reads the value with no wait at all.
    Lane lane(device());
    lane.queue = MakeQueue(device(), "1");  // the inline path, whatever the environment says
    auto upload = MakeUpload(device(), 8);
    auto readback = MakeReadback(device(), 8);
    Write(upload.Get(), std::vector<uint32_t>{41, 42});
    lane.list->CopyResource(readback.Get(), upload.Get());
    ASSERT_EQ(lane.list->Close(), S_OK);
    lane.Execute();
    EXPECT_EQ(Read<uint32_t>(readback.Get(), 2), (std::vector<uint32_t>{41, 42}));
    ASSERT_EQ(lane.queue->Signal(lane.fence.Get(), 7), S_OK);
    EXPECT_EQ(lane.fence->GetCompletedValue(), 7u);
    // The execution is over: the allocator may be reset at once.
    EXPECT_EQ(lane.allocator->Reset(), S_OK) << messages().Dump();
}

TEST_F(D3D12ExecQueue, WorkBehindABlockedWaitIsNotRunInline) {
    // A queue blocked in a Wait is not idle: a list executed after the Wait, and a Signal after
    // that, must wait for the fence even though the calling thread could run them.
    Lane lane(device());
    auto upload = MakeUpload(device(), 4);
    auto readback = MakeReadback(device(), 4);
    Write(upload.Get(), std::vector<uint32_t>{99});
    ComPtr<ID3D12Fence> gate;
    ASSERT_EQ(device()->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&gate)), S_OK);
    lane.list->CopyResource(readback.Get(), upload.Get());
    ASSERT_EQ(lane.list->Close(), S_OK);
    ASSERT_EQ(lane.queue->Wait(gate.Get(), 2), S_OK);
    lane.Execute();
    ASSERT_EQ(lane.queue->Signal(lane.fence.Get(), 1), S_OK);
    // A Wait for a value already reached changes nothing, on a busy queue too.
    ASSERT_EQ(lane.queue->Wait(lane.fence.Get(), 0), S_OK);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    EXPECT_EQ(Read<uint32_t>(readback.Get(), 1)[0], 0u) << "the copy ran before the Wait was satisfied";
    EXPECT_EQ(lane.fence->GetCompletedValue(), 0u);
    ASSERT_EQ(gate->Signal(1), S_OK);  // not enough
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(lane.fence->GetCompletedValue(), 0u);
    ASSERT_EQ(gate->Signal(2), S_OK);
    ASSERT_EQ(lane.fence->SetEventOnCompletion(1, nullptr), S_OK);
    EXPECT_EQ(Read<uint32_t>(readback.Get(), 1)[0], 99u);
    // Once the worker has drained the queue, the list can run again (inline or on the worker).
    Write(upload.Get(), std::vector<uint32_t>{100});
    lane.Execute();
    ASSERT_EQ(lane.queue->Signal(lane.fence.Get(), 2), S_OK);
    ASSERT_EQ(lane.fence->SetEventOnCompletion(2, nullptr), S_OK);
    EXPECT_EQ(Read<uint32_t>(readback.Get(), 1)[0], 100u);
    ASSERT_EQ(lane.allocator->Reset(), S_OK) << messages().Dump();
    EXPECT_EQ(messages().Errors(), 0u) << messages().Dump();
}

TEST_F(D3D12ExecQueue, InlineSignalWakesWaitersOnOtherThreadsAfterTheWork) {
    // Another thread blocks on the fence (a null event) and another polls an eventfd; the list
    // and the signal run inline on this thread. Each waiter must find the copy done when it wakes.
    Lane lane(device());
    lane.queue = MakeQueue(device(), "1");  // the inline path, whatever the environment says
    constexpr size_t kWords = 1 << 18;  // 1 MiB: the copy takes a while
    auto upload = MakeUpload(device(), kWords * 4);
    auto readback = MakeReadback(device(), kWords * 4);
    std::vector<uint32_t> data(kWords);
    for (size_t i = 0; i < kWords; ++i) data[i] = static_cast<uint32_t>(i * 2654435761u);
    Write(upload.Get(), data);
    lane.list->CopyResource(readback.Get(), upload.Get());
    ASSERT_EQ(lane.list->Close(), S_OK);

    int event = eventfd(0, EFD_CLOEXEC);
    ASSERT_GE(event, 0);
    ASSERT_EQ(lane.fence->SetEventOnCompletion(1, FREEDML_FD_TO_HANDLE(event)), S_OK);
    std::atomic<bool> blockedSawData{false}, eventSawData{false}, blockedEarly{false};
    std::thread blocked([&] {
        if (lane.fence->GetCompletedValue() >= 1) blockedEarly = true;
        if (lane.fence->SetEventOnCompletion(1, nullptr) != S_OK) return;
        blockedSawData = Read<uint32_t>(readback.Get(), kWords) == data;
    });
    std::thread polling([&] {
        pollfd fd{event, POLLIN, 0};
        if (poll(&fd, 1, 10000) != 1) return;
        eventSawData = Read<uint32_t>(readback.Get(), kWords) == data;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let both threads block
    lane.Execute();
    ASSERT_EQ(lane.queue->Signal(lane.fence.Get(), 1), S_OK);
    blocked.join();
    polling.join();
    close(event);
    EXPECT_FALSE(blockedEarly.load());
    EXPECT_TRUE(blockedSawData.load());
    EXPECT_TRUE(eventSawData.load());
}

TEST_F(D3D12ExecQueue, RemovalDuringAnInlineRunEndsIt) {
    // RemoveDevice from another thread while this thread runs a long list inline: the run stops
    // at a command boundary, ExecuteCommandLists returns, fences read UINT64_MAX, later work is
    // refused, and the execution counts as finished (the allocator can be reset).
    Lane lane(device());
    lane.queue = MakeQueue(device(), "1");  // the inline path, whatever the environment says
    constexpr UINT64 kBytes = 8 << 20;
    constexpr int kCopies = 64;
    auto upload = MakeUpload(device(), kBytes);
    auto readback = MakeReadback(device(), kBytes);
    for (int i = 0; i < kCopies; ++i) lane.list->CopyResource(readback.Get(), upload.Get());
    ASSERT_EQ(lane.list->Close(), S_OK);
    ComPtr<ID3D12Device5> device5;
    ASSERT_EQ(device()->QueryInterface(IID_PPV_ARGS(&device5)), S_OK);
    std::atomic<bool> started{false};
    std::thread remover([&] {
        while (!started.load()) std::this_thread::yield();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        device5->RemoveDevice();
    });
    started = true;
    lane.Execute();
    remover.join();
    EXPECT_NE(device()->GetDeviceRemovedReason(), S_OK);
    EXPECT_EQ(lane.fence->GetCompletedValue(), UINT64_MAX);
    EXPECT_EQ(lane.queue->Signal(lane.fence.Get(), 1), DXGI_ERROR_DEVICE_REMOVED);
    EXPECT_EQ(lane.fence->SetEventOnCompletion(1, nullptr), S_OK);
    EXPECT_EQ(lane.allocator->Reset(), S_OK) << messages().Dump();
}

TEST_F(D3D12ExecQueue, CpuSignalReleasesAQueueWait) {
    Lane lane(device());
    ComPtr<ID3D12Fence> gate;
    ASSERT_EQ(device()->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&gate)), S_OK);
    ASSERT_EQ(lane.queue->Wait(gate.Get(), 3), S_OK);
    ASSERT_EQ(lane.queue->Signal(lane.fence.Get(), 1), S_OK);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    EXPECT_EQ(lane.fence->GetCompletedValue(), 0u);
    gate->Signal(3);
    ASSERT_EQ(lane.fence->SetEventOnCompletion(1, nullptr), S_OK);
}

TEST_F(D3D12ExecQueue, SignalAndWaitRefuseBadFences) {
    Lane lane(device());
    EXPECT_EQ(lane.queue->Signal(nullptr, 1), E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("pFence is null")) << messages().Dump();
    EXPECT_EQ(lane.queue->Wait(nullptr, 1), E_INVALIDARG);

    auto other = MakeDevice();
    ComPtr<ID3D12Fence> foreign;
    ASSERT_EQ(other->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&foreign)), S_OK);
    if (other.Get() != device()) {  // devices on one adapter may be one object
        EXPECT_EQ(lane.queue->Signal(foreign.Get(), 1), E_INVALIDARG);
        EXPECT_TRUE(messages().Contains("was created on another device")) << messages().Dump();
    }
}

TEST_F(D3D12ExecQueue, ExecuteRefusesListsItCannotRun) {
    Lane lane(device());
    auto upload = MakeUpload(device(), 16);
    auto readback = MakeReadback(device(), 16);
    Write(upload.Get(), std::vector<uint32_t>{1, 2, 3, 4});

    // Open list: dropped, nothing runs.
    lane.list->CopyResource(readback.Get(), upload.Get());
    lane.Execute();
    EXPECT_TRUE(messages().Contains("is open; Close it before executing")) << messages().Dump();
    lane.Wait();
    EXPECT_EQ(Read<uint32_t>(readback.Get(), 4), (std::vector<uint32_t>{0, 0, 0, 0}));

    // Null entries and arrays.
    ID3D12CommandList* none[] = {nullptr};
    lane.queue->ExecuteCommandLists(1, none);
    EXPECT_TRUE(messages().Contains("ppCommandLists[0] is null")) << messages().Dump();
    lane.queue->ExecuteCommandLists(1, nullptr);
    EXPECT_TRUE(messages().Contains("ppCommandLists is null")) << messages().Dump();
    lane.queue->ExecuteCommandLists(0, nullptr);  // nothing to do

    // A COPY list on a DIRECT queue.
    Lane copy(device(), D3D12_COMMAND_LIST_TYPE_COPY);
    ASSERT_EQ(copy.list->Close(), S_OK);
    ID3D12CommandList* copyList[] = {copy.list.Get()};
    lane.queue->ExecuteCommandLists(1, copyList);
    EXPECT_TRUE(messages().Contains("is not of the queue's type DIRECT")) << messages().Dump();

    // A list whose Close failed.
    ASSERT_EQ(lane.list->Close(), S_OK);
    ASSERT_EQ(lane.list->Reset(lane.allocator.Get(), nullptr), S_OK);
    lane.list->CopyBufferRegion(readback.Get(), 0, upload.Get(), 0, 64);  // out of bounds
    EXPECT_EQ(lane.list->Close(), E_INVALIDARG);
    lane.Execute();
    EXPECT_TRUE(messages().Contains("failed to Close")) << messages().Dump();

    ComPtr<ID3D12Device> still;
    EXPECT_EQ(device()->GetDeviceRemovedReason(), S_OK);
}

TEST_F(D3D12ExecQueue, ListCanRunAgainAfterItCompleted) {
    Lane lane(device());
    auto upload = MakeUpload(device(), 4);
    auto readback = MakeReadback(device(), 4);
    lane.list->CopyResource(readback.Get(), upload.Get());
    ASSERT_EQ(lane.list->Close(), S_OK);
    for (uint32_t i = 1; i <= 3; ++i) {
        Write(upload.Get(), std::vector<uint32_t>{i * 11});
        lane.Execute();
        lane.Wait();
        EXPECT_EQ(Read<uint32_t>(readback.Get(), 1)[0], i * 11);
    }
    EXPECT_EQ(messages().Errors(), 0u) << messages().Dump();
}

TEST_F(D3D12ExecQueue, ListStillExecutingIsRefusedAndRemovesTheDevice) {
    Lane lane(device());
    ComPtr<ID3D12Fence> gate;
    ASSERT_EQ(device()->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&gate)), S_OK);
    ASSERT_EQ(lane.list->Close(), S_OK);
    ASSERT_EQ(lane.queue->Wait(gate.Get(), 1), S_OK);  // holds the first execution back
    lane.Execute();
    lane.Execute();
    EXPECT_TRUE(messages().Contains("is still executing")) << messages().Dump();
    EXPECT_EQ(device()->GetDeviceRemovedReason(), DXGI_ERROR_INVALID_CALL);
    // A removed device's fences read UINT64_MAX, and its queues refuse new signals.
    EXPECT_EQ(lane.fence->GetCompletedValue(), UINT64_MAX);
    EXPECT_EQ(lane.queue->Signal(lane.fence.Get(), 1), DXGI_ERROR_DEVICE_REMOVED);
    EXPECT_EQ(lane.fence->SetEventOnCompletion(5, nullptr), S_OK);
}

// ID3D12GraphicsCommandList::Reset's remarks: unlike an allocator, a list may be Reset while it is
// still executing. Its new recording (on another allocator) may then be executed at once, while the
// first is still held back on the queue; the TensorFlow-DirectML plugin records this way.
TEST_F(D3D12ExecQueue, ResetListRunsWhileItsPreviousRecordingStillExecutes) {
    Lane lane(device());
    ComPtr<ID3D12CommandAllocator> second;
    ASSERT_EQ(device()->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT, IID_PPV_ARGS(&second)), S_OK);
    ComPtr<ID3D12Fence> gate;
    ASSERT_EQ(device()->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&gate)), S_OK);
    auto upload = MakeUpload(device(), 8);
    auto readback = MakeReadback(device(), 8);
    Write(upload.Get(), std::vector<uint32_t>{17, 29});
    lane.list->CopyBufferRegion(readback.Get(), 0, upload.Get(), 0, 4);
    ASSERT_EQ(lane.list->Close(), S_OK);
    ASSERT_EQ(lane.queue->Wait(gate.Get(), 1), S_OK);  // holds the first execution back
    lane.Execute();
    ASSERT_EQ(lane.list->Reset(second.Get(), nullptr), S_OK);
    lane.list->CopyBufferRegion(readback.Get(), 4, upload.Get(), 4, 4);
    ASSERT_EQ(lane.list->Close(), S_OK);
    lane.Execute();  // the new recording, queued behind the first
    EXPECT_EQ(device()->GetDeviceRemovedReason(), S_OK) << messages().Dump();
    ASSERT_EQ(gate->Signal(1), S_OK);
    lane.Wait();
    EXPECT_EQ(Read<uint32_t>(readback.Get(), 2), (std::vector<uint32_t>{17, 29}));
    EXPECT_EQ(messages().Errors(), 0u) << messages().Dump();
}

TEST_F(D3D12ExecQueue, ListOfAResetAllocatorIsRefusedAndRemovesTheDevice) {
    Lane lane(device());
    ASSERT_EQ(lane.list->Close(), S_OK);
    ASSERT_EQ(lane.allocator->Reset(), S_OK);  // the list's commands are gone
    lane.Execute();
    EXPECT_TRUE(messages().Contains("which was reset after the list was closed")) << messages().Dump();
    EXPECT_EQ(device()->GetDeviceRemovedReason(), DXGI_ERROR_INVALID_CALL);
}

TEST_F(D3D12ExecQueue, RemovedDeviceRunsNothingMore) {
    Lane lane(device());
    auto upload = MakeUpload(device(), 4);
    auto readback = MakeReadback(device(), 4);
    Write(upload.Get(), std::vector<uint32_t>{7});
    ComPtr<ID3D12Fence> gate;
    ASSERT_EQ(device()->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&gate)), S_OK);
    lane.list->CopyResource(readback.Get(), upload.Get());
    ASSERT_EQ(lane.list->Close(), S_OK);
    ASSERT_EQ(lane.queue->Wait(gate.Get(), 1), S_OK);
    lane.Execute();
    ASSERT_EQ(lane.queue->Signal(lane.fence.Get(), 1), S_OK);
    // Remove the device while the copy waits: a second execution of the same list does it.
    lane.Execute();
    ASSERT_NE(device()->GetDeviceRemovedReason(), S_OK);
    EXPECT_EQ(lane.fence->SetEventOnCompletion(1, nullptr), S_OK);  // completes: the wait ends
    lane.queue.Reset();  // joins the worker
    EXPECT_EQ(Read<uint32_t>(readback.Get(), 1)[0], 0u);
}

TEST_F(D3D12ExecQueue, ReleasingAQueueWaitsForItsWork) {
    constexpr size_t kBytes = 1 << 20;
    auto upload = MakeUpload(device(), kBytes);
    auto readback = MakeReadback(device(), kBytes);
    std::vector<uint8_t> data(kBytes);
    for (size_t i = 0; i < kBytes; ++i) data[i] = static_cast<uint8_t>(i * 7);
    Write(upload.Get(), data);
    {
        Lane lane(device());
        for (int i = 0; i < 8; ++i) lane.list->CopyResource(readback.Get(), upload.Get());
        ASSERT_EQ(lane.list->Close(), S_OK);
        lane.Execute();
    }  // the queue is released here, right after submitting
    EXPECT_EQ(Read<uint8_t>(readback.Get(), kBytes), data);
}

TEST_F(D3D12ExecQueue, ReleasingAQueueBlockedOnAFenceAbandonsTheWait) {
    ComPtr<ID3D12Fence> never;
    ASSERT_EQ(device()->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&never)), S_OK);
    {
        Lane lane(device());
        ASSERT_EQ(lane.list->Close(), S_OK);
        ASSERT_EQ(lane.queue->Wait(never.Get(), 1), S_OK);
        lane.Execute();
    }
    EXPECT_TRUE(messages().Contains("the wait is abandoned")) << messages().Dump();
}

TEST_F(D3D12ExecQueue, ThreadsShareOneDevice) {
    constexpr int kThreads = 4, kRounds = 25;
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            Lane lane(device(), t % 2 ? D3D12_COMMAND_LIST_TYPE_COPY : D3D12_COMMAND_LIST_TYPE_DIRECT);
            for (int round = 0; round < kRounds; ++round) {
                const size_t count = 256 + 64 * t;
                auto upload = MakeUpload(device(), count * 4);
                auto gpu = MakeBuffer(device(), D3D12_HEAP_TYPE_DEFAULT, count * 4, D3D12_RESOURCE_STATE_COMMON);
                auto readback = MakeReadback(device(), count * 4);
                std::vector<uint32_t> data(count);
                for (size_t i = 0; i < count; ++i) data[i] = static_cast<uint32_t>(t * 1000000 + round * 1000 + i);
                Write(upload.Get(), data);
                lane.list->CopyResource(gpu.Get(), upload.Get());
                lane.list->CopyResource(readback.Get(), gpu.Get());
                lane.Run();
                if (Read<uint32_t>(readback.Get(), count) != data) ++failures;
            }
        });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(messages().Errors(), 0u) << messages().Dump();
}

TEST_F(D3D12ExecQueue, CopyQueueRunsCopyLists) {
    Lane lane(device(), D3D12_COMMAND_LIST_TYPE_COPY);
    auto upload = MakeUpload(device(), 8);
    auto readback = MakeReadback(device(), 8);
    Write(upload.Get(), std::vector<uint32_t>{5, 6});
    lane.list->CopyResource(readback.Get(), upload.Get());
    lane.Run();
    EXPECT_EQ(Read<uint32_t>(readback.Get(), 2), (std::vector<uint32_t>{5, 6}));
}

}  // namespace
}  // namespace freedml_test
