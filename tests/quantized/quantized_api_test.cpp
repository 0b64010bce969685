// The quantized family (integer and quantized matrix multiplies and convolutions, quantized average
// pooling, dynamic quantization) through the public API: invalid descs are refused with messages
// that name the field and the values, and valid ones are accepted (results are in the conformance
// suite).
#include "dml_fixture.h"

namespace freedml_test {
namespace {

constexpr auto I8 = DML_TENSOR_DATA_TYPE_INT8;
constexpr auto U8 = DML_TENSOR_DATA_TYPE_UINT8;
constexpr auto I32 = DML_TENSOR_DATA_TYPE_INT32;
constexpr auto F32 = DML_TENSOR_DATA_TYPE_FLOAT32;
constexpr auto F16 = DML_TENSOR_DATA_TYPE_FLOAT16;

class QuantizedTest : public DmlTest {
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

TEST_F(QuantizedTest, MatrixMultiplyIntegerDescsAreChecked) {
    Tensor a(I8, {1, 1, 3, 4}), b(U8, {1, 1, 4, 5}), out(I32, {1, 1, 3, 5});
    Tensor azRow(I8, {1, 1, 3, 1}), bzColumn(U8, {1, 1, 1, 5}), azWrong(I8, {1, 1, 1, 4}), azU8(U8, {1, 1, 1, 1});
    Tensor outF32(F32, {1, 1, 3, 5}), bShort(U8, {1, 1, 3, 5}), aBatch(I8, {2, 1, 3, 4}), outBatch3(I32, {3, 1, 3, 5});
    Tensor a5(I8, {1, 1, 1, 3, 4}), b5(U8, {1, 1, 1, 4, 5}), out5(I32, {1, 1, 1, 3, 5});
    DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC d{&a.desc, &azRow.desc, &b.desc, &bzColumn.desc, &out.desc};
    Accepted(DML_OPERATOR_MATRIX_MULTIPLY_INTEGER, &d);
    d.AZeroPointTensor = &azWrong.desc;
    Refused(DML_OPERATOR_MATRIX_MULTIPLY_INTEGER, &d, "AZeroPointTensor has sizes {1, 1, 1, 4}");
    d.AZeroPointTensor = &azU8.desc;
    Refused(DML_OPERATOR_MATRIX_MULTIPLY_INTEGER, &d, "AZeroPointTensor has data type UINT8, but ATensor is INT8");
    d = {&a.desc, nullptr, &b.desc, nullptr, &outF32.desc};
    Refused(DML_OPERATOR_MATRIX_MULTIPLY_INTEGER, &d, "OutputTensor has data type FLOAT32");
    d = {&a.desc, nullptr, &bShort.desc, nullptr, &out.desc};
    Refused(DML_OPERATOR_MATRIX_MULTIPLY_INTEGER, &d, "ATensor {1, 1, 3, 4} x BTensor {1, 1, 3, 5}");
    d = {&aBatch.desc, nullptr, &b.desc, nullptr, &outBatch3.desc};
    Refused(DML_OPERATOR_MATRIX_MULTIPLY_INTEGER, &d, "Batch dimension 0: ATensor (2)");
    d = {&a5.desc, nullptr, &b5.desc, nullptr, &out5.desc};
    Refused(DML_OPERATOR_MATRIX_MULTIPLY_INTEGER, &d, "2 to 4");
}

TEST_F(QuantizedTest, QuantizedMatrixMultiplyDescsAreChecked) {
    Tensor a(U8, {1, 1, 2, 3}), b(I8, {1, 1, 3, 4}), out(I8, {1, 1, 2, 4}), outI32(I32, {1, 1, 2, 4});
    Tensor scale(F32, {1, 1, 1, 1}), scaleF16(F16, {1, 1, 1, 1}), bScaleColumn(F32, {1, 1, 1, 4});
    Tensor bScaleRow(F32, {1, 1, 3, 1}), ozU8(U8, {1, 1, 1, 1});
    DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC d{&a.desc,     &scale.desc, nullptr, &b.desc,  &bScaleColumn.desc,
                                                         nullptr,     &scale.desc, nullptr, &out.desc};
    Accepted(DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, &d);
    d.BScaleTensor = &bScaleRow.desc;
    Refused(DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, &d, "BScaleTensor has sizes {1, 1, 3, 1}");
    d.BScaleTensor = &scale.desc;
    d.AScaleTensor = &scaleF16.desc;
    Refused(DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, &d, "AScaleTensor has data type FLOAT16");
    d.AScaleTensor = &scale.desc;
    d.OutputZeroPointTensor = &ozU8.desc;
    Refused(DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, &d,
            "OutputZeroPointTensor has data type UINT8, but OutputTensor is INT8");
    d.OutputZeroPointTensor = nullptr;
    d.OutputTensor = &outI32.desc;
    Refused(DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, &d, "OutputTensor has data type INT32");
}

TEST_F(QuantizedTest, MatrixMultiplyIntegerToFloatDescsAreChecked) {
    Tensor a(DML_TENSOR_DATA_TYPE_INT16, {2, 3}), b(DML_TENSOR_DATA_TYPE_UINT32, {3, 4}), out(F32, {2, 4});
    Tensor scale(F32, {1, 1}), scaleF16(F16, {1, 1}), bias(F32, {1, 4}), biasWrong(F32, {2, 3});
    Tensor aF32(F32, {2, 3}), outI32(I32, {2, 4});
    DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC d{&a.desc,  &scale.desc, nullptr,   &b.desc,
                                                         &scale.desc, nullptr,  &bias.desc, &out.desc};
    Accepted(DML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT, &d);
    d.BiasTensor = &biasWrong.desc;
    Refused(DML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT, &d, "BiasTensor has sizes {2, 3}");
    d.BiasTensor = nullptr;
    d.BScaleTensor = &scaleF16.desc;
    Refused(DML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT, &d, "BScaleTensor has data type FLOAT16, but OutputTensor is FLOAT32");
    d.BScaleTensor = &scale.desc;
    d.ATensor = &aF32.desc;
    Refused(DML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT, &d, "ATensor has data type FLOAT32");
    d.ATensor = &a.desc;
    d.OutputTensor = &outI32.desc;
    Refused(DML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT, &d, "OutputTensor has data type INT32");
}

TEST_F(QuantizedTest, IntegerConvolutionDescsAreChecked) {
    Tensor in(U8, {1, 4, 5, 5}), filter(I8, {6, 2, 3, 3}), out(I32, {1, 6, 3, 3}), outQ(U8, {1, 6, 3, 3});
    Tensor filterZero(I8, {1, 6, 1, 1}), filterZeroWrong(I8, {6, 1, 1, 1}), inZeroChannel(U8, {1, 4, 1, 1});
    Tensor scale(F32, {1, 1, 1, 1}), filterScale(F32, {1, 6, 1, 1}), bias(I32, {1, 6, 1, 1}), biasF32(F32, {1, 6, 1, 1});
    Tensor outWrong(I32, {1, 6, 4, 3});
    const UINT ones[] = {1, 1}, zeros[] = {0, 0};
    DML_CONVOLUTION_INTEGER_OPERATOR_DESC d{&in.desc, nullptr, &filter.desc, &filterZero.desc, &out.desc,
                                            2,        ones,    ones,         zeros,            zeros,     2};
    Accepted(DML_OPERATOR_CONVOLUTION_INTEGER, &d);
    d.FilterZeroPointTensor = &filterZeroWrong.desc;
    Refused(DML_OPERATOR_CONVOLUTION_INTEGER, &d, "FilterZeroPointTensor has sizes {6, 1, 1, 1}");
    d.FilterZeroPointTensor = nullptr;
    d.InputZeroPointTensor = &inZeroChannel.desc;
    Refused(DML_OPERATOR_CONVOLUTION_INTEGER, &d, "InputZeroPointTensor has sizes {1, 4, 1, 1}");
    d.InputZeroPointTensor = nullptr;
    d.GroupCount = 1;
    Refused(DML_OPERATOR_CONVOLUTION_INTEGER, &d, "FilterTensor {6, 2, 3, 3} must begin");
    d.GroupCount = 2;
    d.OutputTensor = &outWrong.desc;
    Refused(DML_OPERATOR_CONVOLUTION_INTEGER, &d, "OutputTensor's spatial dimension 0 is 4; the convolution produces 3");

    DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC q{&in.desc,    &scale.desc, nullptr, &filter.desc,
                                                     &filterScale.desc, nullptr, &bias.desc, &scale.desc,
                                                     nullptr,     &outQ.desc,  2,       ones,
                                                     ones,        zeros,       zeros,   2};
    Accepted(DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION, &q);
    q.BiasTensor = &biasF32.desc;
    Refused(DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION, &q, "BiasTensor has data type FLOAT32");
    q.BiasTensor = nullptr;
    q.OutputTensor = &out.desc;
    Refused(DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION, &q, "OutputTensor has data type INT32");
}

TEST_F(QuantizedTest, QuantizedAveragePoolingDescsAreChecked) {
    Tensor in(I8, {1, 2, 5, 5}), out(I8, {1, 2, 2, 2}), outU8(U8, {1, 2, 2, 2}), outWrong(I8, {1, 2, 3, 2});
    Tensor scale(F32, {1, 1, 1, 1}), scaleChannel(F32, {1, 2, 1, 1}), scaleWrong(F32, {1, 1, 5, 5});
    const UINT strides[] = {2, 2}, window[] = {3, 3}, zeros[] = {0, 0}, ones[] = {1, 1}, none[] = {0, 1};
    DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC d{&in.desc, &scaleChannel.desc, nullptr, &scale.desc, nullptr,
                                                         &out.desc, 2, strides, window, zeros, zeros, ones, FALSE};
    Accepted(DML_OPERATOR_QUANTIZED_LINEAR_AVERAGE_POOLING, &d);
    d.InputScaleTensor = &scaleWrong.desc;
    Refused(DML_OPERATOR_QUANTIZED_LINEAR_AVERAGE_POOLING, &d, "InputScaleTensor has sizes {1, 1, 5, 5}");
    d.InputScaleTensor = &scale.desc;
    d.OutputTensor = &outU8.desc;
    Refused(DML_OPERATOR_QUANTIZED_LINEAR_AVERAGE_POOLING, &d, "OutputTensor has data type UINT8, but InputTensor is INT8");
    d.OutputTensor = &outWrong.desc;
    Refused(DML_OPERATOR_QUANTIZED_LINEAR_AVERAGE_POOLING, &d,
            "OutputTensor's spatial dimension 0 is 3; the pooling produces 2");
    d.OutputTensor = &out.desc;
    d.Dilations = none;
    Refused(DML_OPERATOR_QUANTIZED_LINEAR_AVERAGE_POOLING, &d, "Dilations[0] (0)");
}

TEST_F(QuantizedTest, DynamicQuantizeLinearDescsAreChecked) {
    Tensor in(F32, {2, 3}), out(U8, {2, 3}), scale(F32, {1, 1}), zero(U8, {1, 1});
    Tensor outI32(I32, {2, 3}), zeroI8(I8, {1, 1}), scaleTwo(F32, {1, 2}), scaleRank1(F32, {1}), outWrong(U8, {3, 2});
    DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC d{&in.desc, &out.desc, &scale.desc, &zero.desc};
    Accepted(DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, &d);
    d.OutputZeroPointTensor = &zeroI8.desc;
    Refused(DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, &d, "OutputZeroPointTensor has data type INT8, but OutputTensor is UINT8");
    d.OutputZeroPointTensor = &zero.desc;
    d.OutputScaleTensor = &scaleTwo.desc;
    Refused(DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, &d, "OutputScaleTensor has sizes {1, 2}");
    d.OutputScaleTensor = &scaleRank1.desc;
    Refused(DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, &d, "OutputScaleTensor has sizes {1}");
    d.OutputScaleTensor = &scale.desc;
    d.OutputTensor = &outWrong.desc;
    Refused(DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, &d, "InputTensor has sizes {2, 3}, but OutputTensor has {3, 2}");
    d.OutputTensor = &outI32.desc;
    Refused(DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, &d, "OutputTensor has data type INT32");
}

}  // namespace
}  // namespace freedml_test
