// The generator family (ONE_HOT, DIAGONAL_MATRIX, DIAGONAL_MATRIX1, NONZERO_COORDINATES,
// RANDOM_GENERATOR) through the public API: invalid descs are refused with messages that name the
// field and the values, and tensors large enough for the thread pool to split give what known
// answers and references computed here say (the small cases are in the conformance suite).
#include "dml_fixture.h"

namespace freedml_test {
namespace {

class GeneratorsTest : public DmlTest {};

TEST_F(GeneratorsTest, OneHotDescsAreChecked) {
    Tensor indices(DML_TENSOR_DATA_TYPE_INT32, {2, 1, 4}), values(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 2});
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 5, 4}), outF16(DML_TENSOR_DATA_TYPE_FLOAT16, {2, 5, 4});
    Tensor oneValue(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1}), floatIndices(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 1, 4});
    Tensor wrongIndices(DML_TENSOR_DATA_TYPE_INT32, {2, 1, 3});
    DML_ONE_HOT_OPERATOR_DESC d{&indices.desc, &values.desc, &out.desc, 1};
    Accepted(DML_OPERATOR_ONE_HOT, &d);
    d.Axis = 3;
    Refused(DML_OPERATOR_ONE_HOT, &d, "Axis (3) must be less than IndicesTensor's DimensionCount (3)");
    d = {&wrongIndices.desc, &values.desc, &out.desc, 1};
    Refused(DML_OPERATOR_ONE_HOT, &d, "dimension 2 must be 4");
    d = {&indices.desc, &values.desc, &out.desc, 0};
    Refused(DML_OPERATOR_ONE_HOT, &d, "dimension 0 must be 1");
    d = {&indices.desc, &oneValue.desc, &out.desc, 1};
    Refused(DML_OPERATOR_ONE_HOT, &d, "at least two elements");
    d = {&floatIndices.desc, &values.desc, &out.desc, 1};
    Refused(DML_OPERATOR_ONE_HOT, &d, "IndicesTensor has data type FLOAT32");
    d = {&indices.desc, &values.desc, &outF16.desc, 1};
    Refused(DML_OPERATOR_ONE_HOT, &d, "ValuesTensor has data type FLOAT32, but OutputTensor is FLOAT16");
}

TEST_F(GeneratorsTest, DiagonalMatrixDescsAreChecked) {
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 3, 4}), vector(DML_TENSOR_DATA_TYPE_FLOAT32, {4});
    Tensor in(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 3, 4}), inI32(DML_TENSOR_DATA_TYPE_INT32, {1, 1, 3, 4});
    Tensor inWide(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 3, 5});
    DML_DIAGONAL_MATRIX_OPERATOR_DESC d{&out.desc, -1, 2.5f};
    Accepted(DML_OPERATOR_DIAGONAL_MATRIX, &d);
    d.OutputTensor = &vector.desc;
    Refused(DML_OPERATOR_DIAGONAL_MATRIX, &d, "DimensionCount 1; DML_OPERATOR_DIAGONAL_MATRIX needs at least 2");
    DML_SCALAR_UNION value{};
    value.Float32 = 1.0f;
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC d1{nullptr, &out.desc, DML_TENSOR_DATA_TYPE_FLOAT32, value, 0, 1};
    Accepted(DML_OPERATOR_DIAGONAL_MATRIX1, &d1);
    d1.InputTensor = &in.desc;
    Accepted(DML_OPERATOR_DIAGONAL_MATRIX1, &d1);
    d1.ValueDataType = DML_TENSOR_DATA_TYPE_INT32;
    Refused(DML_OPERATOR_DIAGONAL_MATRIX1, &d1, "ValueDataType (INT32) must match OutputTensor's data type (FLOAT32)");
    d1.ValueDataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    d1.InputTensor = &inI32.desc;
    Refused(DML_OPERATOR_DIAGONAL_MATRIX1, &d1, "INT32");
    d1.InputTensor = &inWide.desc;
    Refused(DML_OPERATOR_DIAGONAL_MATRIX1, &d1, "{1, 1, 3, 5}");
}

TEST_F(GeneratorsTest, NonzeroCoordinatesDescsAreChecked) {
    // {1, 2, 3, 4}: 24 elements, effective rank 3.
    Tensor in(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 2, 3, 4}), in64(DML_TENSOR_DATA_TYPE_INT64, {1, 2, 3, 4});
    Tensor count(DML_TENSOR_DATA_TYPE_UINT32, {1, 1, 1, 1}), count2(DML_TENSOR_DATA_TYPE_UINT32, {1, 1, 1, 2});
    Tensor countI32(DML_TENSOR_DATA_TYPE_INT32, {1, 1, 1, 1});
    Tensor coords(DML_TENSOR_DATA_TYPE_UINT32, {1, 1, 24, 3}), coords4(DML_TENSOR_DATA_TYPE_UINT32, {1, 1, 24, 4});
    Tensor narrow(DML_TENSOR_DATA_TYPE_UINT32, {1, 1, 24, 2}), wide(DML_TENSOR_DATA_TYPE_UINT32, {1, 1, 24, 5});
    Tensor shortM(DML_TENSOR_DATA_TYPE_UINT32, {1, 1, 23, 3}), batched(DML_TENSOR_DATA_TYPE_UINT32, {1, 2, 24, 3});
    DML_NONZERO_COORDINATES_OPERATOR_DESC d{&in.desc, &count.desc, &coords.desc};
    Accepted(DML_OPERATOR_NONZERO_COORDINATES, &d);
    d.OutputCoordinatesTensor = &coords4.desc;
    Accepted(DML_OPERATOR_NONZERO_COORDINATES, &d);
    d.OutputCoordinatesTensor = &narrow.desc;
    Refused(DML_OPERATOR_NONZERO_COORDINATES, &d, "N (2) must be from InputTensor's effective rank (3)");
    d.OutputCoordinatesTensor = &wide.desc;
    Refused(DML_OPERATOR_NONZERO_COORDINATES, &d, "N (5)");
    d.OutputCoordinatesTensor = &shortM.desc;
    Refused(DML_OPERATOR_NONZERO_COORDINATES, &d, "M (23) must be InputTensor's element count (24)");
    d.OutputCoordinatesTensor = &batched.desc;
    Refused(DML_OPERATOR_NONZERO_COORDINATES, &d, "every size before the last two must be 1");
    d = {&in.desc, &count2.desc, &coords.desc};
    Refused(DML_OPERATOR_NONZERO_COORDINATES, &d, "must be a scalar");
    d = {&in.desc, &countI32.desc, &coords.desc};
    Refused(DML_OPERATOR_NONZERO_COORDINATES, &d, "OutputCountTensor has data type INT32");
    d = {&in64.desc, &count.desc, &coords.desc};
    Refused(DML_OPERATOR_NONZERO_COORDINATES, &d, "InputTensor has data type INT64");
}

TEST_F(GeneratorsTest, RandomGeneratorDescsAreChecked) {
    Tensor state(DML_TENSOR_DATA_TYPE_UINT32, {1, 1, 1, 6}), state5(DML_TENSOR_DATA_TYPE_UINT32, {1, 1, 1, 5});
    Tensor stateI32(DML_TENSOR_DATA_TYPE_INT32, {1, 1, 1, 6}), state2d(DML_TENSOR_DATA_TYPE_UINT32, {1, 6});
    Tensor out(DML_TENSOR_DATA_TYPE_UINT32, {3, 7}), outF32(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 7});
    DML_RANDOM_GENERATOR_OPERATOR_DESC d{&state.desc, &out.desc, nullptr, DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10};
    Accepted(DML_OPERATOR_RANDOM_GENERATOR, &d);
    d.OutputStateTensor = &state.desc;
    Accepted(DML_OPERATOR_RANDOM_GENERATOR, &d);
    d.OutputStateTensor = &state2d.desc;
    Refused(DML_OPERATOR_RANDOM_GENERATOR, &d, "OutputStateTensor has sizes {1, 6}, but InputStateTensor has");
    d = {&state5.desc, &out.desc, nullptr, DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10};
    Refused(DML_OPERATOR_RANDOM_GENERATOR, &d, "InputStateTensor has sizes {1, 1, 1, 5}");
    d = {&stateI32.desc, &out.desc, nullptr, DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10};
    Refused(DML_OPERATOR_RANDOM_GENERATOR, &d, "InputStateTensor has data type INT32");
    d = {&state.desc, &outF32.desc, nullptr, DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10};
    Refused(DML_OPERATOR_RANDOM_GENERATOR, &d, "OutputTensor has data type FLOAT32");
    d = {&state.desc, &out.desc, nullptr, static_cast<DML_RANDOM_GENERATOR_TYPE>(1)};
    Refused(DML_OPERATOR_RANDOM_GENERATOR, &d, "Type (1)");
}

// RANDOM_GENERATOR over enough outputs for the thread pool: the first block is Philox 4x32-10's
// published answer for counter 0 and key 0 (Random123's known-answer vectors), block b is what a
// generator started at counter b gives, and the next state is the counter advanced by the blocks.
TEST_F(GeneratorsTest, RandomGeneratorBlocksAgreeAcrossThreads) {
    const UINT count = 100003;  // 25001 blocks, the last one partial
    Tensor state(DML_TENSOR_DATA_TYPE_UINT32, {1, 1, 1, 6}), out(DML_TENSOR_DATA_TYPE_UINT32, {1, count});
    Tensor four(DML_TENSOR_DATA_TYPE_UINT32, {1, 4});
    const auto philox = DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10;
    DML_RANDOM_GENERATOR_OPERATOR_DESC big{&state.desc, &out.desc, &state.desc, philox};
    DML_RANDOM_GENERATOR_OPERATOR_DESC small{&state.desc, &four.desc, nullptr, philox};
    auto bigOp = Compile(DML_OPERATOR_RANDOM_GENERATOR, &big);
    auto smallOp = Compile(DML_OPERATOR_RANDOM_GENERATOR, &small);
    ASSERT_TRUE(bigOp && smallOp) << Messages();
    auto stateIn = Buffer(state.Bytes()), stateOut = Buffer(state.Bytes()), bits = Buffer(out.Bytes());
    Upload(stateIn.Get(), std::vector<uint32_t>{0, 0, 0, 0, 0, 0});
    DML_BUFFER_BINDING sb{stateIn.Get(), 0, state.Bytes()}, nb{stateOut.Get(), 0, state.Bytes()};
    DML_BUFFER_BINDING ob{bits.Get(), 0, out.Bytes()};
    auto persistent = Initialize(bigOp.Get());
    Dispatch(bigOp.Get(), {BufferBinding(&sb)}, {BufferBinding(&ob), BufferBinding(&nb)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    const auto got = ReadbackAs<uint32_t>(bits.Get(), count);
    EXPECT_EQ(got[0], 0x6627E8D5u);
    EXPECT_EQ(got[1], 0xE169C58Du);
    EXPECT_EQ(got[2], 0xBC57AC4Cu);
    EXPECT_EQ(got[3], 0x9B00DBD8u);
    EXPECT_EQ(ReadbackAs<uint32_t>(stateOut.Get(), 6), (std::vector<uint32_t>{25001, 0, 0, 0, 0, 0}));
    auto smallPersistent = Initialize(smallOp.Get());
    auto block = Buffer(four.Bytes());
    DML_BUFFER_BINDING bb{block.Get(), 0, four.Bytes()};
    for (uint32_t b : {1u, 4095u, 4096u, 12345u, 25000u}) {
        Upload(stateIn.Get(), std::vector<uint32_t>{b, 0, 0, 0, 0, 0});
        Dispatch(smallOp.Get(), {BufferBinding(&sb)}, {BufferBinding(&bb), NoBinding()}, smallPersistent.Get());
        const auto expect = ReadbackAs<uint32_t>(block.Get(), 4);
        for (uint32_t i = 0; i < 4 && size_t(b) * 4 + i < count; ++i) EXPECT_EQ(got[size_t(b) * 4 + i], expect[i]) << b;
    }
}

// DIAGONAL_MATRIX1 over a tensor large enough for the thread pool: the band from the input, the
// rest copied from it.
TEST_F(GeneratorsTest, DiagonalMatrixAcrossThreads) {
    const UINT batch = 3, rows = 150, cols = 170;
    Tensor t(DML_TENSOR_DATA_TYPE_INT32, {batch, rows, cols});
    std::vector<int32_t> x(size_t(batch) * rows * cols);
    for (size_t i = 0; i < x.size(); ++i) x[i] = int32_t(i * 2654435761u);
    auto in = Buffer(t.Bytes()), out = Buffer(t.Bytes());
    Upload(in.Get(), x);
    DML_SCALAR_UNION value{};
    value.Int32 = -7;
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC desc{&t.desc, &t.desc, DML_TENSOR_DATA_TYPE_INT32, value, -2, 3};
    auto op = Compile(DML_OPERATOR_DIAGONAL_MATRIX1, &desc);
    ASSERT_TRUE(op) << Messages();
    auto persistent = Initialize(op.Get());
    DML_BUFFER_BINDING ib{in.Get(), 0, t.Bytes()}, ob{out.Get(), 0, t.Bytes()};
    Dispatch(op.Get(), {BufferBinding(&ib)}, {BufferBinding(&ob)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    const auto got = ReadbackAs<int32_t>(out.Get(), x.size());
    for (UINT b = 0; b < batch; ++b) {
        for (UINT r = 0; r < rows; ++r) {
            for (UINT c = 0; c < cols; ++c) {
                const size_t i = (size_t(b) * rows + r) * cols + c;
                const int d = int(c) - int(r);
                ASSERT_EQ(got[i], d >= -2 && d < 3 ? -7 : x[i]) << b << "," << r << "," << c;
            }
        }
    }
}

}  // namespace
}  // namespace freedml_test
