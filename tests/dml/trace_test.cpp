// API tracing (FreeDMLSetTraceFlags, include/freedml/freedml.h): each call a program makes is one
// line with its arguments and the names the program gave its objects.
#include "dml_fixture.h"

namespace freedml_test {
namespace {

// Lines of `messages` that contain `method`.
std::vector<std::string> LinesOf(const std::string& messages, const std::string& method) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < messages.size()) {
        size_t end = messages.find('\n', start);
        if (end == std::string::npos) end = messages.size();
        std::string line = messages.substr(start, end - start);
        if (line.find(method) != std::string::npos) lines.push_back(line);
        start = end + 1;
    }
    return lines;
}

class TraceTest : public DmlTest {
protected:
    void TearDown() override {
        FreeDMLSetTraceFlags(FREEDML_TRACE_NONE);
        DmlTest::TearDown();
    }
};

TEST_F(TraceTest, EachCallIsOneLineWithArgumentsAndNames) {
    Tensor tensor(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 2, 3});
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc{&tensor.desc, &tensor.desc, nullptr};
    auto input = Buffer(tensor.Bytes(), D3D12_HEAP_TYPE_DEFAULT, L"input");
    auto output = Buffer(tensor.Bytes(), D3D12_HEAP_TYPE_DEFAULT, L"output");
    const DML_OPERATOR_DESC opDesc{DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc};
    ClearMessages();

    EXPECT_EQ(FreeDMLSetTraceFlags(FREEDML_TRACE_API), static_cast<uint32_t>(FREEDML_TRACE_NONE));
    ComPtr<IDMLOperator> op;
    ASSERT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), S_OK);
    ComPtr<IDMLCompiledOperator> compiled;
    ASSERT_EQ(dml->CompileOperator(op.Get(), DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&compiled)), S_OK);
    compiled->SetName(L"scale");
    auto persistent = Initialize(compiled.Get());
    DML_BUFFER_BINDING in{input.Get(), 0, tensor.Bytes()}, out{output.Get(), 0, tensor.Bytes()};
    Dispatch(compiled.Get(), {BufferBinding(&in)}, {BufferBinding(&out)}, persistent.Get());
    EXPECT_EQ(FreeDMLSetTraceFlags(FREEDML_TRACE_NONE), static_cast<uint32_t>(FREEDML_TRACE_API));
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    const std::string messages = Messages();

    auto create = LinesOf(messages, "IDMLDevice::CreateOperator(");
    ASSERT_EQ(create.size(), 1u) << messages;
    EXPECT_NE(create[0].find("DirectML: IDMLDevice::CreateOperator(this=0x"), std::string::npos) << create[0];
    EXPECT_NE(create[0].find("desc=ELEMENT_WISE_IDENTITY{InputTensor=FLOAT32[1,1,2,3], OutputTensor=FLOAT32[1,1,2,3]}"),
              std::string::npos)
        << create[0];
    EXPECT_NE(create[0].find("riid=IDMLOperator"), std::string::npos) << create[0];

    auto setName = LinesOf(messages, "IDMLObject::SetName(");
    ASSERT_EQ(setName.size(), 1u) << messages;
    EXPECT_NE(setName[0].find("name='scale'"), std::string::npos) << setName[0];

    // The execute binding's inputs name the buffer the program named, with offset and size.
    auto bindInputs = LinesOf(messages, "IDMLBindingTable::BindInputs(");
    ASSERT_FALSE(bindInputs.empty()) << messages;
    EXPECT_NE(bindInputs.back().find("bindingCount=1, bindings=[BUFFER{0x"), std::string::npos) << bindInputs.back();
    EXPECT_NE(bindInputs.back().find(" 'input' +0 24 bytes}]"), std::string::npos) << bindInputs.back();

    auto record = LinesOf(messages, "IDMLCommandRecorder::RecordDispatch(");
    ASSERT_EQ(record.size(), 2u) << messages;  // the initializer, then the operator
    EXPECT_NE(record[1].find("dispatchable=0x"), std::string::npos) << record[1];
    EXPECT_NE(record[1].find("'scale'"), std::string::npos) << record[1];

    EXPECT_EQ(LinesOf(messages, "ID3D12CommandQueue::ExecuteCommandLists(").size(), 2u) << messages;
    EXPECT_EQ(LinesOf(messages, "ID3D12GraphicsCommandList::Close(").size(), 2u) << messages;

    // Off again: nothing more is traced.
    ClearMessages();
    ComPtr<IDMLOperator> again;
    ASSERT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&again)), S_OK);
    EXPECT_EQ(Messages(), "");
}

}  // namespace
}  // namespace freedml_test
