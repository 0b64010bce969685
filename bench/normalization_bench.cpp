// Normalization through the public API: a transformer layer normalization (MEAN_VARIANCE_
// NORMALIZATION1 over the last axis with a per-feature scale and bias; 512 tokens of 4096
// features, FLOAT32 and FLOAT16) and a ResNet batch normalization (1x256x56x56 with per-channel
// statistics and a fused RELU, FLOAT32), on the adapter D3D12CreateDevice(nullptr) picks
// (FREEDML_ADAPTER chooses it). Prints RESULT lines (bench_common.h): microseconds per dispatch and
// the effective bandwidth (every input element read once, every output element written once).
#include "bench_common.h"

using namespace freedml_bench;

namespace {

std::vector<unsigned char> Filled(DML_TENSOR_DATA_TYPE type, size_t count, float base, float step) {
    const size_t size = type == DML_TENSOR_DATA_TYPE_FLOAT16 ? 2 : 4;
    std::vector<unsigned char> bytes(count * size);
    for (size_t i = 0; i < count; ++i) {
        const float v = base + step * float(i % 97);
        if (size == 2) {
            const uint16_t h = ToHalf(v);
            std::memcpy(&bytes[i * 2], &h, 2);
        } else {
            std::memcpy(&bytes[i * 4], &v, 4);
        }
    }
    return bytes;
}

bool Report(Api& api, BoundOperator& bound, const std::string& name, DML_TENSOR_DATA_TYPE type, double bytes,
            const TimingOptions& options) {
    auto samples = MeasureInterleaved({[&] { bound.Run(); }}, options);
    if (api.Removed()) return false;
    const double seconds = Median(samples[0]);
    Result("normalization", name, TypeName(type), "FreeDML", seconds * 1e6, "us", Spread(samples[0]));
    Result("normalization", name + " bandwidth", TypeName(type), "FreeDML", bytes / seconds / 1e9, "GB/s", "");
    return true;
}

bool LayerNorm(Api& api, DML_TENSOR_DATA_TYPE type, UINT tokens, UINT features, const TimingOptions& options) {
    Tensor x(type, {1, tokens, features}), row(type, {1, 1, features});
    auto in = api.Buffer(x.Bytes()), out = api.Buffer(x.Bytes()), g = api.Buffer(row.Bytes()), b = api.Buffer(row.Bytes());
    const auto data = Filled(type, size_t(tokens) * features, -2.0f, 0.05f);
    const auto ones = Filled(type, features, 1.0f, 0.0f), zeros = Filled(type, features, 0.0f, 0.0f);
    api.Upload(in.Get(), data.data(), data.size());
    api.Upload(g.Get(), ones.data(), ones.size());
    api.Upload(b.Get(), zeros.data(), zeros.size());
    const UINT axis = 2;
    DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC desc{&x.desc, &row.desc, &row.desc, &x.desc, 1,
                                                        &axis,   TRUE,      1e-5f,     nullptr};
    DML_BUFFER_BINDING ib{in.Get(), 0, x.Bytes()}, gb{g.Get(), 0, row.Bytes()}, bb{b.Get(), 0, row.Bytes()};
    DML_BUFFER_BINDING ob{out.Get(), 0, x.Bytes()};
    BoundOperator bound;
    if (!bound.Prepare(api, api.Compile(DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, &desc), {},
                       {Bind(&ib), Bind(&gb), Bind(&bb)}, {Bind(&ob)})) {
        return false;
    }
    const std::string name = "layer norm " + std::to_string(tokens) + "x" + std::to_string(features);
    return Report(api, bound, name, type, 2.0 * double(x.Bytes()), options);
}

bool BatchNorm(Api& api, DML_TENSOR_DATA_TYPE type, UINT channels, UINT height, UINT width,
               const TimingOptions& options) {
    Tensor x(type, {1, channels, height, width}), stat(type, {1, channels, 1, 1});
    auto in = api.Buffer(x.Bytes()), out = api.Buffer(x.Bytes());
    ComPtr<ID3D12Resource> stats[4];
    DML_BUFFER_BINDING sb[4];
    for (int i = 0; i < 4; ++i) {
        stats[i] = api.Buffer(stat.Bytes());
        const auto values = Filled(type, channels, i == 1 ? 1.0f : 0.1f * float(i), 0.01f);
        api.Upload(stats[i].Get(), values.data(), values.size());
        sb[i] = {stats[i].Get(), 0, stat.Bytes()};
    }
    const auto data = Filled(type, size_t(channels) * height * width, -1.0f, 0.02f);
    api.Upload(in.Get(), data.data(), data.size());
    DML_OPERATOR_DESC relu{DML_OPERATOR_ACTIVATION_RELU, nullptr};
    DML_ACTIVATION_RELU_OPERATOR_DESC reluDesc{};
    relu.Desc = &reluDesc;
    DML_BATCH_NORMALIZATION_OPERATOR_DESC desc{&x.desc, &stat.desc, &stat.desc, &stat.desc, &stat.desc,
                                               &x.desc, TRUE,       1e-5f,      &relu};
    DML_BUFFER_BINDING ib{in.Get(), 0, x.Bytes()}, ob{out.Get(), 0, x.Bytes()};
    BoundOperator bound;
    if (!bound.Prepare(api, api.Compile(DML_OPERATOR_BATCH_NORMALIZATION, &desc), {},
                       {Bind(&ib), Bind(&sb[0]), Bind(&sb[1]), Bind(&sb[2]), Bind(&sb[3])}, {Bind(&ob)})) {
        return false;
    }
    const std::string name = "batch norm + relu 1x" + std::to_string(channels) + "x" + std::to_string(height) + "x" +
                             std::to_string(width);
    return Report(api, bound, name, type, 2.0 * double(x.Bytes()), options);
}

}  // namespace

int main(int argc, char** argv) {
    TimingOptions options;
    options.rounds = 7;
    options.sampleSeconds = 0.2;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--rounds" && i + 1 < argc) options.rounds = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--sample-seconds" && i + 1 < argc) options.sampleSeconds = std::atof(argv[++i]);
        else if (arg == "--quick") options.rounds = 3, options.sampleSeconds = 0.05;
        else {
            std::fprintf(stderr, "usage: %s [--rounds R] [--sample-seconds S] [--quick]\n", argv[0]);
            return 2;
        }
    }
    Api api;
    if (!api.ok) {
        std::fprintf(stderr, "normalization_bench: the D3D12/DirectML device did not start\n");
        return 1;
    }
    const bool ok = LayerNorm(api, DML_TENSOR_DATA_TYPE_FLOAT32, 512, 4096, options) &&
                    LayerNorm(api, DML_TENSOR_DATA_TYPE_FLOAT16, 512, 4096, options) &&
                    BatchNorm(api, DML_TENSOR_DATA_TYPE_FLOAT32, 256, 56, 56, options);
    if (!ok || api.Removed()) {
        std::fprintf(stderr, "normalization_bench: a case failed%s\n", api.Removed() ? " (the device was removed)" : "");
        return 1;
    }
    return 0;
}
