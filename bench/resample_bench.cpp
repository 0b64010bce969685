// RESAMPLE 2x bilinear (half-pixel) of a 1 x 64 x 512 x 512 FLOAT32 image through the public API,
// as GB/s moved (input read + output written), against a copy of the output's bytes (an
// ELEMENT_WISE_IDENTITY of the output's shape, which reads and writes as many bytes as it holds)
// on the same device in the same run, interleaved (bench_common.h). Prints RESULT lines.
// Usage: resample_bench [--rounds R] [--sample-seconds S] [--quick]
#include "bench_common.h"

using namespace freedml_bench;

int main(int argc, char** argv) {
    TimingOptions options;
    options.rounds = 7;
    options.sampleSeconds = 0.3;
    bool quick = false;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--rounds" && i + 1 < argc) options.rounds = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--sample-seconds" && i + 1 < argc) options.sampleSeconds = std::atof(argv[++i]);
        else if (arg == "--quick") quick = true;
        else {
            std::fprintf(stderr, "usage: %s [--rounds R] [--sample-seconds S] [--quick]\n", argv[0]);
            return 2;
        }
    }
    if (quick) options.rounds = 3, options.sampleSeconds = 0.05;
    Api api;
    if (!api.ok) {
        std::fprintf(stderr, "resample_bench: the D3D12/DirectML device did not start\n");
        return 1;
    }
    const UINT c = quick ? 16 : 64, h = quick ? 256 : 512, w = h;
    Tensor in(DML_TENSOR_DATA_TYPE_FLOAT32, {1, c, h, w}), out(DML_TENSOR_DATA_TYPE_FLOAT32, {1, c, 2 * h, 2 * w});
    auto input = api.Buffer(in.Bytes()), output = api.Buffer(out.Bytes()), copy = api.Buffer(out.Bytes());
    DML_BUFFER_BINDING ib{input.Get(), 0, in.Bytes()}, ob{output.Get(), 0, out.Bytes()}, cb{copy.Get(), 0, out.Bytes()};

    FLOAT scales[] = {1, 1, 2, 2};
    DML_RESAMPLE_OPERATOR_DESC resample{&in.desc, &out.desc, DML_INTERPOLATION_MODE_LINEAR, 4, scales};
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity{&out.desc, &out.desc, nullptr};
    BoundOperator r, k;
    if (!r.Prepare(api, api.Compile(DML_OPERATOR_RESAMPLE, &resample), {}, {Bind(&ib)}, {Bind(&ob)}) ||
        !k.Prepare(api, api.Compile(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity), {}, {Bind(&ob)}, {Bind(&cb)})) {
        std::fprintf(stderr, "resample_bench: an operator did not compile or bind\n");
        return 1;
    }
    const auto samples = MeasureInterleaved({[&] { r.Run(); }, [&] { k.Run(); }}, options);
    if (api.Removed()) {
        std::fprintf(stderr, "resample_bench: the device was removed\n");
        return 1;
    }
    const double resampleBytes = double(in.Bytes() + out.Bytes()), copyBytes = 2.0 * double(out.Bytes());
    std::vector<double> resampleGbps, copyGbps, ratio;
    for (size_t i = 0; i < samples[0].size(); ++i) {
        resampleGbps.push_back(resampleBytes / samples[0][i] / 1e9);
        copyGbps.push_back(copyBytes / samples[1][i] / 1e9);
        ratio.push_back(resampleGbps.back() / copyGbps.back());
    }
    const std::string name = "1x" + std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w) + "_2x_linear";
    Result("resample", name, "FLOAT32", "freedml", Median(resampleGbps), "GB/s", Spread(resampleGbps));
    Result("resample", name, "FLOAT32", "copy", Median(copyGbps), "GB/s", Spread(copyGbps));
    Result("resample", name, "FLOAT32", "freedml/copy", Median(ratio), "ratio", Spread(ratio));
    return 0;
}
