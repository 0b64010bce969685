// The quantized family (integer and quantized matrix multiplies and convolutions, quantized average
// pooling, dynamic quantization) through the public API: invalid descs are refused with messages
// that name the field and the values, and valid ones are accepted (results are in the conformance
// suite), and matrix multiplies large enough for the thread pool and oneDNN's integer GEMM give
// what int64 references computed here say.
#include <cmath>
#include <random>

#include "dml_fixture.h"

namespace freedml_test {
namespace {

constexpr auto I8 = DML_TENSOR_DATA_TYPE_INT8;
constexpr auto U8 = DML_TENSOR_DATA_TYPE_UINT8;
constexpr auto I32 = DML_TENSOR_DATA_TYPE_INT32;
constexpr auto F32 = DML_TENSOR_DATA_TYPE_FLOAT32;
constexpr auto F16 = DML_TENSOR_DATA_TYPE_FLOAT16;

class QuantizedTest : public DmlTest {};

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


template <class T>
std::vector<T> RandomIntegers(size_t count, int lo, int hi, uint32_t seed) {
    std::mt19937 engine(seed);
    std::uniform_int_distribution<int> uniform(lo, hi);
    std::vector<T> v(count);
    for (auto& x : v) x = T(uniform(engine));
    return v;
}

// (A - za[m]) x (B - zb[n]) in int64 for A {m, k} with row stride `lda` and B {k, n} packed.
template <class TA, class TB>
std::vector<int64_t> Reference(const std::vector<TA>& a, UINT lda, const std::vector<TB>& b, const std::vector<TA>& za,
                               const std::vector<TB>& zb, UINT m, UINT k, UINT n) {
    std::vector<int64_t> c(size_t(m) * n);
    for (UINT i = 0; i < m; ++i)
        for (UINT j = 0; j < n; ++j) {
            int64_t sum = 0;
            for (UINT kk = 0; kk < k; ++kk) {
                sum += (int64_t(a[size_t(i) * lda + kk]) - za[i]) * (int64_t(b[size_t(kk) * n + j]) - zb[j]);
            }
            c[size_t(i) * n + j] = sum;
        }
    return c;
}

// Per-row and per-column zero points, A with padded rows: INT8 B takes oneDNN's integer GEMM and the
// exact zero-point pass, UINT8 B the plain loops; both must give the int64 reference.
TEST_F(QuantizedTest, LargeMatrixMultiplyIntegerMatchesInt64) {
    const UINT m = 67, k = 130, n = 45, lda = 136;
    const auto a = RandomIntegers<uint8_t>(size_t(m) * lda, 0, 255, 1);
    const auto za = RandomIntegers<uint8_t>(m, 0, 255, 2);
    Tensor ta(U8, {1, 1, m, k}, {m * lda, m * lda, lda, 1}), tza(U8, {1, 1, m, 1}), out(I32, {1, 1, m, n});
    auto aBuffer = Buffer(ta.Bytes()), zaBuffer = Buffer(tza.Bytes() + 4), outBuffer = Buffer(out.Bytes());
    Upload(aBuffer.Get(), a.data(), ta.Bytes());  // the last row's padding lies past the tensor
    Upload(zaBuffer.Get(), za);
    for (const bool signedB : {true, false}) {
        SCOPED_TRACE(signedB ? "INT8 B" : "UINT8 B");
        const auto bType = signedB ? I8 : U8;
        const auto b = signedB ? RandomIntegers<int16_t>(size_t(k) * n, -128, 127, 3)
                               : RandomIntegers<int16_t>(size_t(k) * n, 0, 255, 3);
        const auto zb = signedB ? RandomIntegers<int16_t>(n, -128, 127, 4) : RandomIntegers<int16_t>(n, 0, 255, 4);
        std::vector<uint8_t> bBytes(b.begin(), b.end()), zbBytes(zb.begin(), zb.end());
        Tensor tb(bType, {1, 1, k, n}), tzb(bType, {1, 1, 1, n});
        auto bBuffer = Buffer(tb.Bytes()), zbBuffer = Buffer(tzb.Bytes());
        Upload(bBuffer.Get(), bBytes);
        Upload(zbBuffer.Get(), zbBytes);
        DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC desc{&ta.desc, &tza.desc, &tb.desc, &tzb.desc, &out.desc};
        auto op = Compile(DML_OPERATOR_MATRIX_MULTIPLY_INTEGER, &desc);
        ASSERT_TRUE(op) << Messages();
        auto persistent = Initialize(op.Get());
        DML_BUFFER_BINDING ab{aBuffer.Get(), 0, ta.Bytes()}, zab{zaBuffer.Get(), 0, tza.Bytes()},
            bb{bBuffer.Get(), 0, tb.Bytes()}, zbb{zbBuffer.Get(), 0, tzb.Bytes()}, ob{outBuffer.Get(), 0, out.Bytes()};
        Dispatch(op.Get(), {BufferBinding(&ab), BufferBinding(&zab), BufferBinding(&bb), BufferBinding(&zbb)},
                 {BufferBinding(&ob)}, persistent.Get());
        ASSERT_FALSE(DeviceRemoved()) << Messages();
        const auto got = ReadbackAs<int32_t>(outBuffer.Get(), size_t(m) * n);
        const auto expected = Reference(a, lda, b, std::vector<uint8_t>(za.begin(), za.end()), zb, m, k, n);
        for (size_t e = 0; e < got.size(); ++e) ASSERT_EQ(got[e], int32_t(expected[e])) << e;
    }
}

// A grouped, strided, padded CONVOLUTION_INTEGER with per-channel filter zero points, large enough
// for the thread pool: UINT8 input and INT8 filter (oneDNN's integer GEMM over patches) against a
// direct int64 sum.
TEST_F(QuantizedTest, LargeConvolutionIntegerMatchesInt64) {
    const UINT n = 2, c = 6, h = 13, w = 11, m = 8, groups = 2, kh = 3, kw = 3, sh = 2, sw = 1, ph = 1, pw = 2;
    const UINT cig = c / groups, cog = m / groups;
    const UINT oh = (h + 2 * ph - kh) / sh + 1, ow = (w + 2 * pw - kw) / sw + 1;
    const auto x = RandomIntegers<uint8_t>(size_t(n) * c * h * w, 0, 255, 5);
    const auto f = RandomIntegers<int8_t>(size_t(m) * cig * kh * kw, -128, 127, 6);
    const auto fz = RandomIntegers<int8_t>(m, -128, 127, 7);
    const uint8_t xz = 131;
    Tensor tx(U8, {n, c, h, w}), txz(U8, {1, 1, 1, 1}), tf(I8, {m, cig, kh, kw}), tfz(I8, {1, m, 1, 1});
    Tensor out(I32, {n, m, oh, ow});
    auto xBuffer = Buffer(tx.Bytes()), xzBuffer = Buffer(4), fBuffer = Buffer(tf.Bytes()), fzBuffer = Buffer(tfz.Bytes());
    auto outBuffer = Buffer(out.Bytes());
    Upload(xBuffer.Get(), x);
    Upload(xzBuffer.Get(), std::vector<uint8_t>{xz, 0, 0, 0});
    Upload(fBuffer.Get(), f);
    Upload(fzBuffer.Get(), fz);
    const UINT strides[] = {sh, sw}, dilations[] = {1, 1}, pads[] = {ph, pw};
    DML_CONVOLUTION_INTEGER_OPERATOR_DESC desc{&tx.desc, &txz.desc, &tf.desc, &tfz.desc, &out.desc, 2,
                                               strides,  dilations, pads,     pads,       groups};
    auto op = Compile(DML_OPERATOR_CONVOLUTION_INTEGER, &desc);
    ASSERT_TRUE(op) << Messages();
    auto persistent = Initialize(op.Get());
    DML_BUFFER_BINDING xb{xBuffer.Get(), 0, tx.Bytes()}, xzb{xzBuffer.Get(), 0, txz.Bytes()},
        fb{fBuffer.Get(), 0, tf.Bytes()}, fzb{fzBuffer.Get(), 0, tfz.Bytes()}, ob{outBuffer.Get(), 0, out.Bytes()};
    Dispatch(op.Get(), {BufferBinding(&xb), BufferBinding(&xzb), BufferBinding(&fb), BufferBinding(&fzb)},
             {BufferBinding(&ob)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    const auto got = ReadbackAs<int32_t>(outBuffer.Get(), size_t(n) * m * oh * ow);
    for (UINT b = 0; b < n; ++b)
        for (UINT oc = 0; oc < m; ++oc)
            for (UINT y = 0; y < oh; ++y)
                for (UINT xo = 0; xo < ow; ++xo) {
                    int64_t sum = 0;
                    const UINT g = oc / cog;
                    for (UINT icg = 0; icg < cig; ++icg)
                        for (UINT ky = 0; ky < kh; ++ky)
                            for (UINT kx = 0; kx < kw; ++kx) {
                                const int64_t iy = int64_t(y) * sh + ky - ph, ix = int64_t(xo) * sw + kx - pw;
                                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;  // zero padding (real value 0)
                                const int64_t xv = x[((size_t(b) * c + g * cig + icg) * h + size_t(iy)) * w + size_t(ix)];
                                const int64_t fv = f[((size_t(oc) * cig + icg) * kh + ky) * kw + kx];
                                sum += (xv - xz) * (fv - fz[oc]);
                            }
                    const size_t e = ((size_t(b) * m + oc) * oh + y) * ow + xo;
                    ASSERT_EQ(got[e], int32_t(sum)) << b << " " << oc << " " << y << " " << xo;
                }
}

}  // namespace
}  // namespace freedml_test
