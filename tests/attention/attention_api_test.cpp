// MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1 through the public API: invalid descs are refused
// with messages that name the fields and values, and a decoder block (a causal prompt, then
// single-token steps over a key/value cache) matches attention computed here in float64 over the
// whole sequence, as does a sequence long enough for the CPU to split the queries into blocks (the
// small per-feature cases are in the conformance suite).
#include <cmath>

#include "dml_fixture.h"

namespace freedml_test {
namespace {

class AttentionTest : public DmlTest {};

constexpr auto F32 = DML_TENSOR_DATA_TYPE_FLOAT32;

TEST_F(AttentionTest, DescsAreChecked) {
    Tensor q(F32, {2, 3, 8}), k(F32, {2, 4, 8}), v(F32, {2, 4, 6}), out(F32, {2, 3, 6});
    Tensor qkv(F32, {2, 3, 2, 3, 4}), outQkv(F32, {2, 3, 8}), badOut(F32, {2, 3, 7});
    Tensor bias(F32, {8 + 8 + 6}), shortBias(F32, {21}), lengths(DML_TENSOR_DATA_TYPE_INT32, {2});
    Tensor floatLengths(F32, {2}), threeLengths(DML_TENSOR_DATA_TYPE_INT32, {3});
    Tensor pastK(F32, {2, 2, 5, 4}), pastV(F32, {2, 2, 5, 3}), presentK(F32, {2, 2, 9, 4}), presentV(F32, {2, 2, 9, 3});
    Tensor wrongPresent(F32, {2, 2, 8, 4}), boolMask(DML_TENSOR_DATA_TYPE_INT32, {2, 1, 3, 4});
    Tensor badBoolMask(DML_TENSOR_DATA_TYPE_INT32, {2, 1, 2, 4}), kF16(DML_TENSOR_DATA_TYPE_FLOAT16, {2, 4, 8});
    DML_MULTIHEAD_ATTENTION_OPERATOR_DESC d{};
    const auto reset = [&] {
        d = {};
        d.QueryTensor = &q.desc, d.KeyTensor = &k.desc, d.ValueTensor = &v.desc, d.OutputTensor = &out.desc;
        d.Scale = 0.5f, d.MaskFilterValue = -10000.0f, d.HeadCount = 2;
        d.MaskType = DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE;
    };
    reset();
    Accepted(DML_OPERATOR_MULTIHEAD_ATTENTION, &d);
    d.HeadCount = 3;
    Refused(DML_OPERATOR_MULTIHEAD_ATTENTION, &d, "QueryTensor's hidden size 8 is not a multiple of the 3 query heads");
    reset();
    d.StackedQueryKeyValueTensor = &qkv.desc;
    Refused(DML_OPERATOR_MULTIHEAD_ATTENTION, &d, "gives 2 queries, 2 keys and 2 values");
    reset();
    d.QueryTensor = d.KeyTensor = d.ValueTensor = nullptr;
    d.StackedQueryKeyValueTensor = &qkv.desc;
    d.OutputTensor = &outQkv.desc;
    Accepted(DML_OPERATOR_MULTIHEAD_ATTENTION, &d);
    d.OutputTensor = &badOut.desc;
    Refused(DML_OPERATOR_MULTIHEAD_ATTENTION, &d, "OutputTensor {2, 3, 7} must be {batchSize, sequenceLength, headCount x valueHeadSize} = {2, 3, 8}");
    reset();
    d.BiasTensor = &bias.desc;
    Accepted(DML_OPERATOR_MULTIHEAD_ATTENTION, &d);
    d.BiasTensor = &shortBias.desc;
    Refused(DML_OPERATOR_MULTIHEAD_ATTENTION, &d, "BiasTensor {21} must hold 22 values (query, key and value hidden sizes 8 + 8 + 6)");
    reset();
    d.MaskTensor = &lengths.desc;
    Refused(DML_OPERATOR_MULTIHEAD_ATTENTION, &d, "MaskType DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE takes no MaskTensor");
    d.MaskType = DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH;
    Accepted(DML_OPERATOR_MULTIHEAD_ATTENTION, &d);
    d.MaskTensor = &threeLengths.desc;
    Refused(DML_OPERATOR_MULTIHEAD_ATTENTION, &d, "must hold batchSize (2) key sequence lengths");
    d.MaskTensor = &floatLengths.desc;
    Refused(DML_OPERATOR_MULTIHEAD_ATTENTION, &d, "MaskTensor is FLOAT32; it must be INT32");
    d.MaskTensor = nullptr;
    Refused(DML_OPERATOR_MULTIHEAD_ATTENTION, &d, "needs a MaskTensor, which is null");
    d.MaskType = DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN;
    d.MaskTensor = &boolMask.desc;
    Accepted(DML_OPERATOR_MULTIHEAD_ATTENTION, &d);
    d.MaskTensor = &badBoolMask.desc;
    Refused(DML_OPERATOR_MULTIHEAD_ATTENTION, &d, "MaskTensor {2, 1, 2, 4}: dimension 2 is 2; it must be 3 or 1");
    reset();
    d.PastKeyTensor = &pastK.desc;
    Refused(DML_OPERATOR_MULTIHEAD_ATTENTION, &d, "PastKeyTensor and PastValueTensor come together");
    d.PastValueTensor = &pastV.desc;
    d.OutputPresentKeyTensor = &presentK.desc, d.OutputPresentValueTensor = &presentV.desc;
    Accepted(DML_OPERATOR_MULTIHEAD_ATTENTION, &d);
    d.OutputPresentKeyTensor = &wrongPresent.desc;
    Refused(DML_OPERATOR_MULTIHEAD_ATTENTION, &d, "OutputPresentKeyTensor {2, 2, 8, 4} must be {batchSize, headCount, sequence, headSize} = {2, 2, 9, 4}");
    reset();
    d.KeyTensor = &kF16.desc;
    Refused(DML_OPERATOR_MULTIHEAD_ATTENTION, &d, "KeyTensor is FLOAT16; it must have OutputTensor's data type FLOAT32");
    reset();
    d.HeadCount = 0;
    Refused(DML_OPERATOR_MULTIHEAD_ATTENTION, &d, "HeadCount must be at least 1");

    // MULTIHEAD_ATTENTION1: grouped heads and past sequence lengths.
    Tensor q4(F32, {2, 3, 16}), k1(F32, {2, 4, 4}), v1(F32, {2, 4, 4}), out4(F32, {2, 3, 16});
    Tensor cacheK(F32, {2, 1, 6, 4}), cacheV(F32, {2, 1, 6, 4}), smallCache(F32, {2, 1, 3, 4});
    DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC d1{};
    d1.QueryTensor = &q4.desc, d1.KeyTensor = &k1.desc, d1.ValueTensor = &v1.desc, d1.OutputTensor = &out4.desc;
    d1.Scale = 0.5f, d1.QueryHeadCount = 4, d1.KeyValueHeadCount = 1;
    Accepted(DML_OPERATOR_MULTIHEAD_ATTENTION1, &d1);
    d1.KeyValueHeadCount = 3;
    Refused(DML_OPERATOR_MULTIHEAD_ATTENTION1, &d1, "QueryHeadCount (4) must be a multiple of KeyValueHeadCount (3)");
    d1.KeyValueHeadCount = 1;
    d1.PastSequenceLengthsTensor = &lengths.desc;
    Refused(DML_OPERATOR_MULTIHEAD_ATTENTION1, &d1, "PastSequenceLengthsTensor needs OutputPresentKeyTensor");
    d1.OutputPresentKeyTensor = &cacheK.desc, d1.OutputPresentValueTensor = &cacheV.desc;
    Accepted(DML_OPERATOR_MULTIHEAD_ATTENTION1, &d1);
    d1.OutputPresentKeyTensor = &smallCache.desc;
    Refused(DML_OPERATOR_MULTIHEAD_ATTENTION1, &d1, "has 3 positions; it needs PastKeyTensor's 0 plus the 4 new ones");
    d1.OutputPresentKeyTensor = &cacheK.desc;
    d1.PastSequenceLengthsTensor = &threeLengths.desc;
    Refused(DML_OPERATOR_MULTIHEAD_ATTENTION1, &d1, "PastSequenceLengthsTensor {3} must hold batchSize (2) lengths");
}

// A decoder block of 2 heads of 4 over 6 tokens: a causal prompt of 3 (BOOLEAN mask), two steps
// of one token with PastKey/PastValue fed from the previous present outputs, and a last step of
// MULTIHEAD_ATTENTION1 whose present outputs are the cache itself (PastSequenceLengths, no
// PastKey). Every token's output must be causal attention over the tokens so far, computed here
// in float64 from the same query, key and value rows.
TEST_F(AttentionTest, DecoderBlockMatchesCausalAttention) {
    constexpr UINT N = 2, H = 4, hidden = N * H, tokens = 6, cache = 7;
    const float scale = 0.5f;
    std::vector<float> q(tokens * hidden), k(tokens * hidden), v(tokens * hidden);
    uint32_t state = 12345;
    const auto next = [&] {
        state = state * 1664525u + 1013904223u;
        return float(int(state >> 9) % 2001 - 1000) / 1000.0f;
    };
    for (auto* x : {&q, &k, &v})
        for (float& e : *x) e = next();
    // expected[t][h*H + d] = sum_j<=t softmax_j(scale * q_t.k_j) v_j[d], in float64.
    std::vector<double> expected(tokens * hidden);
    for (UINT t = 0; t < tokens; ++t) {
        for (UINT h = 0; h < N; ++h) {
            std::vector<double> w(t + 1);
            double top = -1e300, sum = 0;
            for (UINT j = 0; j <= t; ++j) {
                double dot = 0;
                for (UINT d = 0; d < H; ++d) dot += double(q[t * hidden + h * H + d]) * k[j * hidden + h * H + d];
                w[j] = scale * dot;
                top = std::max(top, w[j]);
            }
            for (UINT j = 0; j <= t; ++j) sum += (w[j] = std::exp(w[j] - top));
            for (UINT d = 0; d < H; ++d) {
                double acc = 0;
                for (UINT j = 0; j <= t; ++j) acc += w[j] / sum * v[j * hidden + h * H + d];
                expected[t * hidden + h * H + d] = acc;
            }
        }
    }
    const auto rows = [&](const std::vector<float>& x, UINT first, UINT count) {
        return std::vector<float>(x.begin() + first * hidden, x.begin() + (first + count) * hidden);
    };
    const auto check = [&](ID3D12Resource* out, UINT first, UINT count) {
        const auto got = ReadbackAs<float>(out, count * hidden);
        for (UINT i = 0; i < count * hidden; ++i)
            EXPECT_NEAR(got[i], expected[first * hidden + i], 1e-5) << "token " << first + i / hidden << " channel " << i % hidden;
    };
    const auto binding = [](ID3D12Resource* r, UINT64 bytes) { return DML_BUFFER_BINDING{r, 0, bytes}; };

    // Prompt: tokens 0..2, causal through the mask.
    Tensor q3(F32, {1, 3, hidden}), out3(F32, {1, 3, hidden}), mask(DML_TENSOR_DATA_TYPE_INT32, {1, 1, 3, 3});
    Tensor present3K(F32, {1, N, 3, H}), present3V(F32, {1, N, 3, H});
    DML_MULTIHEAD_ATTENTION_OPERATOR_DESC prompt{};
    prompt.QueryTensor = &q3.desc, prompt.KeyTensor = &q3.desc, prompt.ValueTensor = &q3.desc;
    prompt.MaskTensor = &mask.desc, prompt.OutputTensor = &out3.desc;
    prompt.OutputPresentKeyTensor = &present3K.desc, prompt.OutputPresentValueTensor = &present3V.desc;
    prompt.Scale = scale, prompt.MaskFilterValue = -10000.0f, prompt.HeadCount = N;
    prompt.MaskType = DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN;
    auto op = Compile(DML_OPERATOR_MULTIHEAD_ATTENTION, &prompt);
    ASSERT_TRUE(op) << Messages();
    auto qb = Buffer(q3.Bytes()), kb = Buffer(q3.Bytes()), vb = Buffer(q3.Bytes()), mb = Buffer(mask.Bytes());
    auto ob = Buffer(out3.Bytes());
    ComPtr<ID3D12Resource> pastK = Buffer(present3K.Bytes()), pastV = Buffer(present3V.Bytes());
    Upload(qb.Get(), rows(q, 0, 3)), Upload(kb.Get(), rows(k, 0, 3)), Upload(vb.Get(), rows(v, 0, 3));
    Upload(mb.Get(), std::vector<int32_t>{1, 0, 0, 1, 1, 0, 1, 1, 1});
    auto persistent = Initialize(op.Get());
    DML_BUFFER_BINDING b[8] = {binding(qb.Get(), q3.Bytes()), binding(kb.Get(), q3.Bytes()),
                               binding(vb.Get(), q3.Bytes()), binding(mb.Get(), mask.Bytes()),
                               binding(ob.Get(), out3.Bytes()), binding(pastK.Get(), present3K.Bytes()),
                               binding(pastV.Get(), present3V.Bytes())};
    Dispatch(op.Get(),
             {BufferBinding(&b[0]), BufferBinding(&b[1]), BufferBinding(&b[2]), NoBinding(), NoBinding(), NoBinding(),
              NoBinding(), BufferBinding(&b[3]), NoBinding(), NoBinding(), NoBinding()},
             {BufferBinding(&b[4]), BufferBinding(&b[5]), BufferBinding(&b[6])}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    check(ob.Get(), 0, 3);

    // Tokens 3 and 4, one at a time over PastKey/PastValue.
    for (UINT t = 3; t < 5; ++t) {
        Tensor q1(F32, {1, 1, hidden}), past(F32, {1, N, t, H}), present(F32, {1, N, t + 1, H});
        DML_MULTIHEAD_ATTENTION_OPERATOR_DESC step{};
        step.QueryTensor = &q1.desc, step.KeyTensor = &q1.desc, step.ValueTensor = &q1.desc;
        step.PastKeyTensor = &past.desc, step.PastValueTensor = &past.desc, step.OutputTensor = &q1.desc;
        step.OutputPresentKeyTensor = &present.desc, step.OutputPresentValueTensor = &present.desc;
        step.Scale = scale, step.MaskFilterValue = -10000.0f, step.HeadCount = N;
        step.MaskType = DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE;
        auto stepOp = Compile(DML_OPERATOR_MULTIHEAD_ATTENTION, &step);
        ASSERT_TRUE(stepOp) << Messages();
        auto q1b = Buffer(q1.Bytes()), k1b = Buffer(q1.Bytes()), v1b = Buffer(q1.Bytes()), o1b = Buffer(q1.Bytes());
        auto nextK = Buffer(present.Bytes()), nextV = Buffer(present.Bytes());
        Upload(q1b.Get(), rows(q, t, 1)), Upload(k1b.Get(), rows(k, t, 1)), Upload(v1b.Get(), rows(v, t, 1));
        auto stepPersistent = Initialize(stepOp.Get());
        DML_BUFFER_BINDING s[8] = {binding(q1b.Get(), q1.Bytes()),    binding(k1b.Get(), q1.Bytes()),
                                   binding(v1b.Get(), q1.Bytes()),    binding(pastK.Get(), past.Bytes()),
                                   binding(pastV.Get(), past.Bytes()), binding(o1b.Get(), q1.Bytes()),
                                   binding(nextK.Get(), present.Bytes()), binding(nextV.Get(), present.Bytes())};
        Dispatch(stepOp.Get(),
                 {BufferBinding(&s[0]), BufferBinding(&s[1]), BufferBinding(&s[2]), NoBinding(), NoBinding(),
                  NoBinding(), NoBinding(), NoBinding(), NoBinding(), BufferBinding(&s[3]), BufferBinding(&s[4])},
                 {BufferBinding(&s[5]), BufferBinding(&s[6]), BufferBinding(&s[7])}, stepPersistent.Get());
        ASSERT_FALSE(DeviceRemoved()) << Messages();
        check(o1b.Get(), t, 1);
        pastK = nextK, pastV = nextV;
    }

    // Token 5 with MULTIHEAD_ATTENTION1 over a cache of 7 positions that already holds tokens 0..4:
    // PastSequenceLengths {5}, no PastKey. Position 5 gets token 5's key; position 6 keeps its 9s.
    Tensor q1(F32, {1, 1, hidden}), lengths(DML_TENSOR_DATA_TYPE_INT32, {1}), cacheT(F32, {1, N, cache, H});
    const auto toCache = [&](ID3D12Resource* present) {
        const auto five = ReadbackAs<float>(present, N * 5 * H);
        std::vector<float> c(N * cache * H, 9.0f);
        for (UINT h = 0; h < N; ++h)
            for (UINT j = 0; j < 5; ++j)
                for (UINT d = 0; d < H; ++d) c[(h * cache + j) * H + d] = five[(h * 5 + j) * H + d];
        auto r = Buffer(cacheT.Bytes());
        Upload(r.Get(), c);
        return r;
    };
    auto cacheK = toCache(pastK.Get()), cacheV = toCache(pastV.Get());
    DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC last{};
    last.QueryTensor = &q1.desc, last.KeyTensor = &q1.desc, last.ValueTensor = &q1.desc;
    last.PastSequenceLengthsTensor = &lengths.desc, last.OutputTensor = &q1.desc;
    last.OutputPresentKeyTensor = &cacheT.desc, last.OutputPresentValueTensor = &cacheT.desc;
    last.Scale = scale, last.MaskFilterValue = -10000.0f, last.QueryHeadCount = N, last.KeyValueHeadCount = N;
    last.MaskType = DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE;
    auto lastOp = Compile(DML_OPERATOR_MULTIHEAD_ATTENTION1, &last);
    ASSERT_TRUE(lastOp) << Messages();
    auto q1b = Buffer(q1.Bytes()), k1b = Buffer(q1.Bytes()), v1b = Buffer(q1.Bytes()), o1b = Buffer(q1.Bytes());
    auto lb = Buffer(lengths.Bytes());
    Upload(q1b.Get(), rows(q, 5, 1)), Upload(k1b.Get(), rows(k, 5, 1)), Upload(v1b.Get(), rows(v, 5, 1));
    Upload(lb.Get(), std::vector<int32_t>{5});
    auto lastPersistent = Initialize(lastOp.Get());
    DML_BUFFER_BINDING l[7] = {binding(q1b.Get(), q1.Bytes()),        binding(k1b.Get(), q1.Bytes()),
                               binding(v1b.Get(), q1.Bytes()),        binding(lb.Get(), lengths.Bytes()),
                               binding(o1b.Get(), q1.Bytes()),        binding(cacheK.Get(), cacheT.Bytes()),
                               binding(cacheV.Get(), cacheT.Bytes())};
    Dispatch(lastOp.Get(),
             {BufferBinding(&l[0]), BufferBinding(&l[1]), BufferBinding(&l[2]), NoBinding(), NoBinding(), NoBinding(),
              NoBinding(), NoBinding(), NoBinding(), NoBinding(), NoBinding(), BufferBinding(&l[3])},
             {BufferBinding(&l[4]), BufferBinding(&l[5]), BufferBinding(&l[6])}, lastPersistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    check(o1b.Get(), 5, 1);
    const auto keys = ReadbackAs<float>(cacheK.Get(), N * cache * H);
    for (UINT h = 0; h < N; ++h) {
        for (UINT d = 0; d < H; ++d) {
            EXPECT_EQ(keys[(h * cache + 5) * H + d], k[5 * hidden + h * H + d]) << h << "," << d;
            EXPECT_EQ(keys[(h * cache + 6) * H + d], 9.0f) << h << "," << d;
            EXPECT_EQ(keys[(h * cache + 0) * H + d], k[h * H + d]) << h << "," << d;
        }
    }
}


// A sequence long enough that the CPU's blocked path (FLOAT32, no bias, no past) splits the query
// rows into a whole block and a shorter last one: 1100 queries over 1040 keys, 2 heads of 8, a
// BOOLEAN {1, 1, 1100, 1040} mask that lets query i see keys j <= i. Every output must match
// attention computed here in float64.
TEST_F(AttentionTest, LongSequenceMatchesFloat64) {
    constexpr UINT N = 2, H = 8, hidden = N * H, S = 1100, T = 1040;
    const float scale = 0.35f;
    std::vector<float> q(S * hidden), k(T * hidden), v(T * hidden);
    uint32_t state = 777;
    const auto next = [&] {
        state = state * 1664525u + 1013904223u;
        return float(int(state >> 9) % 2001 - 1000) / 1000.0f;
    };
    for (auto* x : {&q, &k, &v})
        for (float& e : *x) e = next();
    std::vector<int32_t> mask(size_t(S) * T);
    for (UINT i = 0; i < S; ++i)
        for (UINT j = 0; j < T; ++j) mask[size_t(i) * T + j] = j <= i;
    Tensor qt(F32, {1, S, hidden}), kt(F32, {1, T, hidden}), mt(DML_TENSOR_DATA_TYPE_INT32, {1, 1, S, T});
    DML_MULTIHEAD_ATTENTION_OPERATOR_DESC d{};
    d.QueryTensor = &qt.desc, d.KeyTensor = &kt.desc, d.ValueTensor = &kt.desc, d.MaskTensor = &mt.desc;
    d.OutputTensor = &qt.desc, d.Scale = scale, d.MaskFilterValue = -10000.0f, d.HeadCount = N;
    d.MaskType = DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN;
    auto op = Compile(DML_OPERATOR_MULTIHEAD_ATTENTION, &d);
    ASSERT_TRUE(op) << Messages();
    auto qb = Buffer(qt.Bytes()), kb = Buffer(kt.Bytes()), vb = Buffer(kt.Bytes()), mb = Buffer(mt.Bytes());
    auto ob = Buffer(qt.Bytes());
    Upload(qb.Get(), q), Upload(kb.Get(), k), Upload(vb.Get(), v), Upload(mb.Get(), mask);
    auto persistent = Initialize(op.Get());
    DML_BUFFER_BINDING b[5] = {{qb.Get(), 0, qt.Bytes()}, {kb.Get(), 0, kt.Bytes()}, {vb.Get(), 0, kt.Bytes()},
                               {mb.Get(), 0, mt.Bytes()}, {ob.Get(), 0, qt.Bytes()}};
    Dispatch(op.Get(),
             {BufferBinding(&b[0]), BufferBinding(&b[1]), BufferBinding(&b[2]), NoBinding(), NoBinding(), NoBinding(),
              NoBinding(), BufferBinding(&b[3]), NoBinding(), NoBinding(), NoBinding()},
             {BufferBinding(&b[4]), NoBinding(), NoBinding()}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    const auto got = ReadbackAs<float>(ob.Get(), S * hidden);
    std::vector<double> w(T);
    for (UINT i = 0; i < S; ++i) {
        for (UINT h = 0; h < N; ++h) {
            double top = -1e300, sum = 0;
            for (UINT j = 0; j < T; ++j) {
                double dot = 0;
                for (UINT c = 0; c < H; ++c) dot += double(q[i * hidden + h * H + c]) * k[j * hidden + h * H + c];
                w[j] = scale * dot + (j <= i ? 0.0 : -10000.0);
                top = std::max(top, w[j]);
            }
            for (UINT j = 0; j < T; ++j) sum += (w[j] = std::exp(w[j] - top));
            for (UINT c = 0; c < H; ++c) {
                double acc = 0;
                for (UINT j = 0; j < T; ++j) acc += w[j] / sum * v[j * hidden + h * H + c];
                ASSERT_NEAR(got[i * hidden + h * H + c], acc, 1e-5) << "query " << i << " head " << h << " channel " << c;
            }
        }
    }
}

}  // namespace
}  // namespace freedml_test
