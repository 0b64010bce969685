// CUDA kernel of JOIN: one strided copy (LaunchCopy) per input into its slice of the output. Any
// strides, every 8- to 64-bit data type (it moves elements by size).
#include <vector>

#include "dml/kernels/cuda/cuda_common.h"

namespace freedml::dml::cuda {

namespace {

// One strided copy per input into its slice of the output.
class JoinKernel final : public Kernel {
public:
    struct Piece {
        EwPlan<2> plan;
        int64_t outputOffsetBytes;
    };
    JoinKernel(std::vector<Piece> pieces, uint32_t elementBytes)
        : pieces_(std::move(pieces)), elementBytes_(elementBytes) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        for (size_t i = 0; i < pieces_.size(); ++i) {
            stream.Check(LaunchCopy(pieces_[i].plan, elementBytes_, b.outputs[0] + pieces_[i].outputOffsetBytes,
                                    b.inputs[i], stream.Launch()),
                         "JOIN");
        }
    }

private:
    std::vector<Piece> pieces_;
    uint32_t elementBytes_;
};

}  // namespace

Status CreateCudaJoin(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    const TensorDesc& output = *args.outputs[0];
    const uint32_t axis = args.As<DML_JOIN_OPERATOR_DESC>().Axis;
    ElementType type;
    if (!ToElementType(output.dataType, &type)) {
        return NoKernel("JOIN does not support data type %s on CUDA.",
                     DataTypeName(output.dataType));
    }
    const uint32_t bytes = ElementBytes(type);
    std::vector<JoinKernel::Piece> pieces;
    uint64_t position = 0;  // along the axis
    for (const auto& input : args.inputs) {
        INVALID_IF(input->dataType != output.dataType, "JOIN needs every input's data type to be the output's (%s, %s).",
                   DataTypeName(input->dataType), DataTypeName(output.dataType));
        // The slice of the output this input fills: its sizes, the output's strides.
        TensorDesc slice = output;
        slice.sizes = input->sizes;
        pieces.push_back({CopyPlan(slice, *input), int64_t(position * output.strides[axis] * bytes)});
        position += input->sizes[axis];
    }
    *out = std::make_unique<JoinKernel>(std::move(pieces), bytes);
    return {};
}

}  // namespace freedml::dml::cuda
