// Activation operators through the public API: in-place execution (H2), which activations GEMM
// accepts as FusedActivation, tensors large enough for the thread pool to split (checked against
// float64 references computed here, independently of the kernels), and one timing against memcpy.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>

#include "dml_fixture.h"

namespace freedml_test {
namespace {

std::vector<float> RandomFloats(size_t count, float scale, uint32_t seed) {
    std::mt19937 engine(seed);
    std::normal_distribution<float> normal(0.0f, scale);
    std::vector<float> v(count);
    for (auto& x : v) x = normal(engine);
    return v;
}

void ExpectUlps(const std::vector<float>& actual, const std::vector<double>& expected, int64_t ulps) {
    ASSERT_EQ(actual.size(), expected.size());
    int failures = 0;
    for (size_t i = 0; i < actual.size() && failures < 10; ++i) {
        const float want = float(expected[i]);
        if (std::fabs(want) < 1.2e-38f && std::fabs(actual[i]) < 1.2e-38f) continue;  // D3D may flush denormals
        if (UlpDistance(actual[i], want) > ulps) {
            ++failures;
            ADD_FAILURE() << "[" << i << "] is " << actual[i] << ", expected " << want;
        }
    }
}

class ActivationTest : public DmlTest {};

TEST_F(ActivationTest, SigmoidRunsInPlaceOnLargeTensor) {
    const UINT count = 3 * 100003;  // odd, so that the pool's pieces end mid-block
    Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 100003});
    DML_ACTIVATION_SIGMOID_OPERATOR_DESC desc{&t.desc, &t.desc};
    auto op = Compile(DML_OPERATOR_ACTIVATION_SIGMOID, &desc);
    ASSERT_TRUE(op);
    auto persistent = Initialize(op.Get());
    auto values = RandomFloats(count, 6.0f, 1);
    auto buffer = Buffer(t.Bytes());
    Upload(buffer.Get(), values);
    DML_BUFFER_BINDING binding{buffer.Get(), 0, t.Bytes()};
    // The output on the input's very region: allowed, SIGMOID supports in-place execution (H2).
    Dispatch(op.Get(), {BufferBinding(&binding)}, {BufferBinding(&binding)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    std::vector<double> expected(count);
    for (UINT i = 0; i < count; ++i) expected[i] = 1.0 / (1.0 + std::exp(-double(values[i])));
    ExpectUlps(ReadbackAs<float>(buffer.Get(), count), expected, 4);
}

// Same region, other strides: the input is the output's own memory read transposed. Every output
// element must come from the input as it was before anything was written.
TEST_F(ActivationTest, LeakyReluInPlaceThroughTransposedInput) {
    const UINT n = 257;
    Tensor view(DML_TENSOR_DATA_TYPE_FLOAT32, {n, n}, {1, n});
    Tensor packed(DML_TENSOR_DATA_TYPE_FLOAT32, {n, n});
    DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC desc{&view.desc, &packed.desc, 0.25f};
    auto op = Compile(DML_OPERATOR_ACTIVATION_LEAKY_RELU, &desc);
    ASSERT_TRUE(op) << Messages();
    auto persistent = Initialize(op.Get());
    auto x = RandomFloats(size_t(n) * n, 4.0f, 7);
    auto buffer = Buffer(packed.Bytes());
    Upload(buffer.Get(), x);
    DML_BUFFER_BINDING binding{buffer.Get(), 0, packed.Bytes()};
    Dispatch(op.Get(), {BufferBinding(&binding)}, {BufferBinding(&binding)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    auto y = ReadbackAs<float>(buffer.Get(), x.size());
    for (UINT r = 0; r < n; ++r) {
        for (UINT c = 0; c < n; ++c) {
            const double v = x[size_t(c) * n + r];
            ASSERT_EQ(y[size_t(r) * n + c], float(v >= 0 ? v : 0.25 * v)) << r << ", " << c;
        }
    }
}

TEST_F(ActivationTest, ParameterizedReluRunsInPlaceWithBroadcastSlope) {
    Tensor x(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3});
    Tensor slope(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3}, {0, 1});  // one slope per column
    DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC desc{&x.desc, &slope.desc, &x.desc};
    auto op = Compile(DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU, &desc);
    ASSERT_TRUE(op);
    auto persistent = Initialize(op.Get());
    auto xBuf = Buffer(x.Bytes()), sBuf = Buffer(slope.Bytes());
    Upload(xBuf.Get(), std::vector<float>{-1, 2, -3, 4, -5, -6});
    Upload(sBuf.Get(), std::vector<float>{0.5f, 2, 0.25f});
    DML_BUFFER_BINDING xb{xBuf.Get(), 0, x.Bytes()}, sb{sBuf.Get(), 0, slope.Bytes()};
    Dispatch(op.Get(), {BufferBinding(&xb), BufferBinding(&sb)}, {BufferBinding(&xb)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    EXPECT_EQ(ReadbackAs<float>(xBuf.Get(), 6), (std::vector<float>{-0.5f, 2, -0.75f, 4, -10, -1.5f}));
}

// Softmax over many slices, over the last axis (packed) and over axis 0 (strided slices).
TEST_F(ActivationTest, Softmax1OverManySlices) {
    const UINT rows = 2000, cols = 37;
    auto values = RandomFloats(rows * cols, 5.0f, 2);
    for (UINT axis : {1u, 0u}) {
        SCOPED_TRACE(axis);
        Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, {rows, cols});
        DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC desc{&t.desc, &t.desc, 1, &axis};
        auto op = Compile(DML_OPERATOR_ACTIVATION_SOFTMAX1, &desc);
        ASSERT_TRUE(op);
        auto persistent = Initialize(op.Get());
        auto in = Buffer(t.Bytes()), out = Buffer(t.Bytes());
        Upload(in.Get(), values);
        DML_BUFFER_BINDING ib{in.Get(), 0, t.Bytes()}, ob{out.Get(), 0, t.Bytes()};
        Dispatch(op.Get(), {BufferBinding(&ib)}, {BufferBinding(&ob)}, persistent.Get());
        ASSERT_FALSE(DeviceRemoved()) << Messages();
        std::vector<double> expected(rows * cols);
        const UINT slices = axis == 1 ? rows : cols, length = axis == 1 ? cols : rows;
        for (UINT s = 0; s < slices; ++s) {
            auto at = [&](UINT i) { return axis == 1 ? s * cols + i : i * cols + s; };
            double max = -INFINITY, sum = 0;
            for (UINT i = 0; i < length; ++i) max = std::max(max, double(values[at(i)]));
            for (UINT i = 0; i < length; ++i) sum += std::exp(double(values[at(i)]) - max);
            for (UINT i = 0; i < length; ++i) expected[at(i)] = std::exp(double(values[at(i)]) - max) / sum;
        }
        ExpectUlps(ReadbackAs<float>(out.Get(), rows * cols), expected, 2);
    }
}

// Every activation DirectML lists as fusable is accepted as GEMM's FusedActivation; the axis
// activations and the 6.2 ones are not.
TEST_F(ActivationTest, GemmAcceptsEveryFusableActivation) {
    Tensor a(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 2, 3}), b(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 3, 4});
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 2, 4});
    // Every activation desc is at most two tensor pointers and two floats; zeros with a few set
    // parameters make a valid fused desc (tensors null).
    struct AnyActivation {
        const void* input = nullptr;
        const void* output = nullptr;
        float first = 1.0f, second = 0.5f;
    };
    const DML_OPERATOR_TYPE fusable[] = {
        DML_OPERATOR_ACTIVATION_ELU,        DML_OPERATOR_ACTIVATION_HARD_SIGMOID,   DML_OPERATOR_ACTIVATION_IDENTITY,
        DML_OPERATOR_ACTIVATION_LEAKY_RELU, DML_OPERATOR_ACTIVATION_LINEAR,         DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS,
        DML_OPERATOR_ACTIVATION_RELU,       DML_OPERATOR_ACTIVATION_SCALED_ELU,     DML_OPERATOR_ACTIVATION_SCALED_TANH,
        DML_OPERATOR_ACTIVATION_SIGMOID,    DML_OPERATOR_ACTIVATION_SOFTPLUS,       DML_OPERATOR_ACTIVATION_SOFTSIGN,
        DML_OPERATOR_ACTIVATION_TANH,       DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU, DML_OPERATOR_ACTIVATION_SHRINK,
        DML_OPERATOR_ACTIVATION_CELU,       DML_OPERATOR_ACTIVATION_GELU,
    };
    for (DML_OPERATOR_TYPE type : fusable) {
        SCOPED_TRACE(int(type));
        AnyActivation activation;
        DML_OPERATOR_DESC fused{type, &activation};
        DML_GEMM_OPERATOR_DESC desc{&a.desc, &b.desc, nullptr, &out.desc, DML_MATRIX_TRANSFORM_NONE,
                                    DML_MATRIX_TRANSFORM_NONE, 1.0f, 0.0f, &fused};
        DML_OPERATOR_DESC opDesc{DML_OPERATOR_GEMM, &desc};
        ComPtr<IDMLOperator> op;
        ASSERT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), S_OK) << Messages();
        ComPtr<IDMLCompiledOperator> compiled;
        EXPECT_EQ(dml->CompileOperator(op.Get(), DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&compiled)), S_OK) << Messages();
    }
    const DML_OPERATOR_TYPE notFusable[] = {DML_OPERATOR_ACTIVATION_SWISH, DML_OPERATOR_ACTIVATION_HARD_SWISH,
                                            DML_OPERATOR_ACTIVATION_SOFTMAX, DML_OPERATOR_ACTIVATION_HARDMAX,
                                            DML_OPERATOR_ACTIVATION_LOG_SOFTMAX};
    for (DML_OPERATOR_TYPE type : notFusable) {
        SCOPED_TRACE(int(type));
        AnyActivation activation;
        DML_OPERATOR_DESC fused{type, &activation};
        DML_GEMM_OPERATOR_DESC desc{&a.desc, &b.desc, nullptr, &out.desc, DML_MATRIX_TRANSFORM_NONE,
                                    DML_MATRIX_TRANSFORM_NONE, 1.0f, 0.0f, &fused};
        DML_OPERATOR_DESC opDesc{DML_OPERATOR_GEMM, &desc};
        ComPtr<IDMLOperator> op;
        EXPECT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), E_INVALIDARG);
        EXPECT_NE(Messages().find("cannot be fused"), std::string::npos) << Messages();
        ClearMessages();
    }
}

TEST_F(ActivationTest, InvalidDescsAreRefused) {
    Tensor t3(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3, 4});
    auto refused = [&](DML_OPERATOR_TYPE type, const void* desc, const char* words) {
        DML_OPERATOR_DESC opDesc{type, desc};
        ComPtr<IDMLOperator> op;
        EXPECT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), E_INVALIDARG) << words;
        EXPECT_NE(Messages().find(words), std::string::npos) << Messages();
        ClearMessages();
    };
    UINT repeated[] = {1, 1}, outside[] = {3};
    DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC s1{&t3.desc, &t3.desc, 2, repeated};
    refused(DML_OPERATOR_ACTIVATION_SOFTMAX1, &s1, "repeats");
    s1 = {&t3.desc, &t3.desc, 1, outside};
    refused(DML_OPERATOR_ACTIVATION_SOFTMAX1, &s1, "outside");
    s1 = {&t3.desc, &t3.desc, 0, outside};
    refused(DML_OPERATOR_ACTIVATION_SOFTMAX1, &s1, "AxisCount");
    DML_ACTIVATION_SOFTMAX_OPERATOR_DESC s{&t3.desc, &t3.desc};  // effective rank 3
    refused(DML_OPERATOR_ACTIVATION_SOFTMAX, &s, "effective rank");
    Tensor i8(DML_TENSOR_DATA_TYPE_INT8, {2, 3});
    DML_ACTIVATION_SIGMOID_OPERATOR_DESC sig{&i8.desc, &i8.desc};
    refused(DML_OPERATOR_ACTIVATION_SIGMOID, &sig, "INT8");
}

// Prints SIGMOID and SOFTMAX throughput on 16M packed floats against memcpy of the same bytes.
// Run with --gtest_also_run_disabled_tests.
TEST_F(ActivationTest, DISABLED_SpeedAgainstMemcpy) {
    const UINT rows = 1 << 14, cols = 1 << 10;
    const size_t count = size_t(rows) * cols, bytes = count * 4;
    Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, {rows, cols});
    auto values = RandomFloats(count, 4.0f, 3);
    auto in = Buffer(t.Bytes()), out = Buffer(t.Bytes());
    Upload(in.Get(), values);
    DML_BUFFER_BINDING ib{in.Get(), 0, t.Bytes()}, ob{out.Get(), 0, t.Bytes()};
    auto time = [&](auto&& run) {
        run();
        double best = 1e30;
        for (int r = 0; r < 5; ++r) {
            auto start = std::chrono::steady_clock::now();
            run();
            best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        return best;
    };
    std::vector<float> src(values), dst(count);
    const double copy = time([&] { std::memcpy(dst.data(), src.data(), bytes); });
    DML_ACTIVATION_SIGMOID_OPERATOR_DESC sigmoid{&t.desc, &t.desc};
    auto sigmoidOp = Compile(DML_OPERATOR_ACTIVATION_SIGMOID, &sigmoid);
    Initialize(sigmoidOp.Get());
    const double sig = time([&] { Dispatch(sigmoidOp.Get(), {BufferBinding(&ib)}, {BufferBinding(&ob)}); });
    DML_ACTIVATION_SOFTMAX_OPERATOR_DESC softmax{&t.desc, &t.desc};
    auto softmaxOp = Compile(DML_OPERATOR_ACTIVATION_SOFTMAX, &softmax);
    Initialize(softmaxOp.Get());
    const double soft = time([&] { Dispatch(softmaxOp.Get(), {BufferBinding(&ib)}, {BufferBinding(&ob)}); });
    std::printf("16M floats (64 MiB in, 64 MiB out): memcpy %.2f ms (%.1f GB/s), SIGMOID %.2f ms (%.2fx memcpy), "
                "SOFTMAX over rows of %u %.2f ms (%.2fx memcpy)\n",
                copy * 1e3, 2 * bytes / copy / 1e9, sig * 1e3, sig / copy, cols, soft * 1e3, soft / copy);
}

}  // namespace
}  // namespace freedml_test
