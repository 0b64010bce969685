// Device code of ADAM_OPTIMIZER: a grid-stride loop over the elements, each thread computing the
// bias correction once from TrainingStepTensor (read on the device, so a step updated on the GPU
// between executions is seen) and each element by adam_math.h, as the CPU kernel does. Every
// element's inputs are read before its outputs are written: in-place bindings (H2) are safe.
#include <cuda_fp16.h>

#include <cstdint>

#include "dml/kernels/cuda/elementwise.cuh"
#include "dml/ops/optimizer/cuda/adam_launch.h"

namespace freedml::dml::cuda {

namespace {

constexpr int kAdamThreads = 256;

struct AdamArgs {
    EwPlan<7> plan;
    char* base[7];
};

// The training step as a float, from a UINT32 or a float-typed TrainingStepTensor.
__device__ inline float StepValue(const uint32_t* step) { return float(*step); }
template <class S>
__device__ inline float StepValue(const S* step) {
    return float(LoadAs(step));
}

template <class T, class S>
__global__ void __launch_bounds__(kAdamThreads) AdamElements(AdamArgs args, adam::AdamParams params, const S* step) {
    const float t = StepValue(step);
    const float rate = float(double(params.learningRate) * adam::BiasCorrection(params, t));
    const uint64_t total = args.plan.count;
    const uint64_t stride = uint64_t(gridDim.x) * kAdamThreads;
    for (uint64_t e = uint64_t(blockIdx.x) * kAdamThreads + threadIdx.x; e < total; e += stride) {
        int64_t offset[7];
        Offsets(args.plan, e, offset);
        T* p[7];
        for (int k = 0; k < 7; ++k) p[k] = reinterpret_cast<T*>(args.base[k]) + offset[k];
        const adam::AdamResult r = adam::Step(params, rate, float(LoadAs(p[3])), float(LoadAs(p[4])),
                                              float(LoadAs(p[5])), float(LoadAs(p[6])));
        StoreAs(p[0], r.x);
        StoreAs(p[1], r.m);
        StoreAs(p[2], r.v);
    }
}

template <class T>
cudaError_t LaunchTyped(const EwPlan<7>& plan, const adam::AdamParams& params, void* const (&operands)[7],
                        const void* step, bool stepUint32, LaunchTarget launch) {
    if (plan.count == 0) return cudaSuccess;
    AdamArgs args{plan, {}};
    for (int k = 0; k < 7; ++k) args.base[k] = static_cast<char*>(operands[k]);
    if (stepUint32) {
        AdamElements<T, uint32_t><<<launch.Blocks(plan.count, kAdamThreads), kAdamThreads, 0, launch.stream>>>(
            args, params, static_cast<const uint32_t*>(step));
    } else {
        AdamElements<T, T><<<launch.Blocks(plan.count, kAdamThreads), kAdamThreads, 0, launch.stream>>>(
            args, params, static_cast<const T*>(step));
    }
    return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchAdam(const EwPlan<7>& plan, bool half, const adam::AdamParams& params, void* const (&operands)[7],
                       const void* step, bool stepUint32, LaunchTarget launch) {
    return half ? LaunchTyped<__half>(plan, params, operands, step, stepUint32, launch)
                : LaunchTyped<float>(plan, params, operands, step, stepUint32, launch);
}

}  // namespace freedml::dml::cuda
