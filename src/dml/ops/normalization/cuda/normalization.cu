// Device code of the normalization family (norm_plan.h has the formulas, norm_launch.h the
// launch). A Statistics group is one block: each thread sums a strided share of the group's
// elements, the block adds the shares (warp shuffles, then one value per warp through shared
// memory), a second pass takes the squared deviations about the mean, a third writes.
#include <cstdint>

#include "dml/kernels/cuda/activation.cuh"
#include "dml/kernels/cuda/elementwise.cuh"
#include "dml/ops/normalization/cuda/norm_launch.h"

namespace freedml::dml::cuda {

namespace {

constexpr int kThreads = 256;

// Every operand's base address (inputs are only read); null where the operator has none.
struct Pointers {
    void* at[kNormOperands];
};

// Adds `e`'s coordinates over the plan's dimensions [first, last) to each operand's offset.
__device__ __forceinline__ void AddOffsets(const NormPlan& p, int first, int last, uint64_t e,
                                           int64_t (&off)[kNormOperands]) {
    if (last - first == 1) {  // one row: no division
#pragma unroll
        for (int o = 0; o < kNormOperands; ++o) off[o] += int64_t(e) * p.strides[o][first];
        return;
    }
    for (int d = last; d-- > first;) {
        const uint64_t i = e % p.sizes[d];
        e /= p.sizes[d];
#pragma unroll
        for (int o = 0; o < kNormOperands; ++o) off[o] += int64_t(i) * p.strides[o][d];
    }
}

// The sum of every thread's `v` over the block, returned to every thread.
__device__ __forceinline__ float BlockSum(float v, float* shared) {
    for (int s = 16; s > 0; s >>= 1) v += __shfl_xor_sync(0xffffffffu, v, s);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads();  // `shared` may still be read from the previous call
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    v = lane < kThreads / 32 ? shared[lane] : 0.0f;
    for (int s = 16; s > 0; s >>= 1) v += __shfl_xor_sync(0xffffffffu, v, s);
    return v;
}

template <class T>
__device__ __forceinline__ float Read(const void* base, int64_t i) {
    return LoadAs(static_cast<const T*>(base) + i);
}

template <class T>
__global__ void __launch_bounds__(kThreads) GroupKernel(NormPlan p, ActParams act, Pointers ptr) {
    __shared__ float shared[kThreads / 32];
    for (uint64_t g = blockIdx.x; g < p.groups; g += gridDim.x) {
        int64_t base[kNormOperands] = {};
        AddOffsets(p, 0, p.groupRank, g, base);
        const float n = float(p.groupSize);
        float mean = 0.0f, factor = 1.0f;
        if (p.useMean) {
            float sum = 0.0f;
            for (uint64_t e = threadIdx.x; e < p.groupSize; e += kThreads) {
                int64_t off[kNormOperands] = {};
                AddOffsets(p, p.groupRank, p.rank, e, off);
                sum += Read<T>(ptr.at[kNormIn], base[kNormIn] + off[kNormIn]);
            }
            mean = BlockSum(sum, shared) / n;
        }
        if (p.p != 0 || p.useVariance) {
            float acc = 0.0f;
            for (uint64_t e = threadIdx.x; e < p.groupSize; e += kThreads) {
                int64_t off[kNormOperands] = {};
                AddOffsets(p, p.groupRank, p.rank, e, off);
                const float v = Read<T>(ptr.at[kNormIn], base[kNormIn] + off[kNormIn]) - mean;
                acc += p.p == 1 ? fabsf(v) : v * v;
            }
            acc = BlockSum(acc, shared);
            if (threadIdx.x == 0 && p.has[kNormOutVariance]) {
                StoreAs(static_cast<T*>(ptr.at[kNormOutVariance]) + base[kNormOutVariance], acc / n);
            }
            if (p.p == 1) {
                factor = 1.0f / fmaxf(acc, p.epsilon);
            } else if (p.p == 2) {
                factor = 1.0f / fmaxf(sqrtf(acc), p.epsilon);
            } else {
                factor = rsqrtf(acc / n + p.epsilon);
            }
        }
        if (threadIdx.x == 0 && p.has[kNormOutMean]) {
            StoreAs(static_cast<T*>(ptr.at[kNormOutMean]) + base[kNormOutMean], mean);
        }
        for (uint64_t e = threadIdx.x; e < p.groupSize; e += kThreads) {
            int64_t off[kNormOperands];
#pragma unroll
            for (int o = 0; o < kNormOperands; ++o) off[o] = base[o];
            AddOffsets(p, p.groupRank, p.rank, e, off);
            float y = (Read<T>(ptr.at[kNormIn], off[kNormIn]) - mean) * factor;
            if (p.has[kNormScale]) y *= Read<T>(ptr.at[kNormScale], off[kNormScale]);
            if (p.has[kNormBias]) y += Read<T>(ptr.at[kNormBias], off[kNormBias]);
            if (p.has[kNormAdd]) y += Read<T>(ptr.at[kNormAdd], off[kNormAdd]);
            StoreAs(static_cast<T*>(ptr.at[kNormOut]) + off[kNormOut], Activate(act, y));
        }
    }
}

// BATCH_NORMALIZATION_GRAD: one block per group, the output gradient element by element and the
// two sums reduced across the block.
template <class T>
__global__ void __launch_bounds__(kThreads) GradientKernel(NormPlan p, Pointers ptr) {
    __shared__ float shared[kThreads / 32];
    for (uint64_t g = blockIdx.x; g < p.groups; g += gridDim.x) {
        int64_t base[kNormOperands] = {};
        AddOffsets(p, 0, p.groupRank, g, base);
        const float mean = Read<T>(ptr.at[kNormMean], base[kNormMean]);
        const float k = rsqrtf(Read<T>(ptr.at[kNormVariance], base[kNormVariance]) + p.epsilon);
        const float scale = Read<T>(ptr.at[kNormScale], base[kNormScale]);
        float sumGradient = 0.0f, sumScaled = 0.0f, sumInput = 0.0f;
        for (uint64_t e = threadIdx.x; e < p.groupSize; e += kThreads) {
            int64_t off[kNormOperands];
#pragma unroll
            for (int o = 0; o < kNormOperands; ++o) off[o] = base[o];
            AddOffsets(p, p.groupRank, p.rank, e, off);
            const float dy = Read<T>(ptr.at[kNormGradient], off[kNormGradient]);
            const float x = Read<T>(ptr.at[kNormIn], off[kNormIn]);
            sumGradient += dy;
            sumScaled += dy * (x - mean) * k;
            sumInput += x;
        }
        sumGradient = BlockSum(sumGradient, shared);
        sumScaled = BlockSum(sumScaled, shared);
        sumInput = BlockSum(sumInput, shared);
        // Training: the page's formula with m(g * (x - m(x))) from the sums above (norm_plan.h).
        const float n = float(p.groupSize);
        const float meanInput = sumInput / n, meanGradient = sumGradient / n;
        const float meanCoef1 = (sumScaled / k + (mean - meanInput) * sumGradient) / n;
        for (uint64_t e = threadIdx.x; e < p.groupSize; e += kThreads) {
            int64_t off[kNormOperands];
#pragma unroll
            for (int o = 0; o < kNormOperands; ++o) off[o] = base[o];
            AddOffsets(p, p.groupRank, p.rank, e, off);
            const float dy = Read<T>(ptr.at[kNormGradient], off[kNormGradient]);
            float out = dy * scale * k;
            if (p.training) {
                const float x = Read<T>(ptr.at[kNormIn], off[kNormIn]);
                out = scale * k * ((dy - meanGradient) - (x - meanInput) * meanCoef1 * k * k);
            }
            StoreAs(static_cast<T*>(ptr.at[kNormOut]) + off[kNormOut], out);
        }
        if (threadIdx.x == 0) {
            StoreAs(static_cast<T*>(ptr.at[kNormOutScaleGradient]) + base[kNormOutScaleGradient], sumScaled);
            StoreAs(static_cast<T*>(ptr.at[kNormOutBiasGradient]) + base[kNormOutBiasGradient], sumGradient);
        }
    }
}

template <class T>
__global__ void __launch_bounds__(kThreads) GivenKernel(NormPlan p, ActParams act, Pointers ptr, uint64_t count) {
    for (uint64_t e = uint64_t(blockIdx.x) * kThreads + threadIdx.x; e < count; e += uint64_t(gridDim.x) * kThreads) {
        int64_t off[kNormOperands] = {};
        AddOffsets(p, 0, p.rank, e, off);
        const float mean = Read<T>(ptr.at[kNormMean], off[kNormMean]);
        const float variance = Read<T>(ptr.at[kNormVariance], off[kNormVariance]);
        float y = (Read<T>(ptr.at[kNormIn], off[kNormIn]) - mean) / sqrtf(variance + p.epsilon);
        if (p.has[kNormScale]) y *= Read<T>(ptr.at[kNormScale], off[kNormScale]);
        if (p.has[kNormBias]) y += Read<T>(ptr.at[kNormBias], off[kNormBias]);
        StoreAs(static_cast<T*>(ptr.at[kNormOut]) + off[kNormOut], Activate(act, y));
    }
}

// LRN's denominator base at coordinates `c` (the CPU kernel's LrnBase).
template <class T>
__device__ float LrnBase(const NormPlan& p, const void* x, const int64_t (&c)[4]) {
    const int64_t before = (int64_t(p.localSize) - 1) / 2, after = int64_t(p.localSize) / 2;
    const int64_t* s = p.strides[kNormIn];
    const int64_t origin = c[0] * s[0] + c[1] * s[1] + c[2] * s[2] + c[3] * s[3];
    float sum = 0.0f;
    if (p.crossChannel) {
        const int64_t lo = max(int64_t(0), c[1] - before), hi = min(int64_t(p.sizes[1]) - 1, c[1] + after);
        for (int64_t k = lo; k <= hi; ++k) {
            const float v = Read<T>(x, origin + (k - c[1]) * s[1]);
            sum += v * v;
        }
    } else {
        const int64_t h0 = max(int64_t(0), c[2] - before), h1 = min(int64_t(p.sizes[2]) - 1, c[2] + after);
        const int64_t w0 = max(int64_t(0), c[3] - before), w1 = min(int64_t(p.sizes[3]) - 1, c[3] + after);
        for (int64_t h = h0; h <= h1; ++h) {
            for (int64_t w = w0; w <= w1; ++w) {
                const float v = Read<T>(x, origin + (h - c[2]) * s[2] + (w - c[3]) * s[3]);
                sum += v * v;
            }
        }
    }
    return p.bias + p.alpha / float(p.localSize) * sum;
}

__device__ __forceinline__ int64_t At(const int64_t* s, const int64_t (&c)[4]) {
    return c[0] * s[0] + c[1] * s[1] + c[2] * s[2] + c[3] * s[3];
}

// LRN, or with an InputGradient operand its gradient (the formula of the CPU kernel).
template <class T>
__global__ void __launch_bounds__(kThreads) LocalResponseKernel(NormPlan p, Pointers ptr, uint64_t count) {
    const int64_t before = (int64_t(p.localSize) - 1) / 2, after = int64_t(p.localSize) / 2;
    const int64_t* s = p.strides[kNormIn];
    const int64_t* sg = p.strides[kNormGradient];
    const void* x = ptr.at[kNormIn];
    const void* g = ptr.at[kNormGradient];
    for (uint64_t e = uint64_t(blockIdx.x) * kThreads + threadIdx.x; e < count; e += uint64_t(gridDim.x) * kThreads) {
        int64_t c[4];
        uint64_t rest = e;
        for (int d = 4; d-- > 0;) {
            c[d] = int64_t(rest % p.sizes[d]);
            rest /= p.sizes[d];
        }
        const float v = Read<T>(x, At(s, c));
        const float base = LrnBase<T>(p, x, c);
        float y = v / powf(base, p.beta);
        if (g) {
            float acc = 0.0f;
            if (p.crossChannel) {
                const int64_t lo = max(int64_t(0), c[1] - after), hi = min(int64_t(p.sizes[1]) - 1, c[1] + before);
                for (int64_t k = lo; k <= hi; ++k) {
                    const int64_t ci[4] = {c[0], k, c[2], c[3]};
                    acc += Read<T>(g, At(sg, ci)) * Read<T>(x, At(s, ci)) * powf(LrnBase<T>(p, x, ci), -p.beta - 1.0f);
                }
            } else {
                const int64_t h0 = max(int64_t(0), c[2] - after), h1 = min(int64_t(p.sizes[2]) - 1, c[2] + before);
                const int64_t w0 = max(int64_t(0), c[3] - after), w1 = min(int64_t(p.sizes[3]) - 1, c[3] + before);
                for (int64_t h = h0; h <= h1; ++h) {
                    for (int64_t w = w0; w <= w1; ++w) {
                        const int64_t ci[4] = {c[0], c[1], h, w};
                        acc += Read<T>(g, At(sg, ci)) * Read<T>(x, At(s, ci)) *
                               powf(LrnBase<T>(p, x, ci), -p.beta - 1.0f);
                    }
                }
            }
            y = Read<T>(g, At(sg, c)) * powf(base, -p.beta) - 2.0f * p.alpha * p.beta / float(p.localSize) * v * acc;
        }
        StoreAs(static_cast<T*>(ptr.at[kNormOut]) + At(p.strides[kNormOut], c), y);
    }
}

template <class T>
cudaError_t LaunchTyped(const NormPlan& p, const ActParams& act, const Pointers& ptr, LaunchTarget launch) {
    const uint64_t count = p.groups * p.groupSize;
    if (count == 0) return cudaSuccess;
    const uint64_t cap = uint64_t(launch.multiprocessors > 0 ? launch.multiprocessors : 0) * 8;
    const int groupBlocks = int(p.groups < cap ? p.groups : cap);
    switch (p.mode) {
        case NormMode::Statistics:
            GroupKernel<T><<<groupBlocks, kThreads, 0, launch.stream>>>(p, act, ptr);
            break;
        case NormMode::Gradient:
            GradientKernel<T><<<groupBlocks, kThreads, 0, launch.stream>>>(p, ptr);
            break;
        case NormMode::GivenStatistics:
            GivenKernel<T><<<launch.Blocks(count, kThreads), kThreads, 0, launch.stream>>>(p, act, ptr, count);
            break;
        case NormMode::LocalResponse:
            LocalResponseKernel<T><<<launch.Blocks(count, kThreads), kThreads, 0, launch.stream>>>(p, ptr, count);
            break;
    }
    return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchNormalization(const NormPlan& plan, const ActParams& act, void* const* operands, LaunchTarget launch) {
    Pointers ptr;
    for (int o = 0; o < kNormOperands; ++o) ptr.at[o] = operands[o];
    return plan.half ? LaunchTyped<__half>(plan, act, ptr, launch) : LaunchTyped<float>(plan, act, ptr, launch);
}

}  // namespace freedml::dml::cuda
