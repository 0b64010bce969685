// The CUDA kernels against the CPU kernels, through the public DirectML API: each case runs on
// the CPU adapter and on the CUDA adapter with the same random inputs (fresh per case, never
// zeros) and an output buffer poisoned the same way, then compares every byte of the output
// buffers: values within the case's tolerance, and bytes outside the tensor untouched on both.
// The CPU kernels are checked against float64 references elsewhere (tests/kernels_cpu, tests/dml).
#include "cuda_test_util.h"
#include "dml_fixture.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

namespace freedml_test {
namespace {

// A DmlTest on a chosen adapter, used as a helper object inside a test.
class Runner : public DmlTest {
public:
    explicit Runner(IDXCoreAdapter* adapter) : adapter_(adapter) {}
    IUnknown* Adapter() override { return adapter_; }
    void TestBody() override {}
    void Start() { SetUp(); }
    void Stop() { TearDown(); }

    // Runs one operator; `inputs[i]` are the bytes of input i (empty: absent), `owned[i]` binds it
    // at initialization. Returns the output buffers' bytes.
    std::vector<std::vector<unsigned char>> Run(DML_OPERATOR_TYPE type, const void* desc,
                                                const std::vector<std::vector<unsigned char>>& inputs,
                                                const std::vector<bool>& owned,
                                                const std::vector<std::vector<unsigned char>>& poisonedOutputs,
                                                DML_EXECUTION_FLAGS flags) {
        auto op = Compile(type, desc, flags);
        if (!op) return {};
        std::vector<ComPtr<ID3D12Resource>> buffers;
        std::vector<DML_BUFFER_BINDING> bindings(inputs.size() + poisonedOutputs.size());
        std::vector<DML_BUFFER_BINDING> ownedBindings;
        std::vector<DML_BINDING_DESC> in, out;
        for (size_t i = 0; i < inputs.size(); ++i) {
            if (inputs[i].empty()) {
                in.push_back(NoBinding());
                if (!owned.empty()) ownedBindings.push_back({nullptr, 0, 0});
                continue;
            }
            auto buffer = Buffer((inputs[i].size() + 255) / 256 * 256);
            Upload(buffer.Get(), inputs[i].data(), inputs[i].size());
            bindings[i] = {buffer.Get(), 0, inputs[i].size()};
            const bool isOwned = i < owned.size() && owned[i];
            in.push_back(isOwned ? NoBinding() : BufferBinding(&bindings[i]));
            if (!owned.empty()) ownedBindings.push_back(isOwned ? bindings[i] : DML_BUFFER_BINDING{nullptr, 0, 0});
            buffers.push_back(buffer);
        }
        std::vector<ComPtr<ID3D12Resource>> outputs;
        for (size_t o = 0; o < poisonedOutputs.size(); ++o) {
            auto buffer = Buffer((poisonedOutputs[o].size() + 255) / 256 * 256);
            Upload(buffer.Get(), poisonedOutputs[o].data(), poisonedOutputs[o].size());
            auto& binding = bindings[inputs.size() + o];
            binding = {buffer.Get(), 0, poisonedOutputs[o].size()};
            out.push_back(BufferBinding(&binding));
            outputs.push_back(buffer);
        }
        ExecuteAndWait();
        bool anyOwned = false;
        for (bool b : owned) anyOwned |= b;
        auto persistent = Initialize(op.Get(), anyOwned ? ownedBindings : std::vector<DML_BUFFER_BINDING>{});
        Dispatch(op.Get(), in, out, persistent.Get());
        std::vector<std::vector<unsigned char>> results;
        for (size_t o = 0; o < outputs.size(); ++o) results.push_back(Readback(outputs[o].Get(), poisonedOutputs[o].size()));
        EXPECT_FALSE(DeviceRemoved()) << Messages();
        return results;
    }
    std::string Log() { return Messages(); }

    // What one IDENTITY dispatch of FLOAT32 `values` left behind, read as an application would.
    struct Outcome {
        HRESULT d3dReason = S_OK, dmlReason = S_OK;  // GetDeviceRemovedReason of both devices
        UINT64 signaled = 0;                          // the value the queue signals after the dispatch
        UINT64 completed = 0;                         // the fence after waiting for that value
        std::vector<float> output;                    // read back only while the device lives
        std::string infoQueue;                        // every message the info queue stored
        std::string callback;                         // every message the callback received
    };
    // Binds, records, executes and waits by hand: the fixture's Dispatch asserts that every step
    // succeeds, and here the device may be removed while the dispatch runs.
    Outcome RunIdentity(const std::vector<float>& values) {
        Outcome outcome;
        const UINT count = static_cast<UINT>(values.size());
        Tensor in(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 1, count}), out(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 1, count});
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc{&in.desc, &out.desc, nullptr};
        auto op = Compile(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc);
        if (!op) return outcome;
        EXPECT_EQ(op->GetBindingProperties().TemporaryResourceSize, 0u);
        auto input = Buffer(in.Bytes()), output = Buffer(out.Bytes());
        Upload(input.Get(), values);
        auto persistent = Initialize(op.Get());
        auto table = Table(op.Get());
        DML_BUFFER_BINDING inputBinding{input.Get(), 0, in.Bytes()}, outputBinding{output.Get(), 0, out.Bytes()};
        DML_BINDING_DESC inputDesc = BufferBinding(&inputBinding), outputDesc = BufferBinding(&outputBinding);
        table->BindInputs(1, &inputDesc);
        table->BindOutputs(1, &outputDesc);
        Record(op.Get(), table.Get());
        EXPECT_EQ(list->Close(), S_OK) << Messages();
        ID3D12CommandList* lists[] = {list.Get()};
        queue->ExecuteCommandLists(1, lists);
        const UINT64 target = outcome.signaled = ++fenceValue;
        // The queue may already have removed the device when Signal is called.
        const HRESULT signal = queue->Signal(fence.Get(), target);
        EXPECT_TRUE(signal == S_OK || signal == DXGI_ERROR_DEVICE_REMOVED) << std::hex << signal;
        EXPECT_EQ(fence->SetEventOnCompletion(target, nullptr), S_OK);  // must not wait forever
        outcome.completed = fence->GetCompletedValue();
        outcome.d3dReason = d3d->GetDeviceRemovedReason();
        outcome.dmlReason = dml->GetDeviceRemovedReason();
        if (outcome.d3dReason == S_OK) {
            EXPECT_EQ(allocator->Reset(), S_OK);
            EXPECT_EQ(list->Reset(allocator.Get(), nullptr), S_OK);
            outcome.output = ReadbackAs<float>(output.Get(), count);
        }
        ComPtr<ID3D12InfoQueue> infoQueue;
        EXPECT_EQ(d3d.As(&infoQueue), S_OK);
        for (UINT64 i = 0; infoQueue && i < infoQueue->GetNumStoredMessages(); ++i) {
            SIZE_T length = 0;
            if (FAILED(infoQueue->GetMessage(i, nullptr, &length))) continue;
            std::vector<unsigned char> bytes(length);
            auto* message = reinterpret_cast<D3D12_MESSAGE*>(bytes.data());
            if (SUCCEEDED(infoQueue->GetMessage(i, message, &length))) {
                outcome.infoQueue += std::string(message->pDescription) + "\n";
            }
        }
        outcome.callback = Messages();
        return outcome;
    }

private:
    IDXCoreAdapter* adapter_;
};

float HalfToFloat(uint16_t h) {
    const int sign = (h >> 15) ? -1 : 1, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    if (exponent == 0) return sign * std::ldexp(float(mantissa), -24);
    if (exponent == 31) return mantissa ? NAN : sign * INFINITY;
    return sign * std::ldexp(float(1024 + mantissa), exponent - 25);
}
uint16_t FloatToHalf(float f) {  // inputs only: values are exact halves by construction
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    uint32_t sign = (bits >> 16) & 0x8000u;
    int e = int((bits >> 23) & 0xff) - 127 + 15;
    if (f == 0.0f || e <= 0) return uint16_t(sign);
    return uint16_t(sign | (uint32_t(e) << 10) | ((bits & 0x7fffff) >> 13));
}

class CudaDmlTest : public ::testing::Test {
protected:
    void SetUp() override {
        cudaAdapter_ = FindAdapter(true);
        if (!cudaAdapter_) GTEST_SKIP() << kNoCudaAdapter;
        cpuAdapter_ = FindAdapter(false);
        ASSERT_TRUE(cpuAdapter_);
        rng_.seed(std::random_device{}());
    }

    // Random bytes for a tensor: floats in [-2, 2) with few mantissa bits (exact in FLOAT16),
    // integers over the whole range.
    std::vector<unsigned char> Random(const Tensor& t) {
        std::vector<unsigned char> bytes(t.Bytes());
        const auto type = t.buffer.DataType;
        const uint32_t size = freedml::TensorElementSizeInBytes(type);
        std::uniform_int_distribution<int> steps(-256, 255);
        for (size_t i = 0; i + size <= bytes.size(); i += size) {
            const float value = float(steps(rng_)) / 128.0f;
            if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
                std::memcpy(&bytes[i], &value, 4);
            } else if (type == DML_TENSOR_DATA_TYPE_FLOAT16) {
                uint16_t h = FloatToHalf(value);
                std::memcpy(&bytes[i], &h, 2);
            } else if (type == DML_TENSOR_DATA_TYPE_FLOAT64) {
                double d = value;
                std::memcpy(&bytes[i], &d, 8);
            } else {
                for (uint32_t b = 0; b < size; ++b) bytes[i + b] = static_cast<unsigned char>(rng_());
            }
        }
        return bytes;
    }

    // Runs on both adapters; compares. `tolerance` is relative to the largest |CPU value|.
    void Compare(DML_OPERATOR_TYPE type, const void* desc, const std::vector<const Tensor*>& inputTensors,
                 const Tensor& output, double tolerance, std::vector<bool> owned = {},
                 DML_EXECUTION_FLAGS flags = DML_EXECUTION_FLAG_NONE, uint64_t extraOutputBytes = 64) {
        std::vector<std::vector<unsigned char>> inputs;
        for (const Tensor* t : inputTensors) inputs.push_back(t ? Random(*t) : std::vector<unsigned char>{});
        std::vector<unsigned char> poison(output.Bytes() + extraOutputBytes, 0x7f);  // NaN patterns
        Runner cpu(cpuAdapter_.Get()), gpu(cudaAdapter_.Get());
        cpu.Start();
        gpu.Start();
        auto expected = cpu.Run(type, desc, inputs, owned, {poison}, flags);
        auto actual = gpu.Run(type, desc, inputs, owned, {poison}, flags);
        ASSERT_EQ(expected.size(), 1u) << cpu.Log();
        ASSERT_EQ(actual.size(), 1u) << gpu.Log();
        const auto dataType = output.buffer.DataType;
        const uint32_t size = freedml::TensorElementSizeInBytes(dataType);
        auto value = [&](const std::vector<unsigned char>& b, size_t i) -> double {
            if (dataType == DML_TENSOR_DATA_TYPE_FLOAT32) { float f; std::memcpy(&f, &b[i], 4); return f; }
            if (dataType == DML_TENSOR_DATA_TYPE_FLOAT16) { uint16_t h; std::memcpy(&h, &b[i], 2); return HalfToFloat(h); }
            if (dataType == DML_TENSOR_DATA_TYPE_FLOAT64) { double d; std::memcpy(&d, &b[i], 8); return d; }
            return NAN;
        };
        const bool isFloat = dataType == DML_TENSOR_DATA_TYPE_FLOAT32 || dataType == DML_TENSOR_DATA_TYPE_FLOAT16 ||
                             dataType == DML_TENSOR_DATA_TYPE_FLOAT64;
        double scale = 0;
        if (isFloat) {
            for (size_t i = 0; i + size <= output.Bytes(); i += size) {
                double v = value(expected[0], i);
                if (std::isfinite(v)) scale = std::max(scale, std::fabs(v));
            }
        }
        size_t mismatches = 0;
        for (size_t i = 0; i + size <= expected[0].size(); i += size) {
            bool same = std::memcmp(&expected[0][i], &actual[0][i], size) == 0;
            if (!same && isFloat && tolerance > 0) {
                double e = value(expected[0], i), a = value(actual[0], i);
                same = std::fabs(e - a) <= tolerance * std::max(scale, 1e-30);
            }
            if (!same && mismatches++ < 5) {
                ADD_FAILURE() << "byte " << i << ": CPU " << value(expected[0], i) << ", CUDA " << value(actual[0], i)
                              << " (raw " << int(expected[0][i]) << " vs " << int(actual[0][i]) << ")";
            }
        }
        EXPECT_EQ(mismatches, 0u) << gpu.Log();
        gpu.Stop();
        cpu.Stop();
    }

    ComPtr<IDXCoreAdapter> cudaAdapter_, cpuAdapter_;
    std::mt19937 rng_;
};

const DML_TENSOR_DATA_TYPE kAllTypes[] = {
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_FLOAT64,
    DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_UINT8,   DML_TENSOR_DATA_TYPE_INT16,
    DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_UINT32,
    DML_TENSOR_DATA_TYPE_INT64,   DML_TENSOR_DATA_TYPE_UINT64};

TEST_F(CudaDmlTest, IdentityEveryTypeStridedAndPacked) {
    for (auto type : kAllTypes) {
        SCOPED_TRACE(type);
        Tensor in(type, {2, 3, 4, 5}), out(type, {2, 3, 4, 5});
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC d{&in.desc, &out.desc, nullptr};
        Compare(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &d, {&in}, out, 0);
        // A transposing copy with a broadcast input.
        Tensor bin(type, {2, 3, 4, 5}, {0, 20, 1, 4}), tout(type, {2, 3, 4, 5}, {1, 2, 6 * 5, 6});
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC t{&bin.desc, &tout.desc, nullptr};
        Compare(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &t, {&bin}, tout, 0);
    }
    // A large packed copy takes the vectorized path, with a tail.
    Tensor big(DML_TENSOR_DATA_TYPE_FLOAT16, {1, 1, 1000, 1003}), bigOut(DML_TENSOR_DATA_TYPE_FLOAT16, {1, 1, 1000, 1003});
    DML_SCALE_BIAS scaleBias{0.5f, -0.25f};
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC d{&big.desc, &bigOut.desc, &scaleBias};
    Compare(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &d, {&big}, bigOut, 0);
}

TEST_F(CudaDmlTest, AddEveryTypeWithBroadcastAndFusedActivations) {
    for (auto type : kAllTypes) {
        if (type == DML_TENSOR_DATA_TYPE_FLOAT64) continue;  // DirectML's ADD takes no FLOAT64
        SCOPED_TRACE(type);
        Tensor a(type, {2, 3, 8, 9}), b(type, {2, 3, 8, 9}, {0, 1, 0, 0}), out(type, {2, 3, 8, 9});
        DML_ELEMENT_WISE_ADD_OPERATOR_DESC d{&a.desc, &b.desc, &out.desc};
        Compare(DML_OPERATOR_ELEMENT_WISE_ADD, &d, {&a, &b}, out, 0);
    }
    DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC leaky{nullptr, nullptr, 0.125f};
    DML_ACTIVATION_ELU_OPERATOR_DESC elu{nullptr, nullptr, 0.5f};
    DML_ACTIVATION_LINEAR_OPERATOR_DESC linear{nullptr, nullptr, 2.0f, -1.0f};
    DML_ACTIVATION_SIGMOID_OPERATOR_DESC sigmoid{nullptr, nullptr};
    DML_ACTIVATION_GELU_OPERATOR_DESC gelu{nullptr, nullptr};
    DML_ACTIVATION_RELU_OPERATOR_DESC relu{nullptr, nullptr};
    const DML_OPERATOR_DESC fused[] = {{DML_OPERATOR_ACTIVATION_LEAKY_RELU, &leaky}, {DML_OPERATOR_ACTIVATION_ELU, &elu},
                                       {DML_OPERATOR_ACTIVATION_LINEAR, &linear}, {DML_OPERATOR_ACTIVATION_SIGMOID, &sigmoid},
                                       {DML_OPERATOR_ACTIVATION_GELU, &gelu}, {DML_OPERATOR_ACTIVATION_RELU, &relu}};
    for (auto type : {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16}) {
        for (const auto& activation : fused) {
            SCOPED_TRACE(activation.Type);
            Tensor a(type, {4, 1000}), b(type, {4, 1000}), out(type, {4, 1000});
            DML_ELEMENT_WISE_ADD1_OPERATOR_DESC d{&a.desc, &b.desc, &out.desc, &activation};
            // Transcendental functions differ between the host and device libraries by an ulp or two.
            Compare(DML_OPERATOR_ELEMENT_WISE_ADD1, &d, {&a, &b}, out, type == DML_TENSOR_DATA_TYPE_FLOAT16 ? 1e-3 : 1e-6);
        }
    }
}

TEST_F(CudaDmlTest, JoinManyInputsAnyAxis) {
    for (UINT axis = 0; axis < 3; ++axis) {
        std::vector<std::unique_ptr<Tensor>> inputs;
        std::vector<DML_TENSOR_DESC> descs;
        std::vector<const Tensor*> pointers;
        std::vector<UINT> outSizes{3, 4, 5};
        outSizes[axis] = 0;
        for (UINT i = 0; i < 20; ++i) {
            std::vector<UINT> sizes{3, 4, 5};
            sizes[axis] = 1 + i % 3;
            outSizes[axis] += sizes[axis];
            inputs.push_back(std::make_unique<Tensor>(DML_TENSOR_DATA_TYPE_INT16, sizes));
        }
        for (auto& t : inputs) descs.push_back(t->desc), pointers.push_back(t.get());
        Tensor out(DML_TENSOR_DATA_TYPE_INT16, outSizes);
        DML_JOIN_OPERATOR_DESC d{UINT(descs.size()), descs.data(), &out.desc, axis};
        Compare(DML_OPERATOR_JOIN, &d, pointers, out, 0);
    }
}

struct GemmCase {
    DML_TENSOR_DATA_TYPE type;
    std::vector<UINT> a, b, c, out;
    DML_MATRIX_TRANSFORM ta, tb;
    float alpha, beta;
    bool ownedB;
    std::vector<UINT> aStrides = {};
    std::vector<UINT> bStrides = {};
    std::vector<UINT> cStrides = {};
};

TEST_F(CudaDmlTest, GemmTransposesBatchesBroadcastAlphaBetaOwned) {
    const auto N = DML_MATRIX_TRANSFORM_NONE, T = DML_MATRIX_TRANSFORM_TRANSPOSE;
    const auto F32 = DML_TENSOR_DATA_TYPE_FLOAT32, F16 = DML_TENSOR_DATA_TYPE_FLOAT16;
    const GemmCase cases[] = {
        {F32, {1, 1, 33, 65}, {1, 1, 65, 17}, {}, {1, 1, 33, 17}, N, N, 1.0f, 0.0f, false},
        {F32, {1, 1, 65, 33}, {1, 1, 17, 65}, {1, 1, 33, 17}, {1, 1, 33, 17}, T, T, 0.5f, 2.0f, false},
        // C broadcast along M (zero strides), owned B.
        {F32, {1, 1, 33, 65}, {1, 1, 17, 65}, {1, 1, 33, 17}, {1, 1, 33, 17}, N, T, 1.0f, 1.0f, true, {}, {},
         {0, 0, 0, 1}},
        // Batches, B broadcast over the first batch dimension, C over the second.
        {F32, {2, 3, 16, 8}, {2, 3, 8, 24}, {2, 3, 16, 24}, {2, 3, 16, 24}, N, N, 1.5f, -1.0f, false, {},
         {0, 192, 24, 1}, {384, 0, 24, 1}},
        {F16, {1, 4, 64, 128}, {1, 4, 128, 64}, {}, {1, 4, 64, 64}, N, N, 1.0f, 0.0f, true},
        // C broadcast along N.
        {F16, {1, 1, 128, 96}, {1, 1, 96, 128}, {1, 1, 96, 96}, {1, 1, 96, 96}, T, T, 1.0f, 0.5f, false, {}, {},
         {0, 0, 1, 0}},
        // A with no unit stride: packed before the product.
        {F32, {1, 1, 8, 12}, {1, 1, 12, 5}, {}, {1, 1, 8, 5}, N, N, 1.0f, 0.0f, false, {0, 0, 26, 2}},
    };
    DML_ACTIVATION_RELU_OPERATOR_DESC relu{nullptr, nullptr};
    DML_ACTIVATION_TANH_OPERATOR_DESC tanhDesc{nullptr, nullptr};
    const DML_OPERATOR_DESC fused[] = {{DML_OPERATOR_ACTIVATION_RELU, &relu}, {DML_OPERATOR_ACTIVATION_TANH, &tanhDesc}};
    int index = 0;
    for (const GemmCase& c : cases) {
        for (int f = -1; f < 2; ++f) {
            SCOPED_TRACE(index);
            Tensor a(c.type, c.a, c.aStrides),
                b(c.type, c.b, c.bStrides, c.ownedB ? DML_TENSOR_FLAG_OWNED_BY_DML : DML_TENSOR_FLAG_NONE);
            std::unique_ptr<Tensor> cTensor = c.c.empty() ? nullptr : std::make_unique<Tensor>(c.type, c.c, c.cStrides);
            Tensor out(c.type, c.out);
            DML_GEMM_OPERATOR_DESC d{&a.desc, &b.desc, cTensor ? &cTensor->desc : nullptr, &out.desc, c.ta, c.tb,
                                     c.alpha, c.beta, f < 0 ? nullptr : &fused[f]};
            std::vector<bool> owned;
            if (c.ownedB) owned = {false, true, false};
            // Sums of products of exact inputs: float32 differs only by summation order.
            Compare(DML_OPERATOR_GEMM, &d, {&a, &b, cTensor.get()}, out, c.type == F16 ? 2e-3 : 2e-6, owned);
        }
        ++index;
    }
}

struct ConvCase {
    DML_TENSOR_DATA_TYPE type;
    DML_CONVOLUTION_DIRECTION direction;
    DML_CONVOLUTION_MODE mode;
    std::vector<UINT> input, filter, output;
    std::vector<UINT> strides, dilations, start, end, outputPadding;
    UINT groups;
    bool bias, ownedFilter;
};

TEST_F(CudaDmlTest, ConvolutionForwardBackwardGroupsDilationsPaddingBias) {
    const auto F32 = DML_TENSOR_DATA_TYPE_FLOAT32, F16 = DML_TENSOR_DATA_TYPE_FLOAT16;
    const auto FWD = DML_CONVOLUTION_DIRECTION_FORWARD, BWD = DML_CONVOLUTION_DIRECTION_BACKWARD;
    const auto XC = DML_CONVOLUTION_MODE_CROSS_CORRELATION, CV = DML_CONVOLUTION_MODE_CONVOLUTION;
    const ConvCase cases[] = {
        {F32, FWD, XC, {2, 8, 12, 12}, {16, 8, 3, 3}, {2, 16, 12, 12}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, 1, true, false},
        // Asymmetric padding both ways (a crop of cuDNN's result, a padded copy of the input).
        {F32, FWD, CV, {1, 6, 11, 9}, {4, 3, 3, 2}, {1, 4, 5, 4}, {2, 2}, {1, 2}, {0, 1}, {1, 0}, {0, 0}, 2, false, true},
        {F32, FWD, XC, {1, 4, 10, 10}, {4, 1, 3, 3}, {1, 4, 10, 10}, {1, 1}, {1, 1}, {1, 0}, {1, 2}, {0, 0}, 4, true, false},
        {F32, FWD, XC, {2, 3, 6, 7, 8}, {5, 3, 2, 3, 3}, {2, 5, 5, 5, 6}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 1, true, true},
        {F32, FWD, XC, {2, 4, 1, 30}, {6, 4, 1, 5}, {2, 6, 1, 15}, {1, 2}, {1, 1}, {0, 2}, {0, 1}, {0, 0}, 1, true, false},
        {F32, BWD, XC, {1, 8, 5, 5}, {8, 4, 3, 3}, {1, 4, 10, 10}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 1, true, false},
        {F32, BWD, CV, {2, 4, 6, 6}, {4, 3, 3, 3}, {2, 6, 8, 8}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, 2, false, true},
        // 1x1 filters (cuDNN's graph API): FLOAT32 in full float, FLOAT16 with a stride.
        {F32, FWD, XC, {2, 16, 7, 7}, {8, 16, 1, 1}, {2, 8, 7, 7}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, 1, true, false},
        {F16, FWD, XC, {2, 32, 8, 8}, {64, 32, 1, 1}, {2, 64, 4, 4}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, 1, false, true},
        {F16, FWD, XC, {4, 32, 14, 14}, {64, 32, 3, 3}, {4, 64, 14, 14}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, 1, true, true},
        {F16, BWD, XC, {2, 16, 7, 7}, {16, 8, 4, 4}, {2, 8, 14, 14}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, 1, false, false},
    };
    DML_ACTIVATION_RELU_OPERATOR_DESC relu{nullptr, nullptr};
    DML_OPERATOR_DESC fused{DML_OPERATOR_ACTIVATION_RELU, &relu};
    int index = 0;
    for (const ConvCase& c : cases) {
        SCOPED_TRACE(index++);
        const UINT dims = UINT(c.strides.size());
        Tensor input(c.type, c.input), filter(c.type, c.filter, {}, c.ownedFilter ? DML_TENSOR_FLAG_OWNED_BY_DML : DML_TENSOR_FLAG_NONE);
        std::vector<UINT> biasSizes(dims + 2, 1);
        biasSizes[1] = c.output[1];
        std::unique_ptr<Tensor> bias = c.bias ? std::make_unique<Tensor>(c.type, biasSizes) : nullptr;
        Tensor output(c.type, c.output);
        DML_CONVOLUTION_OPERATOR_DESC d{&input.desc, &filter.desc, bias ? &bias->desc : nullptr, &output.desc, c.mode,
                                        c.direction, dims, c.strides.data(), c.dilations.data(), c.start.data(),
                                        c.end.data(), c.outputPadding.data(), c.groups, c.bias ? &fused : nullptr};
        std::vector<bool> owned;
        if (c.ownedFilter) owned = {false, true, false};
        Compare(DML_OPERATOR_CONVOLUTION, &d, {&input, &filter, bias.get()}, output,
                c.type == F16 ? 2e-3 : 2e-6, owned);
    }
}

// OWNED_BY_DML on inputs whose kernels keep nothing of their own (element-wise, activations, IF,
// JOIN, a convolution's input tensor): the initializer copies them into the persistent resource
// with a device copy, and execution reads them there. Compared with the CPU, whose results with
// owned inputs are checked against references in tests/dml and the conformance cases.
TEST_F(CudaDmlTest, OwnedInputsOfStatelessKernels) {
    const auto F32 = DML_TENSOR_DATA_TYPE_FLOAT32;
    const auto owned = DML_TENSOR_FLAG_OWNED_BY_DML;
    {
        Tensor a(F32, {1, 1, 1, 3}, {}, owned), b(F32, {1, 1, 1, 3}), out(F32, {1, 1, 1, 3});
        DML_ELEMENT_WISE_ADD_OPERATOR_DESC d{&a.desc, &b.desc, &out.desc};
        Compare(DML_OPERATOR_ELEMENT_WISE_ADD, &d, {&a, &b}, out, 0, {true, false});
    }
    {
        Tensor in(F32, {3, 5}, {6, 1}, owned), out(F32, {3, 5});  // strided: a copy of its own bytes
        DML_SCALE_BIAS scaleBias{2.0f, 0.5f};
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity{&in.desc, &out.desc, &scaleBias};
        Compare(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity, {&in}, out, 0, {true});
        DML_ACTIVATION_RELU_OPERATOR_DESC relu{&in.desc, &out.desc};
        Compare(DML_OPERATOR_ACTIVATION_RELU, &relu, {&in}, out, 0, {true});
        DML_ELEMENT_WISE_EXP_OPERATOR_DESC exp{&in.desc, &out.desc, nullptr};
        Compare(DML_OPERATOR_ELEMENT_WISE_EXP, &exp, {&in}, out, 1e-6, {true});
    }
    {
        Tensor condition(DML_TENSOR_DATA_TYPE_UINT8, {2, 8}, {}, owned), a(F32, {2, 8}, {}, owned), b(F32, {2, 8});
        Tensor out(F32, {2, 8});
        DML_ELEMENT_WISE_IF_OPERATOR_DESC d{&condition.desc, &a.desc, &b.desc, &out.desc};
        Compare(DML_OPERATOR_ELEMENT_WISE_IF, &d, {&condition, &a, &b}, out, 0, {true, true, false});
    }
    {
        Tensor first(F32, {2, 3}, {}, owned), second(F32, {2, 1}), out(F32, {2, 4});
        DML_TENSOR_DESC descs[] = {first.desc, second.desc};
        DML_JOIN_OPERATOR_DESC d{2, descs, &out.desc, 1};
        Compare(DML_OPERATOR_JOIN, &d, {&first, &second}, out, 0, {true, false});
    }
    for (int mask = 1; mask < 8; ++mask) {
        SCOPED_TRACE(mask);
        auto flag = [&](int bit) { return (mask >> bit) & 1 ? owned : DML_TENSOR_FLAG_NONE; };
        Tensor input(F32, {1, 3, 6, 5}, {}, flag(0)), filter(F32, {4, 3, 3, 3}, {}, flag(1));
        Tensor bias(F32, {1, 4, 1, 1}, {}, flag(2)), output(F32, {1, 4, 3, 3});
        const UINT strides[] = {2, 2}, dilations[] = {1, 1}, pads[] = {1, 1}, outputPadding[] = {0, 0};
        DML_CONVOLUTION_OPERATOR_DESC d{&input.desc, &filter.desc, &bias.desc, &output.desc,
                                        DML_CONVOLUTION_MODE_CROSS_CORRELATION, DML_CONVOLUTION_DIRECTION_FORWARD, 2,
                                        strides, dilations, pads, pads, outputPadding, 1, nullptr};
        Compare(DML_OPERATOR_CONVOLUTION, &d, {&input, &filter, &bias}, output, 2e-6,
                {(mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0});
    }
}

// A GPU failure removes the device. FREEDML_TEST_FAIL_CUDA_LAUNCH (read by the CUDA plugin when a
// queue's stream is made) gives that stream's first kernel launch no multiprocessors, so the CUDA
// runtime refuses the launch of a grid of 0 blocks: a real CUDA error (cudaErrorInvalidValue on an
// H100 with CUDA 13; older runtimes said cudaErrorInvalidConfiguration), taken through the same
// path as any other. As D3D12 promises, GetDeviceRemovedReason
// then reports it, the fence reads UINT64_MAX, and the message reaches the info queue and the
// callback. The same dispatch on a queue made without the variable runs and copies its input.
TEST_F(CudaDmlTest, InjectedLaunchFailureRemovesTheDevice) {
    std::vector<float> values(100);
    for (size_t i = 0; i < values.size(); ++i) values[i] = 0.25f * float(i) - 7.0f;

    Runner healthy(cudaAdapter_.Get());
    healthy.Start();
    const Runner::Outcome control = healthy.RunIdentity(values);
    healthy.Stop();
    EXPECT_EQ(control.d3dReason, S_OK) << control.callback;
    EXPECT_EQ(control.completed, control.signaled);
    EXPECT_EQ(control.output, values);

    ASSERT_EQ(setenv("FREEDML_TEST_FAIL_CUDA_LAUNCH", "1", 1), 0);
    Runner failing(cudaAdapter_.Get());
    failing.Start();  // its queue's stream is made here, under the variable
    unsetenv("FREEDML_TEST_FAIL_CUDA_LAUNCH");
    const Runner::Outcome removed = failing.RunIdentity(values);
    failing.Stop();
    EXPECT_EQ(removed.d3dReason, DXGI_ERROR_DRIVER_INTERNAL_ERROR) << removed.callback;
    EXPECT_EQ(removed.dmlReason, DXGI_ERROR_DRIVER_INTERNAL_ERROR);
    EXPECT_EQ(removed.completed, UINT64_MAX);
    for (const std::string* log : {&removed.infoQueue, &removed.callback}) {
        EXPECT_NE(log->find("The device was removed (0x887a0020)"), std::string::npos) << *log;
        EXPECT_NE(log->find("IDENTITY failed"), std::string::npos) << *log;
        EXPECT_TRUE(log->find("(cudaErrorInvalidValue)") != std::string::npos ||
                    log->find("(cudaErrorInvalidConfiguration)") != std::string::npos)
            << *log;
    }
    std::printf("%s", removed.callback.c_str());  // the message, for the record of a GPU run
}

// Every operator the CPU runs has CUDA kernels now; what the CUDA kernels still cannot run is a
// shape: a BACKWARD convolution whose StartPadding - EndPadding + OutputPadding reaches its
// stride (cuDNN's backward-data cannot produce that output size). It must be refused when it
// compiles, with a message, never accepted and then computed wrong; the CPU adapter runs it.
TEST_F(CudaDmlTest, UncoveredShapeIsRefusedAtCompile) {
    Tensor input(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 4, 4}), filter(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 3, 3});
    Tensor output(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 8, 8});  // (4 - 1) * 2 + 3 - (2 + 0) + 1
    const UINT strides[] = {2, 2}, dilations[] = {1, 1}, start[] = {2, 2}, end[] = {0, 0}, outputPadding[] = {1, 1};
    DML_CONVOLUTION_OPERATOR_DESC conv{&input.desc, &filter.desc, nullptr, &output.desc,
                                       DML_CONVOLUTION_MODE_CROSS_CORRELATION, DML_CONVOLUTION_DIRECTION_BACKWARD,
                                       2, strides, dilations, start, end, outputPadding, 1, nullptr};
    DML_OPERATOR_DESC desc{DML_OPERATOR_CONVOLUTION, &conv};
    for (IUnknown* adapter : {static_cast<IUnknown*>(cudaAdapter_.Get()), static_cast<IUnknown*>(cpuAdapter_.Get())}) {
        ComPtr<ID3D12Device> d3d;
        ComPtr<IDMLDevice> dml;
        ASSERT_EQ(D3D12CreateDevice(adapter, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&d3d)), S_OK);
        ASSERT_EQ(DMLCreateDevice(d3d.Get(), DML_CREATE_DEVICE_FLAG_NONE, IID_PPV_ARGS(&dml)), S_OK);
        ComPtr<IDMLOperator> op;
        ASSERT_EQ(dml->CreateOperator(&desc, IID_PPV_ARGS(&op)), S_OK);
        ComPtr<IDMLCompiledOperator> compiled;
        const HRESULT expected = adapter == cudaAdapter_.Get() ? DXGI_ERROR_UNSUPPORTED : S_OK;
        EXPECT_EQ(dml->CompileOperator(op.Get(), DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&compiled)), expected);
        EXPECT_EQ(compiled != nullptr, expected == S_OK);
    }
}

}  // namespace
}  // namespace freedml_test
