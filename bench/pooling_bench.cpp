// ResNet-50's pools through FreeDML's public API against raw oneDNN pooling in the same run:
//   max pool:            {N, 64, 112, 112}, 3x3 window, stride 2, padding 1 (MAX_POOLING);
//   global average pool: {N, 2048, 7, 7} to {N, 2048, 1, 1} (AVERAGE_POOLING);
// for N = 1 and 32, FLOAT32, plain NCHW tensors on both sides. Each case checks that FreeDML and
// oneDNN agree before timing. Prints RESULT lines (bench_common.h) in milliseconds per call.
// Usage: pooling_bench [--rounds R] [--sample-seconds S] [--batches 1,32] [--no-onednn]
#include "bench_common.h"

#include <random>

#ifdef FREEDML_BENCH_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif

using namespace freedml_bench;

namespace {

TimingOptions gOptions;
bool gOneDnn = true;

struct PoolCase {
    std::string name;
    bool max;
    uint32_t n, c, h, w, window, stride, pad;
    uint32_t OutH() const { return (h + 2 * pad - window) / stride + 1; }
    uint32_t OutW() const { return (w + 2 * pad - window) / stride + 1; }
};

void RunCase(Api& api, const PoolCase& pc) {
    const uint32_t oh = pc.OutH(), ow = pc.OutW();
    Tensor in(DML_TENSOR_DATA_TYPE_FLOAT32, {pc.n, pc.c, pc.h, pc.w});
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {pc.n, pc.c, oh, ow});
    std::vector<float> x(size_t(pc.n) * pc.c * pc.h * pc.w);
    std::mt19937 engine(3);
    std::normal_distribution<float> normal;
    for (auto& v : x) v = normal(engine);
    auto inBuffer = api.Buffer(in.buffer.TotalTensorSizeInBytes);
    api.Upload(inBuffer.Get(), x.data(), x.size() * 4);
    auto outBuffer = api.Buffer(out.buffer.TotalTensorSizeInBytes);
    UINT window[] = {pc.window, pc.window}, strides[] = {pc.stride, pc.stride}, pads[] = {pc.pad, pc.pad};
    ComPtr<IDMLCompiledOperator> compiled;
    if (pc.max) {
        DML_MAX_POOLING_OPERATOR_DESC desc{&in.desc, &out.desc, 2, strides, window, pads, pads};
        compiled = api.Compile(DML_OPERATOR_MAX_POOLING, &desc);
    } else {
        DML_AVERAGE_POOLING_OPERATOR_DESC desc{&in.desc, &out.desc, 2, strides, window, pads, pads, FALSE};
        compiled = api.Compile(DML_OPERATOR_AVERAGE_POOLING, &desc);
    }
    DML_BUFFER_BINDING ib{inBuffer.Get(), 0, in.buffer.TotalTensorSizeInBytes};
    DML_BUFFER_BINDING ob{outBuffer.Get(), 0, out.buffer.TotalTensorSizeInBytes};
    BoundOperator bound;
    if (!bound.Prepare(api, compiled, {}, {Bind(&ib)}, {Bind(&ob)})) {
        Result("pooling", pc.name, "FLOAT32", "FreeDML", 0, "ms", "the operator did not compile or bind");
        return;
    }
    std::vector<std::function<void()>> bodies{[&] { bound.Run(); }};
    std::vector<std::string> names{"FreeDML"};
#ifdef FREEDML_BENCH_HAVE_DNNL
    dnnl::engine cpu(dnnl::engine::kind::cpu, 0);
    dnnl::stream stream(cpu);
    using tag = dnnl::memory::format_tag;
    using dt = dnnl::memory::data_type;
    const dnnl::memory::desc src({pc.n, pc.c, pc.h, pc.w}, dt::f32, tag::nchw);
    const dnnl::memory::desc dst({pc.n, pc.c, oh, ow}, dt::f32, tag::nchw);
    const int64_t k = pc.window, s = pc.stride, p = pc.pad;
    // oneDNN 2.x's op desc + primitive desc (the version Debian ships).
    const dnnl::pooling_forward::desc op(
        dnnl::prop_kind::forward_inference,
        pc.max ? dnnl::algorithm::pooling_max : dnnl::algorithm::pooling_avg_exclude_padding, src, dst,
        dnnl::memory::dims{s, s}, dnnl::memory::dims{k, k}, dnnl::memory::dims{p, p}, dnnl::memory::dims{p, p});
    const dnnl::pooling_forward::primitive_desc pd(op, cpu);
    dnnl::pooling_forward primitive(pd);
    dnnl::memory srcMemory(src, cpu, x.data()), dstMemory(dst, cpu);
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, srcMemory}, {DNNL_ARG_DST, dstMemory}};
    if (gOneDnn) {
        bodies.push_back([&] {
            primitive.execute(stream, args);
            stream.wait();
        });
        names.push_back("oneDNN");
    }
#endif
    // Agreement first: FreeDML's output against oneDNN's (or, without oneDNN, that it ran).
    bound.Run();
    const auto bytes = api.Readback(outBuffer.Get(), size_t(out.buffer.TotalTensorSizeInBytes));
    std::string note;
#ifdef FREEDML_BENCH_HAVE_DNNL
    if (gOneDnn) {
        bodies[1]();
        const float* want = static_cast<const float*>(dstMemory.get_data_handle());
        double worst = 0;
        for (size_t i = 0; i < size_t(pc.n) * pc.c * oh * ow; ++i) {
            float got;
            std::memcpy(&got, bytes.data() + i * 4, 4);
            worst = std::max(worst, double(std::fabs(got - want[i])));
        }
        char text[64];
        std::snprintf(text, sizeof(text), "largest difference from oneDNN %.3g", worst);
        note = text;
    }
#endif
    const auto samples = MeasureInterleaved(bodies, gOptions);
    for (size_t i = 0; i < bodies.size(); ++i) {
        Result("pooling", pc.name, "FLOAT32", names[i], Median(samples[i]) * 1e3, "ms",
               (i == 0 ? note + "; " : std::string()) + Spread(samples[i]));
    }
}

std::vector<uint32_t> ParseList(const std::string& text) {
    std::vector<uint32_t> values;
    size_t start = 0;
    while (start < text.size()) {
        const size_t comma = text.find(',', start);
        values.push_back(uint32_t(std::strtoul(text.substr(start, comma - start).c_str(), nullptr, 10)));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return values;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<uint32_t> batches{1, 32};
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (arg == "--rounds") gOptions.rounds = std::max(1, std::atoi(value().c_str()));
        else if (arg == "--sample-seconds") gOptions.sampleSeconds = std::atof(value().c_str());
        else if (arg == "--batches") batches = ParseList(value());
        else if (arg == "--no-onednn") gOneDnn = false;
        else {
            std::fprintf(stderr, "usage: %s [--rounds R] [--sample-seconds S] [--batches 1,32] [--no-onednn]\n", argv[0]);
            return 2;
        }
    }
    Api api;
    if (!api.ok) {
        std::fprintf(stderr, "pooling_bench: the D3D12/DirectML device did not start\n");
        return 1;
    }
    for (uint32_t n : batches) {
        RunCase(api, {"resnet50_maxpool_b" + std::to_string(n), true, n, 64, 112, 112, 3, 2, 1});
        RunCase(api, {"resnet50_global_avgpool_b" + std::to_string(n), false, n, 2048, 7, 7, 7, 1, 0});
    }
    return 0;
}
