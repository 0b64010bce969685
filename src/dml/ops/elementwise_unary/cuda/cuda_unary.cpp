// CUDA kernels of the unary element-wise family (this folder's schema.cpp): the math functions
// of one tensor, CLIP/CLIP1 and their gradients, THRESHOLD, CONSTANT_POW, ROUND, SIGN, NEGATE,
// the NaN and infinity tests, the bit and logical NOTs, BIT_COUNT, CAST and FILL_VALUE_*.
// Planned here (bounds and parameters converted once, as the CPU kernel converts them) into the
// launches of unary_ops.h; the device code is in unary_ops.cu and unary_cast.cu.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cuda/cuda_common.h"
#include "dml/ops/elementwise_unary/unary_decode.h"
#include "dml/kernels/integer_math.h"
#include "dml/ops/elementwise_unary/cuda/unary_ops.h"
#include "dml/schema/families.h"

namespace freedml::dml::cuda {

namespace {

enum class Route : uint8_t { Float, Integer, BitNot, BitCount, FloatClass, Cast, ClipGrad, FillConstant, FillSequence };

// Everything a launch needs, fixed when the operator is compiled.
struct UnaryPlan {
    const char* name = "";  // for failure reports: "ELEMENT_WISE_EXP"
    Route route = Route::Float;
    ElementType inType = ElementType::F32, outType = ElementType::F32;
    size_t inputCount = 0;
    EwPlan<1> fill;    // the output (FILL_VALUE_*)
    EwPlan<2> map;     // output, input
    EwPlan<3> grad;    // output gradient, input, input gradient (CLIP_GRAD)
    // Per input: true when it walks the output's own offsets, so it may be the output's memory
    // (in place): every element is read by the thread that then writes it.
    bool readsLikeOutput[2] = {true, true};
    uint64_t inputBytes[2] = {};
    UnaryFloatOp floatOp = UnaryFloatOp::Abs;
    UnaryFloatParams floatParams;
    UnaryIntegerOp integerOp = UnaryIntegerOp::Abs;
    uint64_t loBits = 0, hiBits = 0;
    FloatClassTest classTest = FloatClassTest::Nan;
    ClipGradBounds clipGrad;
    uint64_t fillBits = 0;
    FillSequenceParams sequence;
};

class UnaryFamilyKernel final : public Kernel {
public:
    explicit UnaryFamilyKernel(const UnaryPlan& plan) : plan_(plan) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override;

private:
    cudaError_t Launch(void* out, const void* const* inputs, LaunchTarget launch) const;

    UnaryPlan plan_;
};

void UnaryFamilyKernel::Execute(const KernelBindings& b) {
    CudaStream& cudaStream = StreamOf(b);
    const cudaStream_t stream = cudaStream.Get();
    const void* inputs[2] = {};
    void* snapshots[2] = {};
    bool ready = true;
    // An input bound in place but read through other strides (a broadcast, a transposition) would
    // race with the writes: it is read from a stream-ordered snapshot instead, as the CPU does.
    for (size_t i = 0; i < plan_.inputCount && ready; ++i) {
        inputs[i] = b.inputs[i];
        if (b.inputs[i] != b.outputs[0] || plan_.readsLikeOutput[i]) continue;
        cudaError_t error = cudaMallocAsync(&snapshots[i], plan_.inputBytes[i], stream);
        if (error == cudaSuccess) {
            error = cudaMemcpyAsync(snapshots[i], b.inputs[i], plan_.inputBytes[i], cudaMemcpyDeviceToDevice, stream);
        }
        cudaStream.Check(error, plan_.name);
        ready = error == cudaSuccess;
        inputs[i] = snapshots[i];
    }
    if (ready) cudaStream.Check(Launch(b.outputs[0], inputs, cudaStream.Launch()), plan_.name);
    for (void* snapshot : snapshots) {
        if (snapshot) cudaFreeAsync(snapshot, stream);
    }
}

cudaError_t UnaryFamilyKernel::Launch(void* out, const void* const* in, LaunchTarget launch) const {
    const UnaryPlan& p = plan_;
    switch (p.route) {
        case Route::Float: return LaunchUnaryFloat(p.map, p.outType, p.floatOp, p.floatParams, out, in[0], launch);
        case Route::Integer:
            return LaunchUnaryInteger(p.map, p.outType, p.integerOp, p.loBits, p.hiBits, out, in[0], launch);
        case Route::BitNot: return LaunchBitNot(p.map, ElementBytes(p.outType), out, in[0], launch);
        case Route::BitCount: return LaunchBitCount(p.map, ElementBytes(p.inType), p.outType, out, in[0], launch);
        case Route::FloatClass:
            return LaunchFloatClassTest(p.map, p.inType, p.outType, p.classTest, out, in[0], launch);
        case Route::Cast: return LaunchCast(p.map, p.inType, p.outType, out, in[0], launch);
        case Route::ClipGrad: return LaunchClipGrad(p.grad, p.outType, p.clipGrad, out, in[0], in[1], launch);
        case Route::FillConstant: return LaunchFillConstant(p.fill, ElementBytes(p.outType), p.fillBits, out, launch);
        case Route::FillSequence: return LaunchFillSequence(p.fill, p.outType, p.sequence, out, launch);
    }
    return cudaErrorInvalidValue;
}

// ---- Planning ------------------------------------------------------------------------------------

bool IsInteger(ElementType type) { return type != ElementType::F32 && type != ElementType::F16 && type != ElementType::F64; }

template <class T>
uint64_t BitsOf(T value) {
    uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    return bits;
}

uint64_t BitsOf(const DML_SCALAR_UNION& value) {
    uint64_t bits = 0;
    std::memcpy(&bits, value.Bytes, sizeof(bits));
    return bits;
}

// Calls visit(T{}) for an integer element type.
template <class Visit>
void WithIntegerType(ElementType type, Visit&& visit) {
    switch (type) {
        case ElementType::I8: return visit(int8_t{});
        case ElementType::U8: return visit(uint8_t{});
        case ElementType::I16: return visit(int16_t{});
        case ElementType::U16: return visit(uint16_t{});
        case ElementType::I32: return visit(int32_t{});
        case ElementType::U32: return visit(uint32_t{});
        case ElementType::I64: return visit(int64_t{});
        case ElementType::U64: return visit(uint64_t{});
        default: return;
    }
}

// A FLOAT bound (CLIP, THRESHOLD, CLIP_GRAD) in an integer type: truncated toward zero and
// saturated (NaN gives 0), as CLIP's page says; returned as the type's bytes.
uint64_t IntegerBound(ElementType type, float value) {
    uint64_t bits = 0;
    WithIntegerType(type, [&](auto tag) {
        using T = decltype(tag);
        const T bound = SaturatingTruncate<T>(double(value));
        bits = BitsOf(bound);
    });
    return bits;
}

// A FLOAT bound in a floating-point type: FLOAT16 rounds it to nearest even first.
float FloatBound(ElementType type, float value) {
    return type == ElementType::F16 ? cpu::HalfToFloat(cpu::FloatToHalf(value)) : value;
}

// A DML_SCALAR_UNION of the tensor's (floating-point) type as a float.
float ScalarAsFloat(ElementType type, const DML_SCALAR_UNION& value) {
    return type == ElementType::F16 ? cpu::HalfToFloat(value.UInt16) : value.Float32;
}

// An integer DML_SCALAR_UNION of `type`, sign- or zero-extended to 64 bits.
uint64_t ExtendedInteger(ElementType type, const DML_SCALAR_UNION& value) {
    uint64_t bits = 0;
    WithIntegerType(type, [&](auto tag) {
        using T = decltype(tag);
        T typed;
        std::memcpy(&typed, value.Bytes, sizeof(T));
        bits = uint64_t(typed);
    });
    return bits;
}

Status Unsupported(const OperatorArgs& args, const char* why) {
    const TensorDesc& output = *args.outputs[0];
    const TensorDesc* input = args.inputs.empty() ? nullptr : &*args.inputs[0];
    return NoKernel("DML_OPERATOR_%s does not run on CUDA with %s %s%s%s: %s.", args.schema.name,
                 args.outputNames[0].c_str(), DataTypeName(output.dataType), input ? " from " : "",
                 input ? DataTypeName(input->dataType) : "", why);
}

// The math of one tensor (same type in and out), its bounds and parameters.
Status PlanMath(const OperatorArgs& args, UnaryPlan* p) {
    const DML_OPERATOR_TYPE type = args.schema.type;
    const DML_SCALE_BIAS* scaleBias = nullptr;
    for (const auto& field : args.schema.fields) {
        if (field.kind == FieldKind::ScaleBias) scaleBias = FieldAt<const DML_SCALE_BIAS*>(args.desc, field.offset);
    }
    INVALID_IF(p->inType != p->outType, "DML_OPERATOR_%s needs equal input and output data types (%s, %s).",
               args.schema.name, DataTypeName(args.inputs[0]->dataType), DataTypeName(args.outputs[0]->dataType));
    if (IsFloat16Or32(p->outType)) {
        if (!UnaryFloatOpOf(type, RoundingModeOf(type, args.desc), &p->floatOp)) return Unsupported(args, "it is an integer operator");
        p->route = Route::Float;
        UnaryFloatParams& f = p->floatParams;
        if (scaleBias) {
            f.scaleBias = true;
            f.scale = scaleBias->Scale;
            f.bias = scaleBias->Bias;
        }
        switch (type) {
            case DML_OPERATOR_ELEMENT_WISE_CLIP: {
                const auto& desc = args.As<DML_ELEMENT_WISE_CLIP_OPERATOR_DESC>();
                f.lo = FloatBound(p->outType, desc.Min);
                f.hi = FloatBound(p->outType, desc.Max);
                break;
            }
            case DML_OPERATOR_ELEMENT_WISE_CLIP1: {
                const auto& desc = args.As<DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC>();
                f.lo = ScalarAsFloat(p->outType, desc.Min);
                f.hi = ScalarAsFloat(p->outType, desc.Max);
                break;
            }
            case DML_OPERATOR_ELEMENT_WISE_THRESHOLD:
                f.lo = FloatBound(p->outType, args.As<DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC>().Min);
                break;
            case DML_OPERATOR_ELEMENT_WISE_CONSTANT_POW:
                f.exponent = args.As<DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC>().Exponent;
                f.integralExponent = std::trunc(f.exponent) == f.exponent;
                break;
            default:
                break;
        }
        return {};
    }
    if (!IsInteger(p->outType)) return Unsupported(args, "FreeDML computes it in float for FLOAT32 and FLOAT16 only");
    if (!UnaryIntegerOpOf(type, &p->integerOp)) return Unsupported(args, "it is a floating-point operator");
    INVALID_IF(scaleBias != nullptr, "DML_OPERATOR_%s applies a ScaleBias only to floating-point tensors (%s given).",
               args.schema.name, DataTypeName(args.outputs[0]->dataType));
    p->route = Route::Integer;
    switch (type) {
        case DML_OPERATOR_ELEMENT_WISE_CLIP: {
            const auto& desc = args.As<DML_ELEMENT_WISE_CLIP_OPERATOR_DESC>();
            p->loBits = IntegerBound(p->outType, desc.Min);
            p->hiBits = IntegerBound(p->outType, desc.Max);
            break;
        }
        case DML_OPERATOR_ELEMENT_WISE_CLIP1: {
            const auto& desc = args.As<DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC>();
            p->loBits = BitsOf(desc.Min);
            p->hiBits = BitsOf(desc.Max);
            break;
        }
        case DML_OPERATOR_ELEMENT_WISE_THRESHOLD:
            p->loBits = IntegerBound(p->outType, args.As<DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC>().Min);
            break;
        default:
            break;
    }
    return {};
}

Status PlanClipGrad(const OperatorArgs& args, UnaryPlan* p) {
    const ElementType type = p->outType;
    ElementType gradientType;
    INVALID_IF(!ToElementType(args.inputs[1]->dataType, &gradientType) || p->inType != type || gradientType != type,
               "DML_OPERATOR_%s needs one data type for its tensors (%s, %s, %s).", args.schema.name,
               DataTypeName(args.inputs[0]->dataType), DataTypeName(args.inputs[1]->dataType),
               DataTypeName(args.outputs[0]->dataType));
    if (type == ElementType::F64) return Unsupported(args, "FreeDML computes it in float for FLOAT32 and FLOAT16 only");
    p->route = Route::ClipGrad;
    ClipGradBounds& b = p->clipGrad;
    if (args.schema.type == DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD) {
        const auto& desc = args.As<DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC>();
        if (IsFloat16Or32(type)) {
            b.loFloat = FloatBound(type, desc.Min);
            b.hiFloat = FloatBound(type, desc.Max);
        } else {
            b.loBits = IntegerBound(type, desc.Min);
            b.hiBits = IntegerBound(type, desc.Max);
        }
    } else {
        const auto& desc = args.As<DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC>();
        if (IsFloat16Or32(type)) {
            b.loFloat = ScalarAsFloat(type, desc.Min);
            b.hiFloat = ScalarAsFloat(type, desc.Max);
        } else {
            b.loBits = BitsOf(desc.Min);
            b.hiBits = BitsOf(desc.Max);
        }
    }
    return {};
}

Status PlanFillSequence(const OperatorArgs& args, UnaryPlan* p) {
    const auto& desc = args.As<DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC>();
    FillSequenceParams& s = p->sequence;
    switch (p->outType) {
        case ElementType::F32:
            s.start = desc.ValueStart.Float32;
            s.delta = desc.ValueDelta.Float32;
            break;
        case ElementType::F64:
            s.start = desc.ValueStart.Float64;
            s.delta = desc.ValueDelta.Float64;
            break;
        case ElementType::F16:
            s.start = cpu::HalfToFloat(desc.ValueStart.UInt16);
            s.delta = cpu::HalfToFloat(desc.ValueDelta.UInt16);
            break;
        default:
            s.startBits = ExtendedInteger(p->outType, desc.ValueStart);
            s.deltaBits = ExtendedInteger(p->outType, desc.ValueDelta);
            break;
    }
    p->route = Route::FillSequence;
    return {};
}

Status PlanUnary(const OperatorArgs& args, UnaryPlan* p) {
    p->name = args.schema.name;
    const TensorDesc& output = *args.outputs[0];
    if (!ToElementType(output.dataType, &p->outType)) return Unsupported(args, "the CUDA kernels do not move that type");
    p->inputCount = args.inputs.size();
    INVALID_IF(p->inputCount > 2, "DML_OPERATOR_%s has %zu inputs; the unary family has at most two.", args.schema.name,
               p->inputCount);
    for (size_t i = 0; i < p->inputCount; ++i) {
        INVALID_IF(!args.inputs[i], "DML_OPERATOR_%s is missing its %s.", args.schema.name, args.inputNames[i].c_str());
        ElementType type;
        if (!ToElementType(args.inputs[i]->dataType, &type)) {
            return Unsupported(args, "the CUDA kernels do not move that type");
        }
        if (i == 0) p->inType = type;
        p->inputBytes[i] = args.inputs[i]->totalTensorSizeInBytes;
    }
    if (p->inputCount == 0) p->inType = p->outType;

    // Loops over the output's shape; inputs have its sizes (validated) and broadcast through
    // their own zero strides.
    int64_t strides[3][kMaxDims];
    OwnStrides(output, strides[0]);
    for (size_t i = 0; i < p->inputCount; ++i) BroadcastStrides(*args.inputs[i], output, strides[i + 1]);
    int rank = 0;
    if (p->inputCount == 0) {
        p->fill = MakeEwPlan<1>(output.sizes.data(), output.rank, strides);
    } else if (p->inputCount == 1) {
        p->map = MakeEwPlan<2>(output.sizes.data(), output.rank, strides);
        rank = p->map.rank;
        p->readsLikeOutput[0] = std::equal(p->map.strides[0], p->map.strides[0] + rank, p->map.strides[1]);
    } else {
        p->grad = MakeEwPlan<3>(output.sizes.data(), output.rank, strides);
        rank = p->grad.rank;
        for (int i = 0; i < 2; ++i) {
            p->readsLikeOutput[i] = std::equal(p->grad.strides[0], p->grad.strides[0] + rank, p->grad.strides[i + 1]);
        }
    }

    switch (args.schema.type) {
        case DML_OPERATOR_ELEMENT_WISE_BIT_NOT:
            p->route = Route::BitNot;
            return {};
        case DML_OPERATOR_ELEMENT_WISE_BIT_COUNT:
            if (p->outType != ElementType::U8 && p->outType != ElementType::U32) {
                return Unsupported(args, "BIT_COUNT writes UINT8 or UINT32");
            }
            p->route = Route::BitCount;
            return {};
        case DML_OPERATOR_ELEMENT_WISE_IS_NAN:
        case DML_OPERATOR_ELEMENT_WISE_IS_INFINITY:
            if (!IsFloat16Or32(p->inType) || (p->outType != ElementType::U8 && p->outType != ElementType::U32)) {
                return Unsupported(args, "the test reads FLOAT32 or FLOAT16 and writes UINT8 or UINT32");
            }
            p->route = Route::FloatClass;
            p->classTest = FloatClassTest::Nan;
            if (args.schema.type == DML_OPERATOR_ELEMENT_WISE_IS_INFINITY) {
                switch (args.As<DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC>().InfinityMode) {
                    case DML_IS_INFINITY_MODE_POSITIVE: p->classTest = FloatClassTest::PositiveInfinity; break;
                    case DML_IS_INFINITY_MODE_NEGATIVE: p->classTest = FloatClassTest::NegativeInfinity; break;
                    default: p->classTest = FloatClassTest::Infinity; break;
                }
            }
            return {};
        case DML_OPERATOR_CAST:
            p->route = Route::Cast;
            return {};
        case DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD:
        case DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD1:
            return PlanClipGrad(args, p);
        case DML_OPERATOR_FILL_VALUE_CONSTANT:
            p->route = Route::FillConstant;
            p->fillBits = BitsOf(args.As<DML_FILL_VALUE_CONSTANT_OPERATOR_DESC>().Value);
            return {};
        case DML_OPERATOR_FILL_VALUE_SEQUENCE:
            return PlanFillSequence(args, p);
        default:
            return PlanMath(args, p);
    }
}

}  // namespace

Status CreateCudaUnary(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    UnaryPlan plan;
    FREEDML_TRY(PlanUnary(args, &plan));
    *out = std::make_unique<UnaryFamilyKernel>(plan);
    return {};
}

}  // namespace freedml::dml::cuda
