#include "dml/ops/data_movement/cpu/join_split.h"

#include "dml/kernels/cpu/kernel_adapter.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/ops/data_movement/cpu/strided_copy.h"

namespace freedml::dml::cpu {
namespace {

// The same copy with its operands swapped: from operand 0 into operand 1.
auto ReversedCopyRowOf(uint32_t size) {
    return [copy = CopyRowOf(size)](const std::array<std::byte*, 2>& p, uint64_t n, const std::array<int64_t, 2>& s) {
        copy({p[1], p[0]}, n, {s[1], s[0]});
    };
}

}  // namespace

Status AxisPieces::Plan(const char* op, const TensorDesc& whole, std::span<const TensorDesc> pieces, uint32_t axis) {
    INVALID_IF(pieces.empty(), "%s needs at least one piece.", op);
    INVALID_IF(axis >= whole.rank, "%s's Axis (%u) must be below the dimension count (%u).", op, axis, whole.rank);
    elementSize_ = ElementSizeInBytes(whole.dataType);
    INVALID_IF(elementSize_ == 0 || whole.dataType == DML_TENSOR_DATA_TYPE_UINT4 ||
                   whole.dataType == DML_TENSOR_DATA_TYPE_INT4,
               "%s does not support data type %s on the CPU.", op, DataTypeName(whole.dataType));
    pieces_.clear();
    pieces_.reserve(pieces.size());
    uint64_t axisOffset = 0;
    for (const TensorDesc& piece : pieces) {
        INVALID_IF(piece.rank != whole.rank || ElementSizeInBytes(piece.dataType) != elementSize_,
                   "%s piece %s does not match %s.", op, piece.Describe().c_str(), whole.Describe().c_str());
        Piece planned;
        planned.wholeOffset = int64_t(axisOffset) * whole.strides[axis] * elementSize_;
        planned.plan = MakeLoopPlan<2>(piece.sizes.data(), piece.rank, {whole.strides.data(), piece.strides.data()},
                                       {elementSize_, elementSize_});
        pieces_.push_back(planned);
        axisOffset += piece.sizes[axis];
    }
    INVALID_IF(axisOffset != whole.sizes[axis], "%s pieces add up to %llu along Axis %u, but the whole tensor has %u.",
               op, (unsigned long long)axisOffset, axis, whole.sizes[axis]);
    return Status::Ok();
}

void AxisPieces::CopyPiecesIntoWhole(ThreadPool* threads, std::span<const TensorView> pieces, TensorView whole) const {
    const auto copyRow = CopyRowOf(elementSize_);
    for (size_t i = 0; i < pieces_.size(); ++i) {
        ParallelLoop(threads, pieces_[i].plan, {whole.data + pieces_[i].wholeOffset, pieces[i].data}, copyRow);
    }
}

void AxisPieces::CopyWholeIntoPieces(ThreadPool* threads, TensorView whole, std::span<const TensorView> pieces) const {
    const auto copyRow = ReversedCopyRowOf(elementSize_);
    for (size_t i = 0; i < pieces_.size(); ++i) {
        ParallelLoop(threads, pieces_[i].plan, {whole.data + pieces_[i].wholeOffset, pieces[i].data}, copyRow);
    }
}

// The factory the operator table names (dml/ops/operators.def).
Status CreateCpuJoin(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    JoinParams params;
    for (const auto& input : args.inputs) params.inputs.push_back(*input);
    params.output = *args.outputs[0];
    params.axis = args.As<DML_JOIN_OPERATOR_DESC>().Axis;
    JoinKernel kernel;
    FREEDML_TRY(kernel.Create(params));
    *out = AdaptKernel(args, std::move(kernel),
                      [](JoinKernel& k, const OperatorArgs& a, const KernelBindings& b) {
                          std::vector<TensorView> inputs(a.inputs.size());
                          for (size_t i = 0; i < inputs.size(); ++i) inputs[i] = ViewOf(a.inputs, b.inputs, i);
                          k.Execute(HostThreads(b), inputs, ViewOf(a.outputs, b.outputs, 0), b.persistent, b.temporary);
                      },
                      kNoInitialize);
    return {};
}

Status CreateCpuSplit(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    SplitParams params;
    params.input = *args.inputs[0];
    for (const auto& output : args.outputs) params.outputs.push_back(*output);
    params.axis = args.As<DML_SPLIT_OPERATOR_DESC>().Axis;
    SplitKernel kernel;
    FREEDML_TRY(kernel.Create(params));
    const OperatorArgs* a = &args;  // the operator outlives its compiled kernels
    *out = MakeStateless(std::move(kernel), [a](const SplitKernel& k, const KernelBindings& b) {
        std::vector<TensorView> outputs(a->outputs.size());
        for (size_t i = 0; i < outputs.size(); ++i) outputs[i] = ViewOf(a->outputs, b.outputs, i);
        k.Execute(HostThreads(b), ViewOf(a->inputs, b.inputs, 0), outputs);
    });
    return {};
}

}  // namespace freedml::dml::cpu
