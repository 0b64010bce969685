// Helpers of the CPU kernel tests: tensors with explicit strides, element access by index (written
// here, independently of the kernels), FLOAT16 by arithmetic, random data, and
// the activations' documented formulas in float64.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "common/thread_pool.h"
#include "dml/kernels/cpu/activation.h"
#include "dml/kernels/cpu/tensor_view.h"
#include "dml/tensor.h"

namespace freedml::dml::cpu::test {

// The threads the kernels under test share out their loops on: four, whatever this machine has,
// so that the chunked paths run (and race, if they could) even on a small CI machine.
inline ThreadPool* Threads() {
    static ThreadPool pool(4);
    return &pool;
}

// FLOAT16 by arithmetic (not bit manipulation, and not the kernels' code): a half is m * 2^(e - 25).
inline double HalfBitsToDouble(uint16_t h) {
    const int exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
    const double sign = (h & 0x8000) ? -1.0 : 1.0;
    if (exponent == 0x1F) return mantissa ? NAN : sign * INFINITY;
    if (exponent == 0) return sign * std::ldexp(double(mantissa), -24);
    return sign * std::ldexp(double(mantissa + 1024), exponent - 25);
}

// The nearest half (ties to even) of a value, as bits: scale to units of the half's ULP at that
// magnitude and round the quotient with nearbyint (round-to-nearest-even mode).
inline uint16_t DoubleToHalfBits(double v) {
    if (std::isnan(v)) return 0x7E00;
    const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
    const double a = std::fabs(v);
    if (a >= 65520.0) return sign | 0x7C00;
    int exponent = a == 0 ? -14 : std::max(int(std::floor(std::log2(a))), -14);
    if (std::ldexp(1.0, exponent) > a) --exponent;  // log2 rounding guard
    if (exponent < -14) exponent = -14;
    double units = std::nearbyint(a / std::ldexp(1.0, exponent - 10));  // exact division by a power of 2
    if (units >= 2048) units /= 2, ++exponent;  // rounded up into the next binade (units is even here)
    if (exponent == -14 && units < 1024) return uint16_t(sign | uint16_t(units));  // subnormal
    return uint16_t(sign | uint16_t((exponent + 15) << 10) | (uint16_t(units) - 1024));
}

inline double RoundToHalf(double v) { return HalfBitsToDouble(DoubleToHalfBits(v)); }

inline TensorDesc Desc(DML_TENSOR_DATA_TYPE type, std::vector<uint32_t> sizes, std::vector<uint32_t> strides = {},
                       bool owned = false) {
    TensorDesc d;
    d.dataType = type;
    d.rank = uint32_t(sizes.size());
    d.flags = owned ? DML_TENSOR_FLAG_OWNED_BY_DML : DML_TENSOR_FLAG_NONE;
    uint64_t packed = 1;
    for (uint32_t i = d.rank; i-- > 0;) {
        d.sizes[i] = sizes[i];
        d.strides[i] = strides.empty() ? uint32_t(packed) : strides[i];
        packed *= sizes[i];
    }
    d.hasExplicitStrides = !strides.empty();
    uint64_t last = 0;
    for (uint32_t i = 0; i < d.rank; ++i) last += uint64_t(d.sizes[i] - 1) * d.strides[i];
    d.totalTensorSizeInBytes = ((last + 1) * ElementSizeInBytes(type) + 3) & ~uint64_t(3);
    return d;
}

// Element offset of a multi-index.
inline uint64_t Offset(const TensorDesc& d, const std::vector<uint32_t>& index) {
    uint64_t o = 0;
    for (uint32_t i = 0; i < d.rank; ++i) o += uint64_t(index[i]) * d.strides[i];
    return o;
}

// A tensor's memory plus element access; bytes outside the elements hold a guard pattern.
struct Tensor {
    TensorDesc desc;
    std::vector<std::byte> bytes;

    explicit Tensor(const TensorDesc& d) : desc(d), bytes(d.totalTensorSizeInBytes + 64, std::byte{0xA5}) {}
    std::byte* data() { return bytes.data(); }
    TensorView view() { return MakeView(desc, bytes.data()); }

    double GetAt(uint64_t offset) const {
        const std::byte* p = bytes.data() + offset * ElementSizeInBytes(desc.dataType);
        auto get = [p](auto tag) {
            decltype(tag) v;
            std::memcpy(&v, p, sizeof(v));
            return double(v);
        };
        switch (desc.dataType) {
            case DML_TENSOR_DATA_TYPE_FLOAT32: return get(float{});
            case DML_TENSOR_DATA_TYPE_FLOAT16: return HalfBitsToDouble(uint16_t(get(uint16_t{})));
            case DML_TENSOR_DATA_TYPE_FLOAT64: return get(double{});
            case DML_TENSOR_DATA_TYPE_UINT8: return get(uint8_t{});
            case DML_TENSOR_DATA_TYPE_INT8: return get(int8_t{});
            case DML_TENSOR_DATA_TYPE_UINT16: return get(uint16_t{});
            case DML_TENSOR_DATA_TYPE_INT16: return get(int16_t{});
            case DML_TENSOR_DATA_TYPE_UINT32: return get(uint32_t{});
            case DML_TENSOR_DATA_TYPE_INT32: return get(int32_t{});
            case DML_TENSOR_DATA_TYPE_UINT64: return get(uint64_t{});
            case DML_TENSOR_DATA_TYPE_INT64: return get(int64_t{});
            default: return NAN;
        }
    }
    void SetAt(uint64_t offset, double value) {
        std::byte* p = bytes.data() + offset * ElementSizeInBytes(desc.dataType);
        auto set = [p](auto v) { std::memcpy(p, &v, sizeof(v)); };
        switch (desc.dataType) {
            case DML_TENSOR_DATA_TYPE_FLOAT32: return set(float(value));
            case DML_TENSOR_DATA_TYPE_FLOAT16: return set(DoubleToHalfBits(value));
            case DML_TENSOR_DATA_TYPE_FLOAT64: return set(value);
            case DML_TENSOR_DATA_TYPE_UINT8: return set(uint8_t(int64_t(value)));
            case DML_TENSOR_DATA_TYPE_INT8: return set(int8_t(int64_t(value)));
            case DML_TENSOR_DATA_TYPE_UINT16: return set(uint16_t(int64_t(value)));
            case DML_TENSOR_DATA_TYPE_INT16: return set(int16_t(int64_t(value)));
            case DML_TENSOR_DATA_TYPE_UINT32: return set(uint32_t(int64_t(value)));
            case DML_TENSOR_DATA_TYPE_INT32: return set(int32_t(int64_t(value)));
            case DML_TENSOR_DATA_TYPE_UINT64: return set(uint64_t(value));
            case DML_TENSOR_DATA_TYPE_INT64: return set(int64_t(value));
            default: return;
        }
    }
    double Get(const std::vector<uint32_t>& index) const { return GetAt(Offset(desc, index)); }
    void Set(const std::vector<uint32_t>& index, double v) { SetAt(Offset(desc, index), v); }

    // Calls f(index) for every element, row-major.
    template <class F>
    void ForEach(F f) const {
        std::vector<uint32_t> index(desc.rank, 0);
        uint64_t count = desc.ElementCount();
        for (uint64_t e = 0; e < count; ++e) {
            f(index);
            for (uint32_t d = desc.rank; d-- > 0;) {
                if (++index[d] < desc.sizes[d]) break;
                index[d] = 0;
            }
        }
    }
    // Random values in [lo, hi] (whole numbers for integer types), rounded to the data type.
    void Fill(std::mt19937& rng, double lo = -1.0, double hi = 1.0) {
        std::uniform_real_distribution<double> dist(lo, hi);
        const bool isFloat = desc.dataType == DML_TENSOR_DATA_TYPE_FLOAT32 ||
                             desc.dataType == DML_TENSOR_DATA_TYPE_FLOAT16 || desc.dataType == DML_TENSOR_DATA_TYPE_FLOAT64;
        ForEach([&](const std::vector<uint32_t>& i) {
            double v = dist(rng);
            Set(i, isFloat ? v : std::floor(v));
        });
    }
};

constexpr double kEps32 = 1.0 / (1 << 23);  // FLOAT32 ULP at 1
constexpr double kEps16 = 1.0 / (1 << 10);  // FLOAT16 ULP at 1

inline double TypeUlp(DML_TENSOR_DATA_TYPE type) { return type == DML_TENSOR_DATA_TYPE_FLOAT16 ? kEps16 : kEps32; }

// The documented formulas, in float64 (independent of the kernels' float code); e^x - 1 and
// 1 + erf(x) through expm1 and erfc, so that float64 itself does not cancel near 0 and in the tail.
inline double RefActivation(const FusedActivation& a, double x) {
    const double alpha = a.alpha, beta = a.beta, gamma = a.gamma;
    switch (a.type) {
        case DML_OPERATOR_ACTIVATION_LINEAR: return alpha * x + beta;
        case DML_OPERATOR_ACTIVATION_SIGMOID: return 1 / (1 + std::exp(-x));
        case DML_OPERATOR_ACTIVATION_HARD_SIGMOID: return std::max(0.0, std::min(1.0, alpha * x + beta));
        case DML_OPERATOR_ACTIVATION_TANH: return std::tanh(x);
        case DML_OPERATOR_ACTIVATION_SCALED_TANH: return alpha * std::tanh(beta * x);
        case DML_OPERATOR_ACTIVATION_RELU: return x > 0 ? x : 0;
        case DML_OPERATOR_ACTIVATION_LEAKY_RELU: return x > 0 ? x : alpha * x;
        case DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU: return x > alpha ? x : 0;
        case DML_OPERATOR_ACTIVATION_ELU: return x > 0 ? x : alpha * std::expm1(x);
        case DML_OPERATOR_ACTIVATION_CELU: return std::max(0.0, x) + std::min(0.0, alpha * std::expm1(x / alpha));
        case DML_OPERATOR_ACTIVATION_SCALED_ELU: return gamma * (x > 0 ? x : alpha * std::expm1(x));
        case DML_OPERATOR_ACTIVATION_SOFTPLUS: return std::log1p(std::exp(alpha * x)) / alpha;
        case DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS: return alpha * std::log1p(std::exp(beta * x));
        case DML_OPERATOR_ACTIVATION_SOFTSIGN: return x / (1 + std::fabs(x));
        case DML_OPERATOR_ACTIVATION_SHRINK: return x > beta ? x - alpha : (x < -beta ? x + alpha : 0);
        case DML_OPERATOR_ACTIVATION_GELU: return 0.5 * x * std::erfc(-x / std::sqrt(2.0));  // = 1 + erf(x / sqrt 2)
        // A graph's fused CLIP (Min, Max in alpha, beta; Min <= Max).
        case DML_OPERATOR_ELEMENT_WISE_CLIP:
            return std::max(alpha, std::min(beta, x));
        default: return x;
    }
}

// Tolerance of act(z) when z is known to within zTolerance: the reference activation's spread over
// [z - tol, z + tol], plus 8 FLOAT32 ULPs of the activation's evaluation, plus one rounding to the
// output type.
inline double ActivatedTolerance(const FusedActivation& a, double z, double zTolerance, DML_TENSOR_DATA_TYPE type) {
    double ref = RefActivation(a, z);
    double spread = std::max(std::fabs(RefActivation(a, z + zTolerance) - ref),
                             std::fabs(RefActivation(a, z - zTolerance) - ref));
    double tol = spread + 8 * kEps32 * std::fabs(ref) + 1e-30;
    if (type == DML_TENSOR_DATA_TYPE_FLOAT16) tol += kEps16 * std::fabs(ref) + 6e-8;
    return tol;
}

// 64-byte aligned scratch memory (persistent and temporary resources).
struct Buffer {
    std::vector<std::byte> storage;
    std::byte* ptr = nullptr;
    explicit Buffer(uint64_t size) : storage(size + 64) {
        auto address = reinterpret_cast<uintptr_t>(storage.data());
        ptr = storage.data() + ((64 - address % 64) % 64);
    }
};

}  // namespace freedml::dml::cpu::test
