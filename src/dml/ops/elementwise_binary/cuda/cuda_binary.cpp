// CUDA kernels of the binary element-wise family (this folder's schema.cpp: arithmetic,
// bitwise, logical, comparison, POW and the quantization operators) and of ELEMENT_WISE_IF
// (the same schema.cpp): planned here into ew_plan.h launches, run by binary_ops.cu with the
// CPU kernels' semantics. Any strides (zero strides and dimensions of size 1 broadcast), in place
// where the schema allows it (an input read through other strides than the output's from a
// snapshot); every data type the CPU kernels run.
#include <initializer_list>
#include <string>

#include "dml/kernels/cuda/cuda_common.h"
#include "dml/ops/elementwise_binary/binary_decode.h"
#include "dml/ops/elementwise_binary/cuda/binary_ops.h"

namespace freedml::dml::cuda {

namespace {

const char* ElementTypeName(ElementType type) {
    static const char* const kNames[] = {"FLOAT32", "FLOAT16", "FLOAT64", "INT8",   "UINT8", "INT16",
                                         "UINT16",  "INT32",   "UINT32",  "INT64", "UINT64"};
    return kNames[int(type)];
}

// "FLOAT32, FLOAT16, INT32": the types of a BinaryTypeBit mask.
std::string TypeList(uint32_t mask) {
    std::string list;
    for (int t = 0; t <= int(ElementType::U64); ++t) {
        if ((mask & BinaryTypeBit(ElementType(t))) == 0) continue;
        list += (list.empty() ? "" : ", ") + std::string(ElementTypeName(ElementType(t)));
    }
    return list;
}

constexpr uint32_t Bits(std::initializer_list<ElementType> types) {
    uint32_t mask = 0;
    for (ElementType type : types) mask |= 1u << uint32_t(type);
    return mask;
}

constexpr uint32_t kPowTypes = Bits({ElementType::F32, ElementType::F16, ElementType::I8, ElementType::U8,
                                     ElementType::I16, ElementType::U16, ElementType::I32, ElementType::U32});
constexpr uint32_t kQuantized8 = Bits({ElementType::I8, ElementType::U8});
constexpr uint32_t kQuantizeInputs = Bits({ElementType::F32, ElementType::F16, ElementType::I32});
constexpr uint32_t kScales = Bits({ElementType::F32, ElementType::F16});
constexpr uint32_t kDequantizeInputs = Bits({ElementType::I8, ElementType::U8, ElementType::I16, ElementType::U16,
                                             ElementType::I32, ElementType::U32});

// The element type of `tensor` (named `name`), refused unless it is in `allowed`.
Status TypeOf(const OperatorArgs& args, const TensorDesc& tensor, const std::string& name, uint32_t allowed,
              ElementType* out) {
    if (!ToElementType(tensor.dataType, out) || (allowed & BinaryTypeBit(*out)) == 0) {
        return NoKernel("DML_OPERATOR_%s does not run %s of data type %s on CUDA (it runs %s).",
                     args.schema.name, name.c_str(), DataTypeName(tensor.dataType), TypeList(allowed).c_str());
    }
    return {};
}

// Operand 0 the output with its own strides, then each input broadcast over it (absent: a scalar).
template <int N>
EwPlan<N> PlanOver(const TensorDesc& output, const std::optional<TensorDesc>* const* inputs) {
    int64_t strides[N][kMaxDims];
    OwnStrides(output, strides[0]);
    for (int k = 1; k < N; ++k) {
        if (inputs[k - 1]->has_value()) {
            BroadcastStrides(**inputs[k - 1], output, strides[k]);
        } else {
            for (int64_t& s : strides[k]) s = 0;
        }
    }
    return MakeEwPlan<N>(output.sizes.data(), output.rank, strides);
}

const void* InputAt(const KernelBindings& b, size_t index) {
    return index < b.inputs.size() ? b.inputs[index] : nullptr;
}

// A kernel without resources whose Execute runs `launch(bindings, target)`.
template <class Launch>
class LaunchKernel final : public Kernel {
public:
    LaunchKernel(const char* name, Launch launch) : name_(name), launch_(std::move(launch)) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    bool ReplaySafe() const override { return true; }  // one launch
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        stream.Check(launch_(b, stream.Launch()), name_);
    }

private:
    const char* name_;
    Launch launch_;
};

template <class Launch>
std::unique_ptr<Kernel> MakeLaunchKernel(const char* name, Launch launch) {
    return std::make_unique<LaunchKernel<Launch>>(name, std::move(launch));
}

Status CreateBinary(const OperatorArgs& args, BinaryOp op, std::unique_ptr<Kernel>* out) {
    const TensorDesc &a = *args.inputs[0], &b = *args.inputs[1], &output = *args.outputs[0];
    INVALID_IF(b.dataType != a.dataType, "DML_OPERATOR_%s needs equal input data types (%s, %s).", args.schema.name,
               DataTypeName(a.dataType), DataTypeName(b.dataType));
    ElementType type, outputType;
    FREEDML_TRY(TypeOf(args, a, args.inputNames[0], BinaryOpTypes(op), &type));
    if (IsComparison(op)) {
        FREEDML_TRY(TypeOf(args, output, args.outputNames[0], Bits({ElementType::U8, ElementType::U32}), &outputType));
    } else {
        INVALID_IF(output.dataType != a.dataType, "DML_OPERATOR_%s needs the output's data type (%s) to be A's (%s).",
                   args.schema.name, DataTypeName(output.dataType), DataTypeName(a.dataType));
        outputType = type;
    }
    const std::optional<TensorDesc>* const inputs[2] = {&args.inputs[0], &args.inputs[1]};
    const EwPlan<3> plan = PlanOver<3>(output, inputs);
    // In place (H2), an input bound through another layout is snapshot by the kernel set.
    *out = MakeLaunchKernel(args.schema.name, [=](const KernelBindings& k, LaunchTarget launch) {
        return LaunchBinaryOp(op, plan, type, outputType, k.outputs[0], k.inputs[0], k.inputs[1], launch);
    });
    return {};
}

Status CreatePow(const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    const auto& desc = args.As<DML_ELEMENT_WISE_POW_OPERATOR_DESC>();
    const TensorDesc &base = *args.inputs[0], &exponent = *args.inputs[1], &output = *args.outputs[0];
    INVALID_IF(output.dataType != base.dataType, "POW needs the output's data type (%s) to be the input's (%s).",
               DataTypeName(output.dataType), DataTypeName(base.dataType));
    ElementType baseType, exponentType;
    FREEDML_TRY(TypeOf(args, base, args.inputNames[0], kPowTypes, &baseType));
    FREEDML_TRY(TypeOf(args, exponent, args.inputNames[1], kPowTypes, &exponentType));
    PowParams params;
    if (desc.ScaleBias) params = {true, desc.ScaleBias->Scale, desc.ScaleBias->Bias};
    const std::optional<TensorDesc>* const inputs[2] = {&args.inputs[0], &args.inputs[1]};
    const EwPlan<3> plan = PlanOver<3>(output, inputs);
    *out = MakeLaunchKernel(args.schema.name, [=](const KernelBindings& k, LaunchTarget launch) {
        return LaunchPow(plan, baseType, exponentType, params, k.outputs[0], k.inputs[0], k.inputs[1], launch);
    });
    return {};
}

bool IsBlocked(const std::optional<TensorDesc>& tensor, const TensorDesc& output) {
    if (!tensor) return false;
    for (uint32_t d = 0; d < output.rank; ++d) {
        if (tensor->sizes[d] != 1 && tensor->sizes[d] != output.sizes[d]) return true;
    }
    return false;
}

// QUANTIZE and DEQUANTIZE with a 4-bit tensor or a blocked scale or zero point, by element index.
Status CreateQuantizeIndexed(const OperatorArgs& args, bool dequantize, const std::optional<TensorDesc>& zeroPoint,
                             std::unique_ptr<Kernel>* out) {
    const TensorDesc &input = *args.inputs[0], &scale = *args.inputs[1], &output = *args.outputs[0];
    const TensorDesc& quantizedTensor = dequantize ? input : output;
    const TensorDesc& floatTensor = dequantize ? output : input;
    QuantizedType quantized;
    switch (quantizedTensor.dataType) {
        case DML_TENSOR_DATA_TYPE_INT8:
            quantized = QuantizedType::I8;
            break;
        case DML_TENSOR_DATA_TYPE_UINT8:
            quantized = QuantizedType::U8;
            break;
        case DML_TENSOR_DATA_TYPE_INT4:
            quantized = QuantizedType::I4;
            break;
        case DML_TENSOR_DATA_TYPE_UINT4:
            quantized = QuantizedType::U4;
            break;
        default:
            return NoKernel("DML_OPERATOR_%s runs INT8, UINT8, INT4 and UINT4 on CUDA, not %s.", args.schema.name,
                            DataTypeName(quantizedTensor.dataType));
    }
    INVALID_IF(!dml::IsFloat16Or32(floatTensor.dataType) || scale.dataType != floatTensor.dataType ||
                   (zeroPoint && zeroPoint->dataType != quantizedTensor.dataType),
               "DML_OPERATOR_%s on CUDA takes a FLOAT32 or FLOAT16 side with a scale of its type and a zero point "
               "of the quantized side's type (float side %s, scale %s).",
               args.schema.name, DataTypeName(floatTensor.dataType), DataTypeName(scale.dataType));
    QuantizeIndexPlan plan;
    plan.rank = int(output.rank);
    plan.count = output.ElementCount();
    const TensorDesc* operands[4] = {&output, &input, &scale, zeroPoint ? &*zeroPoint : nullptr};
    for (uint32_t d = 0; d < output.rank; ++d) {
        plan.sizes[d] = output.sizes[d];
        for (int k = 0; k < 4; ++k) {
            plan.strides[k][d] = operands[k] ? operands[k]->strides[d] : 0;
            plan.blocks[k][d] = operands[k] ? output.sizes[d] / operands[k]->sizes[d] : 1;  // validation: divides
        }
    }
    const ElementType floatType =
        floatTensor.dataType == DML_TENSOR_DATA_TYPE_FLOAT32 ? ElementType::F32 : ElementType::F16;
    *out = MakeLaunchKernel(args.schema.name, [=](const KernelBindings& k, LaunchTarget launch) {
        return LaunchQuantizeIndexed(plan, dequantize, floatType, quantized, k.outputs[0], k.inputs[0], k.inputs[1],
                                     InputAt(k, 2), launch);
    });
    return {};
}

// ELEMENT_WISE_QUANTIZE_LINEAR and QUANTIZE bind alike: input, scale, then the zero point if any
// (QUANTIZE's QuantizationTensors follow its input); DEQUANTIZE_LINEAR and DEQUANTIZE too.
Status CreateQuantize(const OperatorArgs& args, bool dequantize, std::unique_ptr<Kernel>* out) {
    const TensorDesc &input = *args.inputs[0], &scale = *args.inputs[1], &output = *args.outputs[0];
    static const std::optional<TensorDesc> kAbsent;
    const std::optional<TensorDesc>& zeroPoint = args.inputs.size() > 2 ? args.inputs[2] : kAbsent;
    if (IsPacked4Bit(input.dataType) || IsPacked4Bit(output.dataType) || IsBlocked(args.inputs[1], output) ||
        IsBlocked(zeroPoint, output)) {
        return CreateQuantizeIndexed(args, dequantize, zeroPoint, out);
    }
    ElementType inputType, scaleType, outputType;
    FREEDML_TRY(TypeOf(args, input, args.inputNames[0], dequantize ? kDequantizeInputs : kQuantizeInputs, &inputType));
    FREEDML_TRY(TypeOf(args, scale, args.inputNames[1], kScales, &scaleType));
    FREEDML_TRY(TypeOf(args, output, args.outputNames[0], dequantize ? kScales : kQuantized8, &outputType));
    if (dequantize) {
        INVALID_IF(output.dataType != scale.dataType,
                   "DML_OPERATOR_%s writes the scale's data type (scale %s, output %s).", args.schema.name,
                   DataTypeName(scale.dataType), DataTypeName(output.dataType));
    }
    // The zero point shares the quantized side's type: the output's, or the input's when dequantizing.
    const TensorDesc& quantized = dequantize ? input : output;
    INVALID_IF(zeroPoint && zeroPoint->dataType != quantized.dataType,
               "DML_OPERATOR_%s needs the zero point's data type (%s) to be %s's (%s).", args.schema.name,
               DataTypeName(zeroPoint->dataType), dequantize ? args.inputNames[0].c_str() : args.outputNames[0].c_str(),
               DataTypeName(quantized.dataType));
    const std::optional<TensorDesc>* const inputs[3] = {&args.inputs[0], &args.inputs[1], &zeroPoint};
    const EwPlan<4> plan = PlanOver<4>(output, inputs);
    if (dequantize) {
        *out = MakeLaunchKernel(args.schema.name, [=](const KernelBindings& k, LaunchTarget launch) {
            return LaunchDequantize(plan, inputType, outputType, k.outputs[0], k.inputs[0], k.inputs[1], InputAt(k, 2),
                                    launch);
        });
    } else {
        *out = MakeLaunchKernel(args.schema.name, [=](const KernelBindings& k, LaunchTarget launch) {
            return LaunchQuantize(plan, inputType, scaleType, outputType, k.outputs[0], k.inputs[0], k.inputs[1],
                                  InputAt(k, 2), launch);
        });
    }
    return {};
}

// A, AScale, AZeroPoint?, B, BScale, BZeroPoint?, OutputScale, OutputZeroPoint?, Output.
Status CreateQuantizedAdd(const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    const TensorDesc& output = *args.outputs[0];
    ElementType aType, bType, outputType, scaleType;
    FREEDML_TRY(TypeOf(args, *args.inputs[0], args.inputNames[0], kQuantized8, &aType));
    FREEDML_TRY(TypeOf(args, *args.inputs[3], args.inputNames[3], kQuantized8, &bType));
    FREEDML_TRY(TypeOf(args, output, args.outputNames[0], kQuantized8, &outputType));
    for (size_t scale : {1, 4, 6}) {
        FREEDML_TRY(TypeOf(args, *args.inputs[scale], args.inputNames[scale], Bits({ElementType::F32}), &scaleType));
    }
    const std::pair<size_t, const TensorDesc*> zeroPoints[] = {
        {2, &*args.inputs[0]}, {5, &*args.inputs[3]}, {7, &output}};
    for (const auto& [index, owner] : zeroPoints) {
        const auto& zeroPoint = args.inputs[index];
        INVALID_IF(zeroPoint && zeroPoint->dataType != owner->dataType,
                   "%s has data type %s; QUANTIZED_LINEAR_ADD reads it as %s.", args.inputNames[index].c_str(),
                   DataTypeName(zeroPoint->dataType), DataTypeName(owner->dataType));
    }
    const std::optional<TensorDesc>* inputs[8];
    for (size_t k = 0; k < 8; ++k) inputs[k] = &args.inputs[k];
    const EwPlan<9> plan = PlanOver<9>(output, inputs);
    *out = MakeLaunchKernel(args.schema.name, [=](const KernelBindings& k, LaunchTarget launch) {
        const void* const in[8] = {InputAt(k, 0), InputAt(k, 1), InputAt(k, 2), InputAt(k, 3),
                                   InputAt(k, 4), InputAt(k, 5), InputAt(k, 6), InputAt(k, 7)};
        return LaunchQuantizedAdd(plan, aType, bType, outputType, k.outputs[0], in, launch);
    });
    return {};
}

// Condition, A, B, Output: selection moves bits, so the element size alone picks the kernel.
Status CreateSelect(const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    const TensorDesc &condition = *args.inputs[0], &output = *args.outputs[0];
    INVALID_IF(condition.dataType != DML_TENSOR_DATA_TYPE_UINT8,
               "ELEMENT_WISE_IF takes a UINT8 condition (%s has %s).", args.inputNames[0].c_str(),
               DataTypeName(condition.dataType));
    for (size_t i = 1; i < 3; ++i) {
        INVALID_IF(args.inputs[i]->dataType != output.dataType,
                   "ELEMENT_WISE_IF needs %s's data type (%s) to be the output's (%s).", args.inputNames[i].c_str(),
                   DataTypeName(args.inputs[i]->dataType), DataTypeName(output.dataType));
    }
    ElementType type;
    if (!ToElementType(output.dataType, &type)) {
        return NoKernel("ELEMENT_WISE_IF does not run data type %s on CUDA.",
                     DataTypeName(output.dataType));
    }
    const uint32_t bytes = ElementBytes(type);
    const std::optional<TensorDesc>* const inputs[3] = {&args.inputs[0], &args.inputs[1], &args.inputs[2]};
    const EwPlan<4> plan = PlanOver<4>(output, inputs);
    *out = MakeLaunchKernel(args.schema.name, [=](const KernelBindings& k, LaunchTarget launch) {
        return LaunchSelect(plan, bytes, k.outputs[0], k.inputs[0], k.inputs[1], k.inputs[2], launch);
    });
    return {};
}

}  // namespace

Status CreateCudaBinary(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    BinaryOp op;
    if (!BinaryOpOf(args.schema.type, &op) || op == BinaryOp::Add || op == BinaryOp::Pow) {
        return NoKernel("DML_OPERATOR_%s is not a binary arithmetic operator.", args.schema.name);
    }
    return CreateBinary(args, op, out);
}
Status CreateCudaPow(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) { return CreatePow(args, out); }
Status CreateCudaQuantize(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) { return CreateQuantize(args, false, out); }
Status CreateCudaDequantize(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) { return CreateQuantize(args, true, out); }
Status CreateCudaQuantizedAdd(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) { return CreateQuantizedAdd(args, out); }
Status CreateCudaSelect(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) { return CreateSelect(args, out); }

}  // namespace freedml::dml::cuda
