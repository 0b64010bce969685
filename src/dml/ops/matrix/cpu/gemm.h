// CPU kernel of GEMM: Output = FusedActivation(Alpha * op(A) x op(B) + Beta * C), over tensors
// of rank 2 and more whose leading dimensions are batch dimensions (a batch dimension of size 1,
// or of stride 0, broadcasts). FLOAT32 and FLOAT16 (FLOAT16 computes in float).
//
// Create chooses the path: oneDNN matmul when it is built in and every matrix has a unit stride in
// one of its two last dimensions; our reference kernel otherwise (any strides). FLOAT16 reaches
// oneDNN through packed FLOAT32 copies (float32_copy.h: whatever its strides), converted into the
// temporary resource at Execute, or once at Initialize for an owned tensor; the FLOAT32 result is
// rounded once into the output. A single FLOAT16 matrix of medium size runs in row panels, each
// thread of oneDNN's team converting, multiplying and rounding its own rows (onednn.cpp).
// OWNED_BY_DML tensors are copied into the persistent resource by Initialize; with oneDNN the owned
// B of a product large enough for its team goes into the weights layout oneDNN prefers, so Execute
// never repacks it.
#pragma once

#include <DirectML.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/thread_pool.h"
#include "common/status.h"
#include "dml/kernels/cpu/activation.h"
#include "dml/kernels/cpu/tensor_view.h"
#include "dml/tensor.h"

namespace freedml::dml::cpu {

struct GemmParams {
    TensorDesc a;
    TensorDesc b;
    std::optional<TensorDesc> c;
    TensorDesc output;
    DML_MATRIX_TRANSFORM transA = DML_MATRIX_TRANSFORM_NONE;
    DML_MATRIX_TRANSFORM transB = DML_MATRIX_TRANSFORM_NONE;
    float alpha = 1.0f;
    float beta = 1.0f;
    FusedActivation activation;
    bool forceReference = false;  // tests and debugging: never use oneDNN
};

class GemmKernel {
public:
    GemmKernel();
    ~GemmKernel();
    GemmKernel(GemmKernel&&) noexcept;
    GemmKernel& operator=(GemmKernel&&) noexcept;

    Status Create(const GemmParams& params);
    uint64_t PersistentSizeInBytes() const { return persistentSize_; }
    uint64_t TemporarySizeInBytes() const { return temporarySize_; }
    // Views of the OWNED_BY_DML tensors (the others may have null data; c is ignored when absent).
    void Initialize(TensorView a, TensorView b, TensorView c, std::byte* persistent) const;
    // Owned tensors are read from the persistent resource; their views here may have null data.
    void Execute(ThreadPool* threads, TensorView a, TensorView b, TensorView c, TensorView output,
                 std::byte* persistent, std::byte* temporary) const;

    bool UsesOneDnn() const { return oneDnn_ != nullptr; }
    // "oneDNN matmul (<implementation>)" or "reference", and why oneDNN was not used.
    const std::string& PathDescription() const { return path_; }

private:
    struct Geometry {
        uint32_t batchRank = 0;
        std::array<uint32_t, kMaxTensorRank> batchSizes{};
        // Per batch dimension, in elements; 0 where the operand broadcasts.
        std::array<int64_t, kMaxTensorRank> aBatch{}, bBatch{}, cBatch{}, oBatch{};
        uint64_t batchCount = 1;
        uint32_t m = 0, n = 0, k = 0;
        int64_t aM = 0, aK = 0, bK = 0, bN = 0, cM = 0, cN = 0, oM = 0, oN = 0;
    };
    struct OneDnnState;

    // op(A), op(B), C and Output as strides and sizes (after Create's validation of the sizes).
    static Geometry GeometryOf(const GemmParams& p);
    void ExecuteReference(ThreadPool* threads, const std::byte* a, const std::byte* b, const std::byte* c,
                          std::byte* out, std::byte* temporary) const;
    // oneDNN's part, in kernels/cpu/onednn.cpp (the one file that calls oneDNN).
    void TryOneDnn();
    uint64_t OneDnnOwnedBSize(uint64_t plainSize) const;  // an owned B's bytes in the persistent resource
    uint64_t OneDnnScratchSize() const;
    // True when it packed an owned B (`b`: its elements as compute_.b describes them).
    bool InitializeOneDnn(const std::byte* b, std::byte* persistent) const;
    void ExecuteOneDnn(ThreadPool* threads, const std::byte* a, const std::byte* b, const std::byte* c,
                       TensorView output, std::byte* temporary) const;
    // FLOAT16 (half_): the FLOAT32 copies of the unowned operands (`owned`: the persistent copies of
    // A, B and C, or null), the product, the output rounded once; the form (team or twin, row
    // panels or not) chosen first, so that the conversions run as the product does.
    void ExecuteOneDnnHalf(ThreadPool* threads, TensorView a, TensorView b, TensorView c, TensorView output,
                           const std::array<const std::byte*, 3>& owned, std::byte* temporary) const;
    // The matmul in the form `solo` names (after copying C into the output where a sum post-op scales
    // it), and the activation pass where oneDNN does not fuse it.
    void RunMatmul(const OneDnnState& s, ThreadPool* threads, const std::byte* a, const std::byte* b,
                   const std::byte* c, TensorView output, std::byte* temporary, bool solo) const;
    // FLOAT16 in the row panels TryOneDnn planned: each thread of the team converts its rows of A (or
    // reads them from `aOwned`), multiplies and rounds its rows of the output, or with `solo` this
    // thread does every panel in turn. False where the team's form fell back to this thread.
    bool RunHalfRowPanels(bool solo, TensorView a, const std::byte* aOwned, const std::byte* b, const std::byte* c,
                          TensorView output, std::byte* temporary) const;

    GemmParams params_;
    Geometry g_;
    // What oneDNN computes on: params_ itself, or for FLOAT16 (half_) the packed FLOAT32 copies.
    GemmParams compute_;
    Geometry computeG_;
    bool half_ = false;
    // Byte offsets in the temporary resource of the FLOAT32 copies (half_), after oneDNN's scratchpad.
    uint64_t aTemp_ = 0, bTemp_ = 0, cTemp_ = 0, oTemp_ = 0;
    // Byte offsets of the owned tensors' copies in the persistent resource (UINT64_MAX: not owned).
    uint64_t aOffset_ = UINT64_MAX, bOffset_ = UINT64_MAX, cOffset_ = UINT64_MAX;
    uint64_t persistentSize_ = 0;
    uint64_t temporarySize_ = 0;
    std::unique_ptr<OneDnnState> oneDnn_;
    std::string path_;
};

}  // namespace freedml::dml::cpu
