#include "dml/ops/data_movement/cpu/join.h"

#include <cstring>

#include "dml/kernels/cpu/kernel_adapter.h"
#include "dml/kernels/cpu/thread_pool.h"

namespace freedml::dml::cpu {
namespace {

template <class T>
void CopyStrided(std::byte* dst, int64_t ds, const std::byte* src, int64_t ss, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) {
        T v;
        std::memcpy(&v, src + int64_t(i) * ss, sizeof(T));
        std::memcpy(dst + int64_t(i) * ds, &v, sizeof(T));
    }
}

}  // namespace

Status JoinKernel::Create(const JoinParams& params) {
    const TensorDesc& out = params.output;
    INVALID_IF(params.inputs.empty(), "JOIN needs at least one input.");
    INVALID_IF(params.axis >= out.rank, "JOIN's Axis (%u) must be below the output rank (%u).", params.axis, out.rank);
    elementSize_ = ElementSizeInBytes(out.dataType);
    INVALID_IF(elementSize_ == 0 || out.dataType == DML_TENSOR_DATA_TYPE_UINT4 || out.dataType == DML_TENSOR_DATA_TYPE_INT4,
               "JOIN does not support data type %s on the CPU.", DataTypeName(out.dataType));
    pieces_.clear();
    pieces_.reserve(params.inputs.size());
    uint64_t axisOffset = 0;
    for (const TensorDesc& in : params.inputs) {
        INVALID_IF(in.rank != out.rank || ElementSizeInBytes(in.dataType) != elementSize_,
                   "JOIN input %s does not match the output %s.", in.Describe().c_str(), out.Describe().c_str());
        Piece piece;
        piece.outputOffset = int64_t(axisOffset) * out.strides[params.axis] * elementSize_;
        piece.plan = MakeLoopPlan<2>(in.sizes.data(), in.rank, {out.strides.data(), in.strides.data()},
                                     {elementSize_, elementSize_});
        pieces_.push_back(piece);
        axisOffset += in.sizes[params.axis];
    }
    INVALID_IF(axisOffset != out.sizes[params.axis],
               "JOIN inputs sum to %llu along Axis %u, but the output has %u.", (unsigned long long)axisOffset,
               params.axis, out.sizes[params.axis]);
    return Status::Ok();
}

void JoinKernel::Execute(std::span<const TensorView> inputs, TensorView output, std::byte*, std::byte*) const {
    const uint32_t size = elementSize_;
    auto copyRow = [size](const std::array<std::byte*, 2>& p, uint64_t n, const std::array<int64_t, 2>& s) {
        if (s[0] == int64_t(size) && s[1] == int64_t(size)) {
            std::memcpy(p[0], p[1], n * size);
            return;
        }
        switch (size) {
            case 1: return CopyStrided<uint8_t>(p[0], s[0], p[1], s[1], n);
            case 2: return CopyStrided<uint16_t>(p[0], s[0], p[1], s[1], n);
            case 4: return CopyStrided<uint32_t>(p[0], s[0], p[1], s[1], n);
            default: return CopyStrided<uint64_t>(p[0], s[0], p[1], s[1], n);
        }
    };
    for (size_t i = 0; i < pieces_.size(); ++i) {
        const Piece& piece = pieces_[i];
        ParallelLoop(piece.plan, {output.data + piece.outputOffset, inputs[i].data}, copyRow);
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
                          k.Execute(inputs, ViewOf(a.outputs, b.outputs, 0), b.persistent, b.temporary);
                      },
                      kNoInitialize);
    return {};
}

}  // namespace freedml::dml::cpu
