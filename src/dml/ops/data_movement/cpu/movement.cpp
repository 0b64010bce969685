// CPU kernels of SLICE, SLICE1, the space/depth operators (one strided copy through a view of the
// input that movement_params.cpp computes), PADDING, PADDING1 and TILE (an index map: each output
// coordinate reads an input coordinate chosen per dimension, or the padding constant), and the
// GATHER operators (GatherMap: index tuples read per output element), the SCATTER operators (the
// input copied, then the same map walked backwards), SLICE_GRAD, REVERSE_SUBSEQUENCES, UNFOLD and
// FOLD (WindowMap). Every data type of 8 to 64 bits, any strides: they move elements by size
// (FOLD, which sums, by type).
#include <algorithm>
#include <cstring>
#include <vector>

#include "common/half.h"
#include "dml/kernels/cpu/kernel_adapter.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/ops/data_movement/cpu/strided_copy.h"
#include "dml/ops/data_movement/movement_params.h"

namespace freedml::dml::cpu {
namespace {

Status ElementBytesOf(const OperatorArgs& args, uint32_t* bytes) {
    const DML_TENSOR_DATA_TYPE type = args.outputs[0]->dataType;
    *bytes = ElementSizeInBytes(type);
    INVALID_IF(*bytes == 0 || type == DML_TENSOR_DATA_TYPE_UINT4 || type == DML_TENSOR_DATA_TYPE_INT4,
               "DML_OPERATOR_%s does not support data type %s on the CPU.", args.schema.name, DataTypeName(type));
    return {};
}

class CopyKernel {
public:
    Status Create(const OperatorArgs& args) {
        FREEDML_TRY(ElementBytesOf(args, &bytes_));
        Plan(DecodeMovementCopy(args), bytes_);
        return {};
    }
    void Plan(const MovementCopy& copy, uint32_t bytes) {
        bytes_ = bytes;
        plan_ = MakeLoopPlan<2, int64_t>(copy.sizes, copy.rank, {copy.outStrides, copy.inStrides}, {bytes_, bytes_});
        inOffsetBytes_ = copy.inOffset * int64_t(bytes_);
    }
    void Execute(ThreadPool* threads, TensorView input, TensorView output) const {
        Run(threads, input.data, output.data);
    }
    void Run(ThreadPool* threads, const std::byte* in, std::byte* out) const {
        ParallelLoop(threads, plan_, {out, const_cast<std::byte*>(in) + inOffsetBytes_}, CopyRowOf(bytes_));
    }

private:
    LoopPlan<2> plan_;  // operands: output, input
    int64_t inOffsetBytes_ = 0;
    uint32_t bytes_ = 0;
};

// The index map with one table per dimension (byte offset into the input of each output
// coordinate, -1 for the constant), so a row costs one table read per element.
class IndexMapKernel {
public:
    Status Create(const OperatorArgs& args) {
        FREEDML_TRY(ElementBytesOf(args, &bytes_));
        Plan(DecodeIndexMap(args), bytes_);
        return {};
    }
    void Plan(const IndexMap& map, uint32_t bytes) {
        bytes_ = bytes;
        rank_ = map.rank;
        constantBits_ = map.constantBits;
        for (uint32_t d = 0; d < rank_; ++d) {
            sizes_[d] = map.outSizes[d];
            outStrideBytes_[d] = map.outStrides[d] * bytes_;
            std::vector<int64_t>& table = tables_[d];
            table.resize(map.outSizes[d]);
            for (uint32_t o = 0; o < map.outSizes[d]; ++o) {
                const int64_t i = MapCoordinate(map.mode, int64_t(o) - map.start[d], map.inSizes[d]);
                table[o] = i < 0 ? -1 : i * map.inStrides[d] * bytes_;
            }
        }
        // Output coordinates [start, start + n) of the innermost dimension read the input in order;
        // where both sides are packed there, that run is one memcpy per row.
        if (rank_ > 0) {
            const uint32_t last = rank_ - 1;
            const int64_t width = map.outSizes[last];
            interiorLo_ = std::clamp<int64_t>(map.start[last], 0, width);
            interiorHi_ = std::clamp<int64_t>(map.start[last] + map.inSizes[last], 0, width);
            packedInterior_ = map.inStrides[last] == 1 && map.outStrides[last] == 1 && interiorHi_ > interiorLo_;
        }
    }
    void Execute(ThreadPool* threads, TensorView input, TensorView output) const {
        Execute(threads, input.data, output.data);
    }
    void Execute(ThreadPool* threads, const std::byte* in, std::byte* out) const {
        switch (bytes_) {
            case 1:
                return Run<uint8_t>(threads, in, out);
            case 2:
                return Run<uint16_t>(threads, in, out);
            case 4:
                return Run<uint32_t>(threads, in, out);
            default:
                return Run<uint64_t>(threads, in, out);
        }
    }

private:
    template <class T>
    void Run(ThreadPool* threads, const std::byte* in, std::byte* out) const {
        T constant;
        std::memcpy(&constant, &constantBits_, sizeof(T));  // little-endian: the low bytes
        const uint32_t last = rank_ - 1;
        const uint64_t width = sizes_[last];
        uint64_t rows = 1;
        for (uint32_t d = 0; d < last; ++d) rows *= sizes_[d];
        const int64_t* lastTable = tables_[last].data();
        const int64_t lastStride = outStrideBytes_[last];
        ParallelFor(threads, rows, std::max<uint64_t>(1, (1u << 14) / std::max<uint64_t>(width, 1)),
                    [&](uint64_t begin, uint64_t end) {
                        for (uint64_t row = begin; row < end; ++row) {
                            // The row's outer coordinates, from the innermost outer dimension outwards.
                            int64_t inOffset = 0, outOffset = 0;
                            bool constantRow = false;
                            uint64_t rest = row;
                            for (uint32_t d = last; d-- > 0;) {
                                const uint64_t c = rest % sizes_[d];
                                rest /= sizes_[d];
                                const int64_t t = tables_[d][c];
                                constantRow |= t < 0;
                                inOffset += t;
                                outOffset += int64_t(c) * outStrideBytes_[d];
                            }
                            auto elements = [&](uint64_t from, uint64_t to) {
                                std::byte* o = out + outOffset + int64_t(from) * lastStride;
                                for (uint64_t j = from; j < to; ++j, o += lastStride) {
                                    const int64_t t = lastTable[j];
                                    T v = constant;
                                    if (!constantRow && t >= 0) std::memcpy(&v, in + inOffset + t, sizeof(T));
                                    std::memcpy(o, &v, sizeof(T));
                                }
                            };
                            if (constantRow || !packedInterior_) {
                                elements(0, width);
                                continue;
                            }
                            elements(0, uint64_t(interiorLo_));
                            std::memcpy(out + outOffset + interiorLo_ * lastStride,
                                        in + inOffset + lastTable[interiorLo_],
                                        uint64_t(interiorHi_ - interiorLo_) * sizeof(T));
                            elements(uint64_t(interiorHi_), width);
                        }
                    });
    }

    uint32_t rank_ = 0;
    uint32_t bytes_ = 0;
    uint64_t constantBits_ = 0;
    std::array<uint64_t, kMovementMaxDims> sizes_{};
    std::array<int64_t, kMovementMaxDims> outStrideBytes_{};
    std::array<std::vector<int64_t>, kMovementMaxDims> tables_;
    int64_t interiorLo_ = 0, interiorHi_ = 0;
    bool packedInterior_ = false;
};

// Loads an index of the IndicesTensor's type, signed or unsigned as that type is.
template <class I>
int64_t IndexAt(const std::byte* p, int64_t n) {
    I v;
    std::memcpy(&v, p, sizeof(I));
    return ClampIndexOf(v, n);
}

// The GATHER operators: per output element, the index tuple's offset and the pass-through part of
// the input offset follow the output coordinate; each index then adds its dimension's stride.
// With `scatter` the same map runs backwards (SCATTER_ELEMENTS, SCATTER_ND): the map's output side
// is UpdatesTensor, read, and its input side OutputTensor, written; an index outside the output
// skips its update. The scatter runs on one thread in the updates' order, so that of duplicate
// indices (undefined in DirectML) the last update in that order wins, the same on every run.
class GatherKernel {
public:
    Status Create(const OperatorArgs& args) {
        FREEDML_TRY(ElementBytesOf(args, &bytes_));
        map_ = DecodeGatherMap(args);
        indexType_ = args.inputs[1]->dataType;
        return {};
    }
    Status CreateScatter(const OperatorArgs& args, const GatherMap& map) {
        FREEDML_TRY(ElementBytesOf(args, &bytes_));
        map_ = map;
        indexType_ = args.inputs[1]->dataType;
        scatter_ = true;
        return {};
    }
    void Execute(ThreadPool* threads, TensorView input, TensorView indices, TensorView output) const {
        Execute(threads, input.data, indices.data, output.data);
    }
    // For a scatter `in` is UpdatesTensor and `out` OutputTensor.
    void Execute(ThreadPool* threads, const std::byte* in, const std::byte* idx, std::byte* out) const {
        switch (indexType_) {
            case DML_TENSOR_DATA_TYPE_INT64:
                return RunIndex<int64_t>(threads, in, idx, out);
            case DML_TENSOR_DATA_TYPE_INT32:
                return RunIndex<int32_t>(threads, in, idx, out);
            case DML_TENSOR_DATA_TYPE_UINT64:
                return RunIndex<uint64_t>(threads, in, idx, out);
            default:
                return RunIndex<uint32_t>(threads, in, idx, out);
        }
    }

private:
    template <class I>
    void RunIndex(ThreadPool* threads, const std::byte* in, const std::byte* idx, std::byte* out) const {
        switch (bytes_) {
            case 1:
                return Run<uint8_t, I>(threads, in, idx, out);
            case 2:
                return Run<uint16_t, I>(threads, in, idx, out);
            case 4:
                return Run<uint32_t, I>(threads, in, idx, out);
            default:
                return Run<uint64_t, I>(threads, in, idx, out);
        }
    }
    template <class T, class I>
    void Run(ThreadPool* threads, const std::byte* in, const std::byte* idx, std::byte* out) const {
        if (scatter_) return Scatter<T, I>(in, idx, out);
        const GatherMap& m = map_;
        const uint32_t last = m.rank - 1;
        if (m.rank > 0 && m.outSizes[last] > 1 && m.idxStrides[last] == 0 && m.inStrides[last] == 1 &&
            m.outStrides[last] == 1) {
            return GatherRows<T, I>(threads, in, idx, out);
        }
        ParallelFor(threads, m.count, 1u << 13, [&](uint64_t begin, uint64_t end) {
            for (uint64_t i = begin; i < end; ++i) {
                uint64_t rest = i;
                int64_t inOffset = 0, idxOffset = 0, outOffset = 0;
                for (uint32_t d = m.rank; d-- > 0;) {
                    const int64_t c = int64_t(rest % m.outSizes[d]);
                    rest /= m.outSizes[d];
                    inOffset += c * m.inStrides[d];
                    idxOffset += c * m.idxStrides[d];
                    outOffset += c * m.outStrides[d];
                }
                for (uint32_t k = 0; k < m.tupleSize; ++k) {
                    const std::byte* p = idx + (idxOffset + int64_t(k) * m.tupleStride) * int64_t(sizeof(I));
                    inOffset += IndexAt<I>(p, m.componentSizes[k]) * m.componentStrides[k];
                }
                std::memcpy(out + outOffset * int64_t(sizeof(T)), in + inOffset * int64_t(sizeof(T)), sizeof(T));
            }
        });
    }

    // The innermost dimension passes through packed on both sides (an embedding lookup): one index
    // tuple per row, the row one memcpy.
    template <class T, class I>
    void GatherRows(ThreadPool* threads, const std::byte* in, const std::byte* idx, std::byte* out) const {
        const GatherMap& m = map_;
        const uint32_t last = m.rank - 1;
        const uint64_t width = m.outSizes[last];
        const uint64_t rows = m.count / width;
        ParallelFor(threads, rows, std::max<uint64_t>(1, (1u << 13) / width), [&](uint64_t begin, uint64_t end) {
            for (uint64_t row = begin; row < end; ++row) {
                uint64_t rest = row;
                int64_t inOffset = 0, idxOffset = 0, outOffset = 0;
                for (uint32_t d = last; d-- > 0;) {
                    const int64_t c = int64_t(rest % m.outSizes[d]);
                    rest /= m.outSizes[d];
                    inOffset += c * m.inStrides[d];
                    idxOffset += c * m.idxStrides[d];
                    outOffset += c * m.outStrides[d];
                }
                for (uint32_t k = 0; k < m.tupleSize; ++k) {
                    const std::byte* p = idx + (idxOffset + int64_t(k) * m.tupleStride) * int64_t(sizeof(I));
                    inOffset += IndexAt<I>(p, m.componentSizes[k]) * m.componentStrides[k];
                }
                std::memcpy(out + outOffset * int64_t(sizeof(T)), in + inOffset * int64_t(sizeof(T)),
                            width * sizeof(T));
            }
        });
    }

    template <class T, class I>
    void Scatter(const std::byte* upd, const std::byte* idx, std::byte* out) const {
        const GatherMap& m = map_;
        for (uint64_t i = 0; i < m.count; ++i) {
            uint64_t rest = i;
            int64_t outOffset = 0, idxOffset = 0, updOffset = 0;
            for (uint32_t d = m.rank; d-- > 0;) {
                const int64_t c = int64_t(rest % m.outSizes[d]);
                rest /= m.outSizes[d];
                outOffset += c * m.inStrides[d];
                idxOffset += c * m.idxStrides[d];
                updOffset += c * m.outStrides[d];
            }
            bool skip = false;
            for (uint32_t k = 0; k < m.tupleSize; ++k) {
                I v;
                std::memcpy(&v, idx + (idxOffset + int64_t(k) * m.tupleStride) * int64_t(sizeof(I)), sizeof(I));
                const int64_t j = ScatterIndexOf(v, m.componentSizes[k]);
                skip |= j < 0;
                outOffset += j * m.componentStrides[k];
            }
            if (!skip) {
                std::memcpy(out + outOffset * int64_t(sizeof(T)), upd + updOffset * int64_t(sizeof(T)), sizeof(T));
            }
        }
    }

    GatherMap map_;
    DML_TENSOR_DATA_TYPE indexType_ = DML_TENSOR_DATA_TYPE_UINT32;
    uint32_t bytes_ = 0;
    bool scatter_ = false;
};

// SCATTER_ELEMENTS and SCATTER_ND: the input copied into the output, then the updates written.
class ScatterKernel {
public:
    Status Create(const OperatorArgs& args) {
        uint32_t bytes = 0;
        FREEDML_TRY(ElementBytesOf(args, &bytes));
        const ScatterPlan plan = DecodeScatterPlan(args);
        copy_.Plan(plan.copy, bytes);
        return scatter_.CreateScatter(args, plan.map);
    }
    void Execute(ThreadPool* threads, TensorView input, TensorView indices, TensorView updates,
                 TensorView output) const {
        copy_.Run(threads, input.data, output.data);
        scatter_.Execute(threads, updates.data, indices.data, output.data);
    }

private:
    CopyKernel copy_;
    GatherKernel scatter_;
};

// SLICE_GRAD: zeros everywhere, then the input gradient copied into the window.
class SliceGradKernel {
public:
    Status Create(const OperatorArgs& args) {
        uint32_t bytes = 0;
        FREEDML_TRY(ElementBytesOf(args, &bytes));
        const SliceGradPlan plan = DecodeSliceGrad(args);
        zero_.Plan(plan.zero, bytes);
        copy_.Plan(plan.copy, bytes);
        outOffsetBytes_ = plan.outOffset * int64_t(bytes);
        return {};
    }
    void Execute(ThreadPool* threads, TensorView input, TensorView output) const {
        zero_.Execute(threads, nullptr, output.data);  // every element is the constant: nothing is read
        copy_.Run(threads, input.data, output.data + outOffsetBytes_);
    }

private:
    IndexMapKernel zero_;
    CopyKernel copy_;
    int64_t outOffsetBytes_ = 0;
};

// REVERSE_SUBSEQUENCES: per output element, its subsequence's length and the reversed coordinate.
class ReverseKernel {
public:
    Status Create(const OperatorArgs& args) {
        FREEDML_TRY(ElementBytesOf(args, &bytes_));
        map_ = DecodeReverseMap(args);
        wideLengths_ = args.inputs[1]->dataType == DML_TENSOR_DATA_TYPE_UINT64;
        return {};
    }
    void Execute(ThreadPool* threads, TensorView input, TensorView lengths, TensorView output) const {
        switch (bytes_) {
            case 1:
                return Run<uint8_t>(threads, input.data, lengths.data, output.data);
            case 2:
                return Run<uint16_t>(threads, input.data, lengths.data, output.data);
            case 4:
                return Run<uint32_t>(threads, input.data, lengths.data, output.data);
            default:
                return Run<uint64_t>(threads, input.data, lengths.data, output.data);
        }
    }

private:
    template <class T>
    void Run(ThreadPool* threads, const std::byte* in, const std::byte* lengths, std::byte* out) const {
        const ReverseMap& m = map_;
        ParallelFor(threads, m.count, 1u << 13, [&](uint64_t begin, uint64_t end) {
            for (uint64_t i = begin; i < end; ++i) {
                uint64_t rest = i;
                int64_t inOffset = 0, outOffset = 0, lenOffset = 0, along = 0;
                for (uint32_t d = m.rank; d-- > 0;) {
                    const int64_t c = int64_t(rest % m.sizes[d]);
                    rest /= m.sizes[d];
                    if (d == m.axis) {
                        along = c;
                    } else {
                        inOffset += c * m.inStrides[d];
                    }
                    outOffset += c * m.outStrides[d];
                    lenOffset += c * m.lenStrides[d];
                }
                uint64_t length;
                if (wideLengths_) {
                    std::memcpy(&length, lengths + lenOffset * 8, 8);
                } else {
                    uint32_t narrow;
                    std::memcpy(&narrow, lengths + lenOffset * 4, 4);
                    length = narrow;
                }
                inOffset += ReversedCoordinate(along, length, m.sizes[m.axis]) * m.inStrides[m.axis];
                std::memcpy(out + outOffset * int64_t(sizeof(T)), in + inOffset * int64_t(sizeof(T)), sizeof(T));
            }
        });
    }

    ReverseMap map_;
    uint32_t bytes_ = 0;
    bool wideLengths_ = false;
};

// UNFOLD: each column element copies its image element, or zero in the padding.
class UnfoldKernel {
public:
    Status Create(const OperatorArgs& args) {
        FREEDML_TRY(ElementBytesOf(args, &bytes_));
        map_ = DecodeWindowMap(args);
        return {};
    }
    void Execute(ThreadPool* threads, TensorView input, TensorView output) const {
        switch (bytes_) {
            case 1:
                return Run<uint8_t>(threads, input.data, output.data);
            case 2:
                return Run<uint16_t>(threads, input.data, output.data);
            case 4:
                return Run<uint32_t>(threads, input.data, output.data);
            default:
                return Run<uint64_t>(threads, input.data, output.data);
        }
    }

private:
    template <class T>
    void Run(ThreadPool* threads, const std::byte* in, std::byte* out) const {
        ParallelFor(threads, map_.count, 1u << 13, [&](uint64_t begin, uint64_t end) {
            for (uint64_t i = begin; i < end; ++i) {
                int64_t column, image;
                UnfoldOffsets(map_, i, &column, &image);
                T v{};  // zero bits: zero of every type
                if (image >= 0) std::memcpy(&v, in + image * int64_t(sizeof(T)), sizeof(T));
                std::memcpy(out + column * int64_t(sizeof(T)), &v, sizeof(T));
            }
        });
    }

    WindowMap map_;
    uint32_t bytes_ = 0;
};

// FOLD: each image element sums the column elements that land on it, in window order (FLOAT16 in
// float, the others in their own type).
class FoldKernel {
public:
    Status Create(const OperatorArgs& args) {
        map_ = DecodeWindowMap(args);
        type_ = FoldTypeOf(args.outputs[0]->dataType);
        return {};
    }
    void Execute(ThreadPool* threads, TensorView input, TensorView output) const {
        switch (type_) {
            case FoldType::F64:
                return Run<double, double>(threads, input.data, output.data);
            case FoldType::F32:
                return Run<float, float>(threads, input.data, output.data);
            case FoldType::F16:
                return Run<uint16_t, float>(threads, input.data, output.data);
            case FoldType::I64:
                return Run<int64_t, int64_t>(threads, input.data, output.data);
            case FoldType::I32:
                return Run<int32_t, int32_t>(threads, input.data, output.data);
            case FoldType::U64:
                return Run<uint64_t, uint64_t>(threads, input.data, output.data);
            case FoldType::U32:
                return Run<uint32_t, uint32_t>(threads, input.data, output.data);
            // 8- and 16-bit sums in unsigned 32-bit arithmetic, kept modulo the type (they wrap as
            // DirectML's integer ADD does).
            case FoldType::I16:
                return Run<int16_t, uint32_t>(threads, input.data, output.data);
            case FoldType::I8:
                return Run<int8_t, uint32_t>(threads, input.data, output.data);
            case FoldType::U16:
                return Run<uint16_t, uint32_t>(threads, input.data, output.data);
            case FoldType::U8:
                return Run<uint8_t, uint32_t>(threads, input.data, output.data);
        }
    }

private:
    template <class T, class Acc>
    void Run(ThreadPool* threads, const std::byte* in, std::byte* out) const {
        constexpr bool kHalf = std::is_same_v<T, uint16_t> && std::is_same_v<Acc, float>;
        ParallelFor(threads, map_.count, 1u << 11, [&](uint64_t begin, uint64_t end) {
            for (uint64_t i = begin; i < end; ++i) {
                Acc sum{};
                const int64_t image = FoldGather(map_, i, [&](int64_t column) {
                    T v;
                    std::memcpy(&v, in + column * int64_t(sizeof(T)), sizeof(T));
                    if constexpr (kHalf) {
                        sum += HalfToFloat(v);
                    } else {
                        sum += Acc(v);
                    }
                });
                T result;
                if constexpr (kHalf) {
                    result = FloatToHalf(sum);
                } else {
                    result = T(sum);
                }
                std::memcpy(out + image * int64_t(sizeof(T)), &result, sizeof(T));
            }
        });
    }

    WindowMap map_;
    FoldType type_ = FoldType::F32;
};

template <class Impl>
Status CreateUnaryMovement(const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    Impl kernel;
    FREEDML_TRY(kernel.Create(args));
    const OperatorArgs* a = &args;  // the operator outlives its compiled kernels
    *out = MakeStateless(std::move(kernel), [a](const Impl& k, const KernelBindings& b) {
        k.Execute(HostThreads(b), ViewOf(a->inputs, b.inputs, 0), ViewOf(a->outputs, b.outputs, 0));
    });
    return {};
}

}  // namespace

// The factories the operator table names (dml/ops/operators.def).
Status CreateCpuMovementCopy(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    return CreateUnaryMovement<CopyKernel>(args, out);
}

Status CreateCpuIndexMap(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    return CreateUnaryMovement<IndexMapKernel>(args, out);
}

Status CreateCpuGather(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    GatherKernel kernel;
    FREEDML_TRY(kernel.Create(args));
    const OperatorArgs* a = &args;  // the operator outlives its compiled kernels
    *out = MakeStateless(std::move(kernel), [a](const GatherKernel& k, const KernelBindings& b) {
        k.Execute(HostThreads(b), ViewOf(a->inputs, b.inputs, 0), ViewOf(a->inputs, b.inputs, 1),
                  ViewOf(a->outputs, b.outputs, 0));
    });
    return {};
}

Status CreateCpuScatter(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    ScatterKernel kernel;
    FREEDML_TRY(kernel.Create(args));
    const OperatorArgs* a = &args;  // the operator outlives its compiled kernels
    *out = MakeStateless(std::move(kernel), [a](const ScatterKernel& k, const KernelBindings& b) {
        k.Execute(HostThreads(b), ViewOf(a->inputs, b.inputs, 0), ViewOf(a->inputs, b.inputs, 1),
                  ViewOf(a->inputs, b.inputs, 2), ViewOf(a->outputs, b.outputs, 0));
    });
    return {};
}

Status CreateCpuSliceGrad(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    return CreateUnaryMovement<SliceGradKernel>(args, out);
}

Status CreateCpuReverseSubsequences(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    ReverseKernel kernel;
    FREEDML_TRY(kernel.Create(args));
    const OperatorArgs* a = &args;  // the operator outlives its compiled kernels
    *out = MakeStateless(std::move(kernel), [a](const ReverseKernel& k, const KernelBindings& b) {
        k.Execute(HostThreads(b), ViewOf(a->inputs, b.inputs, 0), ViewOf(a->inputs, b.inputs, 1),
                  ViewOf(a->outputs, b.outputs, 0));
    });
    return {};
}

Status CreateCpuFold(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    return CreateUnaryMovement<FoldKernel>(args, out);
}

Status CreateCpuUnfold(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    return CreateUnaryMovement<UnfoldKernel>(args, out);
}

}  // namespace freedml::dml::cpu
