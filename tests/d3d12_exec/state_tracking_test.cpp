// Debug-layer state tracking at execution: wrong StateBefore, copies from or into resources in the
// wrong state, the fixed states of UPLOAD and READBACK heaps; and silence on correct programs,
// including those that rely on implicit promotion and decay.
#include "exec_test.h"

namespace freedml_test {
namespace {

class D3D12ExecStateTracking : public ExecTest {
protected:
    bool DebugLayer() const override { return true; }
    D3D12_RESOURCE_BARRIER Transition(ID3D12Resource* resource, D3D12_RESOURCE_STATES before,
                                      D3D12_RESOURCE_STATES after) {
        return CD3DX12_RESOURCE_BARRIER::Transition(resource, before, after);
    }
};

class D3D12ExecNoDebugLayer : public ExecTest {};

// The HelloDirectML sequence and friends: explicit transitions, promotion from COMMON, decay
// between ExecuteCommandLists, transitions naming the state before decay.
TEST_F(D3D12ExecStateTracking, CorrectProgramsAreSilent) {
    Lane lane(device());
    auto upload = MakeUpload(device(), 64);
    auto input = MakeBuffer(device(), D3D12_HEAP_TYPE_DEFAULT, 64, D3D12_RESOURCE_STATE_COPY_DEST, L"input");
    auto output = MakeBuffer(device(), D3D12_HEAP_TYPE_DEFAULT, 64, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, L"output");
    auto common = MakeBuffer(device(), D3D12_HEAP_TYPE_DEFAULT, 64, D3D12_RESOURCE_STATE_COMMON, L"common");
    auto readback = MakeReadback(device(), 64);

    std::vector<uint8_t> bytes(64, 3);
    D3D12_SUBRESOURCE_DATA data = {bytes.data(), 64, 64};
    ASSERT_EQ(UpdateSubresources(lane.list.Get(), input.Get(), upload.Get(), 0, 0, 1, &data), 64u);
    auto toUav = Transition(input.Get(), D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    lane.list->ResourceBarrier(1, &toUav);
    lane.Run();

    // Next ExecuteCommandLists: output leaves UNORDERED_ACCESS for COPY_SOURCE; input decayed to
    // COMMON and is promoted to COPY_SOURCE by the copy.
    auto toSource = Transition(output.Get(), D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE);
    lane.list->ResourceBarrier(1, &toSource);
    lane.list->CopyResource(readback.Get(), output.Get());
    lane.list->CopyResource(common.Get(), input.Get());   // common: COMMON -> COPY_DEST by promotion
    lane.list->CopyResource(readback.Get(), input.Get());  // input: read promotions accumulate
    auto back = Transition(common.Get(), D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_COPY_SOURCE);
    lane.list->ResourceBarrier(1, &back);
    lane.list->CopyResource(readback.Get(), common.Get());
    lane.Run();

    // After decay: a transition from COMMON, and one naming the state before decay.
    auto fromCommon = Transition(output.Get(), D3D12_RESOURCE_STATE_COMMON, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    auto fromBefore = Transition(common.Get(), D3D12_RESOURCE_STATE_COPY_SOURCE, D3D12_RESOURCE_STATE_COPY_DEST);
    lane.list->ResourceBarrier(1, &fromCommon);
    lane.list->ResourceBarrier(1, &fromBefore);
    lane.list->CopyResource(common.Get(), upload.Get());
    lane.Run();
    EXPECT_EQ(Read<uint8_t>(readback.Get(), 64), bytes);
    EXPECT_EQ(messages().Errors(), 0u) << messages().Dump();
}

TEST_F(D3D12ExecStateTracking, TransitionFromTheWrongState) {
    Lane lane(device());
    auto buffer = MakeBuffer(device(), D3D12_HEAP_TYPE_DEFAULT, 64, D3D12_RESOURCE_STATE_COPY_DEST, L"weights");
    auto first = Transition(buffer.Get(), D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_COPY_SOURCE);
    auto wrong = Transition(buffer.Get(), D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_DEST);
    lane.list->ResourceBarrier(1, &first);
    lane.list->ResourceBarrier(1, &wrong);
    lane.Run();
    EXPECT_TRUE(messages().Contains("ResourceBarrier pBarriers[0] transitions resource 'weights'")) << messages().Dump();
    EXPECT_TRUE(messages().Contains("with StateBefore UNORDERED_ACCESS, but at this point of the queue's timeline the "
                                    "resource is in COPY_SOURCE"))
        << messages().Dump();
    EXPECT_EQ(messages().Errors(), 1u) << messages().Dump();
}

TEST_F(D3D12ExecStateTracking, TransitionFromTheWrongStateAcrossLists) {
    // Two lists of one ExecuteCommandLists share the timeline.
    Lane a(device()), b(device());
    auto buffer = MakeBuffer(device(), D3D12_HEAP_TYPE_DEFAULT, 64, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, L"x");
    auto toSource = Transition(buffer.Get(), D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE);
    a.list->ResourceBarrier(1, &toSource);
    b.list->ResourceBarrier(1, &toSource);  // already in COPY_SOURCE
    ASSERT_EQ(a.list->Close(), S_OK);
    ASSERT_EQ(b.list->Close(), S_OK);
    ID3D12CommandList* both[] = {a.list.Get(), b.list.Get()};
    a.queue->ExecuteCommandLists(2, both);
    a.Wait();
    EXPECT_TRUE(messages().Contains("StateBefore UNORDERED_ACCESS, but at this point of the queue's timeline the "
                                    "resource is in COPY_SOURCE"))
        << messages().Dump();
}

TEST_F(D3D12ExecStateTracking, CopyFromAResourceNotInCopySource) {
    Lane lane(device());
    auto buffer = MakeBuffer(device(), D3D12_HEAP_TYPE_DEFAULT, 64, D3D12_RESOURCE_STATE_COPY_DEST, L"activations");
    auto readback = MakeReadback(device(), 64);
    auto toUav = Transition(buffer.Get(), D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    lane.list->ResourceBarrier(1, &toUav);
    lane.list->CopyResource(readback.Get(), buffer.Get());
    lane.Run();
    EXPECT_TRUE(messages().Contains("CopyResource uses resource 'activations'")) << messages().Dump();
    EXPECT_TRUE(messages().Contains("as its copy source while it is in state UNORDERED_ACCESS; a copy source must be in "
                                    "COPY_SOURCE"))
        << messages().Dump();
}

TEST_F(D3D12ExecStateTracking, CopyIntoAResourceNotInCopyDest) {
    Lane lane(device());
    auto upload = MakeUpload(device(), 64);
    auto buffer = MakeBuffer(device(), D3D12_HEAP_TYPE_DEFAULT, 64, D3D12_RESOURCE_STATE_COPY_DEST, L"target");
    auto toSource = Transition(buffer.Get(), D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_COPY_SOURCE);
    lane.list->ResourceBarrier(1, &toSource);
    lane.list->CopyBufferRegion(buffer.Get(), 0, upload.Get(), 0, 16);
    lane.Run();
    EXPECT_TRUE(messages().Contains("CopyBufferRegion uses resource 'target'")) << messages().Dump();
    EXPECT_TRUE(messages().Contains("as its copy destination while it is in state COPY_SOURCE")) << messages().Dump();
}

TEST_F(D3D12ExecStateTracking, UploadAndReadbackHeapsKeepTheirState) {
    Lane lane(device());
    auto upload = MakeUpload(device(), 64, L"staging");
    auto readback = MakeReadback(device(), 64, L"results");
    auto other = MakeUpload(device(), 64);
    lane.list->CopyResource(upload.Get(), other.Get());
    lane.list->CopyResource(other.Get(), readback.Get());
    lane.Run();
    EXPECT_TRUE(messages().Contains("uses resource 'staging'")) << messages().Dump();
    EXPECT_TRUE(messages().Contains("resources on UPLOAD heaps stay in GENERIC_READ for life")) << messages().Dump();
    EXPECT_TRUE(messages().Contains("resources on READBACK heaps stay in COPY_DEST for life")) << messages().Dump();
}

TEST_F(D3D12ExecNoDebugLayer, WithoutTheDebugLayerNothingIsTracked) {
    Lane lane(device());
    auto buffer = MakeBuffer(device(), D3D12_HEAP_TYPE_DEFAULT, 64, D3D12_RESOURCE_STATE_COPY_DEST);
    auto first = CD3DX12_RESOURCE_BARRIER::Transition(buffer.Get(), D3D12_RESOURCE_STATE_COPY_DEST,
                                                      D3D12_RESOURCE_STATE_COPY_SOURCE);
    auto wrong = CD3DX12_RESOURCE_BARRIER::Transition(buffer.Get(), D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                                      D3D12_RESOURCE_STATE_COPY_DEST);
    lane.list->ResourceBarrier(1, &first);
    lane.list->ResourceBarrier(1, &wrong);
    lane.Run();
    EXPECT_EQ(messages().Errors(), 0u) << messages().Dump();
}

}  // namespace
}  // namespace freedml_test
