// JOIN: concatenation checked element by element (exact: JOIN only moves bytes).
#include <gtest/gtest.h>

#include "dml/ops/data_movement/cpu/join_split.h"
#include "test_util.h"

namespace freedml::dml::cpu::test {
namespace {

void RunJoin(DML_TENSOR_DATA_TYPE type, std::vector<uint32_t> outSizes, uint32_t axis,
             const std::vector<uint32_t>& axisSizes, bool stridedInputs, std::vector<uint32_t> outStrides = {}) {
    SCOPED_TRACE(testing::Message() << DataTypeName(type) << " axis " << axis << " inputs " << axisSizes.size());
    std::vector<Tensor> inputs;
    inputs.reserve(axisSizes.size());
    JoinParams params;
    std::mt19937 rng(11);
    for (uint32_t s : axisSizes) {
        std::vector<uint32_t> sizes = outSizes;
        sizes[axis] = s;
        std::vector<uint32_t> strides;
        if (stridedInputs) {
            // Reversed dimension order (a transposed layout) with gaps.
            uint32_t stride = 2;
            strides.resize(sizes.size());
            for (size_t d = 0; d < sizes.size(); ++d) strides[d] = stride, stride *= sizes[d] + 1;
        }
        inputs.emplace_back(Desc(type, sizes, strides));
        inputs.back().Fill(rng, -1000, 1000);
        params.inputs.push_back(inputs.back().desc);
    }
    Tensor out(Desc(type, outSizes, outStrides));
    params.output = out.desc;
    params.axis = axis;
    JoinKernel k;
    Status status = k.Create(params);
    ASSERT_TRUE(status.ok()) << status.FullMessage();
    std::vector<TensorView> views;
    for (auto& t : inputs) views.push_back(t.view());
    k.Execute(Threads(), views, out.view(), nullptr, nullptr);
    out.ForEach([&](const std::vector<uint32_t>& index) {
        uint32_t a = index[axis];
        size_t which = 0;
        while (a >= axisSizes[which]) a -= axisSizes[which++];
        std::vector<uint32_t> inIndex = index;
        inIndex[axis] = a;
        ASSERT_EQ(out.Get(index), inputs[which].Get(inIndex));
    });
}

TEST(Join, EachAxisEachElementSize) {
    for (auto type : {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_UINT8,
                      DML_TENSOR_DATA_TYPE_INT64}) {
        for (uint32_t axis = 0; axis < 4; ++axis) {
            std::vector<uint32_t> sizes{2, 3, 4, 5};
            sizes[axis] = 6;
            std::vector<uint32_t> reversed(4);
            uint32_t stride = 1;
            for (uint32_t d = 0; d < 4; ++d) reversed[d] = stride, stride *= sizes[d];
            RunJoin(type, sizes, axis, {1, 3, 2}, false);
            RunJoin(type, sizes, axis, {1, 3, 2}, true);
            RunJoin(type, sizes, axis, {1, 3, 2}, false, reversed);  // output with reversed strides
        }
    }
}

TEST(Join, ThousandsOfInputs) {
    std::vector<uint32_t> parts(3000, 1);
    parts[5] = 4;
    RunJoin(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3003, 3}, 1, parts, false);
    RunJoin(DML_TENSOR_DATA_TYPE_INT16, {3003, 2}, 0, parts, true);
}

TEST(Join, LargeInputsSplitAcrossThreads) {
    RunJoin(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 2, 300, 700}, 1, {1, 1}, false);
}

TEST(Join, RefusesMismatchedAxisSum) {
    JoinParams p;
    p.inputs = {Desc(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3}), Desc(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3})};
    p.output = Desc(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 7});
    p.axis = 1;
    JoinKernel k;
    EXPECT_FALSE(k.Create(p).ok());
}

}  // namespace
}  // namespace freedml::dml::cpu::test
