// CUDA kernels of SLICE, SLICE1 and the space/depth operators (one strided copy, LaunchCopy,
// through the view of the input movement_params.cpp computes; negative strides read backwards)
// and of PADDING, PADDING1 and TILE (the index map of movement_ops.cu) and the GATHER operators
// (LaunchGather), and of the SCATTER operators, SLICE_GRAD, REVERSE_SUBSEQUENCES, UNFOLD and FOLD.
// Every 8- to 64-bit data type, any strides.
#include "dml/kernels/cuda/cuda_common.h"
#include "dml/ops/data_movement/cuda/movement_launch.h"
#include "dml/ops/data_movement/movement_params.h"

namespace freedml::dml::cuda {

namespace {

Status ElementBytesOf(const OperatorArgs& args, uint32_t* bytes) {
    ElementType type;
    const DML_TENSOR_DATA_TYPE dataType = args.outputs[0]->dataType;
    if (!ToElementType(dataType, &type)) {
        return NoKernel("DML_OPERATOR_%s does not support data type %s on CUDA.", args.schema.name,
                        DataTypeName(dataType));
    }
    *bytes = ElementBytes(type);
    return {};
}

// Where the copy's innermost dimension is packed on both sides (a SLICE that keeps whole runs of
// a row), the rows are copied by the gather's row kernel with no index tuple; otherwise LaunchCopy.
class MovementCopyKernel final : public Kernel {
public:
    MovementCopyKernel(const char* name, EwPlan<2> plan, const GatherMap& rows, bool byRows, int64_t inOffsetBytes,
                       uint32_t bytes)
        : name_(name), plan_(plan), rows_(rows), byRows_(byRows), inOffsetBytes_(inOffsetBytes), bytes_(bytes) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        if (byRows_) {
            stream.Check(LaunchGather(rows_, bytes_, 4, false, b.outputs[0], b.inputs[0] + inOffsetBytes_, nullptr,
                                      stream.Launch()),
                         name_);
            return;
        }
        stream.Check(LaunchCopy(plan_, bytes_, b.outputs[0], b.inputs[0] + inOffsetBytes_, stream.Launch()), name_);
    }

private:
    const char* name_;
    EwPlan<2> plan_;  // operands: output, input
    GatherMap rows_;  // the same copy as a gather with no index tuple
    bool byRows_;
    int64_t inOffsetBytes_;
    uint32_t bytes_;
};

GatherMap RowMapOf(const MovementCopy& copy) {
    GatherMap map;
    map.rank = copy.rank;
    map.count = copy.rank == 0 ? 0 : 1;
    for (uint32_t d = 0; d < copy.rank; ++d) {
        map.outSizes[d] = copy.sizes[d];
        map.outStrides[d] = copy.outStrides[d];
        map.inStrides[d] = copy.inStrides[d];
        map.count *= copy.sizes[d];
    }
    map.tupleSize = 0;
    return map;
}

class IndexMapKernel final : public Kernel {
public:
    IndexMapKernel(const char* name, const IndexMap& map, uint32_t bytes) : name_(name), map_(map), bytes_(bytes) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        stream.Check(LaunchIndexMap(map_, bytes_, b.outputs[0], b.inputs[0], stream.Launch()), name_);
    }

private:
    const char* name_;
    IndexMap map_;
    uint32_t bytes_;
};

class GatherKernel final : public Kernel {
public:
    GatherKernel(const char* name, const GatherMap& map, uint32_t bytes, uint32_t indexBytes, bool indexSigned)
        : name_(name), map_(map), bytes_(bytes), indexBytes_(indexBytes), indexSigned_(indexSigned) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        stream.Check(LaunchGather(map_, bytes_, indexBytes_, indexSigned_, b.outputs[0], b.inputs[0], b.inputs[1],
                                  stream.Launch()),
                     name_);
    }

private:
    const char* name_;
    GatherMap map_;
    uint32_t bytes_, indexBytes_;
    bool indexSigned_;
};

}  // namespace

Status CreateCudaMovementCopy(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    uint32_t bytes = 0;
    FREEDML_TRY(ElementBytesOf(args, &bytes));
    const MovementCopy copy = DecodeMovementCopy(args);
    int64_t strides[2][kMaxDims] = {};
    for (uint32_t d = 0; d < copy.rank; ++d) {
        strides[0][d] = copy.outStrides[d];
        strides[1][d] = copy.inStrides[d];
    }
    const EwPlan<2> plan = MakeEwPlan<2>(copy.sizes, copy.rank, strides);
    const GatherMap rows = RowMapOf(copy);
    *out = std::make_unique<MovementCopyKernel>(args.schema.name, plan, rows, IsGatherRowMap(rows, bytes),
                                                copy.inOffset * int64_t(bytes), bytes);
    return {};
}

Status CreateCudaIndexMap(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    uint32_t bytes = 0;
    FREEDML_TRY(ElementBytesOf(args, &bytes));
    *out = std::make_unique<IndexMapKernel>(args.schema.name, DecodeIndexMap(args), bytes);
    return {};
}

}  // namespace freedml::dml::cuda

namespace freedml::dml::cuda {

Status CreateCudaGather(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    uint32_t bytes = 0;
    FREEDML_TRY(ElementBytesOf(args, &bytes));
    const DML_TENSOR_DATA_TYPE indexType = args.inputs[1]->dataType;
    const bool indexSigned = indexType == DML_TENSOR_DATA_TYPE_INT64 || indexType == DML_TENSOR_DATA_TYPE_INT32;
    *out = std::make_unique<GatherKernel>(args.schema.name, DecodeGatherMap(args), bytes,
                                          ElementSizeInBytes(indexType), indexSigned);
    return {};
}

namespace {

EwPlan<2> CopyPlanOf(const MovementCopy& copy) {
    int64_t strides[2][kMaxDims] = {};
    for (uint32_t d = 0; d < copy.rank; ++d) {
        strides[0][d] = copy.outStrides[d];
        strides[1][d] = copy.inStrides[d];
    }
    return MakeEwPlan<2>(copy.sizes, copy.rank, strides);
}

// SCATTER_ELEMENTS and SCATTER_ND: the input copied into the output, then the updates written on
// the same stream.
class ScatterKernel final : public Kernel {
public:
    ScatterKernel(const char* name, const ScatterPlan& plan, uint32_t bytes, uint32_t indexBytes, bool indexSigned)
        : name_(name), copy_(CopyPlanOf(plan.copy)), map_(plan.map), bytes_(bytes), indexBytes_(indexBytes),
          indexSigned_(indexSigned) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        stream.Check(LaunchCopy(copy_, bytes_, b.outputs[0], b.inputs[0], stream.Launch()), name_);
        stream.Check(LaunchScatter(map_, bytes_, indexBytes_, indexSigned_, b.outputs[0], b.inputs[2], b.inputs[1],
                                   stream.Launch()),
                     name_);
    }

private:
    const char* name_;
    EwPlan<2> copy_;
    GatherMap map_;
    uint32_t bytes_, indexBytes_;
    bool indexSigned_;
};

// SLICE_GRAD: zeros, then the input gradient copied into the window.
class SliceGradKernel final : public Kernel {
public:
    SliceGradKernel(const char* name, const SliceGradPlan& plan, uint32_t bytes)
        : name_(name), zero_(plan.zero), copy_(CopyPlanOf(plan.copy)), outOffsetBytes_(plan.outOffset * bytes),
          bytes_(bytes) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        stream.Check(LaunchIndexMap(zero_, bytes_, b.outputs[0], nullptr, stream.Launch()), name_);
        stream.Check(LaunchCopy(copy_, bytes_, b.outputs[0] + outOffsetBytes_, b.inputs[0], stream.Launch()), name_);
    }

private:
    const char* name_;
    IndexMap zero_;
    EwPlan<2> copy_;
    int64_t outOffsetBytes_;
    uint32_t bytes_;
};

class ReverseKernel final : public Kernel {
public:
    ReverseKernel(const char* name, const ReverseMap& map, uint32_t bytes, bool wideLengths)
        : name_(name), map_(map), bytes_(bytes), wideLengths_(wideLengths) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        stream.Check(LaunchReverse(map_, bytes_, wideLengths_, b.outputs[0], b.inputs[0], b.inputs[1], stream.Launch()),
                     name_);
    }

private:
    const char* name_;
    ReverseMap map_;
    uint32_t bytes_;
    bool wideLengths_;
};

class WindowKernel final : public Kernel {
public:
    WindowKernel(const char* name, const WindowMap& map, bool fold, FoldType type, uint32_t bytes)
        : name_(name), map_(map), fold_(fold), type_(type), bytes_(bytes) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        stream.Check(fold_ ? LaunchFold(map_, type_, b.outputs[0], b.inputs[0], stream.Launch())
                           : LaunchUnfold(map_, bytes_, b.outputs[0], b.inputs[0], stream.Launch()),
                     name_);
    }

private:
    const char* name_;
    WindowMap map_;
    bool fold_;
    FoldType type_;
    uint32_t bytes_;
};

}  // namespace

Status CreateCudaFold(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    *out = std::make_unique<WindowKernel>(args.schema.name, DecodeWindowMap(args), true,
                                          FoldTypeOf(args.outputs[0]->dataType), 0);
    return {};
}

Status CreateCudaUnfold(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    uint32_t bytes = 0;
    FREEDML_TRY(ElementBytesOf(args, &bytes));
    *out = std::make_unique<WindowKernel>(args.schema.name, DecodeWindowMap(args), false, FoldType::F32, bytes);
    return {};
}

Status CreateCudaReverseSubsequences(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    uint32_t bytes = 0;
    FREEDML_TRY(ElementBytesOf(args, &bytes));
    *out = std::make_unique<ReverseKernel>(args.schema.name, DecodeReverseMap(args), bytes,
                                           args.inputs[1]->dataType == DML_TENSOR_DATA_TYPE_UINT64);
    return {};
}

Status CreateCudaScatter(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    uint32_t bytes = 0;
    FREEDML_TRY(ElementBytesOf(args, &bytes));
    const DML_TENSOR_DATA_TYPE indexType = args.inputs[1]->dataType;
    const bool indexSigned = indexType == DML_TENSOR_DATA_TYPE_INT64 || indexType == DML_TENSOR_DATA_TYPE_INT32;
    *out = std::make_unique<ScatterKernel>(args.schema.name, DecodeScatterPlan(args), bytes,
                                           ElementSizeInBytes(indexType), indexSigned);
    return {};
}

Status CreateCudaSliceGrad(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    uint32_t bytes = 0;
    FREEDML_TRY(ElementBytesOf(args, &bytes));
    *out = std::make_unique<SliceGradKernel>(args.schema.name, DecodeSliceGrad(args), bytes);
    return {};
}

}  // namespace freedml::dml::cuda
