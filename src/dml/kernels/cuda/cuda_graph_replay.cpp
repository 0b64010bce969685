// A compiled graph replayed as a CUDA graph. The first execution on each stream runs as it is (so
// that what the kernels make once, the cuBLASLt handle and lazily loaded modules, exists before any
// recording); the next records the graph's launches by stream capture and instantiates them; later
// executions with the same bindings relaunch the instance (one launch whatever the node count),
// and executions with other bindings record again and update the instance in place
// (cudaGraphExecUpdate), instantiating anew only when the update is refused. Only graphs whose
// every node kernel is ReplaySafe are wrapped; where recording fails the graph runs its nodes as
// they are from then on. FREEDML_CUDA_GRAPH=0 turns replay off.
#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <span>

#include "dml/kernels/cuda/cuda_common.h"

namespace freedml::dml::cuda {

namespace {

class CudaGraphKernel final : public Kernel {
public:
    explicit CudaGraphKernel(std::unique_ptr<Kernel> graph) : graph_(std::move(graph)) {}
    ~CudaGraphKernel() override {
        if (exec_) cudaGraphExecDestroy(exec_);
    }

    uint64_t PersistentResourceSize() const override { return graph_->PersistentResourceSize(); }
    uint64_t TemporaryResourceSize() const override { return graph_->TemporaryResourceSize(); }
    void Initialize(const KernelBindings& bindings) override { graph_->Initialize(bindings); }
    bool PacksOwnedInput(size_t input) const override { return graph_->PacksOwnedInput(input); }
    bool ReplaySafe() const override { return true; }

    void Execute(const KernelBindings& b) override {
        // Queues of one device may execute the same compiled graph from their own threads.
        std::lock_guard lock(mutex_);
        if (!replay_) {
            graph_->Execute(b);
            return;
        }
        CudaStream& stream = StreamOf(b);
        const cudaStream_t native = stream.Get();
        if (warmStreams_.insert(native).second) {
            // The first execution on each stream (each queue) runs as it is: what its kernels
            // make once per stream (the cuBLASLt handle) is made outside any recording.
            graph_->Execute(b);
            return;
        }
        if (!exec_ || !SameBindings(b)) {
            if (!Record(b, native)) {
                replay_ = false;
                graph_->Execute(b);
                return;
            }
            Remember(b);
        }
        stream.Check(cudaGraphLaunch(exec_, native), "the compiled graph's CUDA graph");
    }

private:
    bool SameBindings(const KernelBindings& b) const {
        return b.inputs == inputs_ && b.outputs == outputs_ && b.temporary == temporary_ && b.persistent == persistent_;
    }
    void Remember(const KernelBindings& b) {
        inputs_ = b.inputs;
        outputs_ = b.outputs;
        temporary_ = b.temporary;
        persistent_ = b.persistent;
    }

    // Records the graph's launches for bindings `b` into exec_; false when the stream could not
    // be captured (nothing was enqueued then: the caller runs the graph directly).
    bool Record(const KernelBindings& b, cudaStream_t stream) {
        // Relaxed: a kernel may still make something of its own (an allocation) while recording.
        if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed) != cudaSuccess) {
            cudaGetLastError();
            return false;
        }
        graph_->Execute(b);
        cudaGraph_t recorded = nullptr;
        const cudaError_t ended = cudaStreamEndCapture(stream, &recorded);
        if (ended != cudaSuccess || !recorded) {
            if (recorded) cudaGraphDestroy(recorded);
            cudaGetLastError();
            return false;
        }
        bool ok = false;
        if (exec_) {
            cudaGraphExecUpdateResultInfo info{};
            ok = cudaGraphExecUpdate(exec_, recorded, &info) == cudaSuccess;
            if (!ok) {
                cudaGetLastError();
                cudaGraphExecDestroy(exec_);
                exec_ = nullptr;
            }
        }
        if (!ok) ok = cudaGraphInstantiate(&exec_, recorded, 0) == cudaSuccess;
        if (!ok) {
            cudaGetLastError();
            exec_ = nullptr;
        }
        cudaGraphDestroy(recorded);
        return ok;
    }

    std::unique_ptr<Kernel> graph_;
    std::mutex mutex_;  // guards what follows
    bool replay_ = true;
    std::set<cudaStream_t> warmStreams_;  // streams the graph has run on once
    cudaGraphExec_t exec_ = nullptr;
    std::vector<std::byte*> inputs_, outputs_;
    std::byte* temporary_ = nullptr;
    std::byte* persistent_ = nullptr;
};

}  // namespace

void ReplayAsCudaGraph(std::unique_ptr<Kernel>* graph, std::span<Kernel* const> nodes) {
    // One launch gains nothing from a recording; any kernel that is not ReplaySafe could not be recorded.
    if (nodes.size() < 2) return;
    if (const char* setting = std::getenv("FREEDML_CUDA_GRAPH"); setting && std::string(setting) == "0") return;
    if (!std::all_of(nodes.begin(), nodes.end(), [](const Kernel* k) { return k->ReplaySafe(); })) return;
    *graph = std::make_unique<CudaGraphKernel>(std::move(*graph));
}

}  // namespace freedml::dml::cuda
