// Objects of one library passed where the other library's object belongs. Each library proves an
// application's pointer is one of its own through a private interface ID; DirectML's and D3D12's
// were once the same GUID, so a DirectML object passed as an ID3D12Fence* was used as a fence (and
// a fence passed as an IDMLOperator* as an operator). Both must be refused with a message.
#include "dml_fixture.h"

namespace freedml_test {
namespace {

class PrivateIidTest : public DmlTest {
protected:
    // DirectML objects of every kind, each as the IUnknown an application could mistake for a fence.
    std::vector<std::pair<std::string, ComPtr<IUnknown>>> DmlObjects() {
        Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, {4});
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc{&t.desc, &t.desc, nullptr};
        DML_OPERATOR_DESC opDesc{DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc};
        ComPtr<IDMLOperator> op;
        EXPECT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), S_OK);
        ComPtr<IDMLCompiledOperator> compiled;
        EXPECT_EQ(dml->CompileOperator(op.Get(), DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&compiled)), S_OK);
        ComPtr<IDMLBindingTable> table = Table(compiled.Get());
        std::vector<std::pair<std::string, ComPtr<IUnknown>>> objects;
        objects.emplace_back("IDMLDevice", dml);
        objects.emplace_back("IDMLOperator", op);
        objects.emplace_back("IDMLCompiledOperator", compiled);
        objects.emplace_back("IDMLBindingTable", table);
        objects.emplace_back("IDMLCommandRecorder", recorder);
        return objects;
    }
};

TEST_F(PrivateIidTest, DirectMLObjectPassedAsAFenceIsRefused) {
    for (auto& [name, object] : DmlObjects()) {
        SCOPED_TRACE(name);
        // What a C cast in the application would do: the pointer is not a fence at all.
        auto* notAFence = reinterpret_cast<ID3D12Fence*>(object.Get());
        ClearMessages();
        EXPECT_EQ(queue->Signal(notAFence, 1), E_INVALIDARG);
        EXPECT_NE(Messages().find("ID3D12CommandQueue::Signal"), std::string::npos) << Messages();
        EXPECT_NE(Messages().find("pFence is not a FreeDML fence"), std::string::npos) << Messages();
        ClearMessages();
        EXPECT_EQ(queue->Wait(notAFence, 1), E_INVALIDARG);
        EXPECT_NE(Messages().find("ID3D12CommandQueue::Wait"), std::string::npos) << Messages();
        EXPECT_NE(Messages().find("pFence is not a FreeDML fence"), std::string::npos) << Messages();
    }
    // Nothing was queued and the device is unharmed: the real fence still works.
    EXPECT_FALSE(DeviceRemoved());
    ExecuteAndWait();
    EXPECT_EQ(fence->GetCompletedValue(), fenceValue);
}

TEST_F(PrivateIidTest, FencePassedAsADirectMLObjectIsRefused) {
    ComPtr<IDMLCompiledOperator> compiled;
    ClearMessages();
    EXPECT_EQ(dml->CompileOperator(reinterpret_cast<IDMLOperator*>(fence.Get()), DML_EXECUTION_FLAG_NONE,
                                   IID_PPV_ARGS(&compiled)),
              E_INVALIDARG);
    EXPECT_EQ(compiled, nullptr);
    EXPECT_NE(Messages().find("IDMLDevice::CompileOperator"), std::string::npos) << Messages();

    ComPtr<IDMLBindingTable> table;
    DML_BINDING_TABLE_DESC desc{reinterpret_cast<IDMLDispatchable*>(fence.Get()),
                                heap->GetCPUDescriptorHandleForHeapStart(),
                                heap->GetGPUDescriptorHandleForHeapStart(), 1};
    ClearMessages();
    EXPECT_EQ(dml->CreateBindingTable(&desc, IID_PPV_ARGS(&table)), E_INVALIDARG);
    EXPECT_EQ(table, nullptr);
    EXPECT_NE(Messages().find("IDMLDevice::CreateBindingTable"), std::string::npos) << Messages();

    IDMLPageable* objects[] = {reinterpret_cast<IDMLPageable*>(fence.Get())};
    EXPECT_EQ(dml->Evict(1, objects), E_INVALIDARG);
    EXPECT_EQ(dml->MakeResident(1, objects), E_INVALIDARG);
    EXPECT_FALSE(DeviceRemoved());
}

}  // namespace
}  // namespace freedml_test
