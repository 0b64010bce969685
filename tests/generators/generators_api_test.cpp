// The generator family (ONE_HOT, DIAGONAL_MATRIX, DIAGONAL_MATRIX1, NONZERO_COORDINATES,
// RANDOM_GENERATOR) through the public API: invalid descs are refused
// with messages that name the field and the values. (What they compute is in the conformance cases.)
#include "dml_fixture.h"

namespace freedml_test {
namespace {

class GeneratorsTest : public DmlTest {
protected:
    void Refused(DML_OPERATOR_TYPE type, const void* desc, const char* words) {
        DML_OPERATOR_DESC opDesc{type, desc};
        ComPtr<IDMLOperator> op;
        EXPECT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), E_INVALIDARG) << words;
        EXPECT_NE(Messages().find(words), std::string::npos) << words << ": " << Messages();
        ClearMessages();
    }
    void Accepted(DML_OPERATOR_TYPE type, const void* desc) {
        DML_OPERATOR_DESC opDesc{type, desc};
        ComPtr<IDMLOperator> op;
        EXPECT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), S_OK) << Messages();
        ClearMessages();
    }
};

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

}  // namespace
}  // namespace freedml_test
