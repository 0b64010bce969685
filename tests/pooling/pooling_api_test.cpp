// The pooling operators (and their gradients) through the public API: invalid descs are refused with messages that name
// the field and the values, a ResNet-sized max pool (with indices) and average pool, split by the
// thread pool, and ResNet-50's stem (convolution, batch normalization, RELU, max pool) give what
// float64 references computed here say.
#include <algorithm>
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

namespace freedml_test {
namespace {

// ResNet-50's stem composed through the API, one dispatch per layer, each reading the last one's
// output buffer: a 7x7 stride-2 convolution (padding 3), batch normalization, RELU and a 3x3
// stride-2 max pool (padding 1), FLOAT32, against the same four layers computed here in float64.
TEST_F(PoolingTest, ResNetStemMatchesFloat64Layers) {
    constexpr UINT c = 3, h = 32, w = 32, k = 8, ch = 16, cw = 16, ph = 8, pw = 8;
    std::mt19937 engine(11);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    auto random = [&](size_t n, float scale, float shift) {
        std::vector<float> v(n);
        for (auto& x : v) x = normal(engine) * scale + shift;
        return v;
    };
    const auto image = random(size_t(c) * h * w, 1.0f, 0.0f), filter = random(size_t(k) * c * 7 * 7, 0.1f, 0.0f);
    const auto mean = random(k, 0.2f, 0.0f), scale = random(k, 0.5f, 1.0f), bias = random(k, 0.3f, 0.0f);
    auto variance = random(k, 0.3f, 1.0f);
    for (auto& v : variance) v = std::fabs(v) + 0.1f;

    Tensor x(DML_TENSOR_DATA_TYPE_FLOAT32, {1, c, h, w}), f(DML_TENSOR_DATA_TYPE_FLOAT32, {k, c, 7, 7});
    Tensor y(DML_TENSOR_DATA_TYPE_FLOAT32, {1, k, ch, cw}), stat(DML_TENSOR_DATA_TYPE_FLOAT32, {1, k, 1, 1});
    Tensor p(DML_TENSOR_DATA_TYPE_FLOAT32, {1, k, ph, pw});
    auto upload = [&](const std::vector<float>& values) {
        auto buffer = Buffer(values.size() * sizeof(float));
        Upload(buffer.Get(), values);
        return buffer;
    };
    auto X = upload(image), F = upload(filter), M = upload(mean), V = upload(variance), S = upload(scale),
         B = upload(bias);
    auto conv = Buffer(y.Bytes()), normalized = Buffer(y.Bytes()), relu = Buffer(y.Bytes()), pooled = Buffer(p.Bytes());
    auto run = [&](DML_OPERATOR_TYPE type, const void* desc, std::vector<std::pair<ID3D12Resource*, UINT64>> ins,
                   std::pair<ID3D12Resource*, UINT64> out) {
        auto op = Compile(type, desc);
        ASSERT_TRUE(op) << Messages();
        auto persistent = Initialize(op.Get());
        std::vector<DML_BUFFER_BINDING> buffers;
        buffers.reserve(ins.size() + 1);
        std::vector<DML_BINDING_DESC> inputs;
        for (auto [resource, bytes] : ins) {
            if (!resource) {  // an absent optional tensor
                inputs.push_back({DML_BINDING_TYPE_NONE, nullptr});
                continue;
            }
            buffers.push_back({resource, 0, bytes});
            inputs.push_back(BufferBinding(&buffers.back()));
        }
        buffers.push_back({out.first, 0, out.second});
        Dispatch(op.Get(), inputs, {BufferBinding(&buffers.back())}, persistent.Get());
        ASSERT_FALSE(DeviceRemoved()) << Messages();
    };
    UINT two[] = {2, 2}, one[] = {1, 1}, three[] = {3, 3}, none[] = {0, 0};
    DML_CONVOLUTION_OPERATOR_DESC convolution{&x.desc, &f.desc, nullptr, &y.desc, DML_CONVOLUTION_MODE_CROSS_CORRELATION,
                                              DML_CONVOLUTION_DIRECTION_FORWARD, 2, two, one, three, three, none, 1,
                                              nullptr};
    run(DML_OPERATOR_CONVOLUTION, &convolution, {{X.Get(), x.Bytes()}, {F.Get(), f.Bytes()}, {nullptr, 0}},
        {conv.Get(), y.Bytes()});
    DML_BATCH_NORMALIZATION_OPERATOR_DESC batchNorm{&y.desc, &stat.desc, &stat.desc, &stat.desc, &stat.desc,
                                                    &y.desc, TRUE,       1e-5f,      nullptr};
    run(DML_OPERATOR_BATCH_NORMALIZATION, &batchNorm,
        {{conv.Get(), y.Bytes()}, {M.Get(), stat.Bytes()}, {V.Get(), stat.Bytes()}, {S.Get(), stat.Bytes()},
         {B.Get(), stat.Bytes()}},
        {normalized.Get(), y.Bytes()});
    DML_ACTIVATION_RELU_OPERATOR_DESC activation{&y.desc, &y.desc};
    run(DML_OPERATOR_ACTIVATION_RELU, &activation, {{normalized.Get(), y.Bytes()}}, {relu.Get(), y.Bytes()});
    UINT window[] = {3, 3}, pads[] = {1, 1};
    DML_MAX_POOLING_OPERATOR_DESC pool{&y.desc, &p.desc, 2, two, window, pads, pads};
    run(DML_OPERATOR_MAX_POOLING, &pool, {{relu.Get(), y.Bytes()}}, {pooled.Get(), p.Bytes()});
    const auto got = ReadbackAs<float>(pooled.Get(), size_t(k) * ph * pw);

    // The four layers in float64, written out as their definitions say.
    std::vector<double> feature(size_t(k) * ch * cw);
    for (UINT o = 0; o < k; ++o) {
        for (UINT oy = 0; oy < ch; ++oy) {
            for (UINT ox = 0; ox < cw; ++ox) {
                double sum = 0;
                for (UINT i = 0; i < c; ++i) {
                    for (int ky = 0; ky < 7; ++ky) {
                        for (int kx = 0; kx < 7; ++kx) {
                            const int iy = int(oy) * 2 - 3 + ky, ix = int(ox) * 2 - 3 + kx;
                            if (iy < 0 || ix < 0 || iy >= int(h) || ix >= int(w)) continue;
                            sum += double(image[(size_t(i) * h + iy) * w + ix]) *
                                   double(filter[((size_t(o) * c + i) * 7 + ky) * 7 + kx]);
                        }
                    }
                }
                const double bn = (sum - mean[o]) / std::sqrt(double(variance[o]) + 1e-5) * scale[o] + bias[o];
                feature[(size_t(o) * ch + oy) * cw + ox] = bn > 0 ? bn : 0.0;
            }
        }
    }
    for (UINT o = 0; o < k; ++o) {
        for (UINT oy = 0; oy < ph; ++oy) {
            for (UINT ox = 0; ox < pw; ++ox) {
                double best = -INFINITY;
                for (int wy = 0; wy < 3; ++wy) {
                    for (int wx = 0; wx < 3; ++wx) {
                        const int iy = int(oy) * 2 - 1 + wy, ix = int(ox) * 2 - 1 + wx;
                        if (iy < 0 || ix < 0 || iy >= int(ch) || ix >= int(cw)) continue;
                        best = std::max(best, feature[(size_t(o) * ch + iy) * cw + ix]);
                    }
                }
                const double value = got[(size_t(o) * ph + oy) * pw + ox];
                ASSERT_NEAR(value, best, 1e-4 * (1 + std::fabs(best))) << "channel " << o << " at " << oy << "," << ox;
            }
        }
    }
}

}  // namespace
}  // namespace freedml_test
