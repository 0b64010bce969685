#include "dml/resolver.h"

namespace freedml::dml {

bool D3D12ResourceResolver::Resolve(ID3D12Resource* resource, ResourceFacts* facts) {
    d3d12::ResourceInternal* internal = d3d12::GetResourceInternal(resource);
    // Only resources of this D3D12 device count: one of another device is as foreign as a fake.
    if (!internal || device_.FindResource(internal->Id()) != internal) return false;
    facts->id = internal->Id();
    facts->dimension = internal->Desc().Dimension;
    facts->heapType = internal->HeapType();
    facts->width = internal->SizeInBytes();
    facts->heapId = internal->HeapId();
    facts->offsetInHeap = internal->OffsetInMemory();
    return true;
}

std::string D3D12ResourceResolver::Describe(uint64_t resourceId) {
    d3d12::ResourceInternal* internal = device_.FindResource(resourceId);
    return internal ? internal->Describe() : Format("released resource #%llu", static_cast<unsigned long long>(resourceId));
}

}  // namespace freedml::dml
