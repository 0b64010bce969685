// What every DirectML child object shares: a reference to its device, GetDevice, private data,
// and a private identity check so that a pointer the application passes in (an IDMLOperator*, an
// IDMLDispatchable*) can be proven to be one of ours before it is used.
#pragma once

#include "common/com_object.h"
#include "common/private_iids.h"
#include "dml/device.h"

namespace freedml::dml {

enum class ChildKind { Operator, CompiledOperator, OperatorInitializer, BindingTable, CommandRecorder };

struct ChildIdentity {
    ChildKind kind;
    Device* device;
    void* object;  // the object, as a pointer to its DeviceChild base (see AsChild)
};

template <class Derived, ChildKind Kind, class Primary, class... Bases>
class DeviceChild : public NamedComObject<Derived, Primary, Bases...> {
public:
    using ChildBase = DeviceChild;

    HRESULT STDMETHODCALLTYPE GetDevice(REFIID riid, void** object) override {
        FREEDML_TRACE_DML("IDMLDeviceChild::GetDevice", this, riid, object);
        return device_->QueryInterface(riid, object);
    }
    void* QueryExtraInterface(REFIID riid) {
        // Borrowed: no reference is taken (private interface).
        return SameGuid(riid, kIidChildIdentity) ? &identity_ : nullptr;
    }
    Device& GetDmlDevice() const { return *device_.Get(); }
    // "GEMM operator 'layer1'" style descriptions use the object's name when it has one.
    std::string NameSuffix() const {
        std::string name = this->Name();
        return name.empty() ? std::string() : " '" + name + "'";
    }

protected:
    // The identity holds `this` as the base: casting to Derived here, before Derived is built,
    // would be undefined; AsChild casts once the object is complete.
    explicit DeviceChild(Device& device) : device_(Ref<Device>::Share(&device)), identity_{Kind, &device, this} {}

private:
    Ref<Device> device_;  // a child keeps its device alive
    ChildIdentity identity_;
};

// The FreeDML object of kind `T::kKind` behind `object`, or nullptr when it is something else
// (another kind, another implementation, null).
template <class T>
T* AsChild(IUnknown* object) {
    if (!object) return nullptr;
    void* identity = nullptr;
    if (FAILED(object->QueryInterface(kIidChildIdentity, &identity)) || !identity) return nullptr;
    auto* child = static_cast<ChildIdentity*>(identity);
    if (child->kind != T::kKind) return nullptr;
    return static_cast<T*>(static_cast<typename T::ChildBase*>(child->object));
}

}  // namespace freedml::dml
