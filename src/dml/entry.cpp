// The two functions libdirectml.so exports.
#include "common/enum_value.h"
#include "common/trace.h"
#include "dml/device.h"

extern "C" {

DML_API HRESULT STDAPICALLTYPE DMLCreateDevice(ID3D12Device* d3d12Device, DML_CREATE_DEVICE_FLAGS flags, REFIID riid,
                                       void** device) {
    FREEDML_TRACE_DML("DMLCreateDevice", nullptr, d3d12Device, flags, riid, device);
    // Without a minimum, DirectML asks for feature level 1.0.
    return freedml::dml::Device::Create(d3d12Device, freedml::Raw(flags), DML_FEATURE_LEVEL_1_0, riid, device);
}

DML_API HRESULT STDAPICALLTYPE DMLCreateDevice1(ID3D12Device* d3d12Device, DML_CREATE_DEVICE_FLAGS flags,
                                        DML_FEATURE_LEVEL minimumFeatureLevel, REFIID riid, void** device) {
    FREEDML_TRACE_DML("DMLCreateDevice1", nullptr, d3d12Device, flags, minimumFeatureLevel, riid, device);
    return freedml::dml::Device::Create(d3d12Device, freedml::Raw(flags), freedml::Raw(minimumFeatureLevel), riid,
                                        device);
}

}  // extern "C"
