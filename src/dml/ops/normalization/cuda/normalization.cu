// Device code of the normalization family (norm_plan.h has the formulas, norm_launch.h the
// launch). A Statistics group is one block: each thread sums a strided share of the group's
// elements, the block adds the shares (warp shuffles, then one value per warp through shared
// memory), a second pass takes the squared deviations about the mean, a third writes. A group that
// is one contiguous row of at most kRowCapacity elements (a layer normalization) is read once into
// registers instead (RowKernel). Element-wise modes index in 32 bits where the tensor allows.
#include <cstdint>
#include <type_traits>

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
template <class Index = uint64_t>
__device__ __forceinline__ void AddOffsets(const NormPlan& p, int first, int last, Index e,
                                           int64_t (&off)[kNormOperands]) {
    if (last - first == 1) {  // one row: no division
#pragma unroll
        for (int o = 0; o < kNormOperands; ++o) off[o] += int64_t(e) * p.strides[o][first];
        return;
    }
    for (int d = last; d-- > first;) {
        const Index i = e % p.sizes[d];
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

// The multiplier of (x - mean) from the block's sum of |x - mean| (p = 1) or (x - mean)^2.
__device__ __forceinline__ float NormFactor(const NormPlan& p, float acc, float n) {
    if (p.p == 1) return 1.0f / fmaxf(acc, p.epsilon);
    if (p.p == 2) return 1.0f / fmaxf(sqrtf(acc), p.epsilon);
    return rsqrtf(acc / n + p.epsilon);
}

// Whether the statistics kernels tally deviations from the mean (a variance or an Lp norm).
__device__ __forceinline__ bool Deviations(const NormPlan& p) { return p.p != 0 || p.useVariance; }

template <class T>
__device__ __forceinline__ float Read(const void* base, int64_t i) {
    return LoadAs(static_cast<const T*>(base) + i);
}

// The end of a statistics group: the block's deviation tally `acc` summed, the mean and variance
// outputs written, and the factor of (x - mean) returned (1 without deviations).
template <class T>
__device__ __forceinline__ float FinishGroup(const NormPlan& p, const Pointers& ptr,
                                             const int64_t (&base)[kNormOperands], float acc, float mean, float n,
                                             float* shared) {
    float factor = 1.0f;
    if (Deviations(p)) {
        acc = BlockSum(acc, shared);
        if (threadIdx.x == 0 && p.has[kNormOutVariance]) {
            StoreAs(static_cast<T*>(ptr.at[kNormOutVariance]) + base[kNormOutVariance], acc / n);
        }
        factor = NormFactor(p, acc, n);
    }
    if (threadIdx.x == 0 && p.has[kNormOutMean]) {
        StoreAs(static_cast<T*>(ptr.at[kNormOutMean]) + base[kNormOutMean], mean);
    }
    return factor;
}

template <class T>
__global__ void __launch_bounds__(kThreads) GroupKernel(NormPlan p, ActParams act, Pointers ptr) {
    __shared__ float shared[kThreads / 32];
    for (uint64_t g = blockIdx.x; g < p.groups; g += gridDim.x) {
        int64_t base[kNormOperands] = {};
        AddOffsets(p, 0, p.groupRank, g, base);
        const float n = float(p.groupSize);
        float mean = 0.0f;
        if (p.useMean) {
            float sum = 0.0f;
            for (uint64_t e = threadIdx.x; e < p.groupSize; e += kThreads) {
                int64_t off[kNormOperands] = {};
                AddOffsets(p, p.groupRank, p.rank, e, off);
                sum += Read<T>(ptr.at[kNormIn], base[kNormIn] + off[kNormIn]);
            }
            mean = BlockSum(sum, shared) / n;
        }
        float acc = 0.0f;
        if (Deviations(p)) {
            for (uint64_t e = threadIdx.x; e < p.groupSize; e += kThreads) {
                int64_t off[kNormOperands] = {};
                AddOffsets(p, p.groupRank, p.rank, e, off);
                const float v = Read<T>(ptr.at[kNormIn], base[kNormIn] + off[kNormIn]) - mean;
                acc += p.p == 1 ? fabsf(v) : v * v;
            }
        }
        const float factor = FinishGroup<T>(p, ptr, base, acc, mean, n, shared);
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

// 16-byte chunks per thread of RowKernel: rows up to 4096 FLOAT32 or 8192 FLOAT16 elements. Few
// enough registers that four blocks share a multiprocessor: a layer norm's few hundred rows then
// run in one wave.
constexpr int kRowChunks = 4;
constexpr int kRowBlocksPerSm = 4;
template <class T>
constexpr uint32_t kRowCapacity = uint32_t(kThreads) * kRowChunks*(16 / sizeof(T));

// 16 bytes of T as floats, and back.
template <class T>
__device__ __forceinline__ void LoadChunk(const T* at, float (&v)[16 / sizeof(T)]) {
    const uint4 raw = *reinterpret_cast<const uint4*>(at);
    if constexpr (std::is_same_v<T, float>) {
        v[0] = __uint_as_float(raw.x), v[1] = __uint_as_float(raw.y);
        v[2] = __uint_as_float(raw.z), v[3] = __uint_as_float(raw.w);
    } else {
        const __half2* h = reinterpret_cast<const __half2*>(&raw);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const float2 f = __half22float2(h[i]);
            v[2 * i] = f.x, v[2 * i + 1] = f.y;
        }
    }
}
template <class T>
__device__ __forceinline__ void StoreChunk(T* at, const float (&v)[16 / sizeof(T)]) {
    uint4 raw;
    if constexpr (std::is_same_v<T, float>) {
        raw = make_uint4(__float_as_uint(v[0]), __float_as_uint(v[1]), __float_as_uint(v[2]), __float_as_uint(v[3]));
    } else {
        __half2* h = reinterpret_cast<__half2*>(&raw);
#pragma unroll
        for (int i = 0; i < 4; ++i) h[i] = __floats2half2_rn(v[2 * i], v[2 * i + 1]);
    }
    *reinterpret_cast<uint4*>(at) = raw;
}

// Operand o's values at row elements [e, e + 16 bytes of T): one 16-byte load where the operand
// is contiguous and aligned there, else element by element (a broadcast operand repeats one value).
template <class T>
__device__ __forceinline__ void LoadOperand(const NormPlan& p, const Pointers& ptr, int o, int64_t base, uint32_t e,
                                            float (&w)[16 / sizeof(T)]) {
    const int64_t stride = p.strides[o][p.rank - 1];
    const T* at = static_cast<const T*>(ptr.at[o]) + base;
    if (stride == 1 && reinterpret_cast<uintptr_t>(at + e) % 16 == 0) {
        LoadChunk(at + e, w);
        return;
    }
#pragma unroll
    for (int i = 0; i < int(16 / sizeof(T)); ++i) w[i] = LoadAs(at + int64_t(e + i) * stride);
}

// Statistics over groups that are one row with unit input and output strides, 16-byte aligned,
// of a whole number of chunks (RowFits): each thread holds its chunks in registers, so the input
// is read once. The same sums, factor and epilogue as GroupKernel.
template <class T>
__global__ void __launch_bounds__(kThreads, kRowBlocksPerSm) RowKernel(NormPlan p, ActParams act, Pointers ptr) {
    constexpr int V = 16 / sizeof(T);
    __shared__ float shared[kThreads / 32];
    const uint32_t size = uint32_t(p.groupSize);
    const float n = float(size);
    for (uint64_t g = blockIdx.x; g < p.groups; g += gridDim.x) {
        int64_t base[kNormOperands] = {};
        AddOffsets(p, 0, p.groupRank, g, base);
        const T* x = static_cast<const T*>(ptr.at[kNormIn]) + base[kNormIn];
        float v[kRowChunks][V];
        float sum = 0.0f;
#pragma unroll
        for (int c = 0; c < kRowChunks; ++c) {
            const uint32_t e = (uint32_t(c) * kThreads + threadIdx.x) * V;
            if (e < size) {
                LoadChunk(x + e, v[c]);
#pragma unroll
                for (int i = 0; i < V; ++i) sum += v[c][i];
            }
        }
        float mean = 0.0f;
        if (p.useMean) mean = BlockSum(sum, shared) / n;
        float acc = 0.0f;
        if (Deviations(p)) {
#pragma unroll
            for (int c = 0; c < kRowChunks; ++c) {
                if ((uint32_t(c) * kThreads + threadIdx.x) * V >= size) continue;
#pragma unroll
                for (int i = 0; i < V; ++i) {
                    const float d = v[c][i] - mean;
                    acc += p.p == 1 ? fabsf(d) : d * d;
                }
            }
        }
        const float factor = FinishGroup<T>(p, ptr, base, acc, mean, n, shared);
        T* y = static_cast<T*>(ptr.at[kNormOut]) + base[kNormOut];
#pragma unroll
        for (int c = 0; c < kRowChunks; ++c) {
            const uint32_t e = (uint32_t(c) * kThreads + threadIdx.x) * V;
            if (e >= size) continue;
            float scale[V], bias[V], add[V];
            if (p.has[kNormScale]) LoadOperand<T>(p, ptr, kNormScale, base[kNormScale], e, scale);
            if (p.has[kNormBias]) LoadOperand<T>(p, ptr, kNormBias, base[kNormBias], e, bias);
            if (p.has[kNormAdd]) LoadOperand<T>(p, ptr, kNormAdd, base[kNormAdd], e, add);
#pragma unroll
            for (int i = 0; i < V; ++i) {
                float r = (v[c][i] - mean) * factor;
                if (p.has[kNormScale]) r *= scale[i];
                if (p.has[kNormBias]) r += bias[i];
                if (p.has[kNormAdd]) r += add[i];
                v[c][i] = Activate(act, r);
            }
            StoreChunk(y + e, v[c]);
        }
    }
}

// Whether RowKernel serves the plan with these operands.
template <class T>
bool RowFits(const NormPlan& p, const Pointers& ptr) {
    constexpr uint32_t V = 16 / sizeof(T);
    if (p.mode != NormMode::Statistics || p.rank - p.groupRank != 1) return false;
    if (p.groupSize == 0 || p.groupSize % V != 0 || p.groupSize > kRowCapacity<T>) return false;
    const int last = p.rank - 1;
    for (int o : {int(kNormIn), int(kNormOut)}) {
        if (p.strides[o][last] != 1 || reinterpret_cast<uintptr_t>(ptr.at[o]) % 16 != 0) return false;
        for (int d = 0; d < p.groupRank; ++d) {
            if (p.strides[o][d] % V != 0) return false;  // every row starts on a chunk boundary
        }
    }
    return true;
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

template <class T, class Index>
__global__ void __launch_bounds__(kThreads) GivenKernel(NormPlan p, ActParams act, Pointers ptr, Index count) {
    for (Index e = Index(blockIdx.x) * kThreads + threadIdx.x; e < count; e += Index(gridDim.x) * kThreads) {
        int64_t off[kNormOperands] = {};
        AddOffsets<Index>(p, 0, p.rank, e, off);
        const float mean = Read<T>(ptr.at[kNormMean], off[kNormMean]);
        const float variance = Read<T>(ptr.at[kNormVariance], off[kNormVariance]);
        float y = (Read<T>(ptr.at[kNormIn], off[kNormIn]) - mean) / sqrtf(variance + p.epsilon);
        if (p.has[kNormScale]) y *= Read<T>(ptr.at[kNormScale], off[kNormScale]);
        if (p.has[kNormBias]) y += Read<T>(ptr.at[kNormBias], off[kNormBias]);
        StoreAs(static_cast<T*>(ptr.at[kNormOut]) + off[kNormOut], Activate(act, y));
    }
}

// GivenStatistics where the last two dimensions of the input and output are one contiguous plane
// and no statistic, scale or bias varies over them (a spatial batch normalization): blockIdx.y is
// the plane, so its statistics are read and its offsets found once per thread, and the plane is
// walked without divisions. GivenKernel's formula.
template <class T>
__global__ void __launch_bounds__(kThreads)
    GivenPlaneKernel(NormPlan p, ActParams act, Pointers ptr, uint32_t planeSize) {
    int64_t off[kNormOperands] = {};
    AddOffsets<uint32_t>(p, 0, p.rank - 2, blockIdx.y, off);
    const float mean = Read<T>(ptr.at[kNormMean], off[kNormMean]);
    const float deviation = sqrtf(Read<T>(ptr.at[kNormVariance], off[kNormVariance]) + p.epsilon);
    const float scale = p.has[kNormScale] ? Read<T>(ptr.at[kNormScale], off[kNormScale]) : 1.0f;
    const float bias = p.has[kNormBias] ? Read<T>(ptr.at[kNormBias], off[kNormBias]) : 0.0f;
    const T* x = static_cast<const T*>(ptr.at[kNormIn]) + off[kNormIn];
    T* out = static_cast<T*>(ptr.at[kNormOut]) + off[kNormOut];
    for (uint32_t e = blockIdx.x * kThreads + threadIdx.x; e < planeSize; e += gridDim.x * kThreads) {
        float y = (LoadAs(x + e) - mean) / deviation;
        if (p.has[kNormScale]) y *= scale;
        if (p.has[kNormBias]) y += bias;
        StoreAs(out + e, Activate(act, y));
    }
}

// Whether GivenPlaneKernel serves the plan.
bool IsGivenPlane(const NormPlan& p) {
    if (p.mode != NormMode::GivenStatistics || p.rank < 2) return false;
    const int h = p.rank - 2, w = p.rank - 1;
    uint64_t planes = 1;
    for (int d = 0; d < h; ++d) planes *= p.sizes[d];
    if (planes == 0 || planes > 65535 || uint64_t(p.sizes[h]) * p.sizes[w] >= (uint64_t(1) << 31)) return false;
    for (int o : {int(kNormIn), int(kNormOut)}) {
        if (p.strides[o][w] != 1 || (p.sizes[h] > 1 && p.strides[o][h] != int64_t(p.sizes[w]))) return false;
    }
    for (int o : {int(kNormMean), int(kNormVariance), int(kNormScale), int(kNormBias)}) {
        if (p.has[o] && (p.strides[o][h] != 0 || p.strides[o][w] != 0)) return false;
    }
    return true;
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
            if (RowFits<T>(p, ptr)) {
                RowKernel<T><<<groupBlocks, kThreads, 0, launch.stream>>>(p, act, ptr);
            } else {
                GroupKernel<T><<<groupBlocks, kThreads, 0, launch.stream>>>(p, act, ptr);
            }
            break;
        case NormMode::Gradient:
            GradientKernel<T><<<groupBlocks, kThreads, 0, launch.stream>>>(p, ptr);
            break;
        case NormMode::GivenStatistics:
            if (IsGivenPlane(p)) {
                const uint32_t planeSize = p.sizes[p.rank - 2] * p.sizes[p.rank - 1];
                uint32_t planes = 1;
                for (int d = 0; d < p.rank - 2; ++d) planes *= p.sizes[d];
                const dim3 grid((planeSize + kThreads - 1) / kThreads, planes);
                GivenPlaneKernel<T><<<grid, kThreads, 0, launch.stream>>>(p, act, ptr, planeSize);
                break;
            }
            // 32-bit coordinates where every element's index fits: a fraction of the division cost.
            if (count + uint64_t(launch.Blocks(count, kThreads)) * kThreads <= UINT32_MAX) {
                GivenKernel<T, uint32_t>
                    <<<launch.Blocks(count, kThreads), kThreads, 0, launch.stream>>>(p, act, ptr, uint32_t(count));
            } else {
                GivenKernel<T, uint64_t>
                    <<<launch.Blocks(count, kThreads), kThreads, 0, launch.stream>>>(p, act, ptr, count);
            }
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
