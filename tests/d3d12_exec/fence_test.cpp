// ID3D12Fence: values, CPU signals, blocking waits, eventfd events, flags.
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "exec_test.h"

namespace freedml_test {
namespace {

class D3D12ExecFence : public ExecTest {};

bool Readable(int fd, int timeoutMs) {
    pollfd entry = {fd, POLLIN, 0};
    return poll(&entry, 1, timeoutMs) == 1 && (entry.revents & POLLIN);
}

TEST_F(D3D12ExecFence, InitialValueAndCpuSignal) {
    ComPtr<ID3D12Fence> fence;
    ASSERT_EQ(device()->CreateFence(5, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence)), S_OK);
    EXPECT_EQ(fence->GetCompletedValue(), 5u);
    EXPECT_EQ(fence->Signal(7), S_OK);
    EXPECT_EQ(fence->GetCompletedValue(), 7u);
    EXPECT_EQ(fence->Signal(3), S_OK);  // a fence may move backwards
    EXPECT_EQ(fence->GetCompletedValue(), 3u);
}

TEST_F(D3D12ExecFence, CreationFlagsAndFence1) {
    ComPtr<ID3D12Fence1> fence;
    ASSERT_EQ(device()->CreateFence(0, D3D12_FENCE_FLAG_SHARED, IID_PPV_ARGS(&fence)), S_OK);
    EXPECT_EQ(fence->GetCreationFlags(), D3D12_FENCE_FLAG_SHARED);

    ComPtr<ID3D12Fence> bad;
    EXPECT_EQ(device()->CreateFence(0, static_cast<D3D12_FENCE_FLAGS>(0x80), IID_PPV_ARGS(&bad)), E_INVALIDARG);
    EXPECT_FALSE(bad);
    EXPECT_TRUE(messages().Contains("Flags (0x80)")) << messages().Dump();
    EXPECT_EQ(device()->CreateFence(0, D3D12_FENCE_FLAG_SHARED_CROSS_ADAPTER, IID_PPV_ARGS(&bad)), E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("SHARED_CROSS_ADAPTER without SHARED")) << messages().Dump();
    // A null output pointer validates only.
    EXPECT_EQ(device()->CreateFence(0, D3D12_FENCE_FLAG_NONE, __uuidof(ID3D12Fence), nullptr), S_FALSE);
}

TEST_F(D3D12ExecFence, QueryInterfaceAndReferences) {
    ComPtr<ID3D12Fence> fence;
    ASSERT_EQ(device()->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence)), S_OK);
    ComPtr<ID3D12Fence1> fence1;
    ComPtr<ID3D12Pageable> pageable;
    ComPtr<ID3D12DeviceChild> child;
    ComPtr<ID3D12Object> object;
    ComPtr<IUnknown> unknown;
    EXPECT_EQ(fence.As(&fence1), S_OK);
    EXPECT_EQ(fence.As(&pageable), S_OK);
    EXPECT_EQ(fence.As(&child), S_OK);
    EXPECT_EQ(fence.As(&object), S_OK);
    EXPECT_EQ(fence.As(&unknown), S_OK);
    ComPtr<ID3D12Resource> notAResource;
    EXPECT_EQ(fence.As(&notAResource), E_NOINTERFACE);
    fence1.Reset(), pageable.Reset(), child.Reset(), object.Reset(), unknown.Reset();
    EXPECT_EQ(fence->AddRef(), 2u);
    EXPECT_EQ(fence->Release(), 1u);

    ComPtr<ID3D12Device> owner;
    ASSERT_EQ(fence->GetDevice(IID_PPV_ARGS(&owner)), S_OK);
    EXPECT_EQ(owner.Get(), device());
    // The fence keeps its device alive.
    ULONG before = device()->AddRef() - 1;
    device()->Release();
    ComPtr<ID3D12Fence> another;
    ASSERT_EQ(device()->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&another)), S_OK);
    EXPECT_EQ(device()->AddRef() - 1, before + 1);
    device()->Release();
    another.Reset();
    EXPECT_EQ(device()->AddRef() - 1, before);
    device()->Release();
}

TEST_F(D3D12ExecFence, NullEventBlocksUntilSignaled) {
    ComPtr<ID3D12Fence> fence;
    ASSERT_EQ(device()->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence)), S_OK);
    std::atomic<bool> signaled{false};
    std::thread signaler([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        signaled = true;
        fence->Signal(4);
    });
    EXPECT_EQ(fence->SetEventOnCompletion(4, nullptr), S_OK);
    EXPECT_TRUE(signaled.load());
    EXPECT_GE(fence->GetCompletedValue(), 4u);
    signaler.join();
    // Already reached: returns at once.
    EXPECT_EQ(fence->SetEventOnCompletion(2, nullptr), S_OK);
}

TEST_F(D3D12ExecFence, EventfdIsWrittenWhenTheValueIsReached) {
    ComPtr<ID3D12Fence> fence;
    ASSERT_EQ(device()->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence)), S_OK);
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(fence->SetEventOnCompletion(2, FREEDML_FD_TO_HANDLE(fd)), S_OK);
    EXPECT_FALSE(Readable(fd, 20));
    fence->Signal(1);
    EXPECT_FALSE(Readable(fd, 20));
    fence->Signal(2);
    ASSERT_TRUE(Readable(fd, 1000));
    uint64_t count = 0;
    ASSERT_EQ(read(fd, &count, sizeof(count)), static_cast<ssize_t>(sizeof(count)));
    EXPECT_EQ(count, 1u);

    // A value already reached fires at once.
    ASSERT_EQ(fence->SetEventOnCompletion(1, FREEDML_FD_TO_HANDLE(fd)), S_OK);
    EXPECT_TRUE(Readable(fd, 1000));
    ASSERT_EQ(read(fd, &count, sizeof(count)), static_cast<ssize_t>(sizeof(count)));

    // A queue's signal fires it (on this thread when the queue is idle, else on its worker).
    Lane lane(device());
    ASSERT_EQ(fence->SetEventOnCompletion(10, FREEDML_FD_TO_HANDLE(fd)), S_OK);
    ASSERT_EQ(lane.queue->Signal(fence.Get(), 10), S_OK);
    EXPECT_TRUE(Readable(fd, 5000));
    lane.Wait();  // orders the worker's write before close() for ThreadSanitizer, which cannot see poll()
    close(fd);
}

TEST_F(D3D12ExecFence, AFailedEventWriteIsAWarning) {
    // An eventfd one short of its maximum count refuses the next write (EAGAIN): FreeDML warns, for
    // a value reached already (written at once) and for one reached later (written by the signal).
    ComPtr<ID3D12Fence> fence;
    ASSERT_EQ(device()->CreateFence(5, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence)), S_OK);
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    ASSERT_GE(fd, 0);
    const uint64_t full = 0xfffffffffffffffeull;
    ASSERT_EQ(write(fd, &full, sizeof(full)), static_cast<ssize_t>(sizeof(full)));
    EXPECT_EQ(fence->SetEventOnCompletion(5, FREEDML_FD_TO_HANDLE(fd)), S_OK);
    EXPECT_EQ(messages().Count("but writing to its event"), 1u) << messages().Dump();
    EXPECT_EQ(fence->SetEventOnCompletion(6, FREEDML_FD_TO_HANDLE(fd)), S_OK);
    EXPECT_EQ(messages().Count("but writing to its event"), 1u) << messages().Dump();
    ASSERT_EQ(fence->Signal(6), S_OK);
    EXPECT_EQ(messages().Count("but writing to its event"), 2u) << messages().Dump();
    EXPECT_EQ(device()->GetDeviceRemovedReason(), S_OK);
    close(fd);
}

TEST_F(D3D12ExecFence, EventThatIsNotADescriptorIsRefused) {
    ComPtr<ID3D12Fence> fence;
    ASSERT_EQ(device()->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence)), S_OK);
    int fd = eventfd(0, EFD_CLOEXEC);
    close(fd);  // no longer open
    EXPECT_EQ(fence->SetEventOnCompletion(1, FREEDML_FD_TO_HANDLE(fd)), E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("is not an open file descriptor")) << messages().Dump();
}

TEST_F(D3D12ExecFence, PrivateDataAndName) {
    ComPtr<ID3D12Fence> fence;
    ASSERT_EQ(device()->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence)), S_OK);
    const GUID key = {0x1234, 0x5678, 0x9abc, {1, 2, 3, 4, 5, 6, 7, 8}};
    int value = 42, out = 0;
    UINT size = sizeof(out);
    EXPECT_EQ(fence->SetPrivateData(key, sizeof(value), &value), S_OK);
    EXPECT_EQ(fence->GetPrivateData(key, &size, &out), S_OK);
    EXPECT_EQ(out, 42);
    EXPECT_EQ(fence->SetName(L"frame fence"), S_OK);
}

}  // namespace
}  // namespace freedml_test
