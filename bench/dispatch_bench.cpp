// Dispatch overhead through the public API, on a tiny operator (ELEMENT_WISE_IDENTITY of 4
// FLOAT32 values), against the machine's floor for any design with a queue thread (a mutex +
// condition variable round trip between two threads, measured here in the same rounds):
//   record+execute: Reset the allocator and list, SetDescriptorHeaps, RecordDispatch, Close,
//                   ExecuteCommandLists, Signal, wait on the fence: the whole cost of one op;
//   re-execute:     ExecuteCommandLists of one recorded list + Signal + wait (steady state);
//   empty list:     the same for a list with no commands (the queue and fence alone);
//   per dispatch:   a list of 100 recorded dispatches re-executed, divided by 100 (the marginal
//                   cost of a dispatch inside a list).
// Prints RESULT lines (bench_common.h). Usage: dispatch_bench [--rounds R] [--sample-seconds S]
#include "bench_common.h"

#include <condition_variable>
#include <mutex>
#include <thread>

using namespace freedml_bench;

namespace {

// Two threads passing a token back and forth: the least a submit-and-wait to a worker can cost.
class PingPong {
public:
    PingPong() : worker_([this] { Serve(); }) {}
    ~PingPong() {
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        wake_.notify_all();
        worker_.join();
    }
    void RoundTrip() {
        std::unique_lock lock(mutex_);
        ++sent_;
        wake_.notify_all();
        done_.wait(lock, [&] { return answered_ == sent_; });
    }

private:
    void Serve() {
        std::unique_lock lock(mutex_);
        for (;;) {
            wake_.wait(lock, [&] { return stop_ || answered_ != sent_; });
            if (stop_) return;
            answered_ = sent_;
            done_.notify_all();
        }
    }
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    uint64_t sent_ = 0, answered_ = 0;
    bool stop_ = false;
    std::thread worker_;
};

}  // namespace

int main(int argc, char** argv) {
    TimingOptions options;
    options.rounds = 7;
    options.sampleSeconds = 0.1;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--rounds" && i + 1 < argc) options.rounds = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--sample-seconds" && i + 1 < argc) options.sampleSeconds = std::atof(argv[++i]);
        else {
            std::fprintf(stderr, "usage: %s [--rounds R] [--sample-seconds S]\n", argv[0]);
            return 2;
        }
    }
    Api api;
    if (!api.ok) {
        std::fprintf(stderr, "dispatch_bench: the D3D12/DirectML device did not start\n");
        return 1;
    }

    Tensor tensor(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 1, 4});
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity{&tensor.desc, &tensor.desc, nullptr};
    auto input = api.Buffer(tensor.Bytes()), output = api.Buffer(tensor.Bytes());
    const float values[4] = {1, 2, 3, 4};
    api.Upload(input.Get(), values, sizeof(values));
    DML_BUFFER_BINDING inBinding{input.Get(), 0, tensor.Bytes()}, outBinding{output.Get(), 0, tensor.Bytes()};
    const std::vector<DML_BINDING_DESC> inputs{Bind(&inBinding)}, outputs{Bind(&outBinding)};

    BoundOperator op;
    if (!op.Prepare(api, api.Compile(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity), {}, inputs, outputs)) {
        std::fprintf(stderr, "dispatch_bench: preparing the IDENTITY failed\n");
        return 1;
    }

    // A list of 100 dispatches of the same operator and table.
    constexpr int kBatch = 100;
    ComPtr<ID3D12CommandAllocator> batchAllocator;
    ComPtr<ID3D12GraphicsCommandList> batchList, emptyList;
    api.d3d->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE, IID_PPV_ARGS(&batchAllocator));
    api.d3d->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COMPUTE, batchAllocator.Get(), nullptr,
                               IID_PPV_ARGS(&batchList));
    ID3D12DescriptorHeap* heaps[] = {api.heap.Get()};
    batchList->SetDescriptorHeaps(1, heaps);
    for (int i = 0; i < kBatch; ++i) api.recorder->RecordDispatch(batchList.Get(), op.op.Get(), op.table.Get());
    batchList->Close();
    ComPtr<ID3D12CommandAllocator> emptyAllocator;
    api.d3d->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE, IID_PPV_ARGS(&emptyAllocator));
    api.d3d->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COMPUTE, emptyAllocator.Get(), nullptr,
                               IID_PPV_ARGS(&emptyList));
    emptyList->Close();

    auto execute = [&](ID3D12GraphicsCommandList* list) {
        ID3D12CommandList* lists[] = {list};
        api.queue->ExecuteCommandLists(1, lists);
        api.queue->Signal(api.fence.Get(), ++api.fenceValue);
        api.fence->SetEventOnCompletion(api.fenceValue, nullptr);
    };
    auto recordAndExecute = [&] {
        api.allocator->Reset();
        api.list->Reset(api.allocator.Get(), nullptr);
        api.list->SetDescriptorHeaps(1, heaps);
        api.recorder->RecordDispatch(api.list.Get(), op.op.Get(), op.table.Get());
        api.list->Close();
        execute(api.list.Get());
    };

    PingPong pingPong;
    auto samples = MeasureInterleaved({[&] { pingPong.RoundTrip(); }, recordAndExecute, [&] { op.Run(); },
                                       [&] { execute(emptyList.Get()); }, [&] { execute(batchList.Get()); }},
                                      options);
    if (api.Removed()) {
        std::fprintf(stderr, "dispatch_bench: the device was removed\n");
        return 1;
    }
    api.Reopen();  // recordAndExecute left the list closed
    const auto readback = api.Readback(output.Get(), sizeof(values));
    if (std::memcmp(readback.data(), values, sizeof(values)) != 0) {
        std::fprintf(stderr, "dispatch_bench: the IDENTITY's output is wrong\n");
        return 1;
    }
    const double us = 1e6;
    Result("dispatch", "thread round trip", "-", "machine", Median(samples[0]) * us, "us", Spread(samples[0]));
    Result("dispatch", "record+execute+wait", "FLOAT32", "FreeDML", Median(samples[1]) * us, "us",
           Spread(samples[1]));
    Result("dispatch", "re-execute+wait", "FLOAT32", "FreeDML", Median(samples[2]) * us, "us", Spread(samples[2]));
    Result("dispatch", "empty list execute+wait", "-", "FreeDML", Median(samples[3]) * us, "us", Spread(samples[3]));
    std::vector<double> perDispatch;
    for (double s : samples[4]) perDispatch.push_back(s / kBatch);
    Result("dispatch", "per dispatch in a 100-dispatch list", "FLOAT32", "FreeDML", Median(perDispatch) * us, "us",
           Spread(perDispatch));
    return 0;
}
