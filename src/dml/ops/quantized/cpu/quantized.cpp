// CPU kernels of the quantized family: the three integer matrix multiplies, the two integer
// convolutions, quantized average pooling and dynamic quantization. Straightforward loops over
// tensor views with any strides; integer products accumulate exactly (int32 for 8-bit data, int64
// for the wider types MATRIX_MULTIPLY_INTEGER_TO_FLOAT reads, the int32 result wrapping as int32
// arithmetic would). Requantization is float32: the real value divided by the output scale, rounded
// half to even, plus the zero point, saturated to the output type.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/int8_gemm.h"
#include "dml/kernels/cpu/kernel_adapter.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/ops/quantized/quantized_conv_fields.h"

namespace freedml::dml::cpu {
namespace {

int64_t LoadInt(DML_TENSOR_DATA_TYPE type, const std::byte* p) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_INT8: { int8_t v; std::memcpy(&v, p, 1); return v; }
        case DML_TENSOR_DATA_TYPE_UINT8: { uint8_t v; std::memcpy(&v, p, 1); return v; }
        case DML_TENSOR_DATA_TYPE_INT16: { int16_t v; std::memcpy(&v, p, 2); return v; }
        case DML_TENSOR_DATA_TYPE_UINT16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
        case DML_TENSOR_DATA_TYPE_INT32: { int32_t v; std::memcpy(&v, p, 4); return v; }
        case DML_TENSOR_DATA_TYPE_UINT32: { uint32_t v; std::memcpy(&v, p, 4); return v; }
        default: return 0;
    }
}

float LoadFloat(DML_TENSOR_DATA_TYPE type, const std::byte* p) {
    if (type == DML_TENSOR_DATA_TYPE_FLOAT16) {
        uint16_t h;
        std::memcpy(&h, p, 2);
        return HalfToFloat(h);
    }
    float v;
    std::memcpy(&v, p, 4);
    return v;
}

void StoreFloat(DML_TENSOR_DATA_TYPE type, std::byte* p, float v) {
    if (type == DML_TENSOR_DATA_TYPE_FLOAT16) {
        const uint16_t h = FloatToHalf(v);
        std::memcpy(p, &h, 2);
    } else {
        std::memcpy(p, &v, 4);
    }
}

// round(value) half to even, plus the zero point, saturated to INT8 or UINT8; NaN gives the zero point.
void StoreQuantized(DML_TENSOR_DATA_TYPE type, std::byte* p, float value, int32_t zeroPoint) {
    const bool isSigned = type == DML_TENSOR_DATA_TYPE_INT8;
    const float lo = isSigned ? -128.0f : 0.0f, hi = isSigned ? 127.0f : 255.0f;
    const float r = std::nearbyint(value);
    float q = r != r ? float(zeroPoint) : r + float(zeroPoint);
    q = std::min(std::max(q, lo), hi);
    if (isSigned) {
        const int8_t v = int8_t(int32_t(q));
        std::memcpy(p, &v, 1);
    } else {
        const uint8_t v = uint8_t(int32_t(q));
        std::memcpy(p, &v, 1);
    }
}

// A tensor read at a multi-index of the output's shape: sizes of 1 broadcast (stride 0).
struct Indexed {
    const std::byte* data = nullptr;
    DML_TENSOR_DATA_TYPE type = DML_TENSOR_DATA_TYPE_UNKNOWN;
    uint32_t rank = 0;
    std::array<int64_t, kMaxTensorRank> strides{};  // in bytes
    int64_t elementSize = 0;

    bool Present() const { return data != nullptr; }
    const std::byte* At(const uint32_t* index) const {
        int64_t offset = 0;
        for (uint32_t d = 0; d < rank; ++d) offset += int64_t(index[d]) * strides[d];
        return data + offset;
    }
    int64_t Int(const uint32_t* index) const { return data ? LoadInt(type, At(index)) : 0; }
    float Float(const uint32_t* index, float absent = 1.0f) const { return data ? LoadFloat(type, At(index)) : absent; }
};

Indexed IndexOf(TensorView view) {
    Indexed t;
    if (!view.desc || !view.data) return t;
    const TensorDesc& d = view.Desc();
    t.data = view.data;
    t.type = d.dataType;
    t.rank = d.rank;
    t.elementSize = ElementSizeInBytes(d.dataType);
    for (uint32_t i = 0; i < d.rank; ++i) t.strides[i] = d.sizes[i] == 1 ? 0 : int64_t(d.strides[i]) * t.elementSize;
    return t;
}

// Calls fn(index) for every multi-index of `sizes` (row-major order).
template <class Fn>
void ForEachIndex(const TensorDesc& shape, Fn&& fn) {
    const uint64_t count = shape.ElementCount();
    std::array<uint32_t, kMaxTensorRank> index{};
    for (uint64_t e = 0; e < count; ++e) {
        fn(index.data());
        for (int d = int(shape.rank) - 1; d >= 0; --d) {
            if (++index[d] < shape.sizes[d]) break;
            index[d] = 0;
        }
    }
}

// ---- Matrix multiplies --------------------------------------------------------------------------

enum class MatMulKind { Integer, QuantizedLinear, IntegerToFloat };

struct MatMulKernel {
    MatMulKind kind;
    TensorDesc output;
    uint32_t depth = 0;  // K
    bool wide = false;
    // oneDNN's integer GEMM: 8-bit A with unit column stride, INT8 B likewise (row strides in elements).
    bool oneDnn = false, aSigned = false;
    int64_t aRowStride = 0, bRowStride = 0;  // an input wider than 8 bits: accumulate in int64

    template <class Acc>
    void Run(ThreadPool* threads, const std::array<Indexed, 9>& t, TensorView outView) const;
    void Execute(ThreadPool* threads, const std::array<Indexed, 9>& t, TensorView out) const {
        if (wide) Run<int64_t>(threads, t, out);
        else Run<int32_t>(threads, t, out);
    }
};

template <class Acc>
void MatMulKernel::Run(ThreadPool* threads, const std::array<Indexed, 9>& t, TensorView outView) const {
    const Indexed &a = t[0], &aScale = t[1], &aZero = t[2], &b = t[3], &bScale = t[4], &bZero = t[5], &bias = t[6],
                  &oScale = t[7], &oZero = t[8];
    const Indexed out = IndexOf(outView);
    const uint32_t rank = output.rank, m = output.sizes[rank - 2], n = output.sizes[rank - 1];
    TensorDesc batchShape = output;
    batchShape.sizes[rank - 2] = batchShape.sizes[rank - 1] = 1;
    const uint32_t depth = this->depth;

    // Writes one result from its exact integer sum.
    auto emit = [&](const uint32_t* o, Acc acc) {
        std::byte* dst = const_cast<std::byte*>(out.At(o));
        if (kind == MatMulKind::Integer) {
            const int32_t v = int32_t(uint32_t(uint64_t(acc)));
            std::memcpy(dst, &v, 4);
            return;
        }
        const float real = float(acc) * aScale.Float(o) * bScale.Float(o);
        if (kind == MatMulKind::IntegerToFloat) {
            StoreFloat(out.type, dst, real + bias.Float(o, 0.0f));
        } else {
            StoreQuantized(out.type, dst, real / oScale.Float(o), int32_t(oZero.Int(o)));
        }
    };

    std::vector<Acc> packedA, packedB;
    std::vector<int32_t> raw, rowSums, columnSums, aZeros, bZeros;
    ForEachIndex(batchShape, [&](const uint32_t* batch) {
        std::array<uint32_t, kMaxTensorRank> idx{};
        std::copy(batch, batch + rank, idx.begin());
        if constexpr (sizeof(Acc) == 4) {
            // oneDNN's integer GEMM without zero points, then exactly (in wrapping int32)
            // (A - za)(B - zb) = AB - za colsum(B) - zb rowsum(A) + K za zb.
            if (oneDnn) {
                raw.resize(size_t(m) * n);
                if (Int8Gemm(aSigned, m, n, depth, a.At(idx.data()), aRowStride,
                             reinterpret_cast<const int8_t*>(b.At(idx.data())), bRowStride, raw.data(), n)) {
                    rowSums.assign(m, 0);
                    columnSums.assign(n, 0);
                    aZeros.resize(m);
                    bZeros.resize(n);
                    idx[rank - 2] = idx[rank - 1] = 0;
                    const std::byte* aBase = a.At(idx.data());
                    const std::byte* bBase = b.At(idx.data());
                    // Both 8-bit with unit column strides here (MatMulKernel::oneDnn).
                    ParallelFor(threads, m, 16, [&](uint64_t first, uint64_t last) {
                        for (uint64_t i = first; i < last; ++i) {
                            const std::byte* row = aBase + int64_t(i) * aRowStride;
                            int32_t sum = 0;
                            if (aSigned) {
                                for (uint32_t kk = 0; kk < depth; ++kk) sum += int8_t(row[kk]);
                            } else {
                                for (uint32_t kk = 0; kk < depth; ++kk) sum += uint8_t(row[kk]);
                            }
                            rowSums[i] = sum;
                        }
                    });
                    for (uint32_t kk = 0; kk < depth; ++kk) {
                        const std::byte* row = bBase + int64_t(kk) * bRowStride;
                        for (uint32_t j = 0; j < n; ++j) columnSums[j] += int8_t(row[j]);
                    }
                    for (uint32_t i = 0; i < m; ++i) {
                        idx[rank - 2] = i;
                        idx[rank - 1] = 0;
                        aZeros[i] = int32_t(aZero.Int(idx.data()));
                    }
                    for (uint32_t j = 0; j < n; ++j) {
                        idx[rank - 2] = 0;
                        idx[rank - 1] = j;
                        bZeros[j] = int32_t(bZero.Int(idx.data()));
                    }
                    // The scales of A per row and of B per column, and the output's quantization
                    // when it is per tensor (else read at each element).
                    std::vector<float> aScales(m, 1.0f), bScales(n, 1.0f);
                    if (kind != MatMulKind::Integer) {
                        for (uint32_t i = 0; i < m; ++i) {
                            idx[rank - 2] = i;
                            idx[rank - 1] = 0;
                            aScales[i] = aScale.Float(idx.data());
                        }
                        for (uint32_t j = 0; j < n; ++j) {
                            idx[rank - 2] = 0;
                            idx[rank - 1] = j;
                            bScales[j] = bScale.Float(idx.data());
                        }
                    }
                    auto perTensor = [&](const Indexed& q) {
                        for (uint32_t d = 0; d < rank; ++d) {
                            if (q.strides[d] != 0) return false;
                        }
                        return true;
                    };
                    const bool fastOutput = kind == MatMulKind::Integer ||
                                            (kind == MatMulKind::QuantizedLinear && perTensor(oScale) && perTensor(oZero));
                    idx[rank - 2] = idx[rank - 1] = 0;
                    const float outScale = kind == MatMulKind::QuantizedLinear ? oScale.Float(idx.data()) : 1.0f;
                    const int32_t outZero = kind == MatMulKind::QuantizedLinear ? int32_t(oZero.Int(idx.data())) : 0;
                    std::byte* outBase = const_cast<std::byte*>(out.At(idx.data()));
                    const int64_t outRow = out.strides[rank - 2], outColumn = out.strides[rank - 1];
                    ParallelFor(threads, m, 1, [&](uint64_t first, uint64_t last) {
                        std::array<uint32_t, kMaxTensorRank> o{};
                        std::copy(batch, batch + rank, o.begin());
                        for (uint64_t i = first; i < last; ++i) {
                            o[rank - 2] = uint32_t(i);
                            const uint32_t za = uint32_t(aZeros[i]), rs = uint32_t(rowSums[i]);
                            const int32_t* rawRow = &raw[size_t(i) * n];
                            std::byte* outRowData = outBase + int64_t(i) * outRow;
                            for (uint32_t j = 0; j < n; ++j) {
                                const uint32_t zb = uint32_t(bZeros[j]);
                                const int32_t acc = int32_t(uint32_t(rawRow[j]) - za * uint32_t(columnSums[j]) - zb * rs +
                                                            depth * za * zb);
                                if (!fastOutput) {
                                    o[rank - 1] = j;
                                    emit(o.data(), Acc(acc));
                                } else if (kind == MatMulKind::Integer) {
                                    std::memcpy(outRowData + int64_t(j) * outColumn, &acc, 4);
                                } else {
                                    const float real = float(acc) * aScales[i] * bScales[j];
                                    StoreQuantized(out.type, outRowData + int64_t(j) * outColumn, real / outScale, outZero);
                                }
                            }
                        }
                    });
                    return;
                }
            }
        }
        // A - AZeroPoint (per row), and B - BZeroPoint (per column) transposed, so both read along K.
        packedA.resize(size_t(m) * depth);
        packedB.resize(size_t(n) * depth);
        for (uint32_t i = 0; i < m; ++i) {
            idx[rank - 2] = i;
            idx[rank - 1] = 0;
            const Acc zero = Acc(aZero.Int(idx.data()));
            for (uint32_t kk = 0; kk < depth; ++kk) {
                idx[rank - 1] = kk;
                packedA[size_t(i) * depth + kk] = Acc(a.Int(idx.data())) - zero;
            }
        }
        for (uint32_t j = 0; j < n; ++j) {
            idx[rank - 2] = 0;
            idx[rank - 1] = j;
            const Acc zero = Acc(bZero.Int(idx.data()));
            for (uint32_t kk = 0; kk < depth; ++kk) {
                idx[rank - 2] = kk;
                packedB[size_t(j) * depth + kk] = Acc(b.Int(idx.data())) - zero;
            }
        }
        ParallelFor(threads, m, 1, [&](uint64_t first, uint64_t last) {
            std::array<uint32_t, kMaxTensorRank> o{};
            std::copy(batch, batch + rank, o.begin());
            for (uint64_t i = first; i < last; ++i) {
                const Acc* rowA = &packedA[size_t(i) * depth];
                o[rank - 2] = uint32_t(i);
                for (uint32_t j = 0; j < n; ++j) {
                    const Acc* colB = &packedB[size_t(j) * depth];
                    // Sums wrap as int32 (int64) arithmetic does, without signed overflow: unsigned arithmetic.
                    using Sum = std::make_unsigned_t<Acc>;
                    Sum sum = 0;
                    for (uint32_t kk = 0; kk < depth; ++kk) sum += Sum(rowA[kk]) * Sum(colB[kk]);
                    const Acc acc = Acc(sum);
                    o[rank - 1] = j;
                    emit(o.data(), acc);
                }
            }
        });
    });
}

// ---- Convolutions -------------------------------------------------------------------------------

// A tensor's spatial sizes and byte strides, right-aligned into 3 dimensions.
struct Spatial3 {
    std::array<int64_t, 3> size{1, 1, 1};
    std::array<int64_t, 3> stride{0, 0, 0};
};

Spatial3 SpatialOf(const TensorDesc& desc, uint32_t dims) {
    Spatial3 s;
    const int64_t es = ElementSizeInBytes(desc.dataType);
    for (uint32_t i = 0; i < dims; ++i) {
        s.size[3 - dims + i] = desc.sizes[2 + i];
        s.stride[3 - dims + i] = int64_t(desc.strides[2 + i]) * es;
    }
    return s;
}

struct ConvKernel {
    bool quantizedOutput = false;  // QUANTIZED_LINEAR_CONVOLUTION; else CONVOLUTION_INTEGER (INT32 output)
    TensorDesc input, filter, output;
    uint32_t dims = 2, groups = 1;
    std::array<int64_t, 3> stride{1, 1, 1}, dilation{1, 1, 1}, pad{0, 0, 0};


    // Through oneDNN's integer GEMM, per batch and group: Col^T {P, K} (the input patches, P output
    // positions by K = channels x kernel, padding holding the input zero point) x W^T {K, OC/groups}
    // (the INT8 filter), then zero points applied exactly from row and column sums as in the matrix
    // multiplies. False when oneDNN is not there (the loops run instead).
    template <class Emit>
    bool ExecuteGemm(ThreadPool* threads, const Indexed& x, const Indexed& w, const Indexed& wZero, const Indexed& bias,
                     int32_t inputZero, Emit&& emit) const {
        const Spatial3 is = SpatialOf(input, dims), fs = SpatialOf(filter, dims), os = SpatialOf(output, dims);
        const uint32_t cin = input.sizes[1], cout = output.sizes[1], cig = cin / groups, cog = cout / groups;
        const int64_t kvol = fs.size[0] * fs.size[1] * fs.size[2], depth = int64_t(cig) * kvol;
        const int64_t positions = os.size[0] * os.size[1] * os.size[2];
        const int64_t xes = ElementSizeInBytes(input.dataType);
        const bool inputSigned = input.dataType == DML_TENSOR_DATA_TYPE_INT8;
        std::vector<uint8_t> patches(static_cast<size_t>(positions * depth));
        std::vector<int8_t> weights(static_cast<size_t>(depth * cog));
        std::vector<int32_t> raw(static_cast<size_t>(positions * cog)), patchSums(static_cast<size_t>(positions));
        std::vector<int32_t> weightSums(cog), filterZeros(cog);
        for (uint32_t nb = 0; nb < output.sizes[0]; ++nb) {
            for (uint32_t g = 0; g < groups; ++g) {
                // W^T: weights[k][ocg], k = icg * kvol + kernel offset.
                for (uint32_t ocg = 0; ocg < cog; ++ocg) {
                    const uint32_t oc = g * cog + ocg;
                    std::array<uint32_t, kMaxTensorRank> channel{};
                    channel[1] = oc;
                    filterZeros[ocg] = int32_t(wZero.Int(channel.data()));
                    int32_t sum = 0;
                    int64_t kIndex = 0;
                    for (uint32_t icg = 0; icg < cig; ++icg)
                        for (int64_t k0 = 0; k0 < fs.size[0]; ++k0)
                            for (int64_t k1 = 0; k1 < fs.size[1]; ++k1)
                                for (int64_t k2 = 0; k2 < fs.size[2]; ++k2, ++kIndex) {
                                    const int8_t v = int8_t(w.data[int64_t(oc) * filter.strides[0] +
                                                                   int64_t(icg) * filter.strides[1] + k0 * fs.stride[0] +
                                                                   k1 * fs.stride[1] + k2 * fs.stride[2]]);
                                    weights[size_t(kIndex * cog + ocg)] = v;
                                    sum += v;
                                }
                    weightSums[ocg] = sum;
                }
                // Col^T: one row of K bytes per output position.
                ParallelFor(threads, uint64_t(positions), 16, [&](uint64_t first, uint64_t last) {
                    for (uint64_t p = first; p < last; ++p) {
                        const int64_t o2 = int64_t(p) % os.size[2], o1 = int64_t(p) / os.size[2] % os.size[1],
                                      o0 = int64_t(p) / (os.size[2] * os.size[1]);
                        uint8_t* row = &patches[size_t(int64_t(p) * depth)];
                        int32_t sum = 0;
                        int64_t kIndex = 0;
                        for (uint32_t icg = 0; icg < cig; ++icg) {
                            const std::byte* plane = x.data + (int64_t(nb) * input.strides[0] +
                                                               int64_t(g * cig + icg) * input.strides[1]) * xes;
                            for (int64_t k0 = 0; k0 < fs.size[0]; ++k0) {
                                const int64_t i0 = o0 * stride[0] + k0 * dilation[0] - pad[0];
                                for (int64_t k1 = 0; k1 < fs.size[1]; ++k1) {
                                    const int64_t i1 = o1 * stride[1] + k1 * dilation[1] - pad[1];
                                    for (int64_t k2 = 0; k2 < fs.size[2]; ++k2, ++kIndex) {
                                        const int64_t i2 = o2 * stride[2] + k2 * dilation[2] - pad[2];
                                        const bool inside = i0 >= 0 && i0 < is.size[0] && i1 >= 0 && i1 < is.size[1] &&
                                                            i2 >= 0 && i2 < is.size[2];
                                        // Padding reads as the zero point: a real value of 0.
                                        const uint8_t byte =
                                            inside ? uint8_t(plane[i0 * is.stride[0] + i1 * is.stride[1] + i2 * is.stride[2]])
                                                   : uint8_t(inputZero);
                                        row[kIndex] = byte;
                                        sum += inputSigned ? int32_t(int8_t(byte)) : int32_t(byte);
                                    }
                                }
                            }
                        }
                        patchSums[p] = sum;
                    }
                });
                if (!Int8Gemm(inputSigned, positions, cog, depth, patches.data(), depth, weights.data(), cog, raw.data(),
                              cog)) {
                    return false;
                }
                ParallelFor(threads, uint64_t(positions), 16, [&](uint64_t first, uint64_t last) {
                    for (uint64_t p = first; p < last; ++p) {
                        const int64_t o2 = int64_t(p) % os.size[2], o1 = int64_t(p) / os.size[2] % os.size[1],
                                      o0 = int64_t(p) / (os.size[2] * os.size[1]);
                        const uint32_t zx = uint32_t(inputZero), ps = uint32_t(patchSums[p]);
                        for (uint32_t ocg = 0; ocg < cog; ++ocg) {
                            const uint32_t oc = g * cog + ocg, zw = uint32_t(filterZeros[ocg]);
                            std::array<uint32_t, kMaxTensorRank> channel{};
                            channel[1] = oc;
                            const uint32_t v = uint32_t(raw[size_t(int64_t(p) * cog + ocg)]) - zw * ps -
                                               zx * uint32_t(weightSums[ocg]) + uint32_t(depth) * zx * zw +
                                               uint32_t(int32_t(bias.Int(channel.data())));
                            emit(nb, oc, o0, o1, o2, int32_t(v));
                        }
                    }
                });
            }
        }
        return true;
    }

    // t: Input, InputScale, InputZeroPoint, Filter, FilterScale, FilterZeroPoint, Bias, OutputScale,
    // OutputZeroPoint (absent ones not Present()).
    void Execute(ThreadPool* threads, const std::array<Indexed, 9>& t, TensorView outView) const {
        const Indexed &x = t[0], &xScale = t[1], &xZero = t[2], &w = t[3], &wScale = t[4], &wZero = t[5],
                      &bias = t[6], &oScale = t[7], &oZero = t[8];
        const Indexed out = IndexOf(outView);
        const Spatial3 is = SpatialOf(input, dims), fs = SpatialOf(filter, dims), os = SpatialOf(output, dims);
        const uint32_t cin = input.sizes[1], cout = output.sizes[1];
        const uint32_t cig = cin / groups, cog = cout / groups;
        const int64_t xes = ElementSizeInBytes(input.dataType), wes = ElementSizeInBytes(filter.dataType);
        const uint32_t zeroIndex[kMaxTensorRank] = {};
        const int32_t inputZero = int32_t(xZero.Int(zeroIndex));
        // Stores one result from its exact integer sum (bias included).
        auto emit = [&](uint32_t nb, uint32_t oc, int64_t o0, int64_t o1, int64_t o2, int32_t acc) {
            std::array<uint32_t, kMaxTensorRank> o{};
            o[0] = nb;
            o[1] = oc;
            const int64_t spatial[3] = {o0, o1, o2};
            for (uint32_t i = 0; i < dims; ++i) o[2 + i] = uint32_t(spatial[3 - dims + i]);
            std::byte* dst = const_cast<std::byte*>(out.At(o.data()));
            if (!quantizedOutput) {
                std::memcpy(dst, &acc, 4);
                return;
            }
            std::array<uint32_t, kMaxTensorRank> channel{};
            channel[1] = oc;
            const float real = float(acc) * (xScale.Float(zeroIndex) * wScale.Float(channel.data()));
            StoreQuantized(output.dataType, dst, real / oScale.Float(zeroIndex), int32_t(oZero.Int(zeroIndex)));
        };
        if (filter.dataType == DML_TENSOR_DATA_TYPE_INT8 && ExecuteGemm(threads, x, w, wZero, bias, inputZero, emit)) return;
        ParallelFor(threads, uint64_t(output.sizes[0]) * cout, 1, [&](uint64_t first, uint64_t last) {
            for (uint64_t job = first; job < last; ++job) {
                const uint32_t nb = uint32_t(job / cout), oc = uint32_t(job % cout), g = oc / cog;
                std::array<uint32_t, kMaxTensorRank> channel{};
                channel[1] = oc;
                const int32_t filterZero = int32_t(wZero.Int(channel.data()));
                const int32_t biasValue = int32_t(bias.Int(channel.data()));
                const std::byte* inBatch = x.data + int64_t(nb) * input.strides[0] * xes;
                const std::byte* fOut = w.data + int64_t(oc) * filter.strides[0] * wes;
                float multiplier = 0.0f;
                if (quantizedOutput) multiplier = xScale.Float(zeroIndex) * wScale.Float(channel.data());
                for (int64_t o0 = 0; o0 < os.size[0]; ++o0)
                    for (int64_t o1 = 0; o1 < os.size[1]; ++o1)
                        for (int64_t o2 = 0; o2 < os.size[2]; ++o2) {
                            int32_t acc = biasValue;
                            for (uint32_t icg = 0; icg < cig; ++icg) {
                                const std::byte* inChannel = inBatch + int64_t(g * cig + icg) * input.strides[1] * xes;
                                const std::byte* fChannel = fOut + int64_t(icg) * filter.strides[1] * wes;
                                for (int64_t k0 = 0; k0 < fs.size[0]; ++k0) {
                                    const int64_t i0 = o0 * stride[0] + k0 * dilation[0] - pad[0];
                                    if (i0 < 0 || i0 >= is.size[0]) continue;
                                    for (int64_t k1 = 0; k1 < fs.size[1]; ++k1) {
                                        const int64_t i1 = o1 * stride[1] + k1 * dilation[1] - pad[1];
                                        if (i1 < 0 || i1 >= is.size[1]) continue;
                                        for (int64_t k2 = 0; k2 < fs.size[2]; ++k2) {
                                            const int64_t i2 = o2 * stride[2] + k2 * dilation[2] - pad[2];
                                            if (i2 < 0 || i2 >= is.size[2]) continue;
                                            const int32_t xv = int32_t(LoadInt(
                                                input.dataType,
                                                inChannel + i0 * is.stride[0] + i1 * is.stride[1] + i2 * is.stride[2]));
                                            const int32_t wv = int32_t(LoadInt(
                                                filter.dataType,
                                                fChannel + k0 * fs.stride[0] + k1 * fs.stride[1] + k2 * fs.stride[2]));
                                            acc = int32_t(uint32_t(acc) + uint32_t((xv - inputZero) * (wv - filterZero)));
                                        }
                                    }
                                }
                            }
                            std::array<uint32_t, kMaxTensorRank> o{};
                            o[0] = nb;
                            o[1] = oc;
                            const int64_t spatial[3] = {o0, o1, o2};
                            for (uint32_t i = 0; i < dims; ++i) o[2 + i] = uint32_t(spatial[3 - dims + i]);
                            std::byte* dst = const_cast<std::byte*>(out.At(o.data()));
                            if (!quantizedOutput) {
                                std::memcpy(dst, &acc, 4);
                            } else {
                                const float real = float(acc) * multiplier;
                                StoreQuantized(output.dataType, dst, real / oScale.Float(zeroIndex),
                                               int32_t(oZero.Int(zeroIndex)));
                            }
                        }
            }
        });
    }
};

// ---- Pooling ------------------------------------------------------------------------------------

struct PoolingKernel {
    TensorDesc input, output;
    uint32_t dims = 2;
    bool includePadding = false;
    std::array<int64_t, 3> stride{1, 1, 1}, window{1, 1, 1}, dilation{1, 1, 1}, pad{0, 0, 0};

    // t: Input, InputScale, InputZeroPoint, OutputScale, OutputZeroPoint.
    void Execute(ThreadPool* threads, const std::array<Indexed, 5>& t, TensorView outView) const {
        const Indexed &x = t[0], &xScale = t[1], &xZero = t[2], &oScale = t[3], &oZero = t[4];
        const Indexed out = IndexOf(outView);
        const Spatial3 is = SpatialOf(input, dims), os = SpatialOf(output, dims);
        const int64_t es = ElementSizeInBytes(input.dataType);
        const uint32_t channels = output.sizes[1];
        ParallelFor(threads, uint64_t(output.sizes[0]) * channels, 1, [&](uint64_t first, uint64_t last) {
            for (uint64_t job = first; job < last; ++job) {
                std::array<uint32_t, kMaxTensorRank> o{};
                o[0] = uint32_t(job / channels);
                o[1] = uint32_t(job % channels);
                const int32_t inZero = int32_t(xZero.Int(o.data()));
                const float inScale = xScale.Float(o.data()), outScale = oScale.Float(o.data());
                const int32_t outZero = int32_t(oZero.Int(o.data()));
                const std::byte* plane = x.data + (int64_t(o[0]) * input.strides[0] + int64_t(o[1]) * input.strides[1]) * es;
                for (int64_t o0 = 0; o0 < os.size[0]; ++o0)
                    for (int64_t o1 = 0; o1 < os.size[1]; ++o1)
                        for (int64_t o2 = 0; o2 < os.size[2]; ++o2) {
                            int64_t sum = 0, count = 0;
                            for (int64_t k0 = 0; k0 < window[0]; ++k0) {
                                const int64_t i0 = o0 * stride[0] + k0 * dilation[0] - pad[0];
                                for (int64_t k1 = 0; k1 < window[1]; ++k1) {
                                    const int64_t i1 = o1 * stride[1] + k1 * dilation[1] - pad[1];
                                    for (int64_t k2 = 0; k2 < window[2]; ++k2) {
                                        const int64_t i2 = o2 * stride[2] + k2 * dilation[2] - pad[2];
                                        const bool inside = i0 >= 0 && i0 < is.size[0] && i1 >= 0 && i1 < is.size[1] &&
                                                            i2 >= 0 && i2 < is.size[2];
                                        if (inside) {
                                            sum += LoadInt(input.dataType, plane + i0 * is.stride[0] +
                                                                               i1 * is.stride[1] + i2 * is.stride[2]) -
                                                   inZero;
                                            ++count;
                                        } else if (includePadding) {
                                            ++count;  // a padded element is the real value 0
                                        }
                                    }
                                }
                            }
                            const int64_t spatial[3] = {o0, o1, o2};
                            for (uint32_t i = 0; i < dims; ++i) o[2 + i] = uint32_t(spatial[3 - dims + i]);
                            const float average = count ? float(sum) * inScale / float(count) : 0.0f;
                            StoreQuantized(output.dataType, const_cast<std::byte*>(out.At(o.data())),
                                           average / outScale, outZero);
                        }
            }
        });
    }
};

// ---- Dynamic quantization -----------------------------------------------------------------------

struct DynamicQuantizeKernel {
    TensorDesc input, output;

    void Execute(TensorView inView, TensorView outView, TensorView scaleView, TensorView zeroView) const {
        const Indexed x = IndexOf(inView), out = IndexOf(outView);
        // The range always includes 0, so that 0 is represented exactly.
        float lo = 0.0f, hi = 0.0f;
        ForEachIndex(input, [&](const uint32_t* i) {
            const float v = x.Float(i);
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        });
        const bool isSigned = output.dataType == DML_TENSOR_DATA_TYPE_INT8;
        const float qmin = isSigned ? -128.0f : 0.0f, qmax = isSigned ? 127.0f : 255.0f;
        const float scale = (hi - lo) / (qmax - qmin);
        // All zeros: scale 0, and the zero point is qmin (every output equals it).
        const float shift = scale != 0.0f ? lo / scale : 0.0f;
        const float zero = std::nearbyint(std::min(std::max(qmin - shift, qmin), qmax));
        ForEachIndex(output, [&](const uint32_t* i) {
            const float q = scale != 0.0f ? x.Float(i) / scale : 0.0f;
            StoreQuantized(output.dataType, const_cast<std::byte*>(out.At(i)), q, int32_t(zero));
        });
        std::memcpy(scaleView.data, &scale, 4);
        StoreQuantized(output.dataType, zeroView.data, 0.0f, int32_t(zero));
    }
};

}  // namespace

// The factories the operator table names (dml/ops/operators.def).

Status CreateCpuQuantizedMatMul(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    MatMulKernel kernel;
    kernel.output = *args.outputs[0];
    // Where each operator's tensors are among its inputs: A, AScale, AZeroPoint, B, BScale,
    // BZeroPoint, Bias, OutputScale, OutputZeroPoint (-1: it has none).
    std::array<int, 9> slots;
    switch (args.schema.type) {
        case DML_OPERATOR_MATRIX_MULTIPLY_INTEGER:
            kernel.kind = MatMulKind::Integer;
            slots = {0, -1, 1, 2, -1, 3, -1, -1, -1};
            break;
        case DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY:
            kernel.kind = MatMulKind::QuantizedLinear;
            slots = {0, 1, 2, 3, 4, 5, -1, 6, 7};
            break;
        default:
            kernel.kind = MatMulKind::IntegerToFloat;
            slots = {0, 1, 2, 3, 4, 5, 6, -1, -1};
            break;
    }
    const TensorDesc& a = *args.inputs[size_t(slots[0])];
    const TensorDesc& b = *args.inputs[size_t(slots[3])];
    kernel.depth = a.sizes[a.rank - 1];
    kernel.wide = ElementSizeInBytes(a.dataType) > 1 || ElementSizeInBytes(b.dataType) > 1;
    const uint32_t r = a.rank;
    const uint32_t m = a.sizes[r - 2], n = b.sizes[r - 1];
    kernel.aSigned = a.dataType == DML_TENSOR_DATA_TYPE_INT8;
    kernel.aRowStride = m == 1 ? kernel.depth : a.strides[r - 2];
    kernel.bRowStride = kernel.depth == 1 ? n : b.strides[r - 2];
    kernel.oneDnn = !kernel.wide && b.dataType == DML_TENSOR_DATA_TYPE_INT8 &&
                    (kernel.depth == 1 || a.strides[r - 1] == 1) && (n == 1 || b.strides[r - 1] == 1) &&
                    kernel.aRowStride >= int64_t(kernel.depth) && kernel.bRowStride >= int64_t(n);
    const OperatorArgs* op = &args;
    *out = MakeStateless(std::move(kernel), [op, slots](const MatMulKernel& k, const KernelBindings& bind) {
        std::array<Indexed, 9> t;
        for (size_t i = 0; i < t.size(); ++i) {
            if (slots[i] >= 0) t[i] = IndexOf(ViewOf(op->inputs, bind.inputs, size_t(slots[i])));
        }
        k.Execute(HostThreads(bind), t, ViewOf(op->outputs, bind.outputs, 0));
    });
    return {};
}

Status CreateCpuQuantizedConv(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    ConvKernel kernel;
    const quantized::ConvFields fields = quantized::DecodeConvFields(args);
    const std::array<int, 9> slots = fields.slots;
    const uint32_t dims = fields.dims;
    const uint32_t *strides = fields.strides, *dilations = fields.dilations, *startPadding = fields.startPadding;
    kernel.groups = fields.groups;
    kernel.quantizedOutput = fields.quantizedOutput;
    kernel.input = *args.inputs[size_t(slots[0])];
    kernel.filter = *args.inputs[size_t(slots[3])];
    kernel.output = *args.outputs[0];
    kernel.dims = dims;
    for (uint32_t i = 0; i < dims; ++i) {
        kernel.stride[3 - dims + i] = strides[i];
        kernel.dilation[3 - dims + i] = dilations[i];
        kernel.pad[3 - dims + i] = startPadding[i];
    }
    const OperatorArgs* op = &args;
    *out = MakeStateless(std::move(kernel), [op, slots](const ConvKernel& k, const KernelBindings& bind) {
        std::array<Indexed, 9> t;
        for (size_t i = 0; i < t.size(); ++i) {
            if (slots[i] >= 0) t[i] = IndexOf(ViewOf(op->inputs, bind.inputs, size_t(slots[i])));
        }
        k.Execute(HostThreads(bind), t, ViewOf(op->outputs, bind.outputs, 0));
    });
    return {};
}

Status CreateCpuQuantizedPooling(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    const auto& desc = args.As<DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC>();
    PoolingKernel kernel;
    kernel.input = *args.inputs[0];
    kernel.output = *args.outputs[0];
    kernel.dims = desc.DimensionCount;
    kernel.includePadding = desc.IncludePadding != 0;
    const uint32_t dims = desc.DimensionCount;
    for (uint32_t i = 0; i < dims; ++i) {
        kernel.stride[3 - dims + i] = desc.Strides[i];
        kernel.window[3 - dims + i] = desc.WindowSize[i];
        kernel.dilation[3 - dims + i] = desc.Dilations[i];
        kernel.pad[3 - dims + i] = desc.StartPadding[i];
    }
    const OperatorArgs* op = &args;
    *out = MakeStateless(std::move(kernel), [op](const PoolingKernel& k, const KernelBindings& bind) {
        std::array<Indexed, 5> t;
        for (size_t i = 0; i < t.size(); ++i) t[i] = IndexOf(ViewOf(op->inputs, bind.inputs, i));
        k.Execute(HostThreads(bind), t, ViewOf(op->outputs, bind.outputs, 0));
    });
    return {};
}

Status CreateCpuDynamicQuantize(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    DynamicQuantizeKernel kernel;
    kernel.input = *args.inputs[0];
    kernel.output = *args.outputs[0];
    const OperatorArgs* op = &args;
    *out = MakeStateless(std::move(kernel), [op](const DynamicQuantizeKernel& k, const KernelBindings& bind) {
        k.Execute(ViewOf(op->inputs, bind.inputs, 0), ViewOf(op->outputs, bind.outputs, 0),
                  ViewOf(op->outputs, bind.outputs, 1), ViewOf(op->outputs, bind.outputs, 2));
    });
    return {};
}

}  // namespace freedml::dml::cpu
