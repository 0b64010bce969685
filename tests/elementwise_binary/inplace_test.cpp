// In-place execution of the binary element-wise operators through the public API: the output is
// bound to the very region of input A (or B), at a nonzero offset inside a larger buffer, and the
// result must equal what a separate output would have received. References are computed here in
// double precision, independently of the kernels. Large enough to take the vectorized and the
// multi-threaded paths.
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>

#include "dml_fixture.h"

namespace freedml_test {
namespace {

struct InPlaceCase {
    const char* name;
    DML_OPERATOR_TYPE type;
    DML_TENSOR_DATA_TYPE dataType;  // FLOAT32 or UINT32
    std::function<double(double, double)> reference;
    double relativeTolerance;  // 0: exact
};

std::vector<InPlaceCase> Cases() {
    const auto f32 = DML_TENSOR_DATA_TYPE_FLOAT32, u32 = DML_TENSOR_DATA_TYPE_UINT32;
    auto u = [](double v) { return double(uint32_t(uint64_t(int64_t(v)))); };
    return {
        {"SUBTRACT", DML_OPERATOR_ELEMENT_WISE_SUBTRACT, f32, [](double a, double b) { return a - b; }, 0},
        {"MULTIPLY", DML_OPERATOR_ELEMENT_WISE_MULTIPLY, f32, [](double a, double b) { return a * b; }, 0},
        {"DIVIDE", DML_OPERATOR_ELEMENT_WISE_DIVIDE, f32, [](double a, double b) { return a / b; }, 0},
        {"MIN", DML_OPERATOR_ELEMENT_WISE_MIN, f32, [](double a, double b) { return std::min(a, b); }, 0},
        {"MAX", DML_OPERATOR_ELEMENT_WISE_MAX, f32, [](double a, double b) { return std::max(a, b); }, 0},
        {"MEAN", DML_OPERATOR_ELEMENT_WISE_MEAN, f32, [](double a, double b) { return (a + b) / 2; }, 0},
        {"ATAN_YX", DML_OPERATOR_ELEMENT_WISE_ATAN_YX, f32, [](double a, double b) { return std::atan2(a, b); }, 1e-6},
        {"DIFFERENCE_SQUARE", DML_OPERATOR_ELEMENT_WISE_DIFFERENCE_SQUARE, f32,
         [](double a, double b) { return (a - b) * (a - b); }, 1e-6},
        {"MODULUS_TRUNCATE", DML_OPERATOR_ELEMENT_WISE_MODULUS_TRUNCATE, f32,
         [](double a, double b) { return std::fmod(a, b); }, 0},
        {"MODULUS_FLOOR", DML_OPERATOR_ELEMENT_WISE_MODULUS_FLOOR, f32,
         [](double a, double b) { return a - b * std::floor(a / b); }, 1e-5},
        {"POW", DML_OPERATOR_ELEMENT_WISE_POW, f32, [](double a, double b) { return std::pow(std::fabs(a), b); }, 1e-6},
        {"BIT_AND", DML_OPERATOR_ELEMENT_WISE_BIT_AND, u32, [](double a, double b) { return double(uint32_t(a) & uint32_t(b)); }, 0},
        {"BIT_OR", DML_OPERATOR_ELEMENT_WISE_BIT_OR, u32, [](double a, double b) { return double(uint32_t(a) | uint32_t(b)); }, 0},
        {"BIT_XOR", DML_OPERATOR_ELEMENT_WISE_BIT_XOR, u32, [](double a, double b) { return double(uint32_t(a) ^ uint32_t(b)); }, 0},
        {"BIT_SHIFT_LEFT", DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_LEFT, u32,
         [u](double a, double b) { return b >= 32 ? 0.0 : u(double(uint64_t(a) << uint64_t(b))); }, 0},
        {"BIT_SHIFT_RIGHT", DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_RIGHT, u32,
         [](double a, double b) { return b >= 32 ? 0.0 : double(uint32_t(a) >> uint32_t(b)); }, 0},
        {"LOGICAL_AND", DML_OPERATOR_ELEMENT_WISE_LOGICAL_AND, u32, [](double a, double b) { return double(a != 0 && b != 0); }, 0},
        {"LOGICAL_OR", DML_OPERATOR_ELEMENT_WISE_LOGICAL_OR, u32, [](double a, double b) { return double(a != 0 || b != 0); }, 0},
        {"LOGICAL_XOR", DML_OPERATOR_ELEMENT_WISE_LOGICAL_XOR, u32, [](double a, double b) { return double((a != 0) != (b != 0)); }, 0},
    };
}

class BinaryInPlace : public DmlTest, public ::testing::WithParamInterface<std::tuple<InPlaceCase, bool>> {};

TEST_P(BinaryInPlace, OutputAliasesAnInput) {
    const auto& [c, aliasB] = GetParam();
    constexpr uint32_t kCount = 100003;  // odd: a vector remainder, and enough for the thread pool
    constexpr uint64_t kOffset = 256;    // the aliased region sits inside a larger buffer
    Tensor t(c.dataType, {1, 1, 1, kCount});
    ComPtr<IDMLCompiledOperator> op;
    if (c.type == DML_OPERATOR_ELEMENT_WISE_POW) {
        DML_ELEMENT_WISE_POW_OPERATOR_DESC desc{&t.desc, &t.desc, &t.desc, nullptr};
        op = Compile(c.type, &desc);
    } else {
        // Every other operator here has the {ATensor, BTensor, OutputTensor} layout.
        DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC desc{&t.desc, &t.desc, &t.desc};
        op = Compile(c.type, &desc);
    }
    ASSERT_TRUE(op) << Messages();
    auto persistent = Initialize(op.Get());

    std::mt19937 random(1234);
    std::vector<uint32_t> aBits(kCount), bBits(kCount);
    std::vector<double> a(kCount), b(kCount);
    for (uint32_t i = 0; i < kCount; ++i) {
        if (c.dataType == DML_TENSOR_DATA_TYPE_FLOAT32) {
            float x = std::uniform_real_distribution<float>(-100.0f, 100.0f)(random);
            float y = std::uniform_real_distribution<float>(0.5f, 4.0f)(random) * (i % 3 ? 1.0f : -1.0f);
            if (c.type == DML_OPERATOR_ELEMENT_WISE_POW) x = std::fabs(x) / 16.0f + 0.5f;
            std::memcpy(&aBits[i], &x, 4);
            std::memcpy(&bBits[i], &y, 4);
            a[i] = x;
            b[i] = y;
        } else {
            aBits[i] = random() % 3 == 0 ? 0 : random();
            bBits[i] = c.type == DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_LEFT || c.type == DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_RIGHT
                           ? random() % 40
                           : (random() % 3 == 0 ? 0 : random());
            a[i] = aBits[i];
            b[i] = bBits[i];
        }
    }
    const uint64_t bytes = t.Bytes();
    auto shared = Buffer(kOffset + bytes + 256, D3D12_HEAP_TYPE_DEFAULT, L"shared");
    auto other = Buffer(bytes, D3D12_HEAP_TYPE_DEFAULT, L"other");
    std::vector<uint32_t> sentinel((kOffset + bytes + 256) / 4, 0xA5A5A5A5u);
    Upload(shared.Get(), sentinel);
    // The aliased operand lives in `shared` at kOffset; the other operand in its own buffer.
    Upload(shared.Get(), aliasB ? bBits : aBits, kOffset);
    Upload(other.Get(), aliasB ? aBits : bBits);
    DML_BUFFER_BINDING region{shared.Get(), kOffset, bytes}, separate{other.Get(), 0, bytes};
    DML_BUFFER_BINDING* aBinding = aliasB ? &separate : &region;
    DML_BUFFER_BINDING* bBinding = aliasB ? &region : &separate;
    Dispatch(op.Get(), {BufferBinding(aBinding), BufferBinding(bBinding)}, {BufferBinding(&region)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();

    auto all = ReadbackAs<uint32_t>(shared.Get(), sentinel.size());
    for (uint64_t w = 0; w < kOffset / 4; ++w) ASSERT_EQ(all[w], 0xA5A5A5A5u) << "word " << w << " before the region";
    for (uint64_t w = (kOffset + bytes) / 4; w < all.size(); ++w) ASSERT_EQ(all[w], 0xA5A5A5A5u) << "word " << w << " after";
    int failures = 0;
    for (uint32_t i = 0; i < kCount && failures < 10; ++i) {
        const double want = c.reference(a[i], b[i]);
        double got;
        if (c.dataType == DML_TENSOR_DATA_TYPE_FLOAT32) {
            float f;
            std::memcpy(&f, &all[kOffset / 4 + i], 4);
            got = f;
            const double expected = c.relativeTolerance ? want : double(float(want));
            const bool ok = c.relativeTolerance ? std::fabs(got - want) <= c.relativeTolerance * std::fabs(want) + 1e-30
                                                : got == expected;
            if (!ok) ++failures, ADD_FAILURE() << c.name << "[" << i << "](" << a[i] << ", " << b[i] << ") = " << got
                                              << ", expected " << expected;
        } else {
            got = all[kOffset / 4 + i];
            if (got != want) ++failures, ADD_FAILURE() << c.name << "[" << i << "](" << a[i] << ", " << b[i] << ") = " << got
                                                      << ", expected " << want;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(, BinaryInPlace, ::testing::Combine(::testing::ValuesIn(Cases()), ::testing::Bool()),
                         [](const auto& param) {
                             return std::string(std::get<0>(param.param).name) +
                                    (std::get<1>(param.param) ? "_aliases_B" : "_aliases_A");
                         });

// Same region, other strides: A is the output's own memory read transposed (H2 compares byte
// regions, not layouts). Every output element must come from A as it was before anything was
// written, whichever order the kernel writes in.
TEST_F(DmlTest, SubtractInPlaceThroughTransposedInput) {
    const UINT n = 131;  // not a multiple of any vector width
    Tensor aView(DML_TENSOR_DATA_TYPE_FLOAT32, {n, n}, {1, n});
    Tensor packed(DML_TENSOR_DATA_TYPE_FLOAT32, {n, n});
    DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC desc{&aView.desc, &packed.desc, &packed.desc};
    auto op = Compile(DML_OPERATOR_ELEMENT_WISE_SUBTRACT, &desc);
    ASSERT_TRUE(op) << Messages();
    auto persistent = Initialize(op.Get());
    std::vector<float> a(size_t(n) * n), b(size_t(n) * n);
    for (size_t i = 0; i < a.size(); ++i) {
        a[i] = float(i);
        b[i] = float(i % 7) * 0.5f;
    }
    auto shared = Buffer(packed.Bytes()), other = Buffer(packed.Bytes());
    Upload(shared.Get(), a);
    Upload(other.Get(), b);
    DML_BUFFER_BINDING region{shared.Get(), 0, packed.Bytes()}, separate{other.Get(), 0, packed.Bytes()};
    Dispatch(op.Get(), {BufferBinding(&region), BufferBinding(&separate)}, {BufferBinding(&region)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    auto y = ReadbackAs<float>(shared.Get(), a.size());
    for (UINT r = 0; r < n; ++r) {
        for (UINT c = 0; c < n; ++c) {
            ASSERT_EQ(y[size_t(r) * n + c], a[size_t(c) * n + r] - b[size_t(r) * n + c]) << r << ", " << c;
        }
    }
}

// ELEMENT_WISE_IF's desc checks: each refusal names the tensor and what it must be, and makes
// no operator.
TEST_F(DmlTest, IfRefusesWrongTypesAndSizes) {
    Tensor u8(DML_TENSOR_DATA_TYPE_UINT8, {2, 3}), f32(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3});
    Tensor i32(DML_TENSOR_DATA_TYPE_INT32, {2, 3}), wide(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 4});
    Tensor i4(DML_TENSOR_DATA_TYPE_INT4, {2, 4});
    auto refused = [&](const DML_ELEMENT_WISE_IF_OPERATOR_DESC& desc, const std::vector<const char*>& words) {
        DML_OPERATOR_DESC opDesc{DML_OPERATOR_ELEMENT_WISE_IF, &desc};
        ComPtr<IDMLOperator> op;
        EXPECT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), E_INVALIDARG);
        EXPECT_FALSE(op);
        for (const char* word : words) EXPECT_NE(Messages().find(word), std::string::npos) << word << ": " << Messages();
        ClearMessages();
    };
    refused({&f32.desc, &f32.desc, &f32.desc, &f32.desc}, {"ConditionTensor", "FLOAT32", "UINT8"});
    refused({&u8.desc, &i32.desc, &f32.desc, &f32.desc}, {"ATensor", "INT32", "FLOAT32"});
    refused({&u8.desc, &f32.desc, &f32.desc, &wide.desc}, {"OutputTensor", "sizes"});
    refused({&u8.desc, &i4.desc, &i4.desc, &i4.desc}, {"ATensor", "INT4", "4-bit"});
}

// 4-bit tensors: QUANTIZE and DEQUANTIZE take them (blocked scales included, each size dividing the
// output's); an operator DirectML does not list them for refuses them, naming the tensor and type.
TEST_F(DmlTest, FourBitTensorsOnlyInQuantization) {
    Tensor x(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 6}), q(DML_TENSOR_DATA_TYPE_INT4, {2, 6});
    Tensor blocks(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3}), uneven(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 4});
    auto quantize = [&](Tensor& scale) {
        DML_QUANTIZE_OPERATOR_DESC desc{&x.desc, DML_QUANTIZATION_TYPE_SCALE, 1, &scale.desc, &q.desc};
        DML_OPERATOR_DESC opDesc{DML_OPERATOR_QUANTIZE, &desc};
        ComPtr<IDMLOperator> op;
        const HRESULT hr = dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op));
        return hr;
    };
    EXPECT_EQ(quantize(blocks), S_OK) << Messages();
    EXPECT_EQ(quantize(uneven), E_INVALIDARG);
    EXPECT_NE(Messages().find("divisor"), std::string::npos) << Messages();
    ClearMessages();

    Tensor u4(DML_TENSOR_DATA_TYPE_UINT4, {2, 6});
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity{&u4.desc, &u4.desc, nullptr};
    DML_OPERATOR_DESC opDesc{DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity};
    ComPtr<IDMLOperator> op;
    EXPECT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), E_INVALIDARG);
    EXPECT_FALSE(op);
    for (const char* word : {"InputTensor", "UINT4", "QUANTIZE and DEQUANTIZE only"}) {
        EXPECT_NE(Messages().find(word), std::string::npos) << word << ": " << Messages();
    }
}

// Comparisons are not in-place operators: an output bound to exactly input A's region is refused
// (H2) and nothing runs.
TEST_F(DmlTest, ComparisonDoesNotRunInPlace) {
    Tensor in(DML_TENSOR_DATA_TYPE_UINT8, {1, 1, 1, 16});
    Tensor out(DML_TENSOR_DATA_TYPE_UINT8, {1, 1, 1, 16});
    DML_ELEMENT_WISE_LOGICAL_EQUALS_OPERATOR_DESC desc{&in.desc, &in.desc, &out.desc};
    auto op = Compile(DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS, &desc);
    ASSERT_TRUE(op) << Messages();
    auto persistent = Initialize(op.Get());
    auto a = Buffer(in.Bytes()), b = Buffer(in.Bytes());
    DML_BUFFER_BINDING ab{a.Get(), 0, in.Bytes()}, bb{b.Get(), 0, in.Bytes()}, ob{a.Get(), 0, out.Bytes()};
    auto table = Table(op.Get());
    DML_BINDING_DESC inputs[] = {BufferBinding(&ab), BufferBinding(&bb)};
    DML_BINDING_DESC output = BufferBinding(&ob);
    table->BindInputs(2, inputs);
    table->BindOutputs(1, &output);
    Record(op.Get(), table.Get());  // a void method: the broken rule removes the device
    EXPECT_TRUE(DeviceRemoved());
    EXPECT_NE(Messages().find("H2"), std::string::npos) << Messages();
}

}  // namespace
}  // namespace freedml_test
