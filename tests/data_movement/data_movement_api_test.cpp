// SLICE, SLICE1, PADDING, PADDING1, TILE, the space/depth operators, the GATHER and SCATTER
// operators, SLICE_GRAD, REVERSE_SUBSEQUENCES, FOLD and UNFOLD
// through the public API: invalid descs are refused with messages that name the field and the
// values, and tensors large enough that the thread pool splits the work give what the index
// arithmetic written out here says.
#include <cstring>
#include <random>

#include "dml_fixture.h"

namespace freedml_test {
namespace {

class DataMovementTest : public DmlTest {};

TEST_F(DataMovementTest, InvalidSlicesAreRefused) {
    Tensor in(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 6});
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3});
    Tensor outI8(DML_TENSOR_DATA_TYPE_INT8, {2, 3});
    UINT offsets[] = {1, 0}, sizes[] = {2, 3}, strides[] = {2, 2}, zero[] = {1, 0}, far[] = {3, 2};
    DML_SLICE_OPERATOR_DESC s{&in.desc, &out.desc, 2, offsets, sizes, strides};
    s.Strides = zero;
    Refused(DML_OPERATOR_SLICE, &s, "Strides[1] is 0");
    s.Strides = far;  // row 1 + 1 * 3 = 4 is past the input's 4 rows
    Refused(DML_OPERATOR_SLICE, &s, "reads element 4 of dimension 0");
    s = {&in.desc, &outI8.desc, 2, offsets, sizes, strides};
    Refused(DML_OPERATOR_SLICE, &s, "must match");
    UINT wrongSizes[] = {2, 2};
    s = {&in.desc, &out.desc, 2, offsets, wrongSizes, strides};
    Refused(DML_OPERATOR_SLICE, &s, "Sizes[1] (2) must equal OutputTensor's size there (3)");

    UINT windowOffsets[] = {0, 1}, windowSizes[] = {4, 5};
    INT backwards[] = {-2, -2}, none[] = {-2, 0}, tooFar[] = {-3, -2};
    DML_SLICE1_OPERATOR_DESC s1{&in.desc, &out.desc, 2, windowOffsets, windowSizes, none};
    Refused(DML_OPERATOR_SLICE1, &s1, "InputWindowStrides[1] is 0");
    // A window of 3 rows read with stride -3 reaches 1 row; the output has 2.
    UINT shortWindow[] = {3, 5};
    s1.InputWindowStrides = tooFar;
    s1.InputWindowSizes = shortWindow;
    Refused(DML_OPERATOR_SLICE1, &s1, "exceeds the 1 elements");
    UINT wideWindow[] = {4, 6};
    s1 = {&in.desc, &out.desc, 2, windowOffsets, wideWindow, backwards};
    Refused(DML_OPERATOR_SLICE1, &s1, "extends beyond InputTensor's size there (6)");
}

TEST_F(DataMovementTest, InvalidPaddingsAndTilesAreRefused) {
    Tensor in(DML_TENSOR_DATA_TYPE_INT16, {2, 3});
    Tensor out(DML_TENSOR_DATA_TYPE_INT16, {3, 6});
    UINT start[] = {1, 1}, end[] = {0, 2}, endWrong[] = {0, 1};
    DML_PADDING_OPERATOR_DESC p{&in.desc, &out.desc, DML_PADDING_MODE_CONSTANT, 0.0f, 2, start, endWrong};
    Refused(DML_OPERATOR_PADDING, &p, "OutputTensor's size in dimension 1 (6) must be InputTensor's (3) + StartPadding (1) + EndPadding (1) = 5");
    p = {&in.desc, &out.desc, static_cast<DML_PADDING_MODE>(7), 0.0f, 2, start, end};
    Refused(DML_OPERATOR_PADDING, &p, "PaddingMode (7)");
    DML_PADDING1_OPERATOR_DESC p1{&in.desc, &out.desc, DML_PADDING_MODE_CONSTANT, DML_TENSOR_DATA_TYPE_INT32, {}, 2,
                                  start, end};
    Refused(DML_OPERATOR_PADDING1, &p1, "PaddingValueDataType (INT32) must match OutputTensor's data type (INT16)");

    Tensor f64in(DML_TENSOR_DATA_TYPE_FLOAT64, {2, 3}), f64out(DML_TENSOR_DATA_TYPE_FLOAT64, {4, 3});
    UINT repeats[] = {2, 1}, badRepeats[] = {2, 2};
    DML_TILE_OPERATOR_DESC t{&f64in.desc, &f64out.desc, 2, repeats};
    Refused(DML_OPERATOR_TILE, &t, "InputTensor has data type FLOAT64");
    Tensor i16tiled(DML_TENSOR_DATA_TYPE_INT16, {4, 3});
    t = {&in.desc, &i16tiled.desc, 2, badRepeats};
    Refused(DML_OPERATOR_TILE, &t, "Repeats[1] (2) = 6");
    t = {&in.desc, &i16tiled.desc, 1, repeats};
    Refused(DML_OPERATOR_TILE, &t, "RepeatsCount (1) must equal");
}

TEST_F(DataMovementTest, InvalidDepthSpaceAndGathersAreRefused) {
    Tensor depth(DML_TENSOR_DATA_TYPE_UINT8, {1, 8, 2, 3});
    Tensor space(DML_TENSOR_DATA_TYPE_UINT8, {1, 2, 4, 6});
    Tensor wrongSpace(DML_TENSOR_DATA_TYPE_UINT8, {1, 2, 4, 5});
    DML_DEPTH_TO_SPACE1_OPERATOR_DESC d{&depth.desc, &wrongSpace.desc, 2, DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH};
    Refused(DML_OPERATOR_DEPTH_TO_SPACE1, &d, "do not fit BlockSize 2");
    d = {&depth.desc, &space.desc, 0, DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH};
    Refused(DML_OPERATOR_DEPTH_TO_SPACE1, &d, "BlockSize is 0");
    d = {&depth.desc, &space.desc, 2, static_cast<DML_DEPTH_SPACE_ORDER>(2)};
    Refused(DML_OPERATOR_DEPTH_TO_SPACE1, &d, "Order (2)");
    DML_SPACE_TO_DEPTH_OPERATOR_DESC s{&space.desc, &depth.desc, 3};
    Refused(DML_OPERATOR_SPACE_TO_DEPTH, &s, "do not fit BlockSize 3");

    Tensor table(DML_TENSOR_DATA_TYPE_FLOAT16, {1, 10, 4});
    Tensor idx(DML_TENSOR_DATA_TYPE_INT32, {1, 1, 5});
    Tensor f32idx(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 5});
    Tensor rows(DML_TENSOR_DATA_TYPE_FLOAT16, {1, 5, 4});
    Tensor wrongRows(DML_TENSOR_DATA_TYPE_FLOAT16, {1, 4, 4});
    DML_GATHER_OPERATOR_DESC g{&table.desc, &idx.desc, &rows.desc, 3, 1};
    Refused(DML_OPERATOR_GATHER, &g, "Axis (3) must be below");
    g = {&table.desc, &f32idx.desc, &rows.desc, 1, 1};
    Refused(DML_OPERATOR_GATHER, &g, "IndicesTensor has data type FLOAT32");
    g = {&table.desc, &idx.desc, &wrongRows.desc, 1, 1};
    Refused(DML_OPERATOR_GATHER, &g, "gives {1, 5, 4}");
    Tensor wideIdx(DML_TENSOR_DATA_TYPE_INT32, {1, 2, 5});
    g = {&table.desc, &wideIdx.desc, &rows.desc, 1, 1};
    Refused(DML_OPERATOR_GATHER, &g, "its dimension 1 must be 1");

    Tensor nd(DML_TENSOR_DATA_TYPE_INT8, {1, 2, 3, 4});
    Tensor ndIdx(DML_TENSOR_DATA_TYPE_INT64, {1, 3, 1, 1});
    Tensor ndOut(DML_TENSOR_DATA_TYPE_INT8, {1, 1, 3, 4});
    DML_GATHER_ND1_OPERATOR_DESC n{&nd.desc, &ndIdx.desc, &ndOut.desc, 3, 3, 1};
    Refused(DML_OPERATOR_GATHER_ND1, &n, "Batch dimension 0 has size 2 in InputTensor and 3 in IndicesTensor");
    n = {&nd.desc, &ndIdx.desc, &ndOut.desc, 3, 3, 3};
    Refused(DML_OPERATOR_GATHER_ND1, &n, "BatchDimensionCount (3) must be below");
    n = {&nd.desc, &ndIdx.desc, &ndOut.desc, 2, 3, 0};
    Refused(DML_OPERATOR_GATHER_ND1, &n, "leading dimension 1 is padding and must be 1");
}

TEST_F(DataMovementTest, InvalidScattersSliceGradsReversesAndFoldsAreRefused) {
    Tensor in(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 4});
    Tensor idx(DML_TENSOR_DATA_TYPE_INT32, {2, 4});
    Tensor upd(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 4});
    Tensor updI8(DML_TENSOR_DATA_TYPE_INT8, {2, 4});
    Tensor f32idx(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 4});
    Tensor narrowIdx(DML_TENSOR_DATA_TYPE_INT32, {2, 3});
    Tensor wrongUpd(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3});
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 4});
    Tensor wrongOut(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 5});
    DML_SCATTER_ELEMENTS_OPERATOR_DESC e{&in.desc, &idx.desc, &upd.desc, &out.desc, 2};
    Refused(DML_OPERATOR_SCATTER_ELEMENTS, &e, "Axis (2) must be below OutputTensor's DimensionCount (2)");
    e = {&in.desc, &idx.desc, &updI8.desc, &out.desc, 0};
    Refused(DML_OPERATOR_SCATTER_ELEMENTS, &e, "data types FLOAT32, INT8 and FLOAT32; they must match");
    e = {&in.desc, &f32idx.desc, &upd.desc, &out.desc, 0};
    Refused(DML_OPERATOR_SCATTER_ELEMENTS, &e, "IndicesTensor has data type FLOAT32");
    e = {&in.desc, &narrowIdx.desc, &wrongUpd.desc, &out.desc, 0};
    Refused(DML_OPERATOR_SCATTER_ELEMENTS, &e, "in dimension 1, which is not the Axis (0)");
    e = {&in.desc, &idx.desc, &wrongUpd.desc, &out.desc, 0};
    Refused(DML_OPERATOR_SCATTER_ELEMENTS, &e, "UpdatesTensor has sizes {2, 3}; they must equal IndicesTensor's {2, 4}");
    e = {&in.desc, &idx.desc, &upd.desc, &wrongOut.desc, 0};
    Refused(DML_OPERATOR_SCATTER_ELEMENTS, &e, "OutputTensor has sizes {3, 5}; they must be InputTensor's {3, 4}");

    // SCATTER_ND: two row indices ({2, 1}) take updates {2, 4}.
    Tensor rowIdx(DML_TENSOR_DATA_TYPE_UINT64, {2, 1});
    Tensor tupleIdx(DML_TENSOR_DATA_TYPE_UINT64, {2, 3});
    DML_SCATTER_ND_OPERATOR_DESC n{&in.desc, &rowIdx.desc, &wrongUpd.desc, &out.desc, 2, 2};
    Refused(DML_OPERATOR_SCATTER_ND, &n, "UpdatesTensor has sizes {2, 3}; DML_OPERATOR_SCATTER_ND needs {2, 4}");
    n = {&in.desc, &tupleIdx.desc, &upd.desc, &out.desc, 2, 2};
    Refused(DML_OPERATOR_SCATTER_ND, &n, "IndicesTensor's last dimension (3, the coordinates per index tuple) must be 1 to InputDimensionCount (2)");
    n = {&in.desc, &rowIdx.desc, &upd.desc, &out.desc, 3, 2};
    Refused(DML_OPERATOR_SCATTER_ND, &n, "InputDimensionCount (3) must be 1 to InputTensor's DimensionCount (2)");

    // SLICE_GRAD: SLICE1's window, inside OutputGradientTensor.
    Tensor dy(DML_TENSOR_DATA_TYPE_FLOAT16, {2, 2});
    Tensor dx(DML_TENSOR_DATA_TYPE_FLOAT16, {3, 4});
    UINT offsets[] = {1, 0}, sizes[] = {2, 4}, wide[] = {3, 4};
    INT strides[] = {1, -2}, zero[] = {1, 0}, far[] = {1, -4};
    DML_SLICE_GRAD_OPERATOR_DESC g{&dy.desc, &dx.desc, 2, offsets, sizes, zero};
    Refused(DML_OPERATOR_SLICE_GRAD, &g, "InputWindowStrides[1] is 0");
    g = {&dy.desc, &dx.desc, 2, offsets, wide, strides};
    Refused(DML_OPERATOR_SLICE_GRAD, &g, "extends beyond OutputGradientTensor's size there (3)");
    g = {&dy.desc, &dx.desc, 2, offsets, sizes, far};
    Refused(DML_OPERATOR_SLICE_GRAD, &g, "InputGradientTensor's size in dimension 1 (2) exceeds the 1 elements");
    g = {&dy.desc, &dx.desc, 1, offsets, sizes, strides};
    Refused(DML_OPERATOR_SLICE_GRAD, &g, "DimensionCount (1) must equal");

    Tensor lengths(DML_TENSOR_DATA_TYPE_UINT32, {3, 1});
    Tensor i32lengths(DML_TENSOR_DATA_TYPE_INT32, {3, 1});
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC r{&in.desc, &lengths.desc, &out.desc, 0};
    Refused(DML_OPERATOR_REVERSE_SUBSEQUENCES, &r, "SequenceLengthsTensor has sizes {3, 1}; with Axis 0 it must have InputTensor's sizes {3, 4} with 1 in dimension 0");
    r = {&in.desc, &i32lengths.desc, &out.desc, 1};
    Refused(DML_OPERATOR_REVERSE_SUBSEQUENCES, &r, "SequenceLengthsTensor has data type INT32");
    r = {&in.desc, &lengths.desc, &out.desc, 2};
    Refused(DML_OPERATOR_REVERSE_SUBSEQUENCES, &r, "Axis (2) must be below");

    // UNFOLD of a {1, 2, 4, 5} image with 3x3 windows, stride 1, padding 1: {1, 18, 20} columns.
    Tensor image(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 2, 4, 5});
    Tensor columns(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 18, 20});
    Tensor wrongColumns(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 18, 12});
    Tensor i8columns(DML_TENSOR_DATA_TYPE_INT8, {1, 18, 20});
    UINT window[] = {3, 3}, ones[] = {1, 1}, zeros[] = {0, 0}, noStride[] = {1, 0}, big[] = {3, 9};
    DML_UNFOLD_OPERATOR_DESC u{&image.desc, &wrongColumns.desc, 2, window, ones, ones, ones, ones};
    Refused(DML_OPERATOR_UNFOLD, &u, "OutputTensor has sizes {1, 18, 12}; DML_OPERATOR_UNFOLD needs {1, 18, 20}");
    u = {&image.desc, &columns.desc, 2, window, noStride, ones, ones, ones};
    Refused(DML_OPERATOR_UNFOLD, &u, "Strides[1] is 0");
    u = {&image.desc, &columns.desc, 2, big, ones, ones, zeros, zeros};
    Refused(DML_OPERATOR_UNFOLD, &u, "spans 9 elements, more than the 5");
    UINT window3[] = {3, 3, 3}, ones3[] = {1, 1, 1};  // the arrays hold DimensionCount entries
    u = {&image.desc, &columns.desc, 3, window3, ones3, ones3, ones3, ones3};
    Refused(DML_OPERATOR_UNFOLD, &u, "with DimensionCount 3 it must have 5");
    DML_FOLD_OPERATOR_DESC f{&i8columns.desc, &image.desc, 2, window, ones, ones, ones, ones};
    Refused(DML_OPERATOR_FOLD, &f, "OutputTensor has data type FLOAT32, but InputTensor is INT8; they must match.");
    f = {&columns.desc, &image.desc, 0, window, ones, ones, ones, ones};
    Refused(DML_OPERATOR_FOLD, &f, "DimensionCount (0) must be 1 to 6");
}

// Indices DirectML leaves undefined: one past either end skips its update (FreeDML writes nothing
// outside the output and leaves the element alone), and of two updates of one element one wins.
TEST_F(DataMovementTest, ScatterSkipsOutOfRangeIndices) {
    Tensor t(DML_TENSOR_DATA_TYPE_INT32, {6});
    Tensor ti(DML_TENSOR_DATA_TYPE_INT64, {5});
    Tensor tu(DML_TENSOR_DATA_TYPE_INT32, {5});
    const std::vector<int32_t> x = {10, 11, 12, 13, 14, 15};
    const std::vector<int64_t> indices = {6, -7, -1, 2, 2};
    const std::vector<int32_t> updates = {100, 101, 102, 103, 104};
    auto in = Buffer(t.Bytes()), ib = Buffer(ti.Bytes()), ub = Buffer(tu.Bytes()), out = Buffer(t.Bytes());
    Upload(in.Get(), x);
    Upload(ib.Get(), indices);
    Upload(ub.Get(), updates);
    DML_SCATTER_ELEMENTS_OPERATOR_DESC desc{&t.desc, &ti.desc, &tu.desc, &t.desc, 0};
    auto op = Compile(DML_OPERATOR_SCATTER_ELEMENTS, &desc);
    ASSERT_TRUE(op) << Messages();
    auto persistent = Initialize(op.Get());
    DML_BUFFER_BINDING bi{in.Get(), 0, t.Bytes()}, bx{ib.Get(), 0, ti.Bytes()}, bu{ub.Get(), 0, tu.Bytes()};
    DML_BUFFER_BINDING bo{out.Get(), 0, t.Bytes()};
    Dispatch(op.Get(), {BufferBinding(&bi), BufferBinding(&bx), BufferBinding(&bu)}, {BufferBinding(&bo)},
             persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    auto got = ReadbackAs<int32_t>(out.Get(), 6);
    EXPECT_EQ(got[0], 10);
    EXPECT_EQ(got[1], 11);
    EXPECT_TRUE(got[2] == 103 || got[2] == 104) << got[2];
    EXPECT_EQ(got[3], 13);
    EXPECT_EQ(got[4], 14);
    EXPECT_EQ(got[5], 102);  // -1 is the last element
}

// A reflected padding and a backwards slice of tensors large enough that the thread pool splits
// the work: every element against the index arithmetic written out here.
TEST_F(DataMovementTest, LargeTensorsAcrossThreads) {
    const UINT rows = 700, cols = 333;
    std::vector<uint32_t> x(size_t(rows) * cols);
    std::mt19937 engine(3);
    for (auto& v : x) v = engine();
    Tensor t(DML_TENSOR_DATA_TYPE_UINT32, {rows, cols});
    auto in = Buffer(t.Bytes());
    Upload(in.Get(), x);
    DML_BUFFER_BINDING ib{in.Get(), 0, t.Bytes()};

    // REFLECTION with pads wider than the input (the pattern repeats every 2 * (n - 1)).
    UINT start[] = {3, 400}, end[] = {2, 5};
    const UINT outRows = rows + 5, outCols = cols + 405;
    Tensor o(DML_TENSOR_DATA_TYPE_UINT32, {outRows, outCols});
    DML_PADDING_OPERATOR_DESC pad{&t.desc, &o.desc, DML_PADDING_MODE_REFLECTION, 0.0f, 2, start, end};
    auto op = Compile(DML_OPERATOR_PADDING, &pad);
    ASSERT_TRUE(op) << Messages();
    auto persistent = Initialize(op.Get());
    auto out = Buffer(o.Bytes());
    DML_BUFFER_BINDING ob{out.Get(), 0, o.Bytes()};
    Dispatch(op.Get(), {BufferBinding(&ib)}, {BufferBinding(&ob)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    auto got = ReadbackAs<uint32_t>(out.Get(), size_t(outRows) * outCols);
    auto reflect = [](long i, long n) {
        // Fold back and forth across the edges until inside.
        while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
        return i;
    };
    for (UINT r = 0; r < outRows; ++r) {
        for (UINT c = 0; c < outCols; ++c) {
            const long sr = reflect(long(r) - 3, rows), sc = reflect(long(c) - 400, cols);
            ASSERT_EQ(got[size_t(r) * outCols + c], x[size_t(sr) * cols + sc]) << r << ", " << c;
        }
    }

    // SLICE1 reading both dimensions backwards with strides 2 and 3.
    UINT offsets[] = {10, 5}, sizes[] = {600, 300};
    INT steps[] = {-2, -3};
    Tensor s(DML_TENSOR_DATA_TYPE_UINT32, {300, 100});
    DML_SLICE1_OPERATOR_DESC slice{&t.desc, &s.desc, 2, offsets, sizes, steps};
    op = Compile(DML_OPERATOR_SLICE1, &slice);
    ASSERT_TRUE(op) << Messages();
    persistent = Initialize(op.Get());
    auto sliced = Buffer(s.Bytes());
    DML_BUFFER_BINDING sb{sliced.Get(), 0, s.Bytes()};
    Dispatch(op.Get(), {BufferBinding(&ib)}, {BufferBinding(&sb)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    got = ReadbackAs<uint32_t>(sliced.Get(), 300 * 100);
    for (UINT r = 0; r < 300; ++r) {
        for (UINT c = 0; c < 100; ++c) {
            const size_t sr = 10 + 599 - 2 * r, sc = 5 + 299 - 3 * c;
            ASSERT_EQ(got[size_t(r) * 100 + c], x[sr * cols + sc]) << r << ", " << c;
        }
    }
}

}  // namespace
}  // namespace freedml_test
