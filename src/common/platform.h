// The one way every FreeDML source file includes the Windows-on-Linux type shims and D3D12.
// Debian's directx-headers-dev ships wsl/winadapter.h (HRESULT, GUID, __uuidof emulation) and
// d3d12.h; the order matters, so nothing else includes them directly.
#pragma once

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <directx/dxcore.h>
#include <dxguids/dxguids.h>

// Symbols that our shared libraries export (everything else is hidden).
#define FREEDML_EXPORT __attribute__((visibility("default")))
