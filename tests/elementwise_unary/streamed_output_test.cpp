// Outputs of 32 MiB and more, which the packed rows write with non-temporal stores, through an L1
// tile (kernels/cpu/streaming_store.h) or, for EXP, SIGMOID and GELU in FLOAT32 on AVX-512, straight
// from the registers (exp_avx512.h): EXP in FLOAT32 and FLOAT16, SIGMOID and GELU, out of place at an
// offset that leaves the output's start off a cache line (its head and tail take ordinary stores),
// and in place. Every element is checked against the C library in double (within the conformance
// tolerances: SIGMOID's subnormal results within FLT_MIN), and the bytes either side of the output
// must be untouched.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "dml_fixture.h"

namespace freedml_test {
namespace {

constexpr UINT kCount = (UINT(32) << 18) + 13;  // 32 MiB of float and 13 floats more: a ragged tail
constexpr UINT64 kOffset = 48;                  // 16-byte aligned, as bindings must be, but not 64
constexpr unsigned char kGuard = 0xA5;

float Argument(UINT i) { return float(int(i % 40009) - 20004) / 200.0f; }  // -100 .. 100

double Exp(double x) { return std::exp(x); }
double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double Gelu(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }  // erfc: no cancellation for x < 0

class StreamedOutput : public DmlTest {
protected:
    // Runs `op` (one input of `bytes`) from `input` into a fresh buffer at kOffset; returns the
    // output's bytes and checks the guard bytes before and after it.
    std::vector<unsigned char> RunAtOffset(IDMLCompiledOperator* op, ID3D12Resource* input, UINT64 bytes) {
        auto output = Buffer(bytes + 2 * kOffset);
        Upload(output.Get(), std::vector<unsigned char>(bytes + 2 * kOffset, kGuard));
        auto persistent = Initialize(op);
        DML_BUFFER_BINDING in{input, 0, bytes}, out{output.Get(), kOffset, bytes};
        Dispatch(op, {BufferBinding(&in)}, {BufferBinding(&out)}, persistent.Get());
        EXPECT_FALSE(DeviceRemoved()) << Messages();
        auto all = Readback(output.Get(), bytes + 2 * kOffset);
        for (UINT64 i = 0; i < kOffset; ++i) {
            EXPECT_EQ(all[i], kGuard) << "byte " << i << " before the output was written";
            EXPECT_EQ(all[kOffset + bytes + i], kGuard) << "byte " << i << " after the output was written";
        }
        return std::vector<unsigned char>(all.begin() + kOffset, all.begin() + kOffset + bytes);
    }

    void RunInPlace(IDMLCompiledOperator* op, ID3D12Resource* buffer, UINT64 bytes) {
        auto persistent = Initialize(op);
        DML_BUFFER_BINDING binding{buffer, 0, bytes};
        Dispatch(op, {BufferBinding(&binding)}, {BufferBinding(&binding)}, persistent.Get());
        ASSERT_FALSE(DeviceRemoved()) << Messages();
    }

    // Each of `got` within `ulps` of f(argument) in double, or within `absolute` of it.
    void ExpectFloats(const std::vector<float>& got, double (*f)(double), int64_t ulps, double absolute,
                      const char* name) {
        int failures = 0;
        for (UINT i = 0; i < got.size() && failures < 10; ++i) {
            const float want = float(f(double(Argument(i))));
            if (UlpDistance(got[i], want) > ulps && std::fabs(double(got[i]) - double(want)) > absolute) {
                ++failures, ADD_FAILURE() << name << "(" << Argument(i) << ") = " << got[i] << ", expected " << want
                                          << " (element " << i << ")";
            }
        }
    }

    // A FLOAT32 operator `type` (`desc`, whose tensors are `t`) out of place at kOffset, then in place.
    void RunFloat32(DML_OPERATOR_TYPE type, const void* desc, const Tensor& t, double (*f)(double), int64_t ulps,
                    double absolute, const char* name) {
        auto op = Compile(type, desc);
        ASSERT_TRUE(op) << Messages();
        std::vector<float> x(kCount);
        for (UINT i = 0; i < kCount; ++i) x[i] = Argument(i);
        auto input = Buffer(t.Bytes());
        Upload(input.Get(), x);
        auto bytes = RunAtOffset(op.Get(), input.Get(), t.Bytes());
        std::vector<float> y(kCount);
        std::memcpy(y.data(), bytes.data(), t.Bytes());
        ExpectFloats(y, f, ulps, absolute, name);
        RunInPlace(op.Get(), input.Get(), t.Bytes());
        ExpectFloats(ReadbackAs<float>(input.Get(), kCount), f, ulps, absolute, name);
    }
};

TEST_F(StreamedOutput, ExpFloat32) {
    Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 1, kCount});
    DML_ELEMENT_WISE_EXP_OPERATOR_DESC desc{&t.desc, &t.desc, nullptr};
    RunFloat32(DML_OPERATOR_ELEMENT_WISE_EXP, &desc, t, Exp, 4, 0.0, "exp");
}

TEST_F(StreamedOutput, SigmoidFloat32) {
    Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 1, kCount});
    DML_ACTIVATION_SIGMOID_OPERATOR_DESC desc{&t.desc, &t.desc};
    RunFloat32(DML_OPERATOR_ACTIVATION_SIGMOID, &desc, t, Sigmoid, 3, FLT_MIN, "sigmoid");
}

// GELU within the conformance cases' tolerance: 4 ulp, or 1e-7 absolute (near zero, in its
// negative tail).
TEST_F(StreamedOutput, GeluFloat32) {
    Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 1, kCount});
    DML_ACTIVATION_GELU_OPERATOR_DESC desc{&t.desc, &t.desc};
    RunFloat32(DML_OPERATOR_ACTIVATION_GELU, &desc, t, Gelu, 4, 1e-7, "gelu");
}

// FLOAT16: twice the elements for the same 32 MiB; arguments exact in FLOAT16 (multiples of 1/16 in
// [-16, 11]), results within 1 FLOAT16 ulp of exp in double.
TEST_F(StreamedOutput, ExpFloat16) {
    const UINT count = 2 * kCount;
    Tensor t(DML_TENSOR_DATA_TYPE_FLOAT16, {1, 1, 1, count});
    DML_ELEMENT_WISE_EXP_OPERATOR_DESC desc{&t.desc, &t.desc, nullptr};
    auto op = Compile(DML_OPERATOR_ELEMENT_WISE_EXP, &desc);
    ASSERT_TRUE(op) << Messages();
    auto value = [](UINT i) { return double(int(i % 433) - 256) / 16.0; };
    std::vector<uint16_t> x(count);
    for (UINT i = 0; i < count; ++i) x[i] = ExactHalf(value(i));
    auto input = Buffer(t.Bytes());
    Upload(input.Get(), x);
    auto bytes = RunAtOffset(op.Get(), input.Get(), t.Bytes());
    std::vector<uint16_t> y(count);
    std::memcpy(y.data(), bytes.data(), t.Bytes());
    int failures = 0;
    for (UINT i = 0; i < count && failures < 10; ++i) {
        const double want = std::exp(value(i)), got = HalfValue(y[i]);
        int exponent;
        std::frexp(want, &exponent);
        const double ulp = std::ldexp(1.0, std::max(exponent - 11, -24));
        if (std::fabs(got - want) > ulp) {
            ++failures, ADD_FAILURE() << "exp(" << value(i) << ") = " << got << ", expected " << want << " (element "
                                      << i << ")";
        }
    }
}

}  // namespace
}  // namespace freedml_test
