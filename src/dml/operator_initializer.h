// IDMLOperatorInitializer: initializes a set of compiled operators (copies their OWNED_BY_DML
// inputs into their persistent resources). It needs no persistent resource itself (N6).
#pragma once

#include <memory>
#include <mutex>

#include "dml/compiled_operator.h"

namespace freedml::dml {

class OperatorInitializer final
    : public DeviceChild<OperatorInitializer, ChildKind::OperatorInitializer, IDMLOperatorInitializer,
                         IDMLDispatchable, IDMLPageable, IDMLDeviceChild, IDMLObject> {
public:
    static constexpr ChildKind kKind = ChildKind::OperatorInitializer;

    static Status Create(Device& device, UINT count, IDMLCompiledOperator* const* operators,
                         OperatorInitializer** created);

    DML_BINDING_PROPERTIES STDMETHODCALLTYPE GetBindingProperties() override;
    HRESULT STDMETHODCALLTYPE Reset(UINT count, IDMLCompiledOperator* const* operators) override;

    std::shared_ptr<const DispatchableSnapshot> Snapshot() const;
    std::string Describe() const;

private:
    explicit OperatorInitializer(Device& device) : DeviceChild(device) {}
    Status SetTargets(UINT count, IDMLCompiledOperator* const* operators);

    mutable std::mutex mutex_;
    std::shared_ptr<const DispatchableSnapshot> snapshot_;
};

}  // namespace freedml::dml
