// OWNED_BY_DML on inputs of operators whose kernels keep no weights of their own: DirectML lets any
// input tensor carry the flag (DML_TENSOR_FLAGS: "can only be used on input tensors"); the
// initializer copies it into the operator's persistent resource and execution reads it there.
// References are the operators' documented formulas, computed here.
#include <algorithm>
#include <cmath>

#include "dml_fixture.h"

namespace freedml_test {
namespace {

constexpr DML_TENSOR_FLAGS kOwned = DML_TENSOR_FLAG_OWNED_BY_DML;
constexpr auto kF32 = DML_TENSOR_DATA_TYPE_FLOAT32;

// DirectML's dml_owned_tensors example through the API: ADD with an owned A.
TEST_F(DmlTest, AddWithOwnedAReadsTheInitializersCopy) {
    Tensor a(kF32, {1, 1, 1, 3}, {}, kOwned), b(kF32, {1, 1, 1, 3}), out(kF32, {1, 1, 1, 3});
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC desc{&a.desc, &b.desc, &out.desc};
    auto op = Compile(DML_OPERATOR_ELEMENT_WISE_ADD, &desc);
    ASSERT_TRUE(op) << Messages();
    // The copy lives in the persistent resource, so the operator needs one (the same operator
    // without the flag needs none).
    EXPECT_GE(op->GetBindingProperties().PersistentResourceSize, a.Bytes());
    Tensor plainA(kF32, {1, 1, 1, 3});
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC plainDesc{&plainA.desc, &b.desc, &out.desc};
    auto plain = Compile(DML_OPERATOR_ELEMENT_WISE_ADD, &plainDesc);
    ASSERT_TRUE(plain) << Messages();
    EXPECT_EQ(plain->GetBindingProperties().PersistentResourceSize, 0u);

    auto aBuf = Buffer(a.Bytes(), D3D12_HEAP_TYPE_DEFAULT, L"A");
    auto bBuf = Buffer(b.Bytes(), D3D12_HEAP_TYPE_DEFAULT, L"B");
    auto outBuf = Buffer(out.Bytes(), D3D12_HEAP_TYPE_DEFAULT, L"Out");
    Upload(aBuf.Get(), std::vector<float>{1, 2, 3});
    Upload(bBuf.Get(), std::vector<float>{5, 8, -5});
    DML_BUFFER_BINDING ab{aBuf.Get(), 0, a.Bytes()}, bb{bBuf.Get(), 0, b.Bytes()}, ob{outBuf.Get(), 0, out.Bytes()};
    auto persistent = Initialize(op.Get(), {ab, DML_BUFFER_BINDING{}});
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    Dispatch(op.Get(), {NoBinding(), BufferBinding(&bb)}, {BufferBinding(&ob)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    EXPECT_EQ(ReadbackAs<float>(outBuf.Get(), 3), (std::vector<float>{6, 10, -2}));

    // DirectML made a copy at initialization: what A's buffer holds later does not matter.
    Upload(aBuf.Get(), std::vector<float>{100, 200, 300});
    Upload(bBuf.Get(), std::vector<float>{1, 1, 1});
    Dispatch(op.Get(), {NoBinding(), BufferBinding(&bb)}, {BufferBinding(&ob)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    EXPECT_EQ(ReadbackAs<float>(outBuf.Get(), 3), (std::vector<float>{2, 3, 4}));
}

// The two operators the issue saw crash with an owned input: IDENTITY (with a scale and bias)
// and RELU, each reading a strided owned input.
TEST_F(DmlTest, IdentityAndReluWithOwnedStridedInput) {
    // A 2x3 view of a 2x4 buffer (the last column of each row is not part of the tensor).
    Tensor in(kF32, {2, 3}, {4, 1}, kOwned), out(kF32, {2, 3});
    const std::vector<float> values{1.5f, -2, 0.25f, 99, -4, 8, -0.5f, 99};
    auto inBuf = Buffer(in.Bytes(), D3D12_HEAP_TYPE_DEFAULT, L"in");
    Upload(inBuf.Get(), values.data(), in.Bytes());
    DML_BUFFER_BINDING ib{inBuf.Get(), 0, in.Bytes()};
    const float logical[6] = {1.5f, -2, 0.25f, -4, 8, -0.5f};

    DML_SCALE_BIAS scaleBias{2.0f, 0.5f};
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity{&in.desc, &out.desc, &scaleBias};
    DML_ACTIVATION_RELU_OPERATOR_DESC relu{&in.desc, &out.desc};
    struct Run {
        DML_OPERATOR_TYPE type;
        const void* desc;
        double (*reference)(double);
    } runs[] = {{DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity, [](double x) { return 2.0 * x + 0.5; }},
                {DML_OPERATOR_ACTIVATION_RELU, &relu, [](double x) { return std::max(x, 0.0); }}};
    for (const Run& run : runs) {
        SCOPED_TRACE(run.type);
        auto op = Compile(run.type, run.desc);
        ASSERT_TRUE(op) << Messages();
        auto persistent = Initialize(op.Get(), {ib});
        auto outBuf = Buffer(out.Bytes());
        DML_BUFFER_BINDING ob{outBuf.Get(), 0, out.Bytes()};
        Dispatch(op.Get(), {NoBinding()}, {BufferBinding(&ob)}, persistent.Get());
        ASSERT_FALSE(DeviceRemoved()) << Messages();
        auto y = ReadbackAs<float>(outBuf.Get(), 6);
        for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], float(run.reference(logical[i]))) << i;
    }
}

// I6: an owned tensor may be bound for initialization from an UPLOAD heap, here at an offset.
TEST_F(DmlTest, OwnedInputFromAnUploadHeapAtAnOffset) {
    Tensor a(kF32, {4}), b(kF32, {4}, {}, kOwned), out(kF32, {4});
    DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC desc{&a.desc, &b.desc, &out.desc};
    auto op = Compile(DML_OPERATOR_ELEMENT_WISE_MULTIPLY, &desc);
    ASSERT_TRUE(op) << Messages();
    auto upload = Buffer(512, D3D12_HEAP_TYPE_UPLOAD, L"upload");
    void* mapped = nullptr;
    ASSERT_EQ(upload->Map(0, nullptr, &mapped), S_OK);
    const float weights[4] = {0.5f, -1, 3, 10};
    std::memset(mapped, 0, 512);
    std::memcpy(static_cast<unsigned char*>(mapped) + 256, weights, sizeof(weights));
    upload->Unmap(0, nullptr);
    auto persistent = Initialize(op.Get(), {DML_BUFFER_BINDING{}, DML_BUFFER_BINDING{upload.Get(), 256, b.Bytes()}});
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    auto aBuf = Buffer(a.Bytes()), outBuf = Buffer(out.Bytes());
    Upload(aBuf.Get(), std::vector<float>{2, 4, -6, 0.25f});
    DML_BUFFER_BINDING ab{aBuf.Get(), 0, a.Bytes()}, ob{outBuf.Get(), 0, out.Bytes()};
    Dispatch(op.Get(), {BufferBinding(&ab), NoBinding()}, {BufferBinding(&ob)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    EXPECT_EQ(ReadbackAs<float>(outBuf.Get(), 4), (std::vector<float>{1, -4, -18, 2.5f}));
}

// One initializer for several operators (N1, N5): each target's owned inputs land in its own
// persistent resource, here three regions of one buffer at 256-byte aligned offsets (P2), and
// a target with no owned input takes NONE.
TEST_F(DmlTest, OneInitializerCopiesTheOwnedInputsOfEachTarget) {
    Tensor owned(kF32, {1, 1, 2, 2}, {}, kOwned), plain(kF32, {1, 1, 2, 2});
    DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC subtract{&plain.desc, &owned.desc, &plain.desc};
    DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC multiply{&owned.desc, &owned.desc, &plain.desc};
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity{&plain.desc, &plain.desc, nullptr};
    ComPtr<IDMLCompiledOperator> ops[] = {Compile(DML_OPERATOR_ELEMENT_WISE_SUBTRACT, &subtract),
                                          Compile(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity),
                                          Compile(DML_OPERATOR_ELEMENT_WISE_MULTIPLY, &multiply)};
    for (auto& op : ops) ASSERT_TRUE(op) << Messages();
    IDMLCompiledOperator* raw[] = {ops[0].Get(), ops[1].Get(), ops[2].Get()};
    ComPtr<IDMLOperatorInitializer> initializer;
    ASSERT_EQ(dml->CreateOperatorInitializer(3, raw, IID_PPV_ARGS(&initializer)), S_OK) << Messages();

    auto weights = Buffer(512, D3D12_HEAP_TYPE_DEFAULT, L"weights");
    Upload(weights.Get(), std::vector<float>{1, 2, 3, 4});
    Upload(weights.Get(), std::vector<float>{-1, 0.5f, 2, -3}, 256);
    const UINT64 bytes = owned.Bytes();
    DML_BUFFER_BINDING subtractInputs[] = {{}, {weights.Get(), 0, bytes}};
    DML_BUFFER_BINDING multiplyInputs[] = {{weights.Get(), 256, bytes}, {weights.Get(), 0, bytes}};
    DML_BUFFER_ARRAY_BINDING subtractArray{2, subtractInputs}, multiplyArray{2, multiplyInputs};
    DML_BINDING_DESC inputs[] = {{DML_BINDING_TYPE_BUFFER_ARRAY, &subtractArray}, NoBinding(),
                                 {DML_BINDING_TYPE_BUFFER_ARRAY, &multiplyArray}};
    EXPECT_EQ(ops[1]->GetBindingProperties().PersistentResourceSize, 0u);
    UINT64 offsets[3] = {}, sizes[3] = {}, next = 0;
    for (int t = 0; t < 3; ++t) {
        sizes[t] = ops[t]->GetBindingProperties().PersistentResourceSize;
        offsets[t] = next;
        next += (sizes[t] + 255) / 256 * 256;
    }
    auto persistent = Buffer(std::max<UINT64>(next, 256), D3D12_HEAP_TYPE_DEFAULT, L"persistent");
    DML_BUFFER_BINDING persistentBindings[3];
    DML_BINDING_DESC outputs[3];
    for (int t = 0; t < 3; ++t) {
        persistentBindings[t] = {persistent.Get(), offsets[t], sizes[t]};
        outputs[t] = sizes[t] ? BufferBinding(&persistentBindings[t]) : NoBinding();
    }
    auto table = Table(initializer.Get());
    table->BindInputs(3, inputs);
    table->BindOutputs(3, outputs);
    Record(initializer.Get(), table.Get());
    ExecuteAndWait();
    ASSERT_FALSE(DeviceRemoved()) << Messages();

    auto x = Buffer(plain.Bytes()), y = Buffer(plain.Bytes());
    Upload(x.Get(), std::vector<float>{10, 20, 30, 40});
    DML_BUFFER_BINDING xb{x.Get(), 0, plain.Bytes()}, yb{y.Get(), 0, plain.Bytes()};
    auto run = [&](int t, std::vector<DML_BINDING_DESC> in) {
        auto opTable = Table(ops[t].Get());
        opTable->BindInputs(UINT(in.size()), in.data());
        DML_BINDING_DESC out = BufferBinding(&yb);
        opTable->BindOutputs(1, &out);
        if (sizes[t]) {
            DML_BINDING_DESC p = BufferBinding(&persistentBindings[t]);
            opTable->BindPersistentResource(&p);
        }
        Record(ops[t].Get(), opTable.Get());
        ExecuteAndWait();
        EXPECT_FALSE(DeviceRemoved()) << Messages();
        return ReadbackAs<float>(y.Get(), 4);
    };
    EXPECT_EQ(run(0, {BufferBinding(&xb), NoBinding()}), (std::vector<float>{9, 18, 27, 36}));
    EXPECT_EQ(run(1, {BufferBinding(&xb)}), (std::vector<float>{10, 20, 30, 40}));
    EXPECT_EQ(run(2, {NoBinding(), NoBinding()}), (std::vector<float>{-1, 1, 6, -12}));
}

// In place with an owned operand: the output is bound to the other input's region (H2). With A
// read transposed from the output's own memory, the CPU's in-place snapshot must still apply.
TEST_F(DmlTest, InPlaceExecutionWithAnOwnedOperand) {
    const UINT n = 67;
    Tensor transposed(kF32, {n, n}, {1, n}), packed(kF32, {n, n}), ownedB(kF32, {n, n}, {}, kOwned);
    DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC desc{&transposed.desc, &ownedB.desc, &packed.desc};
    auto op = Compile(DML_OPERATOR_ELEMENT_WISE_SUBTRACT, &desc);
    ASSERT_TRUE(op) << Messages();
    std::vector<float> a(size_t(n) * n), b(size_t(n) * n);
    for (size_t i = 0; i < a.size(); ++i) {
        a[i] = float(i);
        b[i] = float(i % 5) * 0.25f;
    }
    auto weights = Buffer(packed.Bytes(), D3D12_HEAP_TYPE_DEFAULT, L"B");
    Upload(weights.Get(), b);
    DML_BUFFER_BINDING weightsBinding{weights.Get(), 0, packed.Bytes()};
    auto persistent = Initialize(op.Get(), {DML_BUFFER_BINDING{}, weightsBinding});
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    auto shared = Buffer(packed.Bytes(), D3D12_HEAP_TYPE_DEFAULT, L"shared");
    Upload(shared.Get(), a);
    DML_BUFFER_BINDING region{shared.Get(), 0, packed.Bytes()};
    Dispatch(op.Get(), {BufferBinding(&region), NoBinding()}, {BufferBinding(&region)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    auto y = ReadbackAs<float>(shared.Get(), a.size());
    for (UINT r = 0; r < n; ++r) {
        for (UINT c = 0; c < n; ++c) {
            ASSERT_EQ(y[size_t(r) * n + c], a[size_t(c) * n + r] - b[size_t(r) * n + c]) << r << ", " << c;
        }
    }

    // ADD with an owned A, the output on B's very region.
    Tensor ownedA(kF32, {1, 1, 1, 8}, {}, kOwned), t(kF32, {1, 1, 1, 8});
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC add{&ownedA.desc, &t.desc, &t.desc};
    auto addOp = Compile(DML_OPERATOR_ELEMENT_WISE_ADD, &add);
    ASSERT_TRUE(addOp) << Messages();
    auto aBuf = Buffer(t.Bytes()), bBuf = Buffer(t.Bytes());
    Upload(aBuf.Get(), std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
    Upload(bBuf.Get(), std::vector<float>{10, 20, 30, 40, 50, 60, 70, 80});
    auto addPersistent = Initialize(addOp.Get(), {DML_BUFFER_BINDING{aBuf.Get(), 0, t.Bytes()}, DML_BUFFER_BINDING{}});
    DML_BUFFER_BINDING bb{bBuf.Get(), 0, t.Bytes()};
    Dispatch(addOp.Get(), {NoBinding(), BufferBinding(&bb)}, {BufferBinding(&bb)}, addPersistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    EXPECT_EQ(ReadbackAs<float>(bBuf.Get(), 8), (std::vector<float>{11, 22, 33, 44, 55, 66, 77, 88}));
}

// JOIN (data movement) with some of its inputs owned: the owned ones come from the persistent
// resource, the others from their bindings, in order.
TEST_F(DmlTest, JoinWithSomeOwnedInputs) {
    Tensor first(kF32, {1, 2}, {}, kOwned), second(kF32, {1, 3}), third(kF32, {1, 1}, {}, kOwned), out(kF32, {1, 6});
    DML_TENSOR_DESC descs[] = {first.desc, second.desc, third.desc};
    DML_JOIN_OPERATOR_DESC desc{3, descs, &out.desc, 1};
    auto op = Compile(DML_OPERATOR_JOIN, &desc);
    ASSERT_TRUE(op) << Messages();
    auto f = Buffer(first.Bytes()), s = Buffer(second.Bytes()), t = Buffer(third.Bytes()), o = Buffer(out.Bytes());
    Upload(f.Get(), std::vector<float>{1, 2});
    Upload(s.Get(), std::vector<float>{3, 4, 5});
    Upload(t.Get(), std::vector<float>{6});
    auto persistent = Initialize(op.Get(), {DML_BUFFER_BINDING{f.Get(), 0, first.Bytes()}, DML_BUFFER_BINDING{},
                                            DML_BUFFER_BINDING{t.Get(), 0, third.Bytes()}});
    DML_BUFFER_BINDING sb{s.Get(), 0, second.Bytes()}, ob{o.Get(), 0, out.Bytes()};
    Dispatch(op.Get(), {NoBinding(), BufferBinding(&sb), NoBinding()}, {BufferBinding(&ob)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    EXPECT_EQ(ReadbackAs<float>(o.Get(), 6), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

}  // namespace
}  // namespace freedml_test
