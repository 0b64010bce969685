// The fixture of the binding-rule tests: tests/dml's DmlTest plus what these tests need to show
// that a rejected dispatch writes nothing (buffers filled with a known pattern, checked byte for
// byte afterwards), small operators, and message assertions.
//
// Looking at memory after removal: a removed device runs no more commands, so no readback copy can
// show what a rejected dispatch left behind. Peek reads a buffer's bytes directly, through FreeDML's
// private resource interface (the one libdirectml itself uses); it is the test's window, not the
// code under test. Readback is used wherever the device is still alive.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "d3d12/internal.h"
#include "dml_fixture.h"

namespace freedml_test {

class BindingApi : public DmlTest {
protected:
    static constexpr DML_TENSOR_DATA_TYPE kF32 = DML_TENSOR_DATA_TYPE_FLOAT32;

    // The messages reported so far hold every fragment.
    ::testing::AssertionResult Said(std::initializer_list<std::string> fragments) {
        std::string all = Messages();
        for (const std::string& fragment : fragments) {
            if (all.find(fragment) == std::string::npos) {
                return ::testing::AssertionFailure() << "'" << fragment << "' is not in the messages:\n" << all;
            }
        }
        return ::testing::AssertionSuccess();
    }
    bool DmlRemoved() { return dml->GetDeviceRemovedReason() != S_OK; }
    // Removed, by both devices' account.
    ::testing::AssertionResult Removed() {
        if (!DeviceRemoved()) return ::testing::AssertionFailure() << "the D3D12 device was not removed\n" << Messages();
        if (!DmlRemoved()) return ::testing::AssertionFailure() << "the DirectML device was not removed";
        if (dml->GetDeviceRemovedReason() != d3d->GetDeviceRemovedReason()) {
            return ::testing::AssertionFailure() << "the two devices give different reasons";
        }
        return ::testing::AssertionSuccess();
    }
    ::testing::AssertionResult Alive() {
        if (DeviceRemoved() || DmlRemoved()) return ::testing::AssertionFailure() << "removed:\n" << Messages();
        return ::testing::AssertionSuccess();
    }

    // A buffer's bytes, straight from its memory (see the header comment).
    static std::vector<unsigned char> Peek(ID3D12Resource* resource) {
        auto* internal = freedml::d3d12::GetResourceInternal(resource);
        if (!internal) return {};
        auto* base = static_cast<unsigned char*>(internal->Memory().HostPointer());
        if (!base) return {};
        base += internal->OffsetInMemory();
        return std::vector<unsigned char>(base, base + internal->SizeInBytes());
    }

    static std::vector<unsigned char> Pattern(UINT64 size, unsigned seed) {
        std::vector<unsigned char> bytes(size);
        for (UINT64 i = 0; i < size; ++i) bytes[i] = static_cast<unsigned char>((i * 37 + seed * 101 + 11) & 0xFF);
        return bytes;
    }

    // A DEFAULT buffer named `name`, filled with a pattern of its own and watched by Unchanged().
    ComPtr<ID3D12Resource> Filled(UINT64 size, const wchar_t* name) {
        auto buffer = Buffer(size, D3D12_HEAP_TYPE_DEFAULT, name);
        Watch(buffer.Get());
        return buffer;
    }
    // Fills an existing DEFAULT buffer with a pattern and watches it.
    void Watch(ID3D12Resource* buffer) {
        auto bytes = Pattern(buffer->GetDesc().Width, static_cast<unsigned>(watched_.size() + 1));
        Upload(buffer, bytes.data(), bytes.size());
        watched_.push_back({buffer, std::move(bytes)});
    }
    // Stops watching (before the test releases it).
    void Forget(ID3D12Resource* buffer) {
        std::erase_if(watched_, [&](const Watched& w) { return w.resource.Get() == buffer; });
    }
    // Every watched buffer still holds its pattern, byte for byte.
    ::testing::AssertionResult Unchanged() {
        for (const Watched& w : watched_) {
            auto bytes = Peek(w.resource.Get());
            if (bytes.size() != w.pattern.size()) return ::testing::AssertionFailure() << "cannot read a buffer";
            for (size_t i = 0; i < bytes.size(); ++i) {
                if (bytes[i] != w.pattern[i]) {
                    return ::testing::AssertionFailure() << "byte " << i << " of a " << bytes.size()
                                                         << "-byte watched buffer changed";
                }
            }
        }
        return ::testing::AssertionSuccess();
    }
    // The pattern a watched buffer was filled with.
    const std::vector<unsigned char>& PatternOf(ID3D12Resource* buffer) {
        for (const Watched& w : watched_) {
            if (w.resource.Get() == buffer) return w.pattern;
        }
        static const std::vector<unsigned char> none;
        return none;
    }

    // Closes, executes and waits without asserting success: after removal the calls may fail.
    void Submit() {
        list->Close();
        ID3D12CommandList* lists[] = {list.Get()};
        queue->ExecuteCommandLists(1, lists);
        queue->Signal(fence.Get(), ++fenceValue);
        fence->SetEventOnCompletion(fenceValue, nullptr);
        allocator->Reset();
        list->Reset(allocator.Get(), nullptr);
    }

    // ---- Operators ----
    // Tensors are kept in the fixture so that tests can ask their sizes.
    Tensor& MakeTensor(DML_TENSOR_DATA_TYPE type, std::vector<UINT> sizes, std::vector<UINT> strides = {},
                       DML_TENSOR_FLAGS flags = DML_TENSOR_FLAG_NONE) {
        tensors_.push_back(std::make_unique<Tensor>(type, std::move(sizes), std::move(strides), flags));
        return *tensors_.back();
    }
    // IDENTITY over `count` FLOAT32 values.
    ComPtr<IDMLCompiledOperator> Identity(UINT count = 8, DML_EXECUTION_FLAGS flags = DML_EXECUTION_FLAG_NONE) {
        Tensor& t = MakeTensor(kF32, {1, 1, 1, count});
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc{&t.desc, &t.desc, nullptr};
        return Compile(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc, flags);
    }
    // ADD over `count` FLOAT32 values (supports in-place execution).
    ComPtr<IDMLCompiledOperator> Add(UINT count = 8) {
        Tensor& t = MakeTensor(kF32, {1, 1, 1, count});
        DML_ELEMENT_WISE_ADD_OPERATOR_DESC desc{&t.desc, &t.desc, &t.desc};
        return Compile(DML_OPERATOR_ELEMENT_WISE_ADD, &desc);
    }
    // GEMM {2x4} x {4x4} -> {2x4}, C absent (no in-place support). B may be OWNED_BY_DML.
    static constexpr UINT kGemmA = 32, kGemmB = 64, kGemmOut = 32;
    ComPtr<IDMLCompiledOperator> Gemm(bool ownedB = false, DML_TENSOR_DATA_TYPE type = kF32) {
        Tensor& a = MakeTensor(type, {1, 1, 2, 4});
        Tensor& b = MakeTensor(type, {1, 1, 4, 4}, {}, ownedB ? DML_TENSOR_FLAG_OWNED_BY_DML : DML_TENSOR_FLAG_NONE);
        Tensor& out = MakeTensor(type, {1, 1, 2, 4});
        DML_GEMM_OPERATOR_DESC desc{&a.desc, &b.desc, nullptr, &out.desc, DML_MATRIX_TRANSFORM_NONE,
                                    DML_MATRIX_TRANSFORM_NONE, 1.0f, 0.0f, nullptr};
        return Compile(DML_OPERATOR_GEMM, &desc);
    }
    // JOIN of `count` FLOAT32 {1,1,1,4} tensors along the last axis (no in-place support).
    ComPtr<IDMLCompiledOperator> Join(UINT count) {
        Tensor& in = MakeTensor(kF32, {1, 1, 1, 4});
        Tensor& out = MakeTensor(kF32, {1, 1, 1, 4 * count});
        std::vector<DML_TENSOR_DESC> inputs(count, in.desc);
        DML_JOIN_OPERATOR_DESC desc{count, inputs.data(), &out.desc, 3};
        return Compile(DML_OPERATOR_JOIN, &desc);
    }

    // A binding table for an operator initializer of `ops`, bound with `inputs` and `outputs`,
    // recorded and executed.
    void InitializeWith(std::vector<IDMLCompiledOperator*> ops, std::vector<DML_BINDING_DESC> inputs,
                        std::vector<DML_BINDING_DESC> outputs) {
        ComPtr<IDMLOperatorInitializer> initializer;
        ASSERT_EQ(dml->CreateOperatorInitializer(static_cast<UINT>(ops.size()), ops.data(), IID_PPV_ARGS(&initializer)),
                  S_OK);
        auto table = Table(initializer.Get());
        table->BindInputs(static_cast<UINT>(inputs.size()), inputs.data());
        table->BindOutputs(static_cast<UINT>(outputs.size()), outputs.data());
        Record(initializer.Get(), table.Get());
        Submit();
    }

    // Binds a temporary resource of its own when the operator needs one.
    void BindTemporary(IDMLCompiledOperator* op, IDMLBindingTable* table) {
        const UINT64 size = op->GetBindingProperties().TemporaryResourceSize;
        if (size == 0) return;
        temporaries_.push_back(Buffer(size, D3D12_HEAP_TYPE_DEFAULT, L"temporary"));
        DML_BUFFER_BINDING binding{temporaries_.back().Get(), 0, size};
        DML_BINDING_DESC desc = BufferBinding(&binding);
        table->BindTemporaryResource(&desc);
    }

    static std::vector<unsigned char> Bytes(const std::vector<float>& values) {
        std::vector<unsigned char> bytes(values.size() * sizeof(float));
        std::memcpy(bytes.data(), values.data(), bytes.size());
        return bytes;
    }

private:
    struct Watched {
        ComPtr<ID3D12Resource> resource;
        std::vector<unsigned char> pattern;
    };
    std::vector<Watched> watched_;
    std::vector<std::unique_ptr<Tensor>> tensors_;
    std::vector<ComPtr<ID3D12Resource>> temporaries_;
};

}  // namespace freedml_test
