// The pooling operators (and their gradients) through the public API: invalid descs are refused with messages that name
// the field and the values, and a ResNet-sized max pool (with indices) and average pool, split by
// the thread pool, give what float64 references computed here say.
#include <cmath>
#include <limits>
#include <random>

#include "dml_fixture.h"

namespace freedml_test {
namespace {

class PoolingTest : public DmlTest {};

TEST_F(PoolingTest, InvalidDescsAreRefused) {
    Tensor in(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 2, 5, 5});
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 2, 2, 2});     // 2x2 window, stride 2, no padding
    Tensor wrong(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 2, 3, 2});   // a ceil-mode height
    Tensor otherBatch(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 2, 2, 2});
    Tensor in3(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 5, 5});
    Tensor i8in(DML_TENSOR_DATA_TYPE_INT8, {1, 2, 5, 5}), i8out(DML_TENSOR_DATA_TYPE_INT8, {1, 2, 2, 2});
    Tensor f16out(DML_TENSOR_DATA_TYPE_FLOAT16, {1, 2, 2, 2});
    Tensor idx32(DML_TENSOR_DATA_TYPE_UINT32, {1, 2, 2, 2}), idxI32(DML_TENSOR_DATA_TYPE_INT32, {1, 2, 2, 2});
    Tensor idxWrong(DML_TENSOR_DATA_TYPE_UINT32, {1, 2, 2, 1});
    UINT two[] = {2, 2}, zeros[] = {0, 0}, zeroOne[] = {0, 1}, three[] = {2, 2, 2}, ones[] = {1, 1},
         big[] = {6, 2};
    DML_AVERAGE_POOLING_OPERATOR_DESC avg{&in.desc, &wrong.desc, 2, two, two, zeros, zeros, FALSE};
    Refused(DML_OPERATOR_AVERAGE_POOLING, &avg, "OutputTensor's spatial dimension 0 (dimension 2) is 3");
    avg = {&in.desc, &out.desc, 3, three, three, three, three, FALSE};
    Refused(DML_OPERATOR_AVERAGE_POOLING, &avg, "DimensionCount (3) must be InputTensor's DimensionCount minus 2");
    avg = {&in3.desc, &in3.desc, 1, two, two, zeros, zeros, FALSE};
    Refused(DML_OPERATOR_AVERAGE_POOLING, &avg, "InputTensor has 3 dimensions");
    avg = {&in.desc, &out.desc, 2, zeroOne, two, zeros, zeros, FALSE};
    Refused(DML_OPERATOR_AVERAGE_POOLING, &avg, "Strides[0] is 0");
    avg = {&in.desc, &out.desc, 2, two, big, zeros, zeros, FALSE};
    Refused(DML_OPERATOR_AVERAGE_POOLING, &avg, "the window spans 6 inputs");
    avg = {&in.desc, &otherBatch.desc, 2, two, two, zeros, zeros, FALSE};
    Refused(DML_OPERATOR_AVERAGE_POOLING, &avg, "must keep InputTensor's batch and channels (1, 2)");
    avg = {&i8in.desc, &i8out.desc, 2, two, two, zeros, zeros, FALSE};
    Refused(DML_OPERATOR_AVERAGE_POOLING, &avg, "InputTensor has data type INT8");
    avg = {&in.desc, &f16out.desc, 2, two, two, zeros, zeros, FALSE};
    Refused(DML_OPERATOR_AVERAGE_POOLING, &avg, "OutputTensor has data type FLOAT16");
    DML_AVERAGE_POOLING1_OPERATOR_DESC avg1{&in.desc, &out.desc, 2, two, two, zeros, zeros, zeroOne, FALSE};
    Refused(DML_OPERATOR_AVERAGE_POOLING1, &avg1, "Dilations[0] is 0");
    avg1 = {&in.desc, &out.desc, 2, two, two, zeros, zeros, nullptr, FALSE};
    Refused(DML_OPERATOR_AVERAGE_POOLING1, &avg1, "Dilations");
    DML_LP_POOLING_OPERATOR_DESC lp{&in.desc, &out.desc, 2, two, two, zeros, zeros, 0};
    Refused(DML_OPERATOR_LP_POOLING, &lp, "P is 0");
    DML_MAX_POOLING1_OPERATOR_DESC max1{&in.desc, &out.desc, &idxI32.desc, 2, two, two, zeros, zeros};
    Refused(DML_OPERATOR_MAX_POOLING1, &max1, "OutputIndicesTensor has data type INT32");
    max1 = {&in.desc, &out.desc, &idxWrong.desc, 2, two, two, zeros, zeros};
    Refused(DML_OPERATOR_MAX_POOLING1, &max1, "OutputIndicesTensor {1, 2, 2, 1} must have OutputTensor's sizes");
    // A 2x2 window dilated by 3 spans 4 inputs: (5 - 4) / 1 + 1 = 2 outputs each way.
    UINT dil[] = {3, 3};
    DML_MAX_POOLING2_OPERATOR_DESC max2{&in.desc, &out.desc, &idx32.desc, 2, ones, two, zeros, zeros, dil};
    DML_OPERATOR_DESC accepted{DML_OPERATOR_MAX_POOLING2, &max2};
    ComPtr<IDMLOperator> op;
    EXPECT_EQ(dml->CreateOperator(&accepted, IID_PPV_ARGS(&op)), S_OK) << Messages();
    Tensor unpoolIdx(DML_TENSOR_DATA_TYPE_UINT32, {1, 2, 2, 1});
    DML_MAX_UNPOOLING_OPERATOR_DESC unpool{&out.desc, &unpoolIdx.desc, &in.desc};
    Refused(DML_OPERATOR_MAX_UNPOOLING, &unpool, "IndicesTensor {1, 2, 2, 1} must have InputTensor's sizes");
    unpool = {&out.desc, &idx32.desc, &in3.desc};
    Refused(DML_OPERATOR_MAX_UNPOOLING, &unpool, "OutputTensor (3) must each have 4");
    unpool = {&out.desc, &idxI32.desc, &in.desc};
    Refused(DML_OPERATOR_MAX_UNPOOLING, &unpool, "IndicesTensor has data type INT32");
    // The gradients: InputGradientTensor has the forward output's sizes, OutputGradientTensor the
    // forward input's, MAX_POOLING_GRAD's InputTensor too.
    DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC avgGrad{&wrong.desc, &in.desc, 2, two, two, zeros, zeros, FALSE};
    Refused(DML_OPERATOR_AVERAGE_POOLING_GRAD, &avgGrad, "InputGradientTensor's spatial dimension 0 (dimension 2) is 3");
    avgGrad = {&out.desc, &f16out.desc, 2, two, two, zeros, zeros, FALSE};
    Refused(DML_OPERATOR_AVERAGE_POOLING_GRAD, &avgGrad, "but OutputGradientTensor is FLOAT16");
    DML_MAX_POOLING_GRAD_OPERATOR_DESC maxGrad{&out.desc, &out.desc, &in.desc, 2, two, two, zeros, zeros, ones};
    Refused(DML_OPERATOR_MAX_POOLING_GRAD, &maxGrad, "InputTensor {1, 2, 2, 2} must have OutputGradientTensor's sizes");
}

// ResNet-50's stem pool at a smaller size (1x16x56x56, 3x3, stride 2, padding 1) and a global
// average pool, both long enough for the thread pool to split.
TEST_F(PoolingTest, LargePoolsAcrossThreads) {
    const UINT c = 16, h = 56, w = 56, oh = 28, ow = 28;
    std::mt19937 engine(7);
    std::normal_distribution<float> normal(0.0f, 3.0f);
    std::vector<float> values(size_t(c) * h * w);
    for (auto& v : values) v = normal(engine);
    Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, {1, c, h, w});
    auto in = Buffer(t.Bytes());
    Upload(in.Get(), values);
    DML_BUFFER_BINDING ib{in.Get(), 0, t.Bytes()};

    Tensor o(DML_TENSOR_DATA_TYPE_FLOAT32, {1, c, oh, ow}), i(DML_TENSOR_DATA_TYPE_UINT64, {1, c, oh, ow});
    UINT window[] = {3, 3}, strides[] = {2, 2}, pads[] = {1, 1}, dil[] = {1, 1};
    DML_MAX_POOLING2_OPERATOR_DESC max{&t.desc, &o.desc, &i.desc, 2, strides, window, pads, pads, dil};
    auto op = Compile(DML_OPERATOR_MAX_POOLING2, &max);
    ASSERT_TRUE(op) << Messages();
    auto persistent = Initialize(op.Get());
    auto out = Buffer(o.Bytes()), idx = Buffer(i.Bytes());
    DML_BUFFER_BINDING ob{out.Get(), 0, o.Bytes()}, xb{idx.Get(), 0, i.Bytes()};
    Dispatch(op.Get(), {BufferBinding(&ib)}, {BufferBinding(&ob), BufferBinding(&xb)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    const auto got = ReadbackAs<float>(out.Get(), size_t(c) * oh * ow);
    const auto gotIndex = ReadbackAs<uint64_t>(idx.Get(), size_t(c) * oh * ow);
    for (UINT k = 0; k < c; ++k) {
        for (UINT y = 0; y < oh; ++y) {
            for (UINT x = 0; x < ow; ++x) {
                float best = -std::numeric_limits<float>::infinity();
                uint64_t at = 0;
                for (int dy = 0; dy < 3; ++dy) {
                    for (int dx = 0; dx < 3; ++dx) {
                        const int yy = int(y) * 2 - 1 + dy, xx = int(x) * 2 - 1 + dx;
                        if (yy < 0 || xx < 0 || yy >= int(h) || xx >= int(w)) continue;
                        const uint64_t flat = (uint64_t(k) * h + yy) * w + xx;
                        if (values[flat] > best) best = values[flat], at = flat;
                    }
                }
                const size_t e = (size_t(k) * oh + y) * ow + x;
                ASSERT_EQ(got[e], best) << k << " " << y << " " << x;
                ASSERT_EQ(gotIndex[e], at) << k << " " << y << " " << x;
            }
        }
    }

    Tensor g(DML_TENSOR_DATA_TYPE_FLOAT32, {1, c, 1, 1});
    UINT full[] = {h, w}, one[] = {1, 1}, none[] = {0, 0};
    DML_AVERAGE_POOLING_OPERATOR_DESC avg{&t.desc, &g.desc, 2, one, full, none, none, FALSE};
    auto avgOp = Compile(DML_OPERATOR_AVERAGE_POOLING, &avg);
    ASSERT_TRUE(avgOp) << Messages();
    auto avgPersistent = Initialize(avgOp.Get());
    auto avgOut = Buffer(g.Bytes());
    DML_BUFFER_BINDING gb{avgOut.Get(), 0, g.Bytes()};
    Dispatch(avgOp.Get(), {BufferBinding(&ib)}, {BufferBinding(&gb)}, avgPersistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    const auto mean = ReadbackAs<float>(avgOut.Get(), c);
    for (UINT k = 0; k < c; ++k) {
        double sum = 0;
        for (size_t e = 0; e < size_t(h) * w; ++e) sum += values[size_t(k) * h * w + e];
        EXPECT_NEAR(mean[k], sum / (h * w), 1e-6) << k;
    }
}

}  // namespace
}  // namespace freedml_test
