// Every private interface ID of FreeDML, in one table.
//
// QueryInterface with one of these returns a borrowed pointer to an internal type, which the caller
// then uses as that type without any further check. Two private IIDs that are equal therefore let
// one kind of object be taken for another (a DirectML operator passed as an ID3D12Fence* was once
// read as a fence this way). The static_assert below refuses a duplicate at compile time.
//
// To add one: append a row with a new last byte; never reuse a retired value.
#pragma once

#include <cstddef>

#include "common/platform.h"

namespace freedml {

// FreeDML's own random base GUID; the rows differ in the last byte.
constexpr GUID PrivateIid(unsigned char last) {
    return {0x6a3e1f0b, 0x5d2c, 0x4e8a, {0x9b, 0x41, 0x7c, 0x2d, 0x10, 0xe5, 0x33, last}};
}

// libd3d12's internal interfaces that libdirectml reaches (d3d12/internal.h).
constexpr GUID kIidDeviceInternal = PrivateIid(0x01);
constexpr GUID kIidResourceInternal = PrivateIid(0x02);
constexpr GUID kIidCommandListInternal = PrivateIid(0x03);
// libd3d12's implementation classes, reached from their public interfaces inside libd3d12.
constexpr GUID kIidFenceImpl = PrivateIid(0x10);
constexpr GUID kIidCommandAllocatorImpl = PrivateIid(0x11);
constexpr GUID kIidCommandListImpl = PrivateIid(0x12);
// libdirectml's child identity (dml/object.h). 0x10 until it was found to equal kIidFenceImpl.
constexpr GUID kIidChildIdentity = PrivateIid(0x20);

constexpr GUID kPrivateIids[] = {
    kIidDeviceInternal, kIidResourceInternal, kIidCommandListInternal, kIidFenceImpl,
    kIidCommandAllocatorImpl, kIidCommandListImpl, kIidChildIdentity,
};

constexpr bool SameGuidConstexpr(const GUID& a, const GUID& b) {
    if (a.Data1 != b.Data1 || a.Data2 != b.Data2 || a.Data3 != b.Data3) return false;
    for (int i = 0; i < 8; ++i) {
        if (a.Data4[i] != b.Data4[i]) return false;
    }
    return true;
}

constexpr bool AllPrivateIidsDiffer() {
    constexpr size_t count = sizeof(kPrivateIids) / sizeof(kPrivateIids[0]);
    for (size_t i = 0; i < count; ++i) {
        for (size_t k = i + 1; k < count; ++k) {
            if (SameGuidConstexpr(kPrivateIids[i], kPrivateIids[k])) return false;
        }
    }
    return true;
}
static_assert(AllPrivateIidsDiffer(), "two private IIDs are equal: give the new one its own last byte");

}  // namespace freedml
