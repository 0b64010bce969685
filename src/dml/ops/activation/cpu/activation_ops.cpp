// CPU kernels of the standalone DML_OPERATOR_ACTIVATION_* operators.
//
// - Element-wise float activations reuse the fused-activation formulas (activation.h): packed
//   FLOAT32 rows in one vectorized pass from input to output; strided and FLOAT16 rows convert a
//   block to float, transform it, and round it back once.
// - RELU, SHRINK, PARAMETERIZED_RELU and RELU_GRAD also take integer tensors (exact; SHRINK
//   computes in double, rounds toward zero and saturates; PARAMETERIZED_RELU wraps like ADD).
// - SOFTMAX, LOG_SOFTMAX and HARDMAX (and their `1` forms) split the shape into kept and reduced
//   dimensions once, at Create, and then run every slice over the reduced dimensions: gather to
//   floats, max, exp and sum in double (vectorized: vector_math.h, compiled per instruction set;
//   FLOAT16 softmax in float, to FLOAT16's accuracy), scatter. NaN anywhere in a slice makes the slice NaN (softmax forms); hardmax takes the first
//   maximum, a NaN counting as the maximum.
#include "dml/kernels/cpu/float_rows.h"  // first: vectorization and FP settings of this file

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "dml/kernel.h"
#include "dml/kernels/cpu/activation.h"
#include "dml/kernels/cpu/cpu_isa.h"
#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/streaming_store.h"
#include "dml/kernels/cpu/tensor_view.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/kernels/cpu/vector_math.h"
#include "dml/kernels/integer_math.h"

namespace freedml::dml {

namespace {

using cpu::FusedActivation;
using cpu::HostThreads;
using cpu::LoopPlan;
using cpu::MakeLoopPlan;
using cpu::ParallelFor;
using cpu::ParallelLoop;
using cpu::RunLoopRows;

constexpr size_t kBlock = 512;  // floats transformed at a time

template <class T>
inline T Load(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}

template <class T>
inline void Store(std::byte* p, T v) {
    std::memcpy(p, &v, sizeof(T));
}

// Calls f(T{}) with T the C type of a signed integer tensor type.
template <class F>
void WithSignedType(DML_TENSOR_DATA_TYPE type, F&& f) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_INT8: return f(int8_t{});
        case DML_TENSOR_DATA_TYPE_INT16: return f(int16_t{});
        case DML_TENSOR_DATA_TYPE_INT32: return f(int32_t{});
        default: return;
    }
}

// Calls f(T{}) with T the C type of an integer tensor type.
template <class F>
void WithIntegerType(DML_TENSOR_DATA_TYPE type, F&& f) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_INT8: return f(int8_t{});
        case DML_TENSOR_DATA_TYPE_INT16: return f(int16_t{});
        case DML_TENSOR_DATA_TYPE_INT32: return f(int32_t{});
        case DML_TENSOR_DATA_TYPE_UINT8: return f(uint8_t{});
        case DML_TENSOR_DATA_TYPE_UINT16: return f(uint16_t{});
        case DML_TENSOR_DATA_TYPE_UINT32: return f(uint32_t{});
        default: return;
    }
}

// The kernels here need no persistent or temporary memory.
class StatelessKernel : public Kernel {
public:
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
};

// ---- Element-wise float activations -------------------------------------------------------------

// Whether an activation is cheap enough that smaller tensors are not worth fanning out.
bool IsCheap(const FusedActivation& activation) {
    switch (activation.type) {
        case DML_OPERATOR_ACTIVATION_RELU: case DML_OPERATOR_ACTIVATION_LEAKY_RELU:
        case DML_OPERATOR_ACTIVATION_LINEAR: case DML_OPERATOR_ACTIVATION_HARD_SIGMOID:
        case DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU: case DML_OPERATOR_ACTIVATION_SHRINK:
        case DML_OPERATOR_ACTIVATION_IDENTITY: case DML_OPERATOR_ACTIVATION_SOFTSIGN:
            return true;
        default:
            return false;
    }
}

class UnaryFloatKernel final : public StatelessKernel {
public:
    UnaryFloatKernel(const TensorDesc& input, const TensorDesc& output, const FusedActivation& activation)
        : type_(output.dataType), activation_(activation) {
        const uint32_t size = ElementSizeInBytes(type_);
        plan_ = MakeLoopPlan<2>(output.sizes.data(), output.rank, {output.strides.data(), input.strides.data()},
                                {size, size});
    }

    void Execute(const KernelBindings& b) override {
        const DML_TENSOR_DATA_TYPE type = type_;
        const FusedActivation& f = activation_;
        const bool stream = cpu::ShouldStreamOutput(plan_.OuterCount() * plan_.InnerCount() * ElementSizeInBytes(type));
        ParallelLoop(
            HostThreads(b), plan_, {b.outputs[0], b.inputs[0]},
            [&](const std::array<std::byte*, 2>& p, uint64_t n, const std::array<int64_t, 2>& s) {
                if (type == DML_TENSOR_DATA_TYPE_FLOAT32 && s[0] == 4 && s[1] == 4) {
                    // Packed: one vectorized pass, in place or not (validation allows only the same region).
                    const auto* in = reinterpret_cast<const float*>(p[1]);
                    auto* out = reinterpret_cast<float*>(p[0]);
                    if (stream && cpu::ApplyActivationPastCaches(f, in, out, n)) return;
                    return cpu::RunRow(stream, in, out, n,
                                       [&](const float* i, float* o, size_t m) { cpu::ApplyActivation(f, i, o, m); });
                }
                if (type == DML_TENSOR_DATA_TYPE_FLOAT16 && s[0] == 2 && s[1] == 2 &&
                    cpu::ApplyActivationToHalves(f, reinterpret_cast<const uint16_t*>(p[1]),
                                                 reinterpret_cast<uint16_t*>(p[0]), n)) {
                    return;
                }
                float block[kBlock];
                for (uint64_t i = 0; i < n; i += kBlock) {
                    const size_t m = size_t(std::min<uint64_t>(kBlock, n - i));
                    cpu::LoadFloats(type, p[1] + int64_t(i) * s[1], s[1], block, m);
                    if (type == DML_TENSOR_DATA_TYPE_FLOAT16) {
                        cpu::ApplyActivationForHalf(f, block, m);
                    } else {
                        cpu::ApplyActivation(f, block, m);
                    }
                    cpu::StoreFloats(type, block, p[0] + int64_t(i) * s[0], s[0], m);
                }
            },
            IsCheap(activation_) ? (1u << 15) : (1u << 12));
    }

private:
    DML_TENSOR_DATA_TYPE type_;
    FusedActivation activation_;
    LoopPlan<2> plan_;  // output, input
};

// ---- Integer RELU and SHRINK ----------------------------------------------------------------------


class UnaryIntegerKernel final : public StatelessKernel {
public:
    UnaryIntegerKernel(const TensorDesc& input, const TensorDesc& output, DML_OPERATOR_TYPE op, float bias,
                       float threshold)
        : type_(output.dataType), op_(op), bias_(bias), threshold_(threshold) {
        const uint32_t size = ElementSizeInBytes(type_);
        plan_ = MakeLoopPlan<2>(output.sizes.data(), output.rank, {output.strides.data(), input.strides.data()},
                                {size, size});
    }

    void Execute(const KernelBindings& b) override {
        WithIntegerType(type_, [&](auto tag) {
            using T = decltype(tag);
            const bool relu = op_ == DML_OPERATOR_ACTIVATION_RELU;
            const double bias = bias_, threshold = threshold_;
            ParallelLoop(HostThreads(b), plan_, {b.outputs[0], b.inputs[0]},
                         [&](const std::array<std::byte*, 2>& p, uint64_t n, const std::array<int64_t, 2>& s) {
                             if (relu && s[0] == int64_t(sizeof(T)) && s[1] == int64_t(sizeof(T))) {
                                 for (uint64_t i = 0; i < n; ++i) {  // packed: constant strides, vectorizable
                                     const T x = Load<T>(p[1] + i * sizeof(T));
                                     Store<T>(p[0] + i * sizeof(T), x > T(0) ? x : T(0));
                                 }
                             } else if (relu) {
                                 for (uint64_t i = 0; i < n; ++i) {
                                     const T x = Load<T>(p[1] + int64_t(i) * s[1]);
                                     Store<T>(p[0] + int64_t(i) * s[0], x > T(0) ? x : T(0));
                                 }
                             } else {
                                 for (uint64_t i = 0; i < n; ++i) {
                                     Store<T>(p[0] + int64_t(i) * s[0],
                                              ShrinkInteger(Load<T>(p[1] + int64_t(i) * s[1]), bias, threshold));
                                 }
                             }
                         });
        });
    }

private:
    DML_TENSOR_DATA_TYPE type_;
    DML_OPERATOR_TYPE op_;
    float bias_, threshold_;
    LoopPlan<2> plan_;
};

// ---- PARAMETERIZED_RELU and RELU_GRAD ------------------------------------------------------------

// A FLOAT16 element as its bits: RELU_GRAD selects dy without converting it.
struct Half {
    uint16_t bits;
};

// x > 0 (false for NaN).
template <class T>
inline bool Positive(T x) {
    return x > T(0);
}
inline bool Positive(Half x) { return !(x.bits & 0x8000) && x.bits != 0 && x.bits <= 0x7C00; }

class BinaryKernel final : public StatelessKernel {
public:
    // PARAMETERIZED_RELU: (x, slope) -> x >= 0 ? x : slope * x. RELU_GRAD: (x, dy) -> x > 0 ? dy : 0.
    BinaryKernel(const TensorDesc& x, const TensorDesc& second, const TensorDesc& output, bool grad)
        : type_(output.dataType), grad_(grad) {
        const uint32_t size = ElementSizeInBytes(type_);
        plan_ = MakeLoopPlan<3>(output.sizes.data(), output.rank,
                                {output.strides.data(), x.strides.data(), second.strides.data()}, {size, size, size});
    }

    void Execute(const KernelBindings& b) override {
        using Ptrs = std::array<std::byte*, 3>;
        using Strides = std::array<int64_t, 3>;
        const std::array<std::byte*, 3> bases{b.outputs[0], b.inputs[0], b.inputs[1]};
        if (grad_) {
            // Selects bits: no arithmetic, so every type (FLOAT16 as bits) copies exactly.
            auto run = [&](auto tag) {
                using T = decltype(tag);
                ParallelLoop(HostThreads(b), plan_, bases, [](const Ptrs& p, uint64_t n, const Strides& s) {
                    constexpr int64_t size = sizeof(T);
                    if (s[0] == size && s[1] == size && s[2] == size) {  // packed: vectorizable
                        for (uint64_t i = 0; i < n; ++i) {
                            const T dy = Load<T>(p[2] + i * size);
                            Store<T>(p[0] + i * size, Positive(Load<T>(p[1] + i * size)) ? dy : T{});
                        }
                        return;
                    }
                    for (uint64_t i = 0; i < n; ++i) {
                        const T dy = Load<T>(p[2] + int64_t(i) * s[2]);
                        Store<T>(p[0] + int64_t(i) * s[0], Positive(Load<T>(p[1] + int64_t(i) * s[1])) ? dy : T{});
                    }
                });
            };
            switch (type_) {
                case DML_TENSOR_DATA_TYPE_FLOAT32: return run(float{});
                case DML_TENSOR_DATA_TYPE_FLOAT16: return run(Half{});
                default: return WithSignedType(type_, run);
            }
        }
        if (IsFloat16Or32(type_)) {
            const DML_TENSOR_DATA_TYPE type = type_;
            ParallelLoop(HostThreads(b), plan_, bases, [type](const Ptrs& p, uint64_t n, const Strides& s) {
                if (type == DML_TENSOR_DATA_TYPE_FLOAT32 && s[0] == 4 && s[1] == 4 && s[2] == 4) {
                    auto* out = reinterpret_cast<float*>(p[0]);
                    const auto* x = reinterpret_cast<const float*>(p[1]);
                    const auto* slope = reinterpret_cast<const float*>(p[2]);
                    for (uint64_t i = 0; i < n; ++i) out[i] = x[i] >= 0.0f ? x[i] : slope[i] * x[i];
                    return;
                }
                float x[kBlock], slope[kBlock];
                for (uint64_t i = 0; i < n; i += kBlock) {
                    const size_t m = size_t(std::min<uint64_t>(kBlock, n - i));
                    cpu::LoadFloats(type, p[1] + int64_t(i) * s[1], s[1], x, m);
                    cpu::LoadFloats(type, p[2] + int64_t(i) * s[2], s[2], slope, m);
                    for (size_t j = 0; j < m; ++j) x[j] = x[j] >= 0.0f ? x[j] : slope[j] * x[j];
                    cpu::StoreFloats(type, x, p[0] + int64_t(i) * s[0], s[0], m);
                }
            });
            return;
        }
        WithSignedType(type_, [&](auto tag) {
            using T = decltype(tag);
            using U = std::make_unsigned_t<T>;
            ParallelLoop(HostThreads(b), plan_, bases, [](const Ptrs& p, uint64_t n, const Strides& s) {
                for (uint64_t i = 0; i < n; ++i) {
                    const T x = Load<T>(p[1] + int64_t(i) * s[1]);
                    const T slope = Load<T>(p[2] + int64_t(i) * s[2]);
                    // The product wraps modulo 2^bits, as integer ADD does.
                    const T y = x >= T(0) ? x : T(U(uint64_t(int64_t(slope) * int64_t(x))));
                    Store<T>(p[0] + int64_t(i) * s[0], y);
                }
            });
        });
    }

private:
    DML_TENSOR_DATA_TYPE type_;
    bool grad_;
    LoopPlan<3> plan_;  // output, x, slope or dy
};

// ---- SOFTMAX, LOG_SOFTMAX, HARDMAX and their `1` forms ------------------------------------------

enum class AxisFunction : uint8_t { Softmax, LogSoftmax, Hardmax };

// The largest of `n` floats (-inf for none; NaNs are passed over), in eight lanes that vectorize.
[[gnu::always_inline]] inline float MaxOf(const float* v, uint64_t n) {
    constexpr float kLow = -std::numeric_limits<float>::infinity();
    float lanes[8] = {kLow, kLow, kLow, kLow, kLow, kLow, kLow, kLow};
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        for (int j = 0; j < 8; ++j) lanes[j] = v[i + j] > lanes[j] ? v[i + j] : lanes[j];
    }
    for (; i < n; ++i) lanes[0] = v[i] > lanes[0] ? v[i] : lanes[0];
    float max = kLow;
    for (float lane : lanes) max = lane > max ? lane : max;
    return max;
}

// The sum of `n` doubles in eight lanes (the order differs from a sequential sum by rounding only).
[[gnu::always_inline]] inline double SumOf(const double* e, uint64_t n) {
    double lanes[8] = {};
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        for (int j = 0; j < 8; ++j) lanes[j] += e[i + j];
    }
    for (; i < n; ++i) lanes[0] += e[i];
    return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

// Softmax or log-softmax of one gathered slice of `n` floats, in place; `e` holds n doubles.
// x - max in double (one rounding of 1e-16), exp to 2e-9 (ExpForFloat) and the sum in double
// leave one rounding that matters, to float, at the end. A NaN reaches the sum and
// so every element; a +inf maximum, or a slice of only -inf, gives NaN throughout too, as the
// formula has it.
[[gnu::always_inline]] inline void SoftmaxBody(bool logarithm, float* v, double* e, uint64_t n) {
    const float max = MaxOf(v, n);
    const double m = max;
    for (uint64_t i = 0; i < n; ++i) e[i] = cpu::vmath::ExpForFloat(double(v[i]) - m);
    if (!logarithm) {
        const double inverse = 1.0 / SumOf(e, n);
        for (uint64_t i = 0; i < n; ++i) v[i] = float(e[i] * inverse);
        return;
    }
    // ln(1 + rest), rest without the first maximum (whose term is exactly 1), keeps the digits of
    // a small rest.
    uint64_t first = 0;
    while (first + 1 < n && !(v[first] == max)) ++first;
    e[first] = 0.0;
    const double logSum = std::isinf(max) ? std::numeric_limits<double>::quiet_NaN() : cpu::vmath::Log1p(SumOf(e, n));
    for (uint64_t i = 0; i < n; ++i) v[i] = float((double(v[i]) - m) - logSum);
}

// Softmax of a slice whose results are rounded to FLOAT16, in float: x - max (exact but where the
// exponential is far below FLOAT16's smallest), e^x in the form for FLOAT16 results, a sum in eight
// float lanes (1e-5 relative for any slice FLOAT16 can hold sensibly) and one product each: well
// within FLOAT16's spacing, at a third of the double path's work. NaN, +inf and all -inf slices
// give NaN as above.
[[gnu::always_inline]] inline void SoftmaxHalfBody(float* v, uint64_t n) {
    const float max = MaxOf(v, n);
    for (uint64_t i = 0; i < n; ++i) v[i] = cpu::vmath::ExpH(v[i] - max);
    float lanes[8] = {};
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        for (int j = 0; j < 8; ++j) lanes[j] += v[i + j];
    }
    for (; i < n; ++i) lanes[0] += v[i];
    const float inverse =
        1.0f / (((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7])));
    for (uint64_t k = 0; k < n; ++k) v[k] = v[k] * inverse;
}

// `half`: softmax (not its logarithm) of a slice that is rounded to FLOAT16 afterwards.
template <bool kHalf>
[[gnu::always_inline]] inline void SoftmaxOf(bool logarithm, float* v, double* e, uint64_t n) {
    if (kHalf && !logarithm) return SoftmaxHalfBody(v, n);
    SoftmaxBody(logarithm, v, e, n);
}

template <bool kHalf>
void SoftmaxBaseline(bool logarithm, float* v, double* e, uint64_t n) {
    SoftmaxOf<kHalf>(logarithm, v, e, n);
}

#ifdef FREEDML_CPU_X86_64
template <bool kHalf>
FREEDML_TARGET_AVX2_FMA void SoftmaxAvx2(bool logarithm, float* v, double* e, uint64_t n) {
    SoftmaxOf<kHalf>(logarithm, v, e, n);
}

template <bool kHalf>
FREEDML_TARGET_AVX512 void SoftmaxAvx512(bool logarithm, float* v, double* e, uint64_t n) {
    SoftmaxOf<kHalf>(logarithm, v, e, n);
}
#endif

template <bool kHalf>
void Softmax(bool logarithm, float* v, double* e, uint64_t n) {
#ifdef FREEDML_CPU_X86_64
    if (cpu::UseAvx512()) return SoftmaxAvx512<kHalf>(logarithm, v, e, n);
    if (cpu::UseAvx2Fma()) return SoftmaxAvx2<kHalf>(logarithm, v, e, n);
#endif
    SoftmaxBaseline<kHalf>(logarithm, v, e, n);
}

// Calls f(pointers) for elements [first, last) of `plan` in row-major order.
template <class F>
void ForEachElement(const LoopPlan<2>& plan, const std::array<std::byte*, 2>& bases, uint64_t first, uint64_t last,
                    F&& f) {
    if (first >= last) return;
    std::array<uint64_t, kMaxTensorRank> index{};
    uint64_t rest = first;
    for (uint32_t d = plan.rank; d-- > 0;) {
        index[d] = rest % plan.sizes[d];
        rest /= plan.sizes[d];
    }
    std::array<std::byte*, 2> ptrs = bases;
    for (uint32_t d = 0; d < plan.rank; ++d) {
        for (size_t k = 0; k < 2; ++k) ptrs[k] += int64_t(index[d]) * plan.byteStrides[k][d];
    }
    for (uint64_t e = first; e < last; ++e) {
        f(ptrs);
        for (uint32_t d = plan.rank; d-- > 0;) {
            if (++index[d] < plan.sizes[d]) {
                for (size_t k = 0; k < 2; ++k) ptrs[k] += plan.byteStrides[k][d];
                break;
            }
            for (size_t k = 0; k < 2; ++k) ptrs[k] -= int64_t(plan.sizes[d] - 1) * plan.byteStrides[k][d];
            index[d] = 0;
        }
    }
}

class AxisKernel final : public StatelessKernel {
public:
    // `reduced[d]` marks the dimensions one slice spans.
    AxisKernel(const TensorDesc& input, const TensorDesc& output, AxisFunction function, const bool* reduced)
        : type_(output.dataType), function_(function) {
        const uint32_t size = ElementSizeInBytes(type_);
        std::array<uint32_t, kMaxTensorRank> keptSizes{}, reducedSizes{};
        for (uint32_t d = 0; d < output.rank; ++d) {
            keptSizes[d] = reduced[d] ? 1 : output.sizes[d];
            reducedSizes[d] = reduced[d] ? output.sizes[d] : 1;
        }
        outer_ = MakeLoopPlan<2>(keptSizes.data(), output.rank, {input.strides.data(), output.strides.data()},
                                 {size, size});
        inner_ = MakeLoopPlan<2>(reducedSizes.data(), output.rank, {input.strides.data(), output.strides.data()},
                                 {size, size});
        sliceCount_ = ElementCountOf(reducedSizes, output.rank);
        sliceTotal_ = ElementCountOf(keptSizes, output.rank);
    }

    void Execute(const KernelBindings& b) override {
        const std::array<std::byte*, 2> bases{b.inputs[0], b.outputs[0]};
        const uint64_t minSlices = std::max<uint64_t>(1, (uint64_t(1) << 13) / sliceCount_);
        ParallelFor(HostThreads(b), sliceTotal_, minSlices, [&](uint64_t first, uint64_t last) {
            std::vector<float> values(sliceCount_);
            std::vector<double> scratch(function_ == AxisFunction::Hardmax ? 0 : sliceCount_);
            ForEachElement(outer_, bases, first, last, [&](const std::array<std::byte*, 2>& slice) {
                RunSlice(slice, values.data(), scratch.data());
            });
        });
    }

private:
    static uint64_t ElementCountOf(const std::array<uint32_t, kMaxTensorRank>& sizes, uint32_t rank) {
        return cpu::ElementCountOf(sizes, rank);
    }

    void RunSlice(const std::array<std::byte*, 2>& slice, float* v, double* e) const {
        const DML_TENSOR_DATA_TYPE type = type_;
        const uint64_t n = sliceCount_;
        // Gather the slice (any strides) into packed floats.
        uint64_t k = 0;
        RunLoopRows(inner_, slice, 0, inner_.OuterCount(), [&](const std::array<std::byte*, 2>& p, uint64_t count,
                                                               const std::array<int64_t, 2>& s) {
            cpu::LoadFloats(type, p[0], s[0], v + k, size_t(count));
            k += count;
        });
        if (function_ == AxisFunction::Hardmax) {
            // The first maximum; a NaN counts as larger than every number (as numpy's argmax).
            uint64_t best = 0;
            for (uint64_t i = 1; i < n && v[best] == v[best]; ++i) {
                if (v[i] > v[best] || v[i] != v[i]) best = i;
            }
            for (uint64_t i = 0; i < n; ++i) v[i] = 0.0f;
            v[best] = 1.0f;
        } else {
            const bool logarithm = function_ == AxisFunction::LogSoftmax;
            if (type == DML_TENSOR_DATA_TYPE_FLOAT16) {
                Softmax<true>(logarithm, v, e, n);
            } else {
                Softmax<false>(logarithm, v, e, n);
            }
        }
        k = 0;
        RunLoopRows(inner_, slice, 0, inner_.OuterCount(), [&](const std::array<std::byte*, 2>& p, uint64_t count,
                                                               const std::array<int64_t, 2>& s) {
            cpu::StoreFloats(type, v + k, p[1], s[1], size_t(count));
            k += count;
        });
    }

    DML_TENSOR_DATA_TYPE type_;
    AxisFunction function_;
    LoopPlan<2> outer_;  // over the kept dimensions: input, output
    LoopPlan<2> inner_;  // over one slice's dimensions: input, output
    uint64_t sliceCount_ = 1;
    uint64_t sliceTotal_ = 1;
};

// ---- Factory ----------------------------------------------------------------------------------------

template <class Desc>
const Desc& DescOf(const OperatorArgs& args) {
    return args.As<Desc>();
}

template <class AxesDesc>
void AxesOf(const OperatorArgs& args, bool* reduced) {
    const auto& desc = args.As<AxesDesc>();
    for (uint32_t i = 0; i < desc.AxisCount; ++i) reduced[desc.Axes[i]] = true;
}

Status Create(const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    const DML_OPERATOR_TYPE op = args.schema.type;
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& output = *args.outputs[0];
    const DML_TENSOR_DATA_TYPE type = output.dataType;

    switch (op) {
        case DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU:
        case DML_OPERATOR_ACTIVATION_RELU_GRAD:
            *kernel = std::make_unique<BinaryKernel>(input, *args.inputs[1], output,
                                                     op == DML_OPERATOR_ACTIVATION_RELU_GRAD);
            return {};
        case DML_OPERATOR_ACTIVATION_SOFTMAX:
        case DML_OPERATOR_ACTIVATION_LOG_SOFTMAX:
        case DML_OPERATOR_ACTIVATION_HARDMAX:
        case DML_OPERATOR_ACTIVATION_SOFTMAX1:
        case DML_OPERATOR_ACTIVATION_LOG_SOFTMAX1:
        case DML_OPERATOR_ACTIVATION_HARDMAX1: {
            bool reduced[kMaxTensorRank] = {};
            AxisFunction function = AxisFunction::Softmax;
            switch (op) {
                case DML_OPERATOR_ACTIVATION_SOFTMAX1:
                    AxesOf<DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC>(args, reduced);
                    break;
                case DML_OPERATOR_ACTIVATION_LOG_SOFTMAX1:
                    AxesOf<DML_ACTIVATION_LOG_SOFTMAX1_OPERATOR_DESC>(args, reduced);
                    function = AxisFunction::LogSoftmax;
                    break;
                case DML_OPERATOR_ACTIVATION_HARDMAX1:
                    AxesOf<DML_ACTIVATION_HARDMAX1_OPERATOR_DESC>(args, reduced);
                    function = AxisFunction::Hardmax;
                    break;
                default:  // the original forms: the last axis
                    reduced[output.rank - 1] = true;
                    function = op == DML_OPERATOR_ACTIVATION_SOFTMAX       ? AxisFunction::Softmax
                               : op == DML_OPERATOR_ACTIVATION_LOG_SOFTMAX ? AxisFunction::LogSoftmax
                                                                           : AxisFunction::Hardmax;
                    break;
            }
            *kernel = std::make_unique<AxisKernel>(input, output, function, reduced);
            return {};
        }
        default:
            break;
    }

    if (!IsFloat16Or32(type)) {
        if (op != DML_OPERATOR_ACTIVATION_RELU && op != DML_OPERATOR_ACTIVATION_SHRINK) {
            return NoKernel("DML_OPERATOR_%s has no CPU kernel for data type %s.", args.schema.name,
                            DataTypeName(type));
        }
        float bias = 0.0f, threshold = 0.0f;
        if (op == DML_OPERATOR_ACTIVATION_SHRINK) {
            bias = DescOf<DML_ACTIVATION_SHRINK_OPERATOR_DESC>(args).Bias;
            threshold = DescOf<DML_ACTIVATION_SHRINK_OPERATOR_DESC>(args).Threshold;
        }
        *kernel = std::make_unique<UnaryIntegerKernel>(input, output, op, bias, threshold);
        return {};
    }

    FusedActivation activation;
    FREEDML_TRY(DecodeActivation(op, args.desc, &activation));
    *kernel = std::make_unique<UnaryFloatKernel>(input, output, activation);
    return {};
}

}  // namespace

namespace cpu {

Status CreateCpuActivation(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    return Create(args, kernel);
}

}  // namespace cpu

}  // namespace freedml::dml
