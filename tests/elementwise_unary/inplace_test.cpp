// In-place execution of the unary element-wise family through the public API: the output bound to
// exactly the input's region (H2), on each CPU kernel path, with tensors large enough to be split
// over the thread pool. Expected values come from the C library in double (or exact integer math).
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <thread>

#include "dml_fixture.h"

namespace freedml_test {
namespace {

constexpr UINT kLarge = 3 * 65536 + 17;  // several pool chunks and a ragged tail

class UnaryInPlace : public DmlTest {
protected:
    // Runs `op` with its input(s) and output on `buffer`'s first `bytes` bytes.
    void RunInPlace(IDMLCompiledOperator* op, ID3D12Resource* buffer, UINT64 bytes, size_t inputCount = 1) {
        auto persistent = Initialize(op);
        DML_BUFFER_BINDING binding{buffer, 0, bytes};
        std::vector<DML_BINDING_DESC> inputs(inputCount, BufferBinding(&binding));
        Dispatch(op, inputs, {BufferBinding(&binding)}, persistent.Get());
        ASSERT_FALSE(DeviceRemoved()) << Messages();
    }
};

TEST_F(UnaryInPlace, ExpFloat32PackedRows) {
    Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, {1, kLarge});
    DML_ELEMENT_WISE_EXP_OPERATOR_DESC desc{&t.desc, &t.desc, nullptr};
    auto op = Compile(DML_OPERATOR_ELEMENT_WISE_EXP, &desc);
    ASSERT_TRUE(op) << Messages();
    std::vector<float> x(kLarge);
    for (UINT i = 0; i < kLarge; ++i) x[i] = float(int(i % 4001) - 2000) / 20.0f;  // -100 .. 100
    auto buffer = Buffer(t.Bytes());
    Upload(buffer.Get(), x);
    RunInPlace(op.Get(), buffer.Get(), t.Bytes());
    auto y = ReadbackAs<float>(buffer.Get(), kLarge);
    int failures = 0;
    for (UINT i = 0; i < kLarge && failures < 10; ++i) {
        const float want = float(std::exp(double(x[i])));
        if (UlpDistance(y[i], want) > 4) ++failures, ADD_FAILURE() << "exp(" << x[i] << ") = " << y[i] << ", expected " << want;
    }
}

TEST_F(UnaryInPlace, RoundFloat16Blocks) {
    Tensor t(DML_TENSOR_DATA_TYPE_FLOAT16, {2, kLarge / 2});
    DML_ELEMENT_WISE_ROUND_OPERATOR_DESC desc{&t.desc, &t.desc, DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN};
    auto op = Compile(DML_OPERATOR_ELEMENT_WISE_ROUND, &desc);
    ASSERT_TRUE(op) << Messages();
    const size_t n = size_t(kLarge / 2) * 2;
    std::vector<uint16_t> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = ExactHalf(double(int(i % 4001) - 2000) / 4.0);  // quarters: ties included
    auto buffer = Buffer(t.Bytes());
    Upload(buffer.Get(), x);
    RunInPlace(op.Get(), buffer.Get(), t.Bytes());
    auto y = ReadbackAs<uint16_t>(buffer.Get(), n);
    int failures = 0;
    for (size_t i = 0; i < n && failures < 10; ++i) {
        const double want = std::nearbyint(HalfValue(x[i]));
        if (HalfValue(y[i]) != want || std::signbit(HalfValue(y[i])) != std::signbit(want)) {
            ++failures, ADD_FAILURE() << "round(" << HalfValue(x[i]) << ") = " << HalfValue(y[i]) << ", expected " << want;
        }
    }
}

TEST_F(UnaryInPlace, ClipInt64) {
    Tensor t(DML_TENSOR_DATA_TYPE_INT64, {kLarge});
    DML_ELEMENT_WISE_CLIP_OPERATOR_DESC desc{&t.desc, &t.desc, nullptr, -1000.9f, 549755813888.0f};
    auto op = Compile(DML_OPERATOR_ELEMENT_WISE_CLIP, &desc);
    ASSERT_TRUE(op) << Messages();
    std::vector<int64_t> x(kLarge);
    for (UINT i = 0; i < kLarge; ++i) x[i] = (int64_t(i) - kLarge / 2) * int64_t(7919) * int64_t(1000003);
    auto buffer = Buffer(t.Bytes());
    Upload(buffer.Get(), x);
    RunInPlace(op.Get(), buffer.Get(), t.Bytes());
    auto y = ReadbackAs<int64_t>(buffer.Get(), kLarge);
    // Bounds truncate toward zero: -1000; 2^39 is exactly a float.
    for (UINT i = 0; i < kLarge; ++i) {
        ASSERT_EQ(y[i], std::min<int64_t>(std::max<int64_t>(x[i], -1000), int64_t(1) << 39)) << "at " << i;
    }
}

TEST_F(UnaryInPlace, ClipGradOnTheGradient) {
    Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, {kLarge});
    DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC desc{&t.desc, &t.desc, &t.desc, -1.0f, 2.0f};
    auto op = Compile(DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD, &desc);
    ASSERT_TRUE(op) << Messages();
    std::vector<float> x(kLarge), g(kLarge);
    for (UINT i = 0; i < kLarge; ++i) {
        x[i] = float(int(i % 61) - 30) / 10.0f;
        g[i] = float(i % 97) + 0.5f;
    }
    auto xBuffer = Buffer(t.Bytes()), gBuffer = Buffer(t.Bytes());
    Upload(xBuffer.Get(), x);
    Upload(gBuffer.Get(), g);
    auto persistent = Initialize(op.Get());
    DML_BUFFER_BINDING xb{xBuffer.Get(), 0, t.Bytes()}, gb{gBuffer.Get(), 0, t.Bytes()};
    Dispatch(op.Get(), {BufferBinding(&xb), BufferBinding(&gb)}, {BufferBinding(&gb)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    auto y = ReadbackAs<float>(gBuffer.Get(), kLarge);
    for (UINT i = 0; i < kLarge; ++i) {
        ASSERT_EQ(y[i], (x[i] <= -1.0f || x[i] >= 2.0f) ? 0.0f : g[i]) << "at " << i;
    }
}

TEST_F(UnaryInPlace, BitNotUInt8) {
    Tensor t(DML_TENSOR_DATA_TYPE_UINT8, {4, kLarge / 4});
    DML_ELEMENT_WISE_BIT_NOT_OPERATOR_DESC desc{&t.desc, &t.desc};
    auto op = Compile(DML_OPERATOR_ELEMENT_WISE_BIT_NOT, &desc);
    ASSERT_TRUE(op) << Messages();
    const size_t n = size_t(kLarge / 4) * 4;
    std::vector<uint8_t> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = uint8_t(i * 37 + 11);
    auto buffer = Buffer(t.Bytes());
    Upload(buffer.Get(), x);
    RunInPlace(op.Get(), buffer.Get(), t.Bytes());
    auto y = ReadbackAs<uint8_t>(buffer.Get(), n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], uint8_t(~x[i])) << "at " << i;
}

// Same region, other strides: the input is the output's memory read transposed. Every output
// element must come from the input as it was before the operator wrote anything.
TEST_F(UnaryInPlace, TransposedViewOfTheOutput) {
    const UINT n = 300;
    Tensor in(DML_TENSOR_DATA_TYPE_FLOAT32, {n, n}, {1, n});
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {n, n});
    DML_ELEMENT_WISE_NEGATE_OPERATOR_DESC desc{&in.desc, &out.desc};
    auto op = Compile(DML_OPERATOR_ELEMENT_WISE_NEGATE, &desc);
    ASSERT_TRUE(op) << Messages();
    std::vector<float> x(size_t(n) * n);
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(i);
    auto buffer = Buffer(out.Bytes());
    Upload(buffer.Get(), x);
    RunInPlace(op.Get(), buffer.Get(), out.Bytes());
    auto y = ReadbackAs<float>(buffer.Get(), x.size());
    for (UINT r = 0; r < n; ++r) {
        for (UINT c = 0; c < n; ++c) ASSERT_EQ(y[size_t(r) * n + c], -x[size_t(c) * n + r]) << r << ", " << c;
    }
}

// Throughput of large packed FLOAT32 unary operators against memcpy in this process. Run with
// --gtest_also_run_disabled_tests; prints GB/s (bytes read + written per second).
TEST_F(UnaryInPlace, DISABLED_SpeedAgainstMemcpy) {
    const UINT count = 1u << 24;  // 64 MiB per tensor
    Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, {count});
    auto in = Buffer(t.Bytes()), out = Buffer(t.Bytes());
    std::vector<float> x(count);
    for (UINT i = 0; i < count; ++i) x[i] = float(int(i % 2001) - 1000) / 100.0f;
    Upload(in.Get(), x);
    const double bytes = 2.0 * t.Bytes();
    auto best = [](auto&& body) {
        double seconds = 1e9;
        for (int i = 0; i < 7; ++i) {
            auto start = std::chrono::steady_clock::now();
            body();
            seconds = std::min(seconds, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        return seconds;
    };
    std::vector<float> a(count, 1.0f), b(count, 0.0f);
    const double copy1 = best([&] { std::memcpy(b.data(), a.data(), size_t(count) * 4); });
    const unsigned threads = std::max(2u, std::thread::hardware_concurrency());
    const double copyN = best([&] {
        std::vector<std::thread> workers;
        const size_t chunk = (size_t(count) + threads - 1) / threads;
        for (unsigned w = 0; w < threads; ++w) {
            workers.emplace_back([&, w] {
                const size_t begin = std::min(size_t(count), w * chunk), end = std::min(size_t(count), begin + chunk);
                std::memcpy(b.data() + begin, a.data() + begin, (end - begin) * 4);
            });
        }
        for (auto& worker : workers) worker.join();
    });
    std::printf("memcpy, 1 thread:    %6.2f GB/s\n", bytes / copy1 / 1e9);
    std::printf("memcpy, %2u threads:  %6.2f GB/s\n", threads, bytes / copyN / 1e9);
    auto measure = [&](const char* name, DML_OPERATOR_TYPE type, const void* desc) {
        auto op = Compile(type, desc);
        ASSERT_TRUE(op) << Messages();
        auto persistent = Initialize(op.Get());
        DML_BUFFER_BINDING ib{in.Get(), 0, t.Bytes()}, ob{out.Get(), 0, t.Bytes()};
        const double seconds = best([&] { Dispatch(op.Get(), {BufferBinding(&ib)}, {BufferBinding(&ob)}, persistent.Get()); });
        std::printf("%-22s %6.2f GB/s (%.2f of 1-thread memcpy)\n", name, bytes / seconds / 1e9, copy1 / seconds);
    };
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity{&t.desc, &t.desc, nullptr};
    DML_ELEMENT_WISE_ABS_OPERATOR_DESC abs{&t.desc, &t.desc, nullptr};
    DML_ELEMENT_WISE_EXP_OPERATOR_DESC exp{&t.desc, &t.desc, nullptr};
    DML_ELEMENT_WISE_TANH_OPERATOR_DESC tanh{&t.desc, &t.desc, nullptr};
    DML_ELEMENT_WISE_CLIP_OPERATOR_DESC clip{&t.desc, &t.desc, nullptr, -1.0f, 1.0f};
    measure("IDENTITY FLOAT32", DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity);
    measure("ABS FLOAT32", DML_OPERATOR_ELEMENT_WISE_ABS, &abs);
    measure("CLIP FLOAT32", DML_OPERATOR_ELEMENT_WISE_CLIP, &clip);
    measure("EXP FLOAT32", DML_OPERATOR_ELEMENT_WISE_EXP, &exp);
    measure("TANH FLOAT32", DML_OPERATOR_ELEMENT_WISE_TANH, &tanh);
}

}  // namespace
}  // namespace freedml_test
