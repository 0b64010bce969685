#include "d3d12/formats.h"

namespace freedml::d3d12 {

UINT BufferFormatSize(DXGI_FORMAT format) {
    switch (format) {
        case DXGI_FORMAT_R32G32B32A32_TYPELESS:
        case DXGI_FORMAT_R32G32B32A32_FLOAT:
        case DXGI_FORMAT_R32G32B32A32_UINT:
        case DXGI_FORMAT_R32G32B32A32_SINT: return 16;
        case DXGI_FORMAT_R32G32B32_TYPELESS:
        case DXGI_FORMAT_R32G32B32_FLOAT:
        case DXGI_FORMAT_R32G32B32_UINT:
        case DXGI_FORMAT_R32G32B32_SINT: return 12;
        case DXGI_FORMAT_R16G16B16A16_TYPELESS:
        case DXGI_FORMAT_R16G16B16A16_FLOAT:
        case DXGI_FORMAT_R16G16B16A16_UNORM:
        case DXGI_FORMAT_R16G16B16A16_UINT:
        case DXGI_FORMAT_R16G16B16A16_SNORM:
        case DXGI_FORMAT_R16G16B16A16_SINT:
        case DXGI_FORMAT_R32G32_TYPELESS:
        case DXGI_FORMAT_R32G32_FLOAT:
        case DXGI_FORMAT_R32G32_UINT:
        case DXGI_FORMAT_R32G32_SINT: return 8;
        case DXGI_FORMAT_R8G8B8A8_TYPELESS:
        case DXGI_FORMAT_R8G8B8A8_UNORM:
        case DXGI_FORMAT_R8G8B8A8_UINT:
        case DXGI_FORMAT_R8G8B8A8_SNORM:
        case DXGI_FORMAT_R8G8B8A8_SINT:
        case DXGI_FORMAT_R16G16_TYPELESS:
        case DXGI_FORMAT_R16G16_FLOAT:
        case DXGI_FORMAT_R16G16_UNORM:
        case DXGI_FORMAT_R16G16_UINT:
        case DXGI_FORMAT_R16G16_SNORM:
        case DXGI_FORMAT_R16G16_SINT:
        case DXGI_FORMAT_R32_TYPELESS:
        case DXGI_FORMAT_R32_FLOAT:
        case DXGI_FORMAT_R32_UINT:
        case DXGI_FORMAT_R32_SINT: return 4;
        case DXGI_FORMAT_R8G8_TYPELESS:
        case DXGI_FORMAT_R8G8_UNORM:
        case DXGI_FORMAT_R8G8_UINT:
        case DXGI_FORMAT_R8G8_SNORM:
        case DXGI_FORMAT_R8G8_SINT:
        case DXGI_FORMAT_R16_TYPELESS:
        case DXGI_FORMAT_R16_FLOAT:
        case DXGI_FORMAT_R16_UNORM:
        case DXGI_FORMAT_R16_UINT:
        case DXGI_FORMAT_R16_SNORM:
        case DXGI_FORMAT_R16_SINT: return 2;
        case DXGI_FORMAT_R8_TYPELESS:
        case DXGI_FORMAT_R8_UNORM:
        case DXGI_FORMAT_R8_UINT:
        case DXGI_FORMAT_R8_SNORM:
        case DXGI_FORMAT_R8_SINT: return 1;
        default: return 0;
    }
}

bool IsAtomicFormat(DXGI_FORMAT format) {
    return format == DXGI_FORMAT_R32_UINT || format == DXGI_FORMAT_R32_SINT;
}

FormatLayout BufferFormatLayout(DXGI_FORMAT format) {
    using K = ChannelKind;
    switch (format) {
        case DXGI_FORMAT_R32G32B32A32_TYPELESS: return {4, 32, K::Typeless};
        case DXGI_FORMAT_R32G32B32A32_FLOAT: return {4, 32, K::Float};
        case DXGI_FORMAT_R32G32B32A32_UINT: return {4, 32, K::Uint};
        case DXGI_FORMAT_R32G32B32A32_SINT: return {4, 32, K::Sint};
        case DXGI_FORMAT_R32G32B32_TYPELESS: return {3, 32, K::Typeless};
        case DXGI_FORMAT_R32G32B32_FLOAT: return {3, 32, K::Float};
        case DXGI_FORMAT_R32G32B32_UINT: return {3, 32, K::Uint};
        case DXGI_FORMAT_R32G32B32_SINT: return {3, 32, K::Sint};
        case DXGI_FORMAT_R16G16B16A16_TYPELESS: return {4, 16, K::Typeless};
        case DXGI_FORMAT_R16G16B16A16_FLOAT: return {4, 16, K::Float};
        case DXGI_FORMAT_R16G16B16A16_UNORM: return {4, 16, K::Unorm};
        case DXGI_FORMAT_R16G16B16A16_UINT: return {4, 16, K::Uint};
        case DXGI_FORMAT_R16G16B16A16_SNORM: return {4, 16, K::Snorm};
        case DXGI_FORMAT_R16G16B16A16_SINT: return {4, 16, K::Sint};
        case DXGI_FORMAT_R32G32_TYPELESS: return {2, 32, K::Typeless};
        case DXGI_FORMAT_R32G32_FLOAT: return {2, 32, K::Float};
        case DXGI_FORMAT_R32G32_UINT: return {2, 32, K::Uint};
        case DXGI_FORMAT_R32G32_SINT: return {2, 32, K::Sint};
        case DXGI_FORMAT_R8G8B8A8_TYPELESS: return {4, 8, K::Typeless};
        case DXGI_FORMAT_R8G8B8A8_UNORM: return {4, 8, K::Unorm};
        case DXGI_FORMAT_R8G8B8A8_UINT: return {4, 8, K::Uint};
        case DXGI_FORMAT_R8G8B8A8_SNORM: return {4, 8, K::Snorm};
        case DXGI_FORMAT_R8G8B8A8_SINT: return {4, 8, K::Sint};
        case DXGI_FORMAT_R16G16_TYPELESS: return {2, 16, K::Typeless};
        case DXGI_FORMAT_R16G16_FLOAT: return {2, 16, K::Float};
        case DXGI_FORMAT_R16G16_UNORM: return {2, 16, K::Unorm};
        case DXGI_FORMAT_R16G16_UINT: return {2, 16, K::Uint};
        case DXGI_FORMAT_R16G16_SNORM: return {2, 16, K::Snorm};
        case DXGI_FORMAT_R16G16_SINT: return {2, 16, K::Sint};
        case DXGI_FORMAT_R32_TYPELESS: return {1, 32, K::Typeless};
        case DXGI_FORMAT_R32_FLOAT: return {1, 32, K::Float};
        case DXGI_FORMAT_R32_UINT: return {1, 32, K::Uint};
        case DXGI_FORMAT_R32_SINT: return {1, 32, K::Sint};
        case DXGI_FORMAT_R8G8_TYPELESS: return {2, 8, K::Typeless};
        case DXGI_FORMAT_R8G8_UNORM: return {2, 8, K::Unorm};
        case DXGI_FORMAT_R8G8_UINT: return {2, 8, K::Uint};
        case DXGI_FORMAT_R8G8_SNORM: return {2, 8, K::Snorm};
        case DXGI_FORMAT_R8G8_SINT: return {2, 8, K::Sint};
        case DXGI_FORMAT_R16_TYPELESS: return {1, 16, K::Typeless};
        case DXGI_FORMAT_R16_FLOAT: return {1, 16, K::Float};
        case DXGI_FORMAT_R16_UNORM: return {1, 16, K::Unorm};
        case DXGI_FORMAT_R16_UINT: return {1, 16, K::Uint};
        case DXGI_FORMAT_R16_SNORM: return {1, 16, K::Snorm};
        case DXGI_FORMAT_R16_SINT: return {1, 16, K::Sint};
        case DXGI_FORMAT_R8_TYPELESS: return {1, 8, K::Typeless};
        case DXGI_FORMAT_R8_UNORM: return {1, 8, K::Unorm};
        case DXGI_FORMAT_R8_UINT: return {1, 8, K::Uint};
        case DXGI_FORMAT_R8_SNORM: return {1, 8, K::Snorm};
        case DXGI_FORMAT_R8_SINT: return {1, 8, K::Sint};
        default: return {};
    }
}

}  // namespace freedml::d3d12
