// Matrix multiplication operators (so far: GEMM).
#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

constexpr EnumValue kMatrixTransformValues[] = {
    {"DML_MATRIX_TRANSFORM_NONE", DML_MATRIX_TRANSFORM_NONE},
    {"DML_MATRIX_TRANSFORM_TRANSPOSE", DML_MATRIX_TRANSFORM_TRANSPOSE},
};
const EnumType kMatrixTransform{"DML_MATRIX_TRANSFORM", kMatrixTransformValues};

// A {batch.., M, K} (or {.., K, M} transposed) x B {batch.., K, N} (or {.., N, K}) = Output
// {batch.., M, N}; C (optional) has the output's sizes, broadcast through zero strides. All four
// have the same rank, 2 to 4; the batch dimensions of A and B equal the output's.
Status ValidateGemm(const OperatorArgs& args) {
    FREEDML_TRY(ValidateDataTypeIn(args, {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16}));
    FREEDML_TRY(ValidateSameDataType(args));
    const auto& desc = args.As<DML_GEMM_OPERATOR_DESC>();
    const TensorDesc& a = *args.inputs[0];
    const TensorDesc& b = *args.inputs[1];
    const TensorDesc& output = *args.outputs[0];
    const uint32_t rank = output.rank;
    INVALID_IF(rank < 2 || rank > 4, "OutputTensor has %u dimensions; GEMM takes 2 to 4.", rank);
    INVALID_IF(a.rank != rank || b.rank != rank, "ATensor (%u dimensions) and BTensor (%u) must have OutputTensor's %u.",
               a.rank, b.rank, rank);
    const bool transA = desc.TransA == DML_MATRIX_TRANSFORM_TRANSPOSE;
    const bool transB = desc.TransB == DML_MATRIX_TRANSFORM_TRANSPOSE;
    const uint32_t m = transA ? a.sizes[rank - 1] : a.sizes[rank - 2];
    const uint32_t k = transA ? a.sizes[rank - 2] : a.sizes[rank - 1];
    const uint32_t kB = transB ? b.sizes[rank - 1] : b.sizes[rank - 2];
    const uint32_t n = transB ? b.sizes[rank - 2] : b.sizes[rank - 1];
    INVALID_IF(k != kB, "ATensor %s and BTensor %s disagree on K (%u against %u) with TransA %s and TransB %s.",
               SizesToString(a).c_str(), SizesToString(b).c_str(), k, kB, kMatrixTransform.NameOf(desc.TransA),
               kMatrixTransform.NameOf(desc.TransB));
    INVALID_IF(output.sizes[rank - 2] != m || output.sizes[rank - 1] != n,
               "OutputTensor %s must end in {M, N} = {%u, %u} for ATensor %s and BTensor %s.",
               SizesToString(output).c_str(), m, n, SizesToString(a).c_str(), SizesToString(b).c_str());
    for (uint32_t d = 0; d + 2 < rank; ++d) {
        INVALID_IF(a.sizes[d] != output.sizes[d] || b.sizes[d] != output.sizes[d],
                   "Batch dimension %u: ATensor (%u), BTensor (%u) and OutputTensor (%u) must be equal.", d,
                   a.sizes[d], b.sizes[d], output.sizes[d]);
    }
    if (args.inputs[2]) {
        const TensorDesc& c = *args.inputs[2];
        bool same = c.rank == rank && std::equal(c.sizes.begin(), c.sizes.begin() + rank, output.sizes.begin());
        INVALID_IF(!same, "CTensor %s must have OutputTensor's sizes %s (broadcast with zero strides).",
                   SizesToString(c).c_str(), SizesToString(output).c_str());
    }
    return {};
}

const OperatorSchema kGemm{
    .type = DML_OPERATOR_GEMM,
    .name = "GEMM",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_GEMM_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_GEMM_OPERATOR_DESC, ATensor, InputTensor),
               DML_FIELD(DML_GEMM_OPERATOR_DESC, BTensor, InputTensor),
               DML_FIELD(DML_GEMM_OPERATOR_DESC, CTensor, InputTensor, .optional = true),
               DML_FIELD(DML_GEMM_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_GEMM_OPERATOR_DESC, TransA, Enum, .enumType = &kMatrixTransform),
               DML_FIELD(DML_GEMM_OPERATOR_DESC, TransB, Enum, .enumType = &kMatrixTransform),
               DML_FIELD(DML_GEMM_OPERATOR_DESC, Alpha, Float),
               DML_FIELD(DML_GEMM_OPERATOR_DESC, Beta, Float),
               DML_FIELD(DML_GEMM_OPERATOR_DESC, FusedActivation, OperatorDesc, .optional = true)},
    .validate = ValidateGemm,
};

const OperatorSchema* const kSchemas[] = {&kGemm};

}  // namespace

std::span<const OperatorSchema* const> MatrixSchemas() { return kSchemas; }

}  // namespace freedml::dml
