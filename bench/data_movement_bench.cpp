// Data movement bandwidth through the public API (issue 18): GATHER of embedding rows (a 32000 x
// 4096 FLOAT16 table, 512 indices), SLICE and PADDING of a 64 MiB FLOAT32 tensor. Each runs
// interleaved with ELEMENT_WISE_IDENTITY over the same number of bytes on the same adapter, in
// the same process: the copy bandwidth the operator is measured against. GB/s counts the bytes
// read plus the bytes written (indices included for GATHER).
// Prints RESULT lines (bench_common.h). Usage: data_movement_bench [--rounds R] [--sample-seconds S] [--quick]
#include <random>

#include "bench_common.h"

using namespace freedml_bench;

namespace {

// An operator (inputs of `inputBytes`, filled from `init` where given; one output) against the copy
// of `copyElements` elements of `copyType`, interleaved; prints both as GB/s (the operator moving
// `movedBytes`, the copy twice its bytes) and their ratio.
bool Compare(Api& api, const std::string& name, const char* dtype, DML_OPERATOR_TYPE type, const void* desc,
             const std::vector<UINT64>& inputBytes, UINT64 outputBytes, UINT64 movedBytes,
             const std::vector<std::vector<unsigned char>>& init, DML_TENSOR_DATA_TYPE copyType, UINT copyElements,
             const TimingOptions& options) {
    std::vector<ComPtr<ID3D12Resource>> inputs;
    std::vector<DML_BUFFER_BINDING> inputBindings(inputBytes.size());
    std::vector<DML_BINDING_DESC> inputDescs;
    for (size_t i = 0; i < inputBytes.size(); ++i) {
        inputs.push_back(api.Buffer(inputBytes[i]));
        if (i < init.size() && !init[i].empty()) api.Upload(inputs.back().Get(), init[i].data(), init[i].size());
        inputBindings[i] = {inputs.back().Get(), 0, inputBytes[i]};
    }
    for (auto& b : inputBindings) inputDescs.push_back(Bind(&b));
    auto output = api.Buffer(outputBytes);
    DML_BUFFER_BINDING outputBinding{output.Get(), 0, outputBytes};
    BoundOperator op;
    if (!op.Prepare(api, api.Compile(type, desc), {}, inputDescs, {Bind(&outputBinding)})) {
        std::fprintf(stderr, "data_movement_bench: %s did not compile or bind\n", name.c_str());
        return false;
    }

    // The copy: ELEMENT_WISE_IDENTITY reading and writing `copyElements` elements.
    Tensor t(copyType, {copyElements});
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity{&t.desc, &t.desc, nullptr};
    auto copyIn = api.Buffer(t.Bytes()), copyOut = api.Buffer(t.Bytes());
    DML_BUFFER_BINDING ci{copyIn.Get(), 0, t.Bytes()}, co{copyOut.Get(), 0, t.Bytes()};
    BoundOperator copy;
    if (!copy.Prepare(api, api.Compile(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity), {}, {Bind(&ci)}, {Bind(&co)})) {
        std::fprintf(stderr, "data_movement_bench: the copy for %s did not compile\n", name.c_str());
        return false;
    }
    const double copyBytes = 2.0 * double(t.Bytes());
    auto samples = MeasureInterleaved({[&] { op.Run(); }, [&] { copy.Run(); }}, options);
    if (api.Removed()) return false;
    const double opGbps = double(movedBytes) / Median(samples[0]) / 1e9;
    const double copyGbps = copyBytes / Median(samples[1]) / 1e9;
    Result("data_movement", name, dtype, "freedml", opGbps, "GB/s", Spread(samples[0]));
    Result("data_movement", name, dtype, "copy", copyGbps, "GB/s", Spread(samples[1]));
    Result("data_movement", name, dtype, "freedml/copy", opGbps / copyGbps, "ratio");
    return true;
}

std::vector<unsigned char> RandomBytes(size_t n, uint32_t seed) {
    std::vector<unsigned char> bytes(n);
    std::mt19937 engine(seed);
    for (auto& b : bytes) b = static_cast<unsigned char>(engine() & 0x3f);  // finite FLOAT16/FLOAT32 patterns
    return bytes;
}

bool Gather(Api& api, const TimingOptions& options) {
    const UINT vocabulary = 32000, width = 4096, count = 512;
    Tensor table(DML_TENSOR_DATA_TYPE_FLOAT16, {1, 1, vocabulary, width});
    Tensor indices(DML_TENSOR_DATA_TYPE_INT32, {1, 1, 1, count});
    Tensor rows(DML_TENSOR_DATA_TYPE_FLOAT16, {1, 1, count, width});
    DML_GATHER_OPERATOR_DESC desc{&table.desc, &indices.desc, &rows.desc, 2, 1};
    std::vector<unsigned char> idx(count * 4);
    std::mt19937 engine(7);
    for (UINT i = 0; i < count; ++i) {
        const int32_t v = int32_t(engine() % vocabulary);
        std::memcpy(&idx[i * 4], &v, 4);
    }
    // Only the gathered rows are read: the bytes moved are the rows twice and the indices.
    const UINT64 moved = 2 * rows.Bytes() + indices.Bytes();
    return Compare(api, "gather_embedding_32000x4096_512", "FLOAT16", DML_OPERATOR_GATHER, &desc,
                   {table.Bytes(), indices.Bytes()}, rows.Bytes(), moved, {{}, idx}, DML_TENSOR_DATA_TYPE_FLOAT16,
                   count * width, options);
}

bool Slice(Api& api, const TimingOptions& options) {
    // 64 MiB FLOAT32 {4096, 4096}; the middle half of every row.
    Tensor in(DML_TENSOR_DATA_TYPE_FLOAT32, {4096, 4096});
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {4096, 2048});
    UINT offsets[] = {0, 1024}, sizes[] = {4096, 2048}, strides[] = {1, 1};
    DML_SLICE_OPERATOR_DESC desc{&in.desc, &out.desc, 2, offsets, sizes, strides};
    return Compare(api, "slice_64MiB_half_rows", "FLOAT32", DML_OPERATOR_SLICE, &desc, {in.Bytes()}, out.Bytes(),
                   2 * out.Bytes(), {RandomBytes(in.Bytes(), 1)}, DML_TENSOR_DATA_TYPE_FLOAT32, 4096 * 2048, options);
}

bool Padding(Api& api, const TimingOptions& options) {
    // 64 MiB FLOAT32 {4096, 4096} with a border of 8 elements of zeros.
    Tensor in(DML_TENSOR_DATA_TYPE_FLOAT32, {4096, 4096});
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {4112, 4112});
    UINT start[] = {8, 8}, end[] = {8, 8};
    DML_PADDING_OPERATOR_DESC desc{&in.desc, &out.desc, DML_PADDING_MODE_CONSTANT, 0.0f, 2, start, end};
    return Compare(api, "padding_64MiB_constant_8", "FLOAT32", DML_OPERATOR_PADDING, &desc, {in.Bytes()}, out.Bytes(),
                   in.Bytes() + out.Bytes(), {RandomBytes(in.Bytes(), 2)}, DML_TENSOR_DATA_TYPE_FLOAT32, 4096 * 4096, options);
}

}  // namespace

int main(int argc, char** argv) {
    TimingOptions options;
    options.rounds = 7;
    options.sampleSeconds = 0.2;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--rounds" && i + 1 < argc) {
            options.rounds = std::max(1, std::atoi(argv[++i]));
        } else if (arg == "--sample-seconds" && i + 1 < argc) {
            options.sampleSeconds = std::atof(argv[++i]);
        } else if (arg == "--quick") {
            options.rounds = 3;
            options.sampleSeconds = 0.05;
        } else {
            std::fprintf(stderr, "usage: %s [--rounds R] [--sample-seconds S] [--quick]\n", argv[0]);
            return 2;
        }
    }
    Api api;
    if (!api.ok) {
        std::fprintf(stderr, "data_movement_bench: the D3D12/DirectML device did not start\n");
        return 1;
    }
    const bool ok = Gather(api, options) && Slice(api, options) && Padding(api, options);
    if (!ok || api.Removed()) {
        std::fprintf(stderr, "data_movement_bench: a case failed%s\n", api.Removed() ? " (the device was removed)" : "");
        return 1;
    }
    return 0;
}
