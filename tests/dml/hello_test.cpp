// The HelloDirectML flow end to end: an ELEMENT_WISE_IDENTITY over FLOAT32 {1, 2, 3, 4}.
#include "dml_fixture.h"

namespace freedml_test {
namespace {

TEST_F(DmlTest, HelloDirectMLIdentityCopiesEveryElement) {
    Tensor tensor(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 2, 3, 4});
    ASSERT_EQ(tensor.Bytes(), 96u);  // the documented size of this tensor
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc{&tensor.desc, &tensor.desc, nullptr};
    auto op = Compile(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc);
    ASSERT_TRUE(op);
    auto persistent = Initialize(op.Get());

    std::vector<float> values(24);
    for (size_t i = 0; i < values.size(); ++i) values[i] = 1.618f * static_cast<float>(i) - 7.0f;
    auto input = Buffer(tensor.Bytes(), D3D12_HEAP_TYPE_DEFAULT, L"input");
    auto output = Buffer(tensor.Bytes(), D3D12_HEAP_TYPE_DEFAULT, L"output");
    Upload(input.Get(), values);
    DML_BUFFER_BINDING in{input.Get(), 0, tensor.Bytes()}, out{output.Get(), 0, tensor.Bytes()};
    Dispatch(op.Get(), {BufferBinding(&in)}, {BufferBinding(&out)}, persistent.Get());
    EXPECT_FALSE(DeviceRemoved()) << Messages();
    EXPECT_EQ(ReadbackAs<float>(output.Get(), values.size()), values);
}

TEST_F(DmlTest, IdentityWithScaleBias) {
    Tensor tensor(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 2, 2});
    DML_SCALE_BIAS scaleBias{2.0f, 0.5f};
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc{&tensor.desc, &tensor.desc, &scaleBias};
    auto op = Compile(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc);
    ASSERT_TRUE(op);
    auto persistent = Initialize(op.Get());
    auto input = Buffer(tensor.Bytes());
    auto output = Buffer(tensor.Bytes());
    Upload(input.Get(), std::vector<float>{1, -2, 3.25f, 0});
    DML_BUFFER_BINDING in{input.Get(), 0, tensor.Bytes()}, out{output.Get(), 0, tensor.Bytes()};
    Dispatch(op.Get(), {BufferBinding(&in)}, {BufferBinding(&out)}, persistent.Get());
    // y = x * 2 + 0.5, worked by hand.
    EXPECT_EQ(ReadbackAs<float>(output.Get(), 4), (std::vector<float>{2.5f, -3.5f, 7.0f, 0.5f})) << Messages();
}

}  // namespace
}  // namespace freedml_test
