// The first operators through the whole API: owned weights go through the initializer into the
// persistent resource; results are checked against float64 references computed here, from the
// operators' documented formulas (independent of the kernels).
#include <cmath>
#include <random>

#include "dml_fixture.h"

namespace freedml_test {
namespace {

std::vector<float> RandomValues(size_t count, unsigned seed) {
    std::mt19937 engine(seed);
    std::uniform_real_distribution<float> distribution(-1.0f, 1.0f);
    std::vector<float> values(count);
    for (auto& v : values) v = distribution(engine);
    return values;
}

// C = alpha * A x B + beta * C0 for row-major A {m, k}, B {k, n}.
std::vector<double> GemmReference(const std::vector<float>& a, const std::vector<float>& b,
                                  const std::vector<float>* c, uint32_t m, uint32_t k, uint32_t n, double alpha,
                                  double beta) {
    std::vector<double> out(size_t(m) * n);
    for (uint32_t i = 0; i < m; ++i) {
        for (uint32_t j = 0; j < n; ++j) {
            double sum = 0;
            for (uint32_t p = 0; p < k; ++p) sum += double(a[i * k + p]) * double(b[p * n + j]);
            out[i * n + j] = alpha * sum + (c ? beta * double((*c)[i * n + j]) : 0.0);
        }
    }
    return out;
}

void ExpectClose(const std::vector<float>& actual, const std::vector<double>& expected, double tolerance) {
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i) {
        ASSERT_NEAR(actual[i], expected[i], tolerance) << "element " << i;
    }
}

class GemmTest : public DmlTest, public ::testing::WithParamInterface<int> {};

// Parameter: which of A, B, C is OWNED_BY_DML (bit 0, 1, 2).
TEST_P(GemmTest, OwnedTensorsGoThroughTheInitializer) {
    const int owned = GetParam();
    const uint32_t m = 7, k = 33, n = 5;
    auto flag = [&](int bit) { return (owned >> bit) & 1 ? DML_TENSOR_FLAG_OWNED_BY_DML : DML_TENSOR_FLAG_NONE; };
    Tensor a(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, m, k}, {}, flag(0));
    Tensor b(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, k, n}, {}, flag(1));
    Tensor c(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, m, n}, {}, flag(2));
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, m, n});
    DML_GEMM_OPERATOR_DESC desc{&a.desc, &b.desc, &c.desc, &out.desc, DML_MATRIX_TRANSFORM_NONE,
                                DML_MATRIX_TRANSFORM_NONE, 0.5f, 2.0f, nullptr};
    auto op = Compile(DML_OPERATOR_GEMM, &desc);
    ASSERT_TRUE(op);

    auto av = RandomValues(m * k, 1), bv = RandomValues(k * n, 2), cv = RandomValues(m * n, 3);
    auto aBuf = Buffer(a.Bytes(), D3D12_HEAP_TYPE_DEFAULT, L"A");
    auto bBuf = Buffer(b.Bytes(), D3D12_HEAP_TYPE_DEFAULT, L"B");
    auto cBuf = Buffer(c.Bytes(), D3D12_HEAP_TYPE_DEFAULT, L"C");
    auto outBuf = Buffer(out.Bytes(), D3D12_HEAP_TYPE_DEFAULT, L"Output");
    Upload(aBuf.Get(), av);
    Upload(bBuf.Get(), bv);
    Upload(cBuf.Get(), cv);
    DML_BUFFER_BINDING ab{aBuf.Get(), 0, a.Bytes()}, bb{bBuf.Get(), 0, b.Bytes()}, cb{cBuf.Get(), 0, c.Bytes()};
    DML_BUFFER_BINDING ob{outBuf.Get(), 0, out.Bytes()};

    std::vector<DML_BUFFER_BINDING> ownedInputs;
    if (owned) {
        ownedInputs = {flag(0) ? ab : DML_BUFFER_BINDING{}, flag(1) ? bb : DML_BUFFER_BINDING{},
                       flag(2) ? cb : DML_BUFFER_BINDING{}};
    }
    auto persistent = Initialize(op.Get(), ownedInputs);
    EXPECT_EQ(op->GetBindingProperties().PersistentResourceSize > 0, owned != 0);
    // After initialization the owned tensors' buffers no longer matter: overwrite them.
    if (owned) {
        std::vector<float> zeros(m * k + k * n + m * n, 0.0f);
        if (flag(0)) Upload(aBuf.Get(), std::vector<float>(m * k, 0.0f));
        if (flag(1)) Upload(bBuf.Get(), std::vector<float>(k * n, 0.0f));
        if (flag(2)) Upload(cBuf.Get(), std::vector<float>(m * n, 0.0f));
    }
    auto input = [&](int bit, DML_BUFFER_BINDING* binding) { return flag(bit) ? NoBinding() : BufferBinding(binding); };
    Dispatch(op.Get(), {input(0, &ab), input(1, &bb), input(2, &cb)}, {BufferBinding(&ob)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    ExpectClose(ReadbackAs<float>(outBuf.Get(), m * n), GemmReference(av, bv, &cv, m, k, n, 0.5, 2.0), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(OwnedCombinations, GemmTest, ::testing::Range(0, 8));

TEST_F(DmlTest, GemmWithoutCAndWithFusedRelu) {
    const uint32_t m = 4, k = 6, n = 3;
    Tensor a(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, m, k});
    Tensor b(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, k, n});
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, m, n});
    DML_ACTIVATION_RELU_OPERATOR_DESC relu{nullptr, nullptr};
    DML_OPERATOR_DESC fused{DML_OPERATOR_ACTIVATION_RELU, &relu};
    DML_GEMM_OPERATOR_DESC desc{&a.desc, &b.desc, nullptr, &out.desc, DML_MATRIX_TRANSFORM_NONE,
                                DML_MATRIX_TRANSFORM_NONE, 1.0f, 0.0f, &fused};
    auto op = Compile(DML_OPERATOR_GEMM, &desc);
    ASSERT_TRUE(op);
    auto persistent = Initialize(op.Get());
    auto av = RandomValues(m * k, 4), bv = RandomValues(k * n, 5);
    auto aBuf = Buffer(a.Bytes()), bBuf = Buffer(b.Bytes()), outBuf = Buffer(out.Bytes());
    Upload(aBuf.Get(), av);
    Upload(bBuf.Get(), bv);
    DML_BUFFER_BINDING ab{aBuf.Get(), 0, a.Bytes()}, bb{bBuf.Get(), 0, b.Bytes()}, ob{outBuf.Get(), 0, out.Bytes()};
    Dispatch(op.Get(), {BufferBinding(&ab), BufferBinding(&bb), NoBinding()}, {BufferBinding(&ob)}, persistent.Get());
    auto expected = GemmReference(av, bv, nullptr, m, k, n, 1.0, 0.0);
    for (auto& v : expected) v = std::max(v, 0.0);
    ExpectClose(ReadbackAs<float>(outBuf.Get(), m * n), expected, 1e-5);
}

TEST_F(DmlTest, AddRunsInPlace) {
    Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 1, 8});
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC desc{&t.desc, &t.desc, &t.desc};
    auto op = Compile(DML_OPERATOR_ELEMENT_WISE_ADD, &desc);
    ASSERT_TRUE(op);
    auto persistent = Initialize(op.Get());
    auto aBuf = Buffer(t.Bytes(), D3D12_HEAP_TYPE_DEFAULT, L"a"), bBuf = Buffer(t.Bytes(), D3D12_HEAP_TYPE_DEFAULT, L"b");
    Upload(aBuf.Get(), std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
    Upload(bBuf.Get(), std::vector<float>{10, 20, 30, 40, 50, 60, 70, 80});
    DML_BUFFER_BINDING ab{aBuf.Get(), 0, t.Bytes()}, bb{bBuf.Get(), 0, t.Bytes()};
    // Output on A's very region: allowed because ADD supports in-place execution (H2).
    Dispatch(op.Get(), {BufferBinding(&ab), BufferBinding(&bb)}, {BufferBinding(&ab)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    EXPECT_EQ(ReadbackAs<float>(aBuf.Get(), 8), (std::vector<float>{11, 22, 33, 44, 55, 66, 77, 88}));
}

TEST_F(DmlTest, JoinOfManyInputs) {
    const uint32_t count = 300;
    std::vector<std::unique_ptr<Tensor>> inputs;
    std::vector<DML_TENSOR_DESC> descs;
    for (uint32_t i = 0; i < count; ++i) {
        inputs.push_back(std::make_unique<Tensor>(DML_TENSOR_DATA_TYPE_FLOAT32, std::vector<UINT>{1, 1, 1, 1 + i % 3}));
        descs.push_back(inputs.back()->desc);
    }
    uint32_t total = 0;
    for (auto& t : inputs) total += t->sizes[3];
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 1, total});
    DML_JOIN_OPERATOR_DESC desc{count, descs.data(), &out.desc, 3};
    auto op = Compile(DML_OPERATOR_JOIN, &desc);
    ASSERT_TRUE(op);
    auto persistent = Initialize(op.Get());
    // All inputs in one buffer, each at a 16-byte aligned offset (V3).
    std::vector<float> source;
    std::vector<DML_BUFFER_BINDING> buffers(count);
    std::vector<float> expected;
    auto inBuf = Buffer(uint64_t(count) * 16, D3D12_HEAP_TYPE_DEFAULT, L"inputs");
    std::vector<float> staged(count * 4, 0.0f);
    for (uint32_t i = 0; i < count; ++i) {
        for (uint32_t e = 0; e < inputs[i]->sizes[3]; ++e) {
            staged[i * 4 + e] = float(i) + 0.25f * float(e);
            expected.push_back(staged[i * 4 + e]);
        }
    }
    Upload(inBuf.Get(), staged);
    std::vector<DML_BINDING_DESC> bindings(count);
    for (uint32_t i = 0; i < count; ++i) {
        buffers[i] = {inBuf.Get(), uint64_t(i) * 16, inputs[i]->Bytes()};
        bindings[i] = BufferBinding(&buffers[i]);
    }
    auto outBuf = Buffer(out.Bytes());
    DML_BUFFER_BINDING ob{outBuf.Get(), 0, out.Bytes()};
    Dispatch(op.Get(), bindings, {BufferBinding(&ob)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    EXPECT_EQ(ReadbackAs<float>(outBuf.Get(), total), expected);
}

class ConvolutionTest : public DmlTest, public ::testing::WithParamInterface<int> {};

// Cross-correlation, 2-D, with bias: out[n][m][y][x] = b[m] + sum w[m][c][i][j] *
// in[n][c][y*s + i - pad][x*s + j - pad]. Parameter: which of Input, Filter, Bias is
// OWNED_BY_DML (bit 0, 1, 2); the kernel packs an owned filter and bias, and an owned input is
// read from the initializer's copy in the persistent resource.
TEST_P(ConvolutionTest, OwnedTensorsGoThroughTheInitializer) {
    const int owned = GetParam();
    auto flag = [&](int bit) { return (owned >> bit) & 1 ? DML_TENSOR_FLAG_OWNED_BY_DML : DML_TENSOR_FLAG_NONE; };
    const uint32_t n = 1, c = 3, h = 6, w = 5, m = 4, kh = 3, kw = 3, stride = 2, pad = 1;
    const uint32_t oh = (h + 2 * pad - kh) / stride + 1, ow = (w + 2 * pad - kw) / stride + 1;
    Tensor input(DML_TENSOR_DATA_TYPE_FLOAT32, {n, c, h, w}, {}, flag(0));
    Tensor filter(DML_TENSOR_DATA_TYPE_FLOAT32, {m, c, kh, kw}, {}, flag(1));
    Tensor bias(DML_TENSOR_DATA_TYPE_FLOAT32, {1, m, 1, 1}, {}, flag(2));
    Tensor output(DML_TENSOR_DATA_TYPE_FLOAT32, {n, m, oh, ow});
    UINT strides[2] = {stride, stride}, dilations[2] = {1, 1}, pads[2] = {pad, pad}, outPad[2] = {0, 0};
    DML_CONVOLUTION_OPERATOR_DESC desc{&input.desc, &filter.desc, &bias.desc, &output.desc,
                                       DML_CONVOLUTION_MODE_CROSS_CORRELATION, DML_CONVOLUTION_DIRECTION_FORWARD, 2,
                                       strides, dilations, pads, pads, outPad, 1, nullptr};
    auto op = Compile(DML_OPERATOR_CONVOLUTION, &desc);
    ASSERT_TRUE(op);
    auto iv = RandomValues(n * c * h * w, 6), fv = RandomValues(m * c * kh * kw, 7), bv = RandomValues(m, 8);
    auto iBuf = Buffer(input.Bytes()), fBuf = Buffer(filter.Bytes()), bBuf = Buffer(bias.Bytes());
    auto oBuf = Buffer(output.Bytes());
    Upload(iBuf.Get(), iv);
    Upload(fBuf.Get(), fv);
    Upload(bBuf.Get(), bv);
    DML_BUFFER_BINDING ib{iBuf.Get(), 0, input.Bytes()}, fb{fBuf.Get(), 0, filter.Bytes()};
    DML_BUFFER_BINDING bb{bBuf.Get(), 0, bias.Bytes()}, ob{oBuf.Get(), 0, output.Bytes()};
    std::vector<DML_BUFFER_BINDING> ownedBindings;
    std::vector<DML_BINDING_DESC> inputs;
    for (int i = 0; i < 3; ++i) {
        DML_BUFFER_BINDING* binding = i == 0 ? &ib : i == 1 ? &fb : &bb;
        const bool isOwned = (owned >> i) & 1;
        ownedBindings.push_back(isOwned ? *binding : DML_BUFFER_BINDING{});
        inputs.push_back(isOwned ? NoBinding() : BufferBinding(binding));
    }
    auto persistent = Initialize(op.Get(), owned ? ownedBindings : std::vector<DML_BUFFER_BINDING>{});
    Dispatch(op.Get(), inputs, {BufferBinding(&ob)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    std::vector<double> expected(size_t(n) * m * oh * ow);
    for (uint32_t om = 0; om < m; ++om)
        for (uint32_t y = 0; y < oh; ++y)
            for (uint32_t x = 0; x < ow; ++x) {
                double sum = bv[om];
                for (uint32_t ic = 0; ic < c; ++ic)
                    for (uint32_t i = 0; i < kh; ++i)
                        for (uint32_t j = 0; j < kw; ++j) {
                            int yy = int(y * stride + i) - int(pad), xx = int(x * stride + j) - int(pad);
                            if (yy < 0 || yy >= int(h) || xx < 0 || xx >= int(w)) continue;
                            sum += double(fv[((om * c + ic) * kh + i) * kw + j]) * iv[(ic * h + yy) * w + xx];
                        }
                expected[(om * oh + y) * ow + x] = sum;
            }
    ExpectClose(ReadbackAs<float>(oBuf.Get(), expected.size()), expected, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(OwnedCombinations, ConvolutionTest, ::testing::Range(0, 8));

}  // namespace
}  // namespace freedml_test
