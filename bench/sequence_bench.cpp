// Sequence models and attention through the public API, on any adapter (FREEDML_ADAPTER picks it):
// MULTIHEAD_ATTENTION (32 heads of 128, with a causal BOOLEAN mask and without) and an LSTM layer
// (hidden 512, input 512, batch 16), and with --gpu the integer matrix multiplies beside a FLOAT16
// GEMM of the same size (issue 20). bench/sequence_torch.py runs the same problems in PyTorch; the
// ratio of two lines' times is the figure. The CPU's integer matrix multiplies against ONNX
// Runtime are dense_bench --int8's.
//   sequence_bench [--gpu] [--quick] [--only name,name...]
// --gpu: the GPU problem set (FLOAT16 attention at batch 1 and 8, sequence 512 and 4096, and the
// integer cases); without it, FLOAT32 attention at batch 1, sequence 512 (128 with --quick).
// Output: one JSON object per line: bench "seq", name, type, ms and gflops (of the products).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "api_bench.h"

using freedml_bench::Bench;
using freedml_bench::Tensor;
using freedml_bench::TypeName;

namespace {

bool Wanted(const std::string& only, const std::string& name) {
    return only.empty() || ("," + only + ",").find("," + name + ",") != std::string::npos;
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = false, gpu = false;
    std::string only;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--quick") {
            quick = true;
        } else if (arg == "--gpu") {
            gpu = true;
        } else if (arg == "--only" && i + 1 < argc) {
            only = argv[++i];
        } else {
            std::fprintf(stderr, "usage: sequence_bench [--gpu] [--quick] [--only name,name...]\n");
            return 2;
        }
    }
    const double runSeconds = quick ? 0.05 : 0.3;
    Bench bench;
    const auto F32 = DML_TENSOR_DATA_TYPE_FLOAT32, F16 = DML_TENSOR_DATA_TYPE_FLOAT16;
    // Times one prepared operator and prints its line; `flops` counts its products.
    auto report = [&](const std::string& name, const char* type, DML_OPERATOR_TYPE op, const void* desc,
                      const std::vector<ID3D12Resource*>& inputs, const std::vector<ID3D12Resource*>& outputs,
                      double flops) {
        if (!bench.Compiles(op, desc)) {
            std::printf("{\"bench\": \"seq\", \"name\": \"%s\", \"type\": \"%s\", \"skipped\": true}\n", name.c_str(),
                        type);
            std::fflush(stdout);
            return;
        }
        auto p = bench.Prepare(op, desc, inputs, outputs);
        const double once = bench.Time(p, 1, 1);
        const int reps = std::clamp(int(runSeconds * 1e3 / std::max(once, 1e-4)), 1, 1000);
        const double ms = bench.Time(p, reps);
        std::printf("{\"bench\": \"seq\", \"name\": \"%s\", \"type\": \"%s\", \"ms\": %.5f, \"gflops\": %.1f}\n",
                    name.c_str(), type, ms, flops / ms / 1e6);
        std::fflush(stdout);
    };

    // MULTIHEAD_ATTENTION: Query, Key, Value {batch, sequence, 32 x 128}, scale 1/sqrt(128); the
    // causal mask is a BOOLEAN {1, 1, sequence, sequence} broadcast over batch and heads.
    const UINT heads = 32, headSize = 128, hidden = heads * headSize;
    std::vector<std::pair<UINT, UINT>> attention;  // (batch, sequence)
    if (gpu) {
        attention = {{1, 512}, {8, 512}, {1, 4096}, {8, 4096}};
        if (quick) attention = {{1, 512}};
    } else {
        attention = {{1, quick ? 128u : 512u}};
    }
    const auto type = gpu ? F16 : F32;
    for (auto [batch, sequence] : attention) {
        for (bool causal : {false, true}) {
            const std::string name = "attention_b" + std::to_string(batch) + "_s" + std::to_string(sequence) +
                                     (causal ? "_causal" : "");
            if (!Wanted(only, name)) continue;
            Tensor q(type, {batch, sequence, hidden}), out(type, {batch, sequence, hidden});
            Tensor mask(DML_TENSOR_DATA_TYPE_INT32, {1, 1, sequence, sequence});
            auto Q = bench.Random(q), K = bench.Random(q), V = bench.Random(q);
            auto O = bench.Buffer(out.Bytes());
            ComPtr<ID3D12Resource> M;
            if (causal) {
                std::vector<int32_t> lower(size_t(sequence) * sequence);
                for (UINT i = 0; i < sequence; ++i)
                    for (UINT j = 0; j < sequence; ++j) lower[size_t(i) * sequence + j] = j <= i;
                M = bench.Upload(lower.data(), lower.size() * 4);
            }
            DML_MULTIHEAD_ATTENTION_OPERATOR_DESC d{};
            d.QueryTensor = &q.desc, d.KeyTensor = &q.desc, d.ValueTensor = &q.desc, d.OutputTensor = &out.desc;
            d.MaskTensor = causal ? &mask.desc : nullptr;
            d.Scale = 1.0f / std::sqrt(float(headSize));
            d.MaskFilterValue = -10000.0f;
            d.HeadCount = heads;
            d.MaskType = causal ? DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN : DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE;
            // Q.K^T and P.V over every (query, key) pair, masked or not (what is computed).
            const double flops = 4.0 * batch * heads * double(sequence) * sequence * headSize;
            report(name, TypeName(type), DML_OPERATOR_MULTIHEAD_ATTENTION, &d,
                   {Q.Get(), K.Get(), V.Get(), nullptr, nullptr, nullptr, nullptr, causal ? M.Get() : nullptr, nullptr,
                    nullptr, nullptr},
                   {O.Get(), nullptr, nullptr}, flops);
        }
    }

    // LSTM, forward, with bias: X {1, steps, batch, input}, the sequence, last hidden and last cell out.
    {
        const UINT steps = quick && !gpu ? 16 : 128, batch = 16, input = 512, cells = 512;
        const std::string name = "lstm_h512_s" + std::to_string(steps) + "_b16";
        if (Wanted(only, name)) {
            Tensor x(F32, {1, steps, batch, input}), w(F32, {1, 1, 4 * cells, input}), r(F32, {1, 1, 4 * cells, cells});
            Tensor bias(F32, {1, 1, 1, 8 * cells}), y(F32, {steps, 1, batch, cells}), last(F32, {1, 1, batch, cells});
            auto X = bench.Random(x), W = bench.Random(w), R = bench.Random(r), B = bench.Random(bias);
            auto Y = bench.Buffer(y.Bytes()), H = bench.Buffer(last.Bytes()), C = bench.Buffer(last.Bytes());
            DML_ACTIVATION_SIGMOID_OPERATOR_DESC sigmoid{};
            DML_ACTIVATION_TANH_OPERATOR_DESC tanh{};
            DML_OPERATOR_DESC acts[3] = {{DML_OPERATOR_ACTIVATION_SIGMOID, &sigmoid},
                                         {DML_OPERATOR_ACTIVATION_TANH, &tanh},
                                         {DML_OPERATOR_ACTIVATION_TANH, &tanh}};
            DML_LSTM_OPERATOR_DESC d{};
            d.InputTensor = &x.desc, d.WeightTensor = &w.desc, d.RecurrenceTensor = &r.desc, d.BiasTensor = &bias.desc;
            d.OutputSequenceTensor = &y.desc, d.OutputSingleTensor = &last.desc, d.OutputCellSingleTensor = &last.desc;
            d.ActivationDescCount = 3, d.ActivationDescs = acts;
            d.Direction = DML_RECURRENT_NETWORK_DIRECTION_FORWARD;
            const double flops = 2.0 * steps * batch * 4.0 * cells * (input + cells);
            report(name, "f32", DML_OPERATOR_LSTM, &d,
                   {X.Get(), W.Get(), R.Get(), B.Get(), nullptr, nullptr, nullptr, nullptr}, {Y.Get(), H.Get(), C.Get()},
                   flops);
        }
    }

    // GPU: MATRIX_MULTIPLY_INTEGER (INT32 out) and QUANTIZED_LINEAR_MATRIX_MULTIPLY (UINT8 out),
    // UINT8 x INT8 with per-tensor zero points (dense_bench --int8's problem), beside FreeDML's own
    // FLOAT16 GEMM of the same size; sequence_torch.py times PyTorch's FLOAT16 matmul under each name.
    for (UINT n : {1024u, 4096u}) {
        if (!gpu || (quick && n > 1024)) break;
        const std::string size = std::to_string(n);
        Tensor a(DML_TENSOR_DATA_TYPE_UINT8, {1, 1, n, n}), b(DML_TENSOR_DATA_TYPE_INT8, {1, 1, n, n});
        Tensor azp(DML_TENSOR_DATA_TYPE_UINT8, {1, 1, 1, 1}), bzp(DML_TENSOR_DATA_TYPE_INT8, {1, 1, 1, 1});
        Tensor scale(F32, {1, 1, 1, 1}), ozp(DML_TENSOR_DATA_TYPE_UINT8, {1, 1, 1, 1});
        Tensor out32(DML_TENSOR_DATA_TYPE_INT32, {1, 1, n, n}), out8(DML_TENSOR_DATA_TYPE_UINT8, {1, 1, n, n});
        std::vector<uint8_t> bytes(size_t(n) * n);
        std::mt19937 random(7);
        for (auto& v : bytes) v = uint8_t(random());
        auto A = bench.Upload(bytes.data(), bytes.size()), B = bench.Upload(bytes.data(), bytes.size());
        const uint8_t zeroPoints[4] = {128, 0, 0, 0};
        const float scaleValue = 0.01f;
        auto ZP = bench.Upload(zeroPoints, 4), S = bench.Upload(&scaleValue, 4);
        auto O32 = bench.Buffer(out32.Bytes()), O8 = bench.Buffer(out8.Bytes());
        const double ops = 2.0 * double(n) * n * n;
        if (Wanted(only, "matmul_integer_" + size)) {
            DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC d{&a.desc, &azp.desc, &b.desc, &bzp.desc, &out32.desc};
            report("matmul_integer_" + size, "u8s8", DML_OPERATOR_MATRIX_MULTIPLY_INTEGER, &d,
                   {A.Get(), ZP.Get(), B.Get(), ZP.Get()}, {O32.Get()}, ops);
        }
        if (Wanted(only, "qlinear_matmul_" + size)) {
            DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC d{&a.desc,   &scale.desc, &azp.desc, &b.desc,   &scale.desc,
                                                                 &bzp.desc, &scale.desc, &ozp.desc, &out8.desc};
            report("qlinear_matmul_" + size, "u8s8", DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, &d,
                   {A.Get(), S.Get(), ZP.Get(), B.Get(), S.Get(), ZP.Get(), S.Get(), ZP.Get()}, {O8.Get()}, ops);
        }
        if (Wanted(only, "gemm_f16_" + size)) {
            Tensor h(F16, {1, 1, n, n});
            auto HA = bench.Random(h), HB = bench.Random(h), HO = bench.Buffer(h.Bytes());
            DML_GEMM_OPERATOR_DESC d{&h.desc, &h.desc, nullptr, &h.desc, DML_MATRIX_TRANSFORM_NONE,
                                     DML_MATRIX_TRANSFORM_NONE, 1.0f, 0.0f, nullptr};
            report("gemm_f16_" + size, "f16", DML_OPERATOR_GEMM, &d, {HA.Get(), HB.Get(), nullptr}, {HO.Get()}, ops);
        }
    }
    return 0;
}
