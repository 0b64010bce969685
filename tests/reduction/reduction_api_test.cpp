// REDUCE, ARGMIN, ARGMAX, the cumulative scans and TOP_K through the public API: invalid descs are
// refused with messages that name the field, tensors large enough that the thread pool splits the
// work give what float64 references computed here say, and the scans run in place (H2).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "dml_fixture.h"

namespace freedml_test {
namespace {

class ReductionTest : public DmlTest {};

std::vector<float> RandomFloats(size_t count, uint32_t seed) {
    std::mt19937 engine(seed);
    std::normal_distribution<float> normal(0.0f, 3.0f);
    std::vector<float> v(count);
    for (auto& x : v) x = normal(engine);
    return v;
}

TEST_F(ReductionTest, InvalidDescsAreRefused) {
    Tensor in(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3, 4});
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 1, 4});
    Tensor wrongSizes(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 1, 1});
    Tensor rank2(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 4});
    Tensor i8in(DML_TENSOR_DATA_TYPE_INT8, {2, 3, 4}), i8out(DML_TENSOR_DATA_TYPE_INT8, {2, 1, 4});
    Tensor u32out(DML_TENSOR_DATA_TYPE_UINT32, {2, 1, 4}), f16out(DML_TENSOR_DATA_TYPE_FLOAT16, {2, 1, 4});
    auto refused = [&](DML_OPERATOR_TYPE type, const void* desc, const char* words) {
        DML_OPERATOR_DESC opDesc{type, desc};
        ComPtr<IDMLOperator> op;
        EXPECT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), E_INVALIDARG) << words;
        EXPECT_NE(Messages().find(words), std::string::npos) << words << ": " << Messages();
        ClearMessages();
    };
    UINT one[] = {1}, repeated[] = {1, 1}, outside[] = {3};
    DML_REDUCE_OPERATOR_DESC r{DML_REDUCE_FUNCTION_SUM, &in.desc, &out.desc, 2, repeated};
    refused(DML_OPERATOR_REDUCE, &r, "Axes[1] (1) repeats");
    r = {DML_REDUCE_FUNCTION_SUM, &in.desc, &out.desc, 1, outside};
    refused(DML_OPERATOR_REDUCE, &r, "Axes[0] (3) is outside");
    r = {DML_REDUCE_FUNCTION_SUM, &in.desc, &out.desc, 0, one};
    refused(DML_OPERATOR_REDUCE, &r, "AxisCount (0)");
    r = {DML_REDUCE_FUNCTION_SUM, &in.desc, &wrongSizes.desc, 1, one};
    refused(DML_OPERATOR_REDUCE, &r, "dimension 2 must be 4");
    r = {DML_REDUCE_FUNCTION_SUM, &in.desc, &rank2.desc, 1, one};
    refused(DML_OPERATOR_REDUCE, &r, "keeps the rank");
    r = {static_cast<DML_REDUCE_FUNCTION>(12), &in.desc, &out.desc, 1, one};
    refused(DML_OPERATOR_REDUCE, &r, "Function (12)");
    r = {DML_REDUCE_FUNCTION_AVERAGE, &i8in.desc, &i8out.desc, 1, one};
    refused(DML_OPERATOR_REDUCE, &r, "DML_REDUCE_FUNCTION_AVERAGE accepts FLOAT32, FLOAT16");
    r = {DML_REDUCE_FUNCTION_SUM, &i8in.desc, &i8out.desc, 1, one};
    refused(DML_OPERATOR_REDUCE, &r, "InputTensor has data type INT8");
    r = {DML_REDUCE_FUNCTION_SUM, &in.desc, &f16out.desc, 1, one};
    refused(DML_OPERATOR_REDUCE, &r, "OutputTensor has data type FLOAT16");
    r = {DML_REDUCE_FUNCTION_ARGMAX, &in.desc, &out.desc, 1, one};
    refused(DML_OPERATOR_REDUCE, &r, "writes indices as INT64, INT32, UINT64, UINT32");
    DML_ARGMIN_OPERATOR_DESC a{&in.desc, &f16out.desc, 1, one, DML_AXIS_DIRECTION_INCREASING};
    refused(DML_OPERATOR_ARGMIN, &a, "OutputTensor has data type FLOAT16");
    a = {&in.desc, &u32out.desc, 1, one, static_cast<DML_AXIS_DIRECTION>(2)};
    refused(DML_OPERATOR_ARGMIN, &a, "AxisDirection (2)");
    DML_ARGMAX_OPERATOR_DESC m{&in.desc, &u32out.desc, 1, outside, DML_AXIS_DIRECTION_DECREASING};
    refused(DML_OPERATOR_ARGMAX, &m, "outside");
    DML_CUMULATIVE_SUMMATION_OPERATOR_DESC c{&in.desc, &in.desc, 3, DML_AXIS_DIRECTION_INCREASING, FALSE};
    refused(DML_OPERATOR_CUMULATIVE_SUMMATION, &c, "Axis (3) must be less than");
    c = {&in.desc, &out.desc, 1, DML_AXIS_DIRECTION_INCREASING, FALSE};
    refused(DML_OPERATOR_CUMULATIVE_SUMMATION, &c, "must match");
    DML_CUMULATIVE_PRODUCT_OPERATOR_DESC cp{&i8in.desc, &i8in.desc, 1, DML_AXIS_DIRECTION_INCREASING, FALSE};
    refused(DML_OPERATOR_CUMULATIVE_PRODUCT, &cp, "INT8");

    // TOP_K and TOP_K1 over axis 2 (size 4) of {2, 3, 4}.
    Tensor k2(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3, 2}), k2u32(DML_TENSOR_DATA_TYPE_UINT32, {2, 3, 2});
    Tensor k2i32(DML_TENSOR_DATA_TYPE_INT32, {2, 3, 2}), k2f16(DML_TENSOR_DATA_TYPE_FLOAT16, {2, 3, 2});
    Tensor k3u32(DML_TENSOR_DATA_TYPE_UINT32, {2, 3, 3});
    DML_TOP_K_OPERATOR_DESC t{&in.desc, &k2.desc, &k2u32.desc, 3, 2};
    refused(DML_OPERATOR_TOP_K, &t, "Axis (3) must be less than");
    t = {&in.desc, &k2.desc, &k2u32.desc, 2, 0};
    refused(DML_OPERATOR_TOP_K, &t, "K (0) must be 1 to InputTensor's size along Axis 2 (4)");
    t = {&in.desc, &k2.desc, &k2u32.desc, 2, 5};
    refused(DML_OPERATOR_TOP_K, &t, "K (5)");
    t = {&in.desc, &k2.desc, &k3u32.desc, 2, 2};
    refused(DML_OPERATOR_TOP_K, &t, "OutputIndexTensor has sizes {2, 3, 3}");
    t = {&in.desc, &k2.desc, &k2i32.desc, 2, 2};
    refused(DML_OPERATOR_TOP_K, &t, "writes indices as UINT32 or UINT64");
    DML_TOP_K1_OPERATOR_DESC t1{&in.desc, &k2f16.desc, &k2u32.desc, 2, 2, DML_AXIS_DIRECTION_INCREASING};
    refused(DML_OPERATOR_TOP_K1, &t1, "OutputValueTensor has data type FLOAT16");
    t1 = {&in.desc, &k2.desc, &k2u32.desc, 2, 2, static_cast<DML_AXIS_DIRECTION>(2)};
    refused(DML_OPERATOR_TOP_K1, &t1, "AxisDirection (2)");
}

// A scan bound in place: first through the output's own layout, then through a transposed view of
// the same bytes (whose reads would race with the writes unless the input is snapshotted).
TEST_F(ReductionTest, CumulativeSummationInPlace) {
    const UINT n = 67;
    const auto x = RandomFloats(size_t(n) * n, 9);
    for (bool transposed : {false, true}) {
        SCOPED_TRACE(transposed);
        Tensor packed(DML_TENSOR_DATA_TYPE_FLOAT32, {n, n});
        Tensor view(DML_TENSOR_DATA_TYPE_FLOAT32, {n, n}, transposed ? std::vector<UINT>{1, n} : std::vector<UINT>{});
        const UINT axis = 1;
        DML_CUMULATIVE_SUMMATION_OPERATOR_DESC desc{&view.desc, &packed.desc, axis, DML_AXIS_DIRECTION_DECREASING,
                                                    TRUE};
        auto op = Compile(DML_OPERATOR_CUMULATIVE_SUMMATION, &desc);
        ASSERT_TRUE(op) << Messages();
        auto persistent = Initialize(op.Get());
        auto buffer = Buffer(packed.Bytes());
        Upload(buffer.Get(), x);
        DML_BUFFER_BINDING binding{buffer.Get(), 0, packed.Bytes()};
        Dispatch(op.Get(), {BufferBinding(&binding)}, {BufferBinding(&binding)}, persistent.Get());
        ASSERT_FALSE(DeviceRemoved()) << Messages();
        const auto y = ReadbackAs<float>(buffer.Get(), x.size());
        for (UINT r = 0; r < n; ++r) {
            double tally = 0;  // exclusive, from the last column backwards
            for (UINT c = n; c-- > 0;) {
                ASSERT_NEAR(y[size_t(r) * n + c], tally, 1e-5 * std::fabs(tally) + 1e-5) << r << ", " << c;
                tally += x[transposed ? size_t(c) * n + r : size_t(r) * n + c];
            }
        }
    }
}

// SUM over the last axis (packed slices) and over the first (strided slices), and ARGMAX over
// rows, on enough output elements that the work is split.
TEST_F(ReductionTest, LargeTensorsAcrossThreads) {
    const UINT rows = 3000, cols = 301;
    const auto values = RandomFloats(size_t(rows) * cols, 5);
    Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, {rows, cols});
    auto in = Buffer(t.Bytes());
    Upload(in.Get(), values);
    DML_BUFFER_BINDING ib{in.Get(), 0, t.Bytes()};
    for (UINT axis : {1u, 0u}) {
        SCOPED_TRACE(axis);
        const UINT kept = axis == 1 ? rows : cols, length = axis == 1 ? cols : rows;
        Tensor o(DML_TENSOR_DATA_TYPE_FLOAT32, axis == 1 ? std::vector<UINT>{rows, 1} : std::vector<UINT>{1, cols});
        DML_REDUCE_OPERATOR_DESC desc{DML_REDUCE_FUNCTION_SUM, &t.desc, &o.desc, 1, &axis};
        auto op = Compile(DML_OPERATOR_REDUCE, &desc);
        ASSERT_TRUE(op) << Messages();
        auto persistent = Initialize(op.Get());
        auto out = Buffer(o.Bytes());
        DML_BUFFER_BINDING ob{out.Get(), 0, o.Bytes()};
        Dispatch(op.Get(), {BufferBinding(&ib)}, {BufferBinding(&ob)}, persistent.Get());
        ASSERT_FALSE(DeviceRemoved()) << Messages();
        const auto got = ReadbackAs<float>(out.Get(), kept);
        for (UINT k = 0; k < kept; ++k) {
            double sum = 0;
            for (UINT i = 0; i < length; ++i) sum += values[axis == 1 ? size_t(k) * cols + i : size_t(i) * cols + k];
            ASSERT_NEAR(got[k], sum, 1e-6 * std::fabs(sum) + 1e-6) << k;
        }
    }
    UINT axis = 1;
    Tensor idx(DML_TENSOR_DATA_TYPE_UINT32, {rows, 1});
    DML_ARGMAX_OPERATOR_DESC desc{&t.desc, &idx.desc, 1, &axis, DML_AXIS_DIRECTION_INCREASING};
    auto op = Compile(DML_OPERATOR_ARGMAX, &desc);
    ASSERT_TRUE(op) << Messages();
    auto persistent = Initialize(op.Get());
    auto out = Buffer(idx.Bytes());
    DML_BUFFER_BINDING ob{out.Get(), 0, idx.Bytes()};
    Dispatch(op.Get(), {BufferBinding(&ib)}, {BufferBinding(&ob)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    const auto got = ReadbackAs<uint32_t>(out.Get(), rows);
    for (UINT r = 0; r < rows; ++r) {
        UINT best = 0;
        for (UINT c = 1; c < cols; ++c) {
            if (values[size_t(r) * cols + c] > values[size_t(r) * cols + best]) best = c;
        }
        ASSERT_EQ(got[r], best) << r;
    }
}

// TOP_K1 over rows long and many enough for the thread pool (and the CUDA kernel's early exits),
// both directions, against a stable full sort of each row done here.
TEST_F(ReductionTest, TopKOfManyLongRows) {
    const UINT rows = 96, cols = 1500, k = 37;
    auto values = RandomFloats(size_t(rows) * cols, 11);
    for (size_t i = 0; i < values.size(); i += 7) values[i] = std::round(values[i]);  // some ties
    Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, {rows, cols});
    auto in = Buffer(t.Bytes());
    Upload(in.Get(), values);
    DML_BUFFER_BINDING ib{in.Get(), 0, t.Bytes()};
    for (auto direction : {DML_AXIS_DIRECTION_DECREASING, DML_AXIS_DIRECTION_INCREASING}) {
        SCOPED_TRACE(direction);
        Tensor v(DML_TENSOR_DATA_TYPE_FLOAT32, {rows, k}), x(DML_TENSOR_DATA_TYPE_UINT64, {rows, k});
        DML_TOP_K1_OPERATOR_DESC desc{&t.desc, &v.desc, &x.desc, 1, k, direction};
        auto op = Compile(DML_OPERATOR_TOP_K1, &desc);
        ASSERT_TRUE(op) << Messages();
        auto persistent = Initialize(op.Get());
        auto vOut = Buffer(v.Bytes()), xOut = Buffer(x.Bytes());
        DML_BUFFER_BINDING vb{vOut.Get(), 0, v.Bytes()}, xb{xOut.Get(), 0, x.Bytes()};
        Dispatch(op.Get(), {BufferBinding(&ib)}, {BufferBinding(&vb), BufferBinding(&xb)}, persistent.Get());
        ASSERT_FALSE(DeviceRemoved()) << Messages();
        const auto gotV = ReadbackAs<float>(vOut.Get(), size_t(rows) * k);
        const auto gotX = ReadbackAs<uint64_t>(xOut.Get(), size_t(rows) * k);
        for (UINT r = 0; r < rows; ++r) {
            std::vector<UINT> order(cols);
            for (UINT c = 0; c < cols; ++c) order[c] = c;
            const float* row = values.data() + size_t(r) * cols;
            std::stable_sort(order.begin(), order.end(), [&](UINT a, UINT b) {
                return direction == DML_AXIS_DIRECTION_DECREASING ? row[a] > row[b] : row[a] < row[b];
            });
            for (UINT j = 0; j < k; ++j) {
                ASSERT_EQ(gotX[size_t(r) * k + j], order[j]) << r << "," << j;
                ASSERT_EQ(gotV[size_t(r) * k + j], row[order[j]]) << r << "," << j;
            }
        }
    }
}

}  // namespace
}  // namespace freedml_test
