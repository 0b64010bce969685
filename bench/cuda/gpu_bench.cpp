// FreeDML on a CUDA adapter, through the public D3D12 and DirectML APIs as an application uses
// them: GEMM, the ResNet-50 convolution layers, packed element-wise against the device-to-device
// copy bandwidth, and the cost of one dispatch. Each measurement records `reps` dispatches in one
// command list and times ExecuteCommandLists to the fence (host clock; the one fence wait is
// amortized over the dispatches), after a warm-up run; the median of several runs is printed.
// Output: one JSON object per line (bench/run_gpu.sh joins it with the PyTorch numbers).
// FREEDML_GPU_BENCH=gemm,dispatch (bench names: gemm, conv, elementwise, dispatch) runs only
// those sections, for repeated A/B runs of one figure (bench/ab_gpu.sh).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../api_bench.h"

using freedml_bench::Bench;
using freedml_bench::Tensor;
using freedml_bench::TypeName;

namespace {

// Whether FREEDML_GPU_BENCH (a comma-separated list of bench names) selects `name`; unset selects all.
bool Selected(const char* name) {
    const char* only = std::getenv("FREEDML_GPU_BENCH");
    if (only == nullptr || *only == '\0') return true;
    const std::string list = std::string(",") + only + ",";
    return list.find(std::string(",") + name + ",") != std::string::npos;
}

struct ConvLayer {
    const char* name;
    UINT c, h, k, r, stride, pad;
};

}  // namespace

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
    Bench bench;
    const auto F32 = DML_TENSOR_DATA_TYPE_FLOAT32, F16 = DML_TENSOR_DATA_TYPE_FLOAT16;

    // GEMM.
    for (auto type : {F16, F32}) {
        if (!Selected("gemm")) break;
        for (UINT n : {1024u, 2048u, 4096u, 8192u}) {
            if (quick && n > 2048) continue;
            Tensor a(type, {1, 1, n, n}), b(type, {1, 1, n, n}), o(type, {1, 1, n, n});
            auto A = bench.Random(a), B = bench.Random(b);
            auto O = bench.Buffer(o.Bytes());
            DML_GEMM_OPERATOR_DESC d{&a.desc, &b.desc, nullptr, &o.desc, DML_MATRIX_TRANSFORM_NONE,
                                     DML_MATRIX_TRANSFORM_NONE, 1.0f, 0.0f, nullptr};
            auto p = bench.Prepare(DML_OPERATOR_GEMM, &d, {A.Get(), B.Get(), nullptr}, {O.Get()});
            const double flops = 2.0 * n * n * n;
            int reps = std::max(3, int(2e13 / flops));
            double ms = bench.Time(p, reps);
            std::printf("{\"bench\": \"gemm\", \"type\": \"%s\", \"n\": %u, \"ms\": %.5f, \"tflops\": %.2f}\n",
                        TypeName(type), n, ms, flops / ms / 1e9);
            std::fflush(stdout);
        }
    }

    // ResNet-50 convolution layers (batch 32, NCHW, as PyTorch's default layout).
    const ConvLayer layers[] = {
        {"conv1_7x7s2", 3, 224, 64, 7, 2, 3},     {"l1_1x1_64_64", 64, 56, 64, 1, 1, 0},
        {"l1_3x3_64", 64, 56, 64, 3, 1, 1},       {"l1_1x1_64_256", 64, 56, 256, 1, 1, 0},
        {"l2_3x3_128", 128, 28, 128, 3, 1, 1},    {"l2_1x1_512_128", 512, 28, 128, 1, 1, 0},
        {"l3_3x3_256", 256, 14, 256, 3, 1, 1},    {"l3_1x1_256_1024", 256, 14, 1024, 1, 1, 0},
        {"l4_3x3_512", 512, 7, 512, 3, 1, 1},     {"l4_1x1_512_2048", 512, 7, 2048, 1, 1, 0},
    };
    const UINT batch = 32;
    for (auto type : {F16, F32}) {
        if (!Selected("conv")) break;
        for (const ConvLayer& L : layers) {
            const UINT out = (L.h + 2 * L.pad - L.r) / L.stride + 1;
            Tensor x(type, {batch, L.c, L.h, L.h}), w(type, {L.k, L.c, L.r, L.r}), y(type, {batch, L.k, out, out});
            auto X = bench.Random(x), W = bench.Random(w);
            auto Y = bench.Buffer(y.Bytes());
            UINT strides[2] = {L.stride, L.stride}, dil[2] = {1, 1}, pad[2] = {L.pad, L.pad}, opad[2] = {0, 0};
            DML_CONVOLUTION_OPERATOR_DESC d{&x.desc, &w.desc, nullptr, &y.desc, DML_CONVOLUTION_MODE_CROSS_CORRELATION,
                                            DML_CONVOLUTION_DIRECTION_FORWARD, 2, strides, dil, pad, pad, opad, 1, nullptr};
            auto p = bench.Prepare(DML_OPERATOR_CONVOLUTION, &d, {X.Get(), W.Get(), nullptr}, {Y.Get()});
            const double flops = 2.0 * batch * L.k * out * out * L.c * L.r * L.r;
            int reps = std::max(5, int(5e12 / flops));
            double ms = bench.Time(p, reps);
            std::printf("{\"bench\": \"conv\", \"type\": \"%s\", \"layer\": \"%s\", \"ms\": %.5f, \"tflops\": %.2f}\n",
                        TypeName(type), L.name, ms, flops / ms / 1e9);
            std::fflush(stdout);
        }
    }

    // Element-wise against the device-to-device copy bandwidth (bytes read + written).
    if (Selected("elementwise")) {
        const UINT64 count = 64ull << 20;  // 64 Mi elements
        for (auto type : {F32, F16}) {
            const UINT esize = type == F16 ? 2 : 4;
            Tensor a(type, {1, 1, 1, UINT(count)}), b(type, {1, 1, 1, UINT(count)}), o(type, {1, 1, 1, UINT(count)});
            auto A = bench.Random(a), B = bench.Random(b);
            auto O = bench.Buffer(o.Bytes());
            double copyMs = bench.TimeCopy(O.Get(), A.Get(), count * esize, 20);
            double copyGBs = 2.0 * count * esize / copyMs / 1e6;
            DML_ELEMENT_WISE_ADD_OPERATOR_DESC add{&a.desc, &b.desc, &o.desc};
            auto p = bench.Prepare(DML_OPERATOR_ELEMENT_WISE_ADD, &add, {A.Get(), B.Get()}, {O.Get()});
            double addMs = bench.Time(p, 20);
            double addGBs = 3.0 * count * esize / addMs / 1e6;
            DML_SCALE_BIAS sb{2.0f, 1.0f};
            DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id{&a.desc, &o.desc, &sb};
            auto q = bench.Prepare(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id, {A.Get()}, {O.Get()});
            double idMs = bench.Time(q, 20);
            double idGBs = 2.0 * count * esize / idMs / 1e6;
            std::printf("{\"bench\": \"elementwise\", \"type\": \"%s\", \"copy_gbs\": %.1f, \"add_gbs\": %.1f, "
                        "\"scale_bias_gbs\": %.1f, \"add_ms\": %.4f, \"copy_ms\": %.4f}\n",
                        TypeName(type), copyGBs, addGBs, idGBs, addMs, copyMs);
            std::fflush(stdout);
        }
    }

    // Dispatch overhead: a tiny IDENTITY recorded many times in one list.
    if (Selected("dispatch")) {
        Tensor a(F32, {1, 1, 1, 64}), o(F32, {1, 1, 1, 64});
        auto A = bench.Random(a);
        auto O = bench.Buffer(o.Bytes());
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id{&a.desc, &o.desc, nullptr};
        auto p = bench.Prepare(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id, {A.Get()}, {O.Get()});
        double ms = bench.Time(p, 5000);
        std::printf("{\"bench\": \"dispatch\", \"us_per_dispatch\": %.2f}\n", ms * 1000.0);
    }

    return 0;
}
