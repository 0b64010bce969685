// The ResourceResolver of the binding rules over FreeDML's D3D12 resources.
#pragma once

#include "d3d12/internal.h"
#include "dml/binding_rules.h"

namespace freedml::dml {

class D3D12ResourceResolver final : public ResourceResolver {
public:
    explicit D3D12ResourceResolver(d3d12::DeviceInternal& device) : device_(device) {}
    bool Resolve(ID3D12Resource* resource, ResourceFacts* facts) override;
    std::string Describe(uint64_t resourceId) override;

private:
    d3d12::DeviceInternal& device_;
};

}  // namespace freedml::dml
