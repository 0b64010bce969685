// CPU kernels of the unary element-wise family (this folder's schema.cpp): the math functions
// of one tensor, CLIP/CLIP1 and their gradients, THRESHOLD, CONSTANT_POW, ROUND, SIGN, NEGATE,
// the NaN and infinity tests, the bit and logical NOTs, BIT_COUNT, CAST and FILL_VALUE_*.
//
// FLOAT32 rows that are packed run a plain loop per operator, compiled twice (baseline x86-64 and
// AVX2+FMA; EXP, LOG, TANH and ERF a third time for AVX-512) and picked once per process by what
// the CPU has (cpu_isa.h); EXP, LOG, TANH and ERF vectorize through vector_math.h, shared with the
// activations, and EXP's AVX-512 row is exp_avx512.h's. Packed rows whose output is 32 MiB or more
// write it with non-temporal stores (streaming_store.h). FLOAT16 and strided FLOAT32 rows go
// through blocks of floats (F16C conversions), so FLOAT16 is computed in float and rounded once;
// packed FLOAT16 rows of EXP, LOG, TANH and ERF convert inside the row's loop instead
// (half_rows.h), the same arithmetic in one pass.
// Integer rows are typed loops with a packed branch the compiler vectorizes. Broadcast and
// strided views run through LoopPlan (no index arithmetic per element), large tensors are split
// over the thread pool.
#include "dml/kernels/cpu/float_rows.h"  // first: vectorization and FP settings of this file

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "dml/kernel.h"
#include "dml/kernels/cpu/cpu_isa.h"
#include "dml/kernels/cpu/exp_avx512.h"
#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/half_rows.h"
#include "dml/kernels/cpu/streaming_store.h"
#include "dml/kernels/cpu/tensor_view.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/kernels/cpu/vector_math.h"
#include "dml/ops/elementwise_unary/cpu/unary.h"
#include "dml/ops/elementwise_unary/unary_decode.h"

namespace freedml::dml {
namespace {

using namespace cpu;

constexpr size_t kBlock = 256;                  // floats per block on the FLOAT16 / strided paths
constexpr uint64_t kMinChunk = uint64_t(1) << 14;  // elements per thread-pool chunk at least

// ---- Float functions -----------------------------------------------------------------------------

// What a float function may need besides its argument.
struct FloatParams {
    float scale = 1.0f, bias = 0.0f;
    float a = 0.0f, b = 0.0f;  // CLIP: Min, Max; THRESHOLD: Min; CONSTANT_POW: Exponent
};

// always_inline: the function goes into each row's loop however large it is (ERF's), so that the
// loop vectorizes in the row's instruction set instead of calling a scalar baseline copy.
#define FLOAT_FN(NAME, EXPR)                                                   \
    struct NAME {                                                              \
        explicit NAME(const FloatParams&) {}                                   \
        [[gnu::always_inline]] float operator()(float x) const { return EXPR; } \
    }

FLOAT_FN(FAbs, std::fabs(x));
FLOAT_FN(FExp, vmath::ExpF(x));
FLOAT_FN(FAcos, std::acos(x));
FLOAT_FN(FAsin, std::asin(x));
FLOAT_FN(FAtan, std::atan(x));
FLOAT_FN(FCeil, std::ceil(x));
FLOAT_FN(FCos, std::cos(x));
FLOAT_FN(FFloor, std::floor(x));
FLOAT_FN(FLog, float(vmath::Log(x)));
FLOAT_FN(FRecip, 1.0f / x);
FLOAT_FN(FSin, std::sin(x));
FLOAT_FN(FSqrt, std::sqrt(x));
FLOAT_FN(FTan, std::tan(x));
FLOAT_FN(FErf, vmath::ErfF(x));
FLOAT_FN(FSinh, std::sinh(x));
FLOAT_FN(FCosh, std::cosh(x));
FLOAT_FN(FTanh, vmath::TanhF(x));
FLOAT_FN(FAsinh, std::asinh(x));
FLOAT_FN(FAcosh, std::acosh(x));
FLOAT_FN(FAtanh, std::atanh(x));
FLOAT_FN(FNegate, -x);
// The documented sign: -1 below zero, 1 above, 0 otherwise (zeros of either sign and NaN).
FLOAT_FN(FSign, x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f));
FLOAT_FN(FRoundEven, std::nearbyint(x));
FLOAT_FN(FRoundZero, std::trunc(x));
FLOAT_FN(FRoundAway, std::round(x));
// The forms for FLOAT16 results (vector_math.h): half the work, within FLOAT16's 1 ulp.
FLOAT_FN(FExpH, vmath::ExpH(x));
FLOAT_FN(FTanhH, vmath::TanhH(x));
FLOAT_FN(FErfH, vmath::ErfH(x));
#undef FLOAT_FN

// max(Min, min(x, Max)) as documented (Min wins when Min > Max); NaN stays NaN.
struct FClip {
    float lo, hi;
    explicit FClip(const FloatParams& p) : lo(p.a), hi(p.b) {}
    float operator()(float x) const {
        float t = x > hi ? hi : x;
        return t < lo ? lo : t;
    }
};

// max(x, Min); NaN stays NaN.
struct FThreshold {
    float lo;
    explicit FThreshold(const FloatParams& p) : lo(p.a) {}
    float operator()(float x) const { return x < lo ? lo : x; }
};

// pow, except that a negative base (-inf included) with a non-integral exponent is NaN, as
// documented (C's pow gives +inf for -inf).
struct FPow {
    float exponent;
    bool integral;
    explicit FPow(const FloatParams& p) : exponent(p.a), integral(std::trunc(p.a) == p.a) {}
    float operator()(float x) const {
        return (x < 0.0f && !integral) ? std::numeric_limits<float>::quiet_NaN() : std::pow(x, exponent);
    }
};

using FloatRowFn = void (*)(const float* in, float* out, size_t n, const FloatParams& params);

// `out` may be `in` (in-place execution, and the blocks of the FLOAT16 path).
template <class F, bool kScaleBias>
[[gnu::always_inline]] inline void MapFloats(const float* in, float* out, size_t n, const FloatParams& params) {
    const F f(params);
    const float scale = params.scale, bias = params.bias;
    for (size_t i = 0; i < n; ++i) {
        float x = in[i];
        if constexpr (kScaleBias) {
            x = x * scale;  // two statements: no fused multiply-add in either variant
            x = x + bias;
        }
        out[i] = f(x);
    }
}

template <class F, bool kScaleBias>
void MapFloatsBaseline(const float* in, float* out, size_t n, const FloatParams& params) {
    MapFloats<F, kScaleBias>(in, out, n, params);
}

#ifdef FREEDML_CPU_X86_64
template <class F, bool kScaleBias>
FREEDML_TARGET_AVX2_FMA void MapFloatsAvx2(const float* in, float* out, size_t n, const FloatParams& params) {
    MapFloats<F, kScaleBias>(in, out, n, params);
}

template <class F, bool kScaleBias>
FREEDML_TARGET_AVX512 void MapFloatsAvx512(const float* in, float* out, size_t n, const FloatParams& params) {
    MapFloats<F, kScaleBias>(in, out, n, params);
}
#endif

// Whether a function's row is arithmetic enough to gain from AVX-512's wider lanes (the others
// run at memory speed in AVX2 already).
template <class F>
constexpr bool kTranscendental = std::is_same_v<F, FExp> || std::is_same_v<F, FLog> || std::is_same_v<F, FErf> ||
                                 std::is_same_v<F, FTanh> || std::is_same_v<F, FExpH> ||
                                 std::is_same_v<F, FErfH> || std::is_same_v<F, FTanhH>;

#ifdef FREEDML_CPU_X86_64
template <RowStores kStores>
void ExpRowAvx512Scaled(const float* in, float* out, size_t n, const FloatParams& params) {
    ExpRowAvx512(in, out, n, params.scale, params.bias, kStores);
}

template <RowStores kStores>
void ExpRowAvx512Plain(const float* in, float* out, size_t n, const FloatParams&) {
    ExpRowAvx512(in, out, n, kStores);
}
#endif

template <class F>
FloatRowFn PickFloatRow(bool scaleBias) {
#ifdef FREEDML_CPU_X86_64
    if constexpr (std::is_same_v<F, FExp>) {  // exp_avx512.h: VSCALEFPS builds 2^k in one instruction
        if (UseAvx512())
            return scaleBias ? ExpRowAvx512Scaled<RowStores::kCached> : ExpRowAvx512Plain<RowStores::kCached>;
    }
    if constexpr (kTranscendental<F>) {
        if (UseAvx512()) return scaleBias ? MapFloatsAvx512<F, true> : MapFloatsAvx512<F, false>;
    }
    if (UseAvx2Fma()) return scaleBias ? MapFloatsAvx2<F, true> : MapFloatsAvx2<F, false>;
#endif
    return scaleBias ? MapFloatsBaseline<F, true> : MapFloatsBaseline<F, false>;
}

// The FLOAT32 row that writes its output past the caches itself (exp_avx512.h's RowStores), for an
// output that ShouldStreamOutput; null where there is none (RunRow's tiles then serve).
FloatRowFn PastCachesRowFor(UnaryFloatOp op, bool scaleBias, bool half) {
#ifdef FREEDML_CPU_X86_64
    if (op == UnaryFloatOp::Exp && !half && UseAvx512()) {
        return scaleBias ? ExpRowAvx512Scaled<RowStores::kPastCaches> : ExpRowAvx512Plain<RowStores::kPastCaches>;
    }
#endif
    (void)op, (void)scaleBias, (void)half;
    return nullptr;
}

// Packed FLOAT16 rows with the conversions inside the loop (half_rows.h), where the CPU has them;
// null otherwise (the FLOAT16 blocks of RunFloat then serve).
using HalfRowFn = void (*)(const uint16_t* in, uint16_t* out, size_t n, const FloatParams& params);

#ifdef FREEDML_CPU_X86_64
template <class F, bool kScaleBias>
FREEDML_TARGET_AVX512 void MapHalvesAvx512Row(const uint16_t* in, uint16_t* out, size_t n, const FloatParams& params) {
    MapHalvesAvx512(in, out, n, [&](float* v, size_t m) { MapFloats<F, kScaleBias>(v, v, m, params); });
}

template <class F, bool kScaleBias>
FREEDML_TARGET_AVX2_FMA_F16C void MapHalvesAvx2Row(const uint16_t* in, uint16_t* out, size_t n,
                                                   const FloatParams& params) {
    MapHalvesAvx2(in, out, n, [&](float* v, size_t m) { MapFloats<F, kScaleBias>(v, v, m, params); });
}
#endif

template <class F>
HalfRowFn PickHalfRow(bool scaleBias) {
#ifdef FREEDML_CPU_X86_64
    if (HasF16c() && UseAvx512()) return scaleBias ? MapHalvesAvx512Row<F, true> : MapHalvesAvx512Row<F, false>;
    if (HasF16c() && UseAvx2Fma()) return scaleBias ? MapHalvesAvx2Row<F, true> : MapHalvesAvx2Row<F, false>;
#endif
    (void)scaleBias;
    return nullptr;
}

// The fused FLOAT16 rows of the transcendental functions, whose FLOAT16 figures the block path's
// extra passes held back (issue 22); the others keep the blocks.
HalfRowFn HalfRowFor(UnaryFloatOp op, bool scaleBias) {
    using Op = UnaryFloatOp;
    switch (op) {
        case Op::Exp:
            return PickHalfRow<FExpH>(scaleBias);
        case Op::Tanh:
            return PickHalfRow<FTanhH>(scaleBias);
        case Op::Erf:
            return PickHalfRow<FErfH>(scaleBias);
        case Op::Log:
            return PickHalfRow<FLog>(scaleBias);
        default:
            return nullptr;
    }
}

// `half`: the results are rounded to FLOAT16, which the cheaper forms of EXP, TANH and ERF serve.
FloatRowFn FloatRowFor(UnaryFloatOp op, bool scaleBias, bool half) {
    using Op = UnaryFloatOp;
    if (half) {
        switch (op) {
            case Op::Exp: return PickFloatRow<FExpH>(scaleBias);
            case Op::Tanh: return PickFloatRow<FTanhH>(scaleBias);
            case Op::Erf: return PickFloatRow<FErfH>(scaleBias);
            default: break;
        }
    }
    switch (op) {
        case Op::Abs: return PickFloatRow<FAbs>(scaleBias);
        case Op::Acos: return PickFloatRow<FAcos>(scaleBias);
        case Op::Asin: return PickFloatRow<FAsin>(scaleBias);
        case Op::Atan: return PickFloatRow<FAtan>(scaleBias);
        case Op::Ceil: return PickFloatRow<FCeil>(scaleBias);
        case Op::Clip: return PickFloatRow<FClip>(scaleBias);
        case Op::Cos: return PickFloatRow<FCos>(scaleBias);
        case Op::Exp: return PickFloatRow<FExp>(scaleBias);
        case Op::Floor: return PickFloatRow<FFloor>(scaleBias);
        case Op::Log: return PickFloatRow<FLog>(scaleBias);
        case Op::Pow: return PickFloatRow<FPow>(scaleBias);
        case Op::Recip: return PickFloatRow<FRecip>(scaleBias);
        case Op::Sin: return PickFloatRow<FSin>(scaleBias);
        case Op::Sqrt: return PickFloatRow<FSqrt>(scaleBias);
        case Op::Tan: return PickFloatRow<FTan>(scaleBias);
        case Op::Threshold: return PickFloatRow<FThreshold>(scaleBias);
        case Op::Sign: return PickFloatRow<FSign>(false);
        case Op::Erf: return PickFloatRow<FErf>(scaleBias);
        case Op::Sinh: return PickFloatRow<FSinh>(scaleBias);
        case Op::Cosh: return PickFloatRow<FCosh>(scaleBias);
        case Op::Tanh: return PickFloatRow<FTanh>(scaleBias);
        case Op::Asinh: return PickFloatRow<FAsinh>(scaleBias);
        case Op::Acosh: return PickFloatRow<FAcosh>(scaleBias);
        case Op::Atanh: return PickFloatRow<FAtanh>(scaleBias);
        case Op::Negate: return PickFloatRow<FNegate>(false);
        case Op::RoundZero: return PickFloatRow<FRoundZero>(false);
        case Op::RoundAway: return PickFloatRow<FRoundAway>(false);
        case Op::RoundEven: return PickFloatRow<FRoundEven>(false);
    }
    return nullptr;
}

// ---- Typed rows ------------------------------------------------------------------------------------

// out[i] = f(in[i]) over one row of element types TIn -> TOut; the packed branch vectorizes.
template <class TIn, class TOut, class F>
void MapRow(const Ptrs2& p, uint64_t n, const Strides2& s, F f) {
    if (s[0] == int64_t(sizeof(TOut)) && s[1] == int64_t(sizeof(TIn))) {
        auto* out = reinterpret_cast<TOut*>(p[0]);
        const auto* in = reinterpret_cast<const TIn*>(p[1]);
        for (uint64_t i = 0; i < n; ++i) out[i] = f(in[i]);
        return;
    }
    for (uint64_t i = 0; i < n; ++i) {
        StoreAt<TOut>(p[0] + int64_t(i) * s[0], f(LoadAt<TIn>(p[1] + int64_t(i) * s[1])));
    }
}

// The unsigned integer of an element's width (the bit operators ignore the data type).
template <uint32_t kBytes>
using Bits = std::conditional_t<kBytes == 1, uint8_t,
                                std::conditional_t<kBytes == 2, uint16_t, std::conditional_t<kBytes == 4, uint32_t, uint64_t>>>;

template <class Visit>
void WithWidth(uint32_t bytes, Visit&& visit) {
    switch (bytes) {
        case 1: return visit(Bits<1>{});
        case 2: return visit(Bits<2>{});
        case 4: return visit(Bits<4>{});
        default: return visit(Bits<8>{});
    }
}

// Calls visit(T{}) for an integer data type.
template <class Visit>
void WithIntegerType(DML_TENSOR_DATA_TYPE type, Visit&& visit) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_UINT8: return visit(uint8_t{});
        case DML_TENSOR_DATA_TYPE_INT8: return visit(int8_t{});
        case DML_TENSOR_DATA_TYPE_UINT16: return visit(uint16_t{});
        case DML_TENSOR_DATA_TYPE_INT16: return visit(int16_t{});
        case DML_TENSOR_DATA_TYPE_UINT32: return visit(uint32_t{});
        case DML_TENSOR_DATA_TYPE_INT32: return visit(int32_t{});
        case DML_TENSOR_DATA_TYPE_UINT64: return visit(uint64_t{});
        case DML_TENSOR_DATA_TYPE_INT64: return visit(int64_t{});
        default: return;
    }
}

// A bound given as FLOAT (CLIP, THRESHOLD, CLIP_GRAD) in the tensor's type: integers truncate
// toward zero (saturating), FLOAT16 rounds to nearest even, as CLIP's page says.
template <class T>
T BoundFromFloat(float value) {
    return SaturatingTruncate<T>(value);
}

float HalfRounded(float value) { return HalfToFloat(FloatToHalf(value)); }

// A DML_SCALAR_UNION of `type` (= the tensor's) as a float, for the float paths.
float ScalarAsFloat(DML_TENSOR_DATA_TYPE type, const DML_SCALAR_UNION& value) {
    return type == DML_TENSOR_DATA_TYPE_FLOAT16 ? HalfToFloat(value.UInt16) : value.Float32;
}

// ---- The kernel --------------------------------------------------------------------------------------

class UnaryKernel final : public Kernel {
public:
    Status Create(const OperatorArgs& args);
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& bindings) override;

private:
    void RunFloat(ThreadPool* threads, const Ptrs2& bases) const;
    void RunInteger(ThreadPool* threads, const Ptrs2& bases) const;
    void RunClipGrad(ThreadPool* threads, const std::array<std::byte*, 3>& bases) const;
    void RunFill(ThreadPool* threads, std::byte* output) const;

    DML_OPERATOR_TYPE type_ = DML_OPERATOR_INVALID;
    bool hasIntegerOp_ = false;  // an integer function of one tensor (integerOp_)
    UnaryIntegerOp integerOp_ = UnaryIntegerOp::Abs;
    DML_TENSOR_DATA_TYPE inType_ = DML_TENSOR_DATA_TYPE_UNKNOWN, outType_ = DML_TENSOR_DATA_TYPE_UNKNOWN;
    std::vector<TensorDesc> inputs_;
    TensorDesc output_;
    LoopPlan<2> plan2_;  // output, input
    LoopPlan<3> plan3_;  // output, input, gradient (CLIP_GRAD)
    LoopPlan<1> plan1_;  // output (FILL)
    FloatParams floatParams_;
    FloatRowFn floatRow_ = nullptr;
    FloatRowFn pastCachesRow_ = nullptr;  // floatRow_'s values written past the caches, where there is one
    HalfRowFn halfRow_ = nullptr;         // packed FLOAT16 to FLOAT16, where the CPU has the conversions
    uint32_t mode_ = 0;                   // ROUND's or IS_INFINITY's
    DML_SCALAR_UNION lo_{}, hi_{};        // bounds in the tensor's type (integer CLIP, THRESHOLD, CLIP_GRAD)
    DML_SCALAR_UNION start_{}, delta_{};  // FILL_VALUE_*
};

template <class T>
DML_SCALAR_UNION ScalarOf(T value) {
    DML_SCALAR_UNION scalar{};
    std::memcpy(scalar.Bytes, &value, sizeof(T));
    return scalar;
}

template <class T>
T ScalarAs(const DML_SCALAR_UNION& scalar) {
    T value;
    std::memcpy(&value, scalar.Bytes, sizeof(T));
    return value;
}

Status UnaryKernel::Create(const OperatorArgs& args) {
    type_ = args.schema.type;
    output_ = *args.outputs[0];
    outType_ = output_.dataType;
    for (const auto& input : args.inputs) inputs_.push_back(*input);
    inType_ = inputs_.empty() ? outType_ : inputs_[0].dataType;

    // Bounds and parameters, converted once to what the loops compare with.
    const bool floatOut = IsFloat16Or32(outType_);
    auto setFloatBounds = [&](float lo, float hi) {
        const bool half = outType_ == DML_TENSOR_DATA_TYPE_FLOAT16;
        floatParams_.a = half ? HalfRounded(lo) : lo;
        floatParams_.b = half ? HalfRounded(hi) : hi;
    };
    auto setIntegerBounds = [&](float lo, float hi) {
        WithIntegerType(outType_, [&](auto tag) {
            using T = decltype(tag);
            lo_ = ScalarOf(BoundFromFloat<T>(lo));
            hi_ = ScalarOf(BoundFromFloat<T>(hi));
        });
    };
    const DML_SCALE_BIAS* scaleBias = nullptr;
    for (const auto& field : args.schema.fields) {
        if (field.kind == FieldKind::ScaleBias) scaleBias = FieldAt<const DML_SCALE_BIAS*>(args.desc, field.offset);
    }
    if (scaleBias) {
        floatParams_.scale = scaleBias->Scale;
        floatParams_.bias = scaleBias->Bias;
    }
    switch (type_) {
        case DML_OPERATOR_ELEMENT_WISE_CLIP: {
            const auto& desc = args.As<DML_ELEMENT_WISE_CLIP_OPERATOR_DESC>();
            floatOut ? setFloatBounds(desc.Min, desc.Max) : setIntegerBounds(desc.Min, desc.Max);
            break;
        }
        case DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD: {
            const auto& desc = args.As<DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC>();
            floatOut ? setFloatBounds(desc.Min, desc.Max) : setIntegerBounds(desc.Min, desc.Max);
            break;
        }
        case DML_OPERATOR_ELEMENT_WISE_THRESHOLD: {
            const auto& desc = args.As<DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC>();
            floatOut ? setFloatBounds(desc.Min, 0.0f) : setIntegerBounds(desc.Min, 0.0f);
            break;
        }
        case DML_OPERATOR_ELEMENT_WISE_CLIP1: {
            const auto& desc = args.As<DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC>();
            lo_ = desc.Min;
            hi_ = desc.Max;
            floatParams_.a = ScalarAsFloat(outType_, desc.Min);
            floatParams_.b = ScalarAsFloat(outType_, desc.Max);
            break;
        }
        case DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD1: {
            const auto& desc = args.As<DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC>();
            lo_ = desc.Min;
            hi_ = desc.Max;
            floatParams_.a = ScalarAsFloat(outType_, desc.Min);
            floatParams_.b = ScalarAsFloat(outType_, desc.Max);
            break;
        }
        case DML_OPERATOR_ELEMENT_WISE_CONSTANT_POW:
            floatParams_.a = args.As<DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC>().Exponent;
            break;
        case DML_OPERATOR_ELEMENT_WISE_ROUND:
            mode_ = args.As<DML_ELEMENT_WISE_ROUND_OPERATOR_DESC>().RoundingMode;
            break;
        case DML_OPERATOR_ELEMENT_WISE_IS_INFINITY:
            mode_ = args.As<DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC>().InfinityMode;
            break;
        case DML_OPERATOR_FILL_VALUE_CONSTANT:
            start_ = args.As<DML_FILL_VALUE_CONSTANT_OPERATOR_DESC>().Value;
            break;
        case DML_OPERATOR_FILL_VALUE_SEQUENCE: {
            const auto& desc = args.As<DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC>();
            start_ = desc.ValueStart;
            delta_ = desc.ValueDelta;
            break;
        }
        default:
            break;
    }
    if (floatOut && type_ != DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD && type_ != DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD1) {
        UnaryFloatOp op;
        if (UnaryFloatOpOf(type_, mode_, &op)) {
            floatRow_ = FloatRowFor(op, scaleBias != nullptr, outType_ == DML_TENSOR_DATA_TYPE_FLOAT16);
            pastCachesRow_ = PastCachesRowFor(op, scaleBias != nullptr, outType_ == DML_TENSOR_DATA_TYPE_FLOAT16);
            if (outType_ == DML_TENSOR_DATA_TYPE_FLOAT16) halfRow_ = HalfRowFor(op, scaleBias != nullptr);
        }
    }
    hasIntegerOp_ = UnaryIntegerOpOf(type_, &integerOp_);

    // Loops over the output's shape; inputs have the same sizes (validated), broadcasting
    // through their own zero strides.
    const uint32_t outSize = ElementSizeInBytes(outType_);
    if (inputs_.empty()) {
        plan1_ = MakeLoopPlan<1>(output_.sizes.data(), output_.rank, {output_.strides.data()}, {outSize});
    } else if (inputs_.size() == 2) {
        plan3_ = MakeLoopPlan<3>(output_.sizes.data(), output_.rank,
                                 {output_.strides.data(), inputs_[0].strides.data(), inputs_[1].strides.data()},
                                 {outSize, outSize, outSize});
    } else {
        plan2_ = MakeLoopPlan<2>(output_.sizes.data(), output_.rank,
                                 {output_.strides.data(), inputs_[0].strides.data()},
                                 {outSize, ElementSizeInBytes(inType_)});
    }
    return {};
}

void UnaryKernel::Execute(const KernelBindings& bindings) {
    std::byte* output = bindings.outputs[0];
    ThreadPool* threads = HostThreads(bindings);
    if (inputs_.empty()) return RunFill(threads, output);
    // An input that is the output's memory read through other strides arrives as a snapshot
    // (the CPU kernel set's in-place snapshot, kernels/cpu/cpu_kernel.cpp).
    const std::vector<std::byte*>& inputs = bindings.inputs;
    if (inputs_.size() == 2) return RunClipGrad(threads, {output, inputs[0], inputs[1]});
    if (floatRow_) return RunFloat(threads, {output, inputs[0]});
    RunInteger(threads, {output, inputs[0]});
}

void UnaryKernel::RunFloat(ThreadPool* threads, const Ptrs2& bases) const {
    const DML_TENSOR_DATA_TYPE type = outType_;
    const FloatRowFn row = floatRow_;
    const FloatRowFn pastCachesRow = pastCachesRow_;
    const HalfRowFn halfRow = halfRow_;
    const FloatParams& params = floatParams_;
    const bool stream = ShouldStreamOutput(plan2_.OuterCount() * plan2_.InnerCount() * ElementSizeInBytes(type));
    ParallelLoop(
        threads, plan2_, bases,
        [&](const Ptrs2& p, uint64_t n, const Strides2& s) {
            if (type == DML_TENSOR_DATA_TYPE_FLOAT32 && s[0] == 4 && s[1] == 4) {
                if (stream && pastCachesRow) {
                    return pastCachesRow(reinterpret_cast<const float*>(p[1]), reinterpret_cast<float*>(p[0]), n,
                                         params);
                }
                return RunRow(stream, reinterpret_cast<const float*>(p[1]), reinterpret_cast<float*>(p[0]), n,
                              [&](const float* i, float* o, size_t m) { row(i, o, m, params); });
            }
            if (halfRow && s[0] == 2 && s[1] == 2) {  // halfRow_: FLOAT16 only
                return RunRow(stream, reinterpret_cast<const uint16_t*>(p[1]), reinterpret_cast<uint16_t*>(p[0]), n,
                              [&](const uint16_t* i, uint16_t* o, size_t m) { halfRow(i, o, m, params); });
            }
            float block[kBlock];
            for (uint64_t i = 0; i < n; i += kBlock) {
                const size_t m = size_t(std::min<uint64_t>(kBlock, n - i));
                LoadFloats(type, p[1] + int64_t(i) * s[1], s[1], block, m);
                row(block, block, m, params);
                StoreFloats(type, block, p[0] + int64_t(i) * s[0], s[0], m);
            }
        },
        kMinChunk);
}

void UnaryKernel::RunInteger(ThreadPool* threads, const Ptrs2& bases) const {
    auto run = [&](auto inner) { ParallelLoop(threads, plan2_, bases, inner, kMinChunk); };
    switch (type_) {
        case DML_OPERATOR_ELEMENT_WISE_BIT_NOT:
            return WithWidth(ElementSizeInBytes(outType_), [&](auto tag) {
                using U = decltype(tag);
                run([](const Ptrs2& p, uint64_t n, const Strides2& s) {
                    MapRow<U, U>(p, n, s, [](U x) { return U(~x); });
                });
            });
        case DML_OPERATOR_ELEMENT_WISE_BIT_COUNT:
            return WithWidth(ElementSizeInBytes(inType_), [&](auto tag) {
                using U = decltype(tag);
                if (outType_ == DML_TENSOR_DATA_TYPE_UINT8) {
                    run([](const Ptrs2& p, uint64_t n, const Strides2& s) {
                        MapRow<U, uint8_t>(p, n, s, [](U x) { return uint8_t(std::popcount(x)); });
                    });
                } else {
                    run([](const Ptrs2& p, uint64_t n, const Strides2& s) {
                        MapRow<U, uint32_t>(p, n, s, [](U x) { return uint32_t(std::popcount(x)); });
                    });
                }
            });
        case DML_OPERATOR_ELEMENT_WISE_IS_NAN:
        case DML_OPERATOR_ELEMENT_WISE_IS_INFINITY: {
            // On the bits: magnitude above the infinity pattern is NaN, equal to it is infinity.
            const bool half = inType_ == DML_TENSOR_DATA_TYPE_FLOAT16;
            const bool nan = type_ == DML_OPERATOR_ELEMENT_WISE_IS_NAN;
            const uint32_t mode = mode_;
            auto test = [&](auto inTag, auto outTag) {
                using U = decltype(inTag);
                using O = decltype(outTag);
                constexpr U kSign = U(U(1) << (sizeof(U) * 8 - 1));
                constexpr U kInfinity = sizeof(U) == 2 ? U(0x7C00) : U(0x7F800000u);
                const bool wantPositive = mode != DML_IS_INFINITY_MODE_NEGATIVE;
                const bool wantNegative = mode != DML_IS_INFINITY_MODE_POSITIVE;
                if (nan) {
                    run([](const Ptrs2& p, uint64_t n, const Strides2& s) {
                        MapRow<U, O>(p, n, s, [](U x) { return O(U(x & U(~kSign)) > kInfinity); });
                    });
                } else {
                    run([=](const Ptrs2& p, uint64_t n, const Strides2& s) {
                        MapRow<U, O>(p, n, s, [=](U x) {
                            const bool infinite = U(x & U(~kSign)) == kInfinity;
                            const bool negative = (x & kSign) != 0;
                            return O(infinite && (negative ? wantNegative : wantPositive));
                        });
                    });
                }
            };
            const bool out8 = outType_ == DML_TENSOR_DATA_TYPE_UINT8;
            if (half) return out8 ? test(uint16_t{}, uint8_t{}) : test(uint16_t{}, uint32_t{});
            return out8 ? test(uint32_t{}, uint8_t{}) : test(uint32_t{}, uint32_t{});
        }
        case DML_OPERATOR_CAST: {
            const DML_TENSOR_DATA_TYPE in = inType_, out = outType_;
            return run([=](const Ptrs2& p, uint64_t n, const Strides2& s) { CastRow(in, out, p[1], s[1], p[0], s[0], n); });
        }
        default:
            break;
    }
    // Integer arithmetic, wrapping where C++ would overflow.
    if (!hasIntegerOp_) return;
    WithIntegerType(outType_, [&](auto tag) {
        using T = decltype(tag);
        using U = std::make_unsigned_t<T>;
        const T lo = ScalarAs<T>(lo_), hi = ScalarAs<T>(hi_);
        auto map = [&](auto f) {
            run([=](const Ptrs2& p, uint64_t n, const Strides2& s) { MapRow<T, T>(p, n, s, f); });
        };
        switch (integerOp_) {
            case UnaryIntegerOp::Abs:
                return map([](T x) { return x < T(0) ? T(U(0) - U(x)) : x; });
            case UnaryIntegerOp::Negate:
                return map([](T x) { return T(U(0) - U(x)); });
            case UnaryIntegerOp::Sign:
                return map([](T x) { return T(T(x > T(0)) - T(x < T(0))); });
            case UnaryIntegerOp::Clip:
                return map([=](T x) {
                    T t = x > hi ? hi : x;
                    return t < lo ? lo : t;
                });
            case UnaryIntegerOp::Threshold:
                return map([=](T x) { return x < lo ? lo : x; });
            case UnaryIntegerOp::LogicalNot:
                return map([](T x) { return T(x == T(0)); });
        }
    });
}

// Gradient where lo < x < hi, else 0 (a NaN x passes its gradient, as the formula reads).
void UnaryKernel::RunClipGrad(ThreadPool* threads, const std::array<std::byte*, 3>& bases) const {
    using Ptrs3 = std::array<std::byte*, 3>;
    using Strides3 = std::array<int64_t, 3>;
    const DML_TENSOR_DATA_TYPE type = outType_;
    if (IsFloat16Or32(type)) {
        const float lo = floatParams_.a, hi = floatParams_.b;
        ParallelLoop(
            threads, plan3_, bases,
            [=](const Ptrs3& p, uint64_t n, const Strides3& s) {
                float x[kBlock], g[kBlock];
                for (uint64_t i = 0; i < n; i += kBlock) {
                    const size_t m = size_t(std::min<uint64_t>(kBlock, n - i));
                    LoadFloats(type, p[1] + int64_t(i) * s[1], s[1], x, m);
                    LoadFloats(type, p[2] + int64_t(i) * s[2], s[2], g, m);
                    for (size_t j = 0; j < m; ++j) g[j] = (x[j] <= lo || x[j] >= hi) ? 0.0f : g[j];
                    StoreFloats(type, g, p[0] + int64_t(i) * s[0], s[0], m);
                }
            },
            kMinChunk);
        return;
    }
    WithIntegerType(type, [&](auto tag) {
        using T = decltype(tag);
        const T lo = ScalarAs<T>(lo_), hi = ScalarAs<T>(hi_);
        ParallelLoop(
            threads, plan3_, bases,
            [=](const Ptrs3& p, uint64_t n, const Strides3& s) {
                for (uint64_t i = 0; i < n; ++i) {
                    const T x = LoadAt<T>(p[1] + int64_t(i) * s[1]);
                    const T g = LoadAt<T>(p[2] + int64_t(i) * s[2]);
                    StoreAt<T>(p[0] + int64_t(i) * s[0], (x <= lo || x >= hi) ? T(0) : g);
                }
            },
            kMinChunk);
    });
}

void UnaryKernel::RunFill(ThreadPool* threads, std::byte* output) const {
    const uint64_t count = plan1_.InnerCount();
    const int64_t stride = plan1_.InnerStride(0);
    if (type_ == DML_OPERATOR_FILL_VALUE_CONSTANT) {
        // The value's bytes, repeated: every type is its bit pattern here.
        return WithWidth(ElementSizeInBytes(outType_), [&](auto tag) {
            using U = decltype(tag);
            const U value = ScalarAs<U>(start_);
            ParallelLoop(
                threads, plan1_, {output},
                [=](const std::array<std::byte*, 1>& p, uint64_t n, const std::array<int64_t, 1>& s) {
                    if (s[0] == int64_t(sizeof(U))) {
                        auto* out = reinterpret_cast<U*>(p[0]);
                        for (uint64_t i = 0; i < n; ++i) out[i] = value;
                        return;
                    }
                    for (uint64_t i = 0; i < n; ++i) StoreAt<U>(p[0] + int64_t(i) * s[0], value);
                },
                kMinChunk);
        });
    }
    // A sequence needs each row's first logical index: rows run in order, so it is row * count.
    const DML_TENSOR_DATA_TYPE type = outType_;
    const DML_SCALAR_UNION start = start_, delta = delta_;
    if (plan1_.rank <= 1) {
        ParallelFor(threads, count, kMinChunk, [&](uint64_t begin, uint64_t end) {
            FillSequenceRow(type, start, delta, begin, output + int64_t(begin) * stride, stride, end - begin);
        });
        return;
    }
    const uint64_t rows = plan1_.OuterCount();
    ParallelFor(threads, rows, std::max<uint64_t>(1, kMinChunk / count), [&](uint64_t begin, uint64_t end) {
        uint64_t index = begin * count;
        RunLoopRows(plan1_, {output}, begin, end,
                    [&](const std::array<std::byte*, 1>& p, uint64_t n, const std::array<int64_t, 1>& s) {
                        FillSequenceRow(type, start, delta, index, p[0], s[0], n);
                        index += n;
                    });
    });
}

}  // namespace

namespace cpu {

Status CreateCpuUnary(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    auto unary = std::make_unique<UnaryKernel>();
    FREEDML_TRY(unary->Create(args));
    *kernel = std::move(unary);
    return {};
}

}  // namespace cpu

}  // namespace freedml::dml
