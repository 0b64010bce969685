// The memory-bound operators of the operator issues through the public API, on any adapter
// (FREEDML_ADAPTER picks it): reductions and TOP_K (issue 17), GATHER, SLICE, PADDING and RESAMPLE
// (issue 18), pooling and normalization (issue 19). Each is reported as GB/s of the bytes it must
// read and write (inputs once, outputs once); bench/operator_torch.py runs the same problems in
// PyTorch, with the same byte counts, so the ratio of two lines is the ratio of their times. An
// operator this FreeDML does not compile is listed as skipped.
//   operator_bench [--quick] [--only name,name...]
// Output: one JSON object per line.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "api_bench.h"

using freedml_bench::Bench;
using freedml_bench::Tensor;
using freedml_bench::TypeName;

namespace {

bool Wanted(const std::string& only, const char* name) {
    return only.empty() || ("," + only + ",").find("," + std::string(name) + ",") != std::string::npos;
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = false;
    std::string only;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--quick") {
            quick = true;
        } else if (arg == "--only" && i + 1 < argc) {
            only = argv[++i];
        } else {
            std::fprintf(stderr, "usage: operator_bench [--quick] [--only name,name...]\n");
            return 2;
        }
    }
    const double runSeconds = quick ? 0.02 : 0.1;
    Bench bench;
    const auto F32 = DML_TENSOR_DATA_TYPE_FLOAT32, F16 = DML_TENSOR_DATA_TYPE_FLOAT16;
    const auto U32 = DML_TENSOR_DATA_TYPE_UINT32;
    // Times one prepared operator and prints its line; `bytes` is what it must read and write.
    auto report = [&](const char* name, DML_TENSOR_DATA_TYPE type, DML_OPERATOR_TYPE op, const void* desc,
                      const std::vector<ID3D12Resource*>& inputs, const std::vector<ID3D12Resource*>& outputs,
                      double bytes) {
        if (!Wanted(only, name)) return;
        if (!bench.Compiles(op, desc)) {
            std::printf("{\"bench\": \"op\", \"name\": \"%s\", \"type\": \"%s\", \"skipped\": true}\n", name,
                        TypeName(type));
            std::fflush(stdout);
            return;
        }
        auto p = bench.Prepare(op, desc, inputs, outputs);
        // Enough dispatches per timed run to fill `runSeconds`, from one timed dispatch.
        const double once = bench.Time(p, 1, 1);
        const int reps = std::clamp(int(runSeconds * 1e3 / std::max(once, 1e-4)), 1, 10000);
        const double ms = bench.Time(p, reps);
        std::printf("{\"bench\": \"op\", \"name\": \"%s\", \"type\": \"%s\", \"ms\": %.5f, \"gbs\": %.1f}\n", name,
                    TypeName(type), ms, bytes / ms / 1e6);
        std::fflush(stdout);
    };
    // Issue 17: REDUCE SUM/MAX over the last and the first axis of 64 MiB, ARGMAX of rows, TOP_K.
    {
        Tensor x(F32, {1, 1, 4096, 4096}), rows(F32, {1, 1, 4096, 1}), cols(F32, {1, 1, 1, 4096});
        Tensor index(U32, {1, 1, 4096, 1});
        auto X = bench.Random(x);
        auto R = bench.Buffer(rows.Bytes()), C = bench.Buffer(cols.Bytes()), I = bench.Buffer(index.Bytes());
        const UINT last[] = {3}, first[] = {2};
        for (auto [name, function, axes, out, O] :
             {std::tuple{"reduce_sum_last", DML_REDUCE_FUNCTION_SUM, last, &rows, R.Get()},
              std::tuple{"reduce_sum_first", DML_REDUCE_FUNCTION_SUM, first, &cols, C.Get()},
              std::tuple{"reduce_max_last", DML_REDUCE_FUNCTION_MAX, last, &rows, R.Get()},
              std::tuple{"reduce_max_first", DML_REDUCE_FUNCTION_MAX, first, &cols, C.Get()}}) {
            DML_REDUCE_OPERATOR_DESC d{function, &x.desc, &out->desc, 1, axes};
            report(name, F32, DML_OPERATOR_REDUCE, &d, {X.Get()}, {O}, double(x.Bytes() + out->Bytes()));
        }
        DML_ARGMAX_OPERATOR_DESC argmax{&x.desc, &index.desc, 1, last, DML_AXIS_DIRECTION_INCREASING};
        report("argmax_rows", F32, DML_OPERATOR_ARGMAX, &argmax, {X.Get()}, {I.Get()},
               double(x.Bytes() + index.Bytes()));
    }
    {
        Tensor x(F32, {1, 1, 64, 32768});
        auto X = bench.Random(x);
        for (UINT k : {1u, 8u, 256u}) {
            Tensor values(F32, {1, 1, 64, k}), indices(U32, {1, 1, 64, k});
            auto V = bench.Buffer(values.Bytes()), I = bench.Buffer(indices.Bytes());
            DML_TOP_K1_OPERATOR_DESC d{&x.desc, &values.desc, &indices.desc, 3, k, DML_AXIS_DIRECTION_DECREASING};
            const std::string name = "top_k_" + std::to_string(k);
            report(name.c_str(), F32, DML_OPERATOR_TOP_K1, &d, {X.Get()}, {V.Get(), I.Get()},
                   double(x.Bytes() + values.Bytes() + indices.Bytes()));
        }
    }
    // Issue 18: GATHER of embedding rows, SLICE and PADDING of 64 MiB, RESAMPLE 2x bilinear.
    {
        Tensor table(F16, {1, 1, 32000, 4096}), ids(U32, {1, 1, 1, 512}), rows(F16, {1, 1, 512, 4096});
        auto T = bench.Random(table);
        std::vector<uint32_t> picks(512);
        std::mt19937 rng(7);
        for (auto& v : picks) v = rng() % 32000;
        auto Ids = bench.Upload(picks.data(), picks.size() * 4);
        auto O = bench.Buffer(rows.Bytes());
        DML_GATHER_OPERATOR_DESC d{&table.desc, &ids.desc, &rows.desc, 2, 1};
        report("gather_embedding", F16, DML_OPERATOR_GATHER, &d, {T.Get(), Ids.Get()}, {O.Get()},
               2.0 * double(rows.Bytes()) + double(ids.Bytes()));
    }
    {
        Tensor x(F32, {1, 1, 4096, 4096}), half(F32, {1, 1, 4096, 2048}), padded(F32, {1, 1, 4128, 4128});
        auto X = bench.Random(x);
        auto H = bench.Buffer(half.Bytes()), P = bench.Buffer(padded.Bytes());
        const UINT offsets[] = {0, 0, 0, 1024}, sizes[] = {1, 1, 4096, 2048};
        const INT steps[] = {1, 1, 1, 1};
        DML_SLICE1_OPERATOR_DESC slice{&x.desc, &half.desc, 4, offsets, sizes, steps};
        report("slice_64mib", F32, DML_OPERATOR_SLICE1, &slice, {X.Get()}, {H.Get()}, 2.0 * double(half.Bytes()));
        const UINT start[] = {0, 0, 16, 16}, end[] = {0, 0, 16, 16};
        DML_SCALAR_UNION zero{};
        DML_PADDING1_OPERATOR_DESC pad{&x.desc, &padded.desc, DML_PADDING_MODE_CONSTANT, F32, zero, 4, start, end};
        report("padding_64mib", F32, DML_OPERATOR_PADDING1, &pad, {X.Get()}, {P.Get()},
               double(x.Bytes() + padded.Bytes()));
    }
    {
        Tensor x(F32, {1, 64, 512, 512}), y(F32, {1, 64, 1024, 1024});
        auto X = bench.Random(x);
        auto Y = bench.Buffer(y.Bytes());
        const FLOAT scales[] = {1, 1, 2, 2}, offsets[] = {0.5f, 0.5f, 0.5f, 0.5f};
        DML_RESAMPLE1_OPERATOR_DESC d{&x.desc, &y.desc, DML_INTERPOLATION_MODE_LINEAR, 4, scales, offsets, offsets};
        report("resample_2x_bilinear", F32, DML_OPERATOR_RESAMPLE1, &d, {X.Get()}, {Y.Get()},
               double(x.Bytes() + y.Bytes()));
    }
    // Issue 19: ResNet-50's max pool and global average pool, layer and batch normalization.
    for (UINT images : {1u, 32u}) {
        Tensor x(F32, {images, 64, 112, 112}), y(F32, {images, 64, 56, 56});
        auto X = bench.Random(x);
        auto Y = bench.Buffer(y.Bytes());
        const UINT strides[] = {2, 2}, window[] = {3, 3}, pads[] = {1, 1};
        DML_MAX_POOLING_OPERATOR_DESC d{&x.desc, &y.desc, 2, strides, window, pads, pads};
        const std::string name = "max_pool_3x3s2_b" + std::to_string(images);
        report(name.c_str(), F32, DML_OPERATOR_MAX_POOLING, &d, {X.Get()}, {Y.Get()}, double(x.Bytes() + y.Bytes()));
        Tensor g(F32, {images, 2048, 7, 7}), gy(F32, {images, 2048, 1, 1});
        auto G = bench.Random(g);
        auto GY = bench.Buffer(gy.Bytes());
        const UINT ones[] = {1, 1}, whole[] = {7, 7}, none[] = {0, 0};
        DML_AVERAGE_POOLING_OPERATOR_DESC avg{&g.desc, &gy.desc, 2, ones, whole, none, none, FALSE};
        const std::string avgName = "global_avg_pool_b" + std::to_string(images);
        report(avgName.c_str(), F32, DML_OPERATOR_AVERAGE_POOLING, &avg, {G.Get()}, {GY.Get()},
               double(g.Bytes() + gy.Bytes()));
    }
    for (auto type : {F32, F16}) {
        Tensor x(type, {1, 1, 512, 4096}), gamma(type, {1, 1, 1, 4096}), y(type, {1, 1, 512, 4096});
        auto X = bench.Random(x), S = bench.Random(gamma), B = bench.Random(gamma);
        auto Y = bench.Buffer(y.Bytes());
        const UINT axes[] = {3};
        DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC d{&x.desc, &gamma.desc, &gamma.desc, &y.desc, 1, axes,
                                                         TRUE, 1e-5f, nullptr};
        report("layer_norm_512x4096", type, DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, &d,
               {X.Get(), S.Get(), B.Get()}, {Y.Get()}, double(x.Bytes() + y.Bytes()));
    }
    {
        Tensor x(F32, {1, 256, 56, 56}), stat(F32, {1, 256, 1, 1}), y(F32, {1, 256, 56, 56});
        auto X = bench.Random(x), M = bench.Random(stat), S = bench.Random(stat), B = bench.Random(stat);
        // A variance of ones: positive, so the figure times numbers, not NaNs.
        std::vector<float> ones(256, 1.0f);
        auto V = bench.Upload(ones.data(), ones.size() * 4);
        auto Y = bench.Buffer(y.Bytes());
        DML_BATCH_NORMALIZATION_OPERATOR_DESC d{&x.desc, &stat.desc, &stat.desc, &stat.desc, &stat.desc, &y.desc,
                                                TRUE, 1e-5f, nullptr};
        report("batch_norm_256x56x56", F32, DML_OPERATOR_BATCH_NORMALIZATION, &d,
               {X.Get(), M.Get(), V.Get(), S.Get(), B.Get()}, {Y.Get()}, double(x.Bytes() + y.Bytes()));
    }
    return 0;
}
