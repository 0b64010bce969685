// CUDA kernels of JOIN and SPLIT: one strided copy (LaunchCopy) per piece, between the piece and
// its slice of the whole tensor along Axis (the whole tensor is JOIN's output and SPLIT's input).
// Any strides, every 8- to 64-bit data type (they move elements by size).
#include <vector>

#include "dml/kernels/cuda/cuda_common.h"

namespace freedml::dml::cuda {

namespace {

class AxisPiecesKernel final : public Kernel {
public:
    struct Piece {
        EwPlan<2> plan;            // operands: destination, source
        int64_t wholeOffsetBytes;  // from the whole tensor's element 0 to the piece's slice
    };
    AxisPiecesKernel(const char* name, bool intoWhole, std::vector<Piece> pieces, uint32_t elementBytes)
        : name_(name), intoWhole_(intoWhole), pieces_(std::move(pieces)), elementBytes_(elementBytes) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        std::byte* whole = intoWhole_ ? b.outputs[0] : b.inputs[0];
        const std::vector<std::byte*>& pieces = intoWhole_ ? b.inputs : b.outputs;
        for (size_t i = 0; i < pieces_.size(); ++i) {
            std::byte* slice = whole + pieces_[i].wholeOffsetBytes;
            std::byte* destination = intoWhole_ ? slice : pieces[i];
            const std::byte* source = intoWhole_ ? pieces[i] : slice;
            stream.Check(LaunchCopy(pieces_[i].plan, elementBytes_, destination, source, stream.Launch()), name_);
        }
    }

private:
    const char* name_;
    bool intoWhole_;  // JOIN: pieces into the whole tensor; SPLIT: the whole tensor into pieces
    std::vector<Piece> pieces_;
    uint32_t elementBytes_;
};

// Plans the copies between `whole` and `pieces` along `axis` (validation checked the shapes).
Status CreateAxisPieces(const OperatorArgs& args, const TensorDesc& whole,
                        const std::vector<std::optional<TensorDesc>>& pieces, uint32_t axis, bool intoWhole,
                        std::unique_ptr<Kernel>* out) {
    ElementType type;
    if (!ToElementType(whole.dataType, &type)) {
        return NoKernel("%s does not support data type %s on CUDA.", args.schema.name, DataTypeName(whole.dataType));
    }
    const uint32_t bytes = ElementBytes(type);
    std::vector<AxisPiecesKernel::Piece> planned;
    uint64_t position = 0;  // along the axis
    for (const auto& piece : pieces) {
        INVALID_IF(piece->dataType != whole.dataType, "%s needs every tensor to have one data type (%s, %s).",
                   args.schema.name, DataTypeName(piece->dataType), DataTypeName(whole.dataType));
        // The piece's slice of the whole tensor: the piece's sizes, the whole tensor's strides.
        TensorDesc slice = whole;
        slice.sizes = piece->sizes;
        planned.push_back({intoWhole ? CopyPlan(slice, *piece) : CopyPlan(*piece, slice),
                           int64_t(position * whole.strides[axis] * bytes)});
        position += piece->sizes[axis];
    }
    *out = std::make_unique<AxisPiecesKernel>(args.schema.name, intoWhole, std::move(planned), bytes);
    return {};
}

}  // namespace

Status CreateCudaJoin(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    return CreateAxisPieces(args, *args.outputs[0], args.inputs, args.As<DML_JOIN_OPERATOR_DESC>().Axis, true, out);
}

Status CreateCudaSplit(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    return CreateAxisPieces(args, *args.inputs[0], args.outputs, args.As<DML_SPLIT_OPERATOR_DESC>().Axis, false, out);
}

}  // namespace freedml::dml::cuda
