// The window loop every pooling operator of this family shares, on the CPU and in CUDA device code
// alike (this header never includes DirectML.h, so the .cu files can use it).
//
// A PoolPlan is InputTensor {N, C, spatial..} and OutputTensor {N, C, out..} with 1 to 3 spatial
// dimensions, always held as 3 (missing leading ones have size 1, window 1, stride 1, no padding).
// Output element `o` (row-major over the output's logical sizes) reads the input positions
//     out[d] * Strides[d] - StartPadding[d] + k * Dilations[d],  k in [0, WindowSize[d])
// that fall inside the input; positions in the padding take no part, except that an average with
// IncludePadding divides by the whole window's size.
#pragma once

#include <cmath>
#include <cstdint>

#ifdef __CUDACC__
#define FREEDML_POOL_FN __host__ __device__ __forceinline__
#else
#define FREEDML_POOL_FN inline
#endif

namespace freedml::dml {

enum class PoolKind : uint8_t { Average, Lp, Max };

struct PoolPlan {
    PoolKind kind = PoolKind::Max;
    bool includePadding = false;  // Average: divide by the window's size, not the inputs it covers
    bool hasIndices = false;      // MAX_POOLING1/2 with OutputIndicesTensor
    bool index64 = false;         // OutputIndicesTensor is UINT64 (else UINT32)
    uint32_t p = 2;               // Lp
    uint32_t batch = 1, channels = 1;
    uint32_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
    uint32_t window[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dilation[3] = {1, 1, 1};
    // Element strides of {N, C, spatial[3]}; spatial dimensions a 4-D tensor lacks have stride 0.
    int64_t inStrides[5] = {}, outStrides[5] = {}, indexStrides[5] = {};
    uint64_t outCount = 0;  // output elements
    uint32_t windowVolume = 1;
    // The gradients (AVERAGE_POOLING_GRAD, MAX_POOLING_GRAD): `in` is the forward input's geometry
    // (InputTensor for MAX, by inStrides), `out` the forward output's (InputGradientTensor, by
    // outStrides); OutputGradientTensor has the forward input's sizes and these strides.
    int64_t gradStrides[5] = {};
    uint64_t inCount = 0;  // forward input elements
};

// Where output element `o` lives, and where its window starts.
struct PoolSite {
    int64_t inBase, outOffset, indexOffset;
    uint64_t flatBase;  // the logical row-major index of input element {n, c, 0, 0, 0}
    int64_t first[3];   // first window position per spatial dimension (may be negative)
};

// Index: the integer type of the divisions (the CUDA kernel passes 32 bits where the output's
// element count allows; a 64-bit division costs several times as much there).
template <class Index>
FREEDML_POOL_FN PoolSite LocatePool(const PoolPlan& plan, Index o) {
    PoolSite site{};
    Index rest = o;
    uint32_t y[3];
    for (int d = 2; d >= 0; --d) {
        y[d] = uint32_t(rest % plan.out[d]);
        rest /= plan.out[d];
    }
    const uint32_t c = uint32_t(rest % plan.channels), n = uint32_t(rest / plan.channels);
    site.inBase = int64_t(n) * plan.inStrides[0] + int64_t(c) * plan.inStrides[1];
    site.outOffset = int64_t(n) * plan.outStrides[0] + int64_t(c) * plan.outStrides[1];
    site.indexOffset = int64_t(n) * plan.indexStrides[0] + int64_t(c) * plan.indexStrides[1];
    for (int d = 0; d < 3; ++d) {
        site.outOffset += int64_t(y[d]) * plan.outStrides[2 + d];
        site.indexOffset += int64_t(y[d]) * plan.indexStrides[2 + d];
        site.first[d] = int64_t(y[d]) * plan.stride[d] - int64_t(plan.pad[d]);
    }
    site.flatBase = (uint64_t(n) * plan.channels + c) * plan.in[0] * plan.in[1] * plan.in[2];
    return site;
}

// Calls visit(inputOffset, flatIndex) for each window position inside the input, in row-major
// window order (so "the first" of equal maxima is the first in that order).
template <class Visit>
FREEDML_POOL_FN void ForEachInWindow(const PoolPlan& plan, const PoolSite& site, Visit&& visit) {
    for (uint32_t k0 = 0; k0 < plan.window[0]; ++k0) {
        const int64_t i0 = site.first[0] + int64_t(k0) * plan.dilation[0];
        if (i0 < 0 || i0 >= int64_t(plan.in[0])) continue;
        for (uint32_t k1 = 0; k1 < plan.window[1]; ++k1) {
            const int64_t i1 = site.first[1] + int64_t(k1) * plan.dilation[1];
            if (i1 < 0 || i1 >= int64_t(plan.in[1])) continue;
            const int64_t row = site.inBase + i0 * plan.inStrides[2] + i1 * plan.inStrides[3];
            const uint64_t flatRow = site.flatBase + (uint64_t(i0) * plan.in[1] + uint64_t(i1)) * plan.in[2];
            for (uint32_t k2 = 0; k2 < plan.window[2]; ++k2) {
                const int64_t i2 = site.first[2] + int64_t(k2) * plan.dilation[2];
                if (i2 < 0 || i2 >= int64_t(plan.in[2])) continue;
                visit(row + i2 * plan.inStrides[4], flatRow + uint64_t(i2));
            }
        }
    }
}

FREEDML_POOL_FN double PoolPow(double a, double b) { return ::pow(a, b); }
FREEDML_POOL_FN float PoolPow(float a, float b) { return ::powf(a, b); }
FREEDML_POOL_FN double PoolAbs(double a) { return ::fabs(a); }
FREEDML_POOL_FN float PoolAbs(float a) { return ::fabsf(a); }

// AVERAGE and LP over one window in `Acc` (double or float); load(offset) gives an element as Acc.
// An average of no element (a window wholly in the padding, IncludePadding FALSE) is 0/0, NaN; an
// Lp norm of no element is 0.
template <class Acc, class Load>
FREEDML_POOL_FN Acc PoolAverageOrLp(const PoolPlan& plan, const PoolSite& site, Load&& load) {
    Acc sum = 0;
    uint32_t count = 0;
    if (plan.kind == PoolKind::Average) {
        ForEachInWindow(plan, site, [&](int64_t offset, uint64_t) {
            sum += load(offset);
            ++count;
        });
        const Acc divisor = Acc(plan.includePadding ? plan.windowVolume : count);
        return sum / divisor;
    }
    const uint32_t p = plan.p;
    ForEachInWindow(plan, site, [&](int64_t offset, uint64_t) {
        const Acc a = PoolAbs(load(offset));
        sum += p == 1 ? a : p == 2 ? a * a : PoolPow(a, Acc(p));
    });
    return p == 1 ? sum : p == 2 ? Acc(::sqrt(double(sum))) : PoolPow(sum, Acc(1) / Acc(p));
}

// MAX over one window in the element's own type V (float for FLOAT16): the first largest element
// in window order, and its flat index; a NaN wins over every number (the first NaN), as PyTorch's
// max_pool propagates it. A window wholly in the padding gives `lowest` and index 0.
template <class V, class Load>
FREEDML_POOL_FN V PoolMax(const PoolPlan& plan, const PoolSite& site, V lowest, Load&& load, uint64_t* index) {
    V best = lowest;
    bool any = false, bestNaN = false;
    uint64_t bestIndex = 0;
    ForEachInWindow(plan, site, [&](int64_t offset, uint64_t flat) {
        if (bestNaN) return;
        const V v = load(offset);
        const bool nan = !(v == v);
        if (!any || nan || v > best) {
            best = v;
            bestIndex = flat;
            any = true;
            bestNaN = nan;
        }
    });
    *index = bestIndex;
    return best;
}

// The gradient that flows to forward-input element `i` (row-major over {N, C, in..}): the sum, over
// the forward outputs whose window holds it (in row-major output order), of the output gradient
// divided by that window's divisor (AVERAGE) or, for MAX, of the output gradient of the windows whose
// first maximum (PoolMax's choice) it is. loadGrad(offset) reads InputGradientTensor; for MAX,
// loadX(offset) reads InputTensor as V and `lowest` is PoolMax's empty value.
template <class Acc, class V, class LoadGrad, class LoadX>
FREEDML_POOL_FN Acc PoolGradient(const PoolPlan& plan, uint64_t i, LoadGrad&& loadGrad, LoadX&& loadX, V lowest) {
    uint64_t rest = i;
    int64_t x[3];
    for (int d = 2; d >= 0; --d) {
        x[d] = int64_t(rest % plan.in[d]);
        rest /= plan.in[d];
    }
    const uint32_t c = uint32_t(rest % plan.channels), n = uint32_t(rest / plan.channels);
    // Per spatial dimension, the forward outputs whose window reaches x[d]: o * stride - pad + k * dilation.
    int64_t lo[3], hi[3];
    for (int d = 0; d < 3; ++d) {
        const int64_t reach = x[d] + plan.pad[d];  // o * stride + k * dilation
        const int64_t span = int64_t(plan.window[d] - 1) * plan.dilation[d];
        lo[d] = reach - span <= 0 ? 0 : (reach - span + plan.stride[d] - 1) / plan.stride[d];
        hi[d] = reach < 0 ? -1 : reach / plan.stride[d];
        if (hi[d] > int64_t(plan.out[d]) - 1) hi[d] = int64_t(plan.out[d]) - 1;
    }
    const uint64_t flat = i;
    Acc total = 0;
    for (int64_t o0 = lo[0]; o0 <= hi[0]; ++o0) {
        if ((x[0] + plan.pad[0] - o0 * plan.stride[0]) % plan.dilation[0]) continue;
        for (int64_t o1 = lo[1]; o1 <= hi[1]; ++o1) {
            if ((x[1] + plan.pad[1] - o1 * plan.stride[1]) % plan.dilation[1]) continue;
            for (int64_t o2 = lo[2]; o2 <= hi[2]; ++o2) {
                if ((x[2] + plan.pad[2] - o2 * plan.stride[2]) % plan.dilation[2]) continue;
                const uint64_t o = ((((uint64_t(n) * plan.channels + c) * plan.out[0] + uint64_t(o0)) * plan.out[1] +
                                     uint64_t(o1)) * plan.out[2]) + uint64_t(o2);
                const PoolSite site = LocatePool(plan, o);
                if (plan.kind == PoolKind::Max) {
                    uint64_t at = 0;
                    PoolMax<V>(plan, site, lowest, loadX, &at);
                    if (at == flat) total += Acc(loadGrad(site.outOffset));
                } else {
                    uint32_t count = 1;
                    if (!plan.includePadding) {
                        for (int d = 0; d < 3; ++d) {
                            uint32_t inside = 0;
                            for (uint32_t k = 0; k < plan.window[d]; ++k) {
                                const int64_t at = site.first[d] + int64_t(k) * plan.dilation[d];
                                inside += at >= 0 && at < int64_t(plan.in[d]);
                            }
                            count *= inside;
                        }
                    } else {
                        count = plan.windowVolume;
                    }
                    total += Acc(loadGrad(site.outOffset)) / Acc(count);
                }
            }
        }
    }
    return total;
}

// Where forward-input element `i` (row-major over {N, C, in..}) lives in OutputGradientTensor.
FREEDML_POOL_FN int64_t GradientOffset(const PoolPlan& plan, uint64_t i) {
    int64_t offset = 0;
    for (int d = 2; d >= 0; --d) {
        offset += int64_t(i % plan.in[d]) * plan.gradStrides[2 + d];
        i /= plan.in[d];
    }
    return offset + int64_t(i % plan.channels) * plan.gradStrides[1] + int64_t(i / plan.channels) * plan.gradStrides[0];
}

// MAX_UNPOOLING: InputTensor and IndicesTensor {N, C, H, W} (same sizes), OutputTensor of rank 4.
struct UnpoolPlan {
    bool index64 = false;
    uint32_t inSizes[4] = {}, outSizes[4] = {};
    int64_t inStrides[4] = {}, indexStrides[4] = {}, outStrides[4] = {};
    uint64_t inCount = 0, outCount = 0;
};

// Element strides of a 4-D row-major walk: offset of logical element `i` of sizes/strides.
FREEDML_POOL_FN int64_t OffsetOf4(const uint32_t* sizes, const int64_t* strides, uint64_t i) {
    int64_t offset = 0;
    for (int d = 3; d >= 0; --d) {
        offset += int64_t(i % sizes[d]) * strides[d];
        i /= sizes[d];
    }
    return offset;
}

}  // namespace freedml::dml
