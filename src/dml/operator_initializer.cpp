#include "dml/operator_initializer.h"

#include "common/trace.h"

namespace freedml::dml {

Status OperatorInitializer::Create(Device& device, UINT count, IDMLCompiledOperator* const* operators,
                                   OperatorInitializer** created) {
    Ref<OperatorInitializer> initializer(new OperatorInitializer(device));
    FREEDML_TRY(initializer->SetTargets(count, operators));
    *created = initializer.Detach();
    return {};
}

Status OperatorInitializer::SetTargets(UINT count, IDMLCompiledOperator* const* operators) {
    INVALID_IF(count && !operators, "operatorCount is %u but operators is null.", count);
    auto snapshot = std::make_shared<DispatchableSnapshot>();
    DispatchableBindingInfo& info = snapshot->info;
    info.isInitializer = true;
    // The snapshot releases every operator it lists, also when a throw below drops it.
    snapshot->referencesOperators = true;
    for (UINT i = 0; i < count; ++i) {
        auto* compiled = AsChild<CompiledOperator>(operators[i]);
        INVALID_IF(!compiled, "operators[%u] is %s, not a FreeDML compiled operator.", i,
                   operators[i] ? "another object" : "null");
        INVALID_IF(&compiled->GetDmlDevice() != &GetDmlDevice(),
                   "operators[%u] (%s) was compiled on another DirectML device.", i, compiled->Describe().c_str());
        const DispatchableBindingInfo& targetInfo = compiled->Snapshot()->info;
        DispatchableBindingInfo::Target target;
        target.description = compiled->Describe();
        target.inputs = targetInfo.inputs;
        target.inputNames = targetInfo.inputNames;
        target.persistentResourceSize = targetInfo.properties.PersistentResourceSize;
        info.targets.push_back(std::move(target));
        snapshot->operators.push_back(compiled);
        compiled->AddRef();  // after the push_back, which may throw
    }
    snapshot->layout = MakeDescriptorLayout(info);
    info.properties.RequiredDescriptorCount = snapshot->layout.total;
    info.properties.TemporaryResourceSize = 0;
    info.properties.PersistentResourceSize = 0;  // N6
    info.description = Describe();
    std::lock_guard lock(mutex_);
    snapshot_ = std::move(snapshot);
    return {};
}

HRESULT OperatorInitializer::Reset(UINT count, IDMLCompiledOperator* const* operators) {
    FREEDML_TRACE_DML("IDMLOperatorInitializer::Reset", this, count, FREEDML_TRACE_LIST(operators, count));
    return GetDmlDevice().Guarded("IDMLOperatorInitializer::Reset", [&]() -> HRESULT {
        Status status = SetTargets(count, operators);
        return status.ok() ? S_OK : GetDmlDevice().Fail("IDMLOperatorInitializer::Reset", status);
    });
}

DML_BINDING_PROPERTIES OperatorInitializer::GetBindingProperties() { FREEDML_TRACE_DML("IDMLOperatorInitializer::GetBindingProperties", this); return Snapshot()->info.properties; }

std::shared_ptr<const DispatchableSnapshot> OperatorInitializer::Snapshot() const {
    std::lock_guard lock(mutex_);
    return snapshot_;
}

std::string OperatorInitializer::Describe() const { return "operator initializer" + NameSuffix(); }

}  // namespace freedml::dml
