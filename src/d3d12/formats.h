// The DXGI formats FreeDML's typed buffer views accept, and their element sizes.
#pragma once

#include "common/platform.h"

namespace freedml::d3d12 {

// Bytes per element of a typed buffer view of this format; 0 when FreeDML has no typed buffer
// view of it (DXGI_FORMAT_UNKNOWN included).
UINT BufferFormatSize(DXGI_FORMAT format);
// True for the formats of 32-bit integer atomics.
bool IsAtomicFormat(DXGI_FORMAT format);

// How the channels of a typed buffer view's element are stored: `channels` channels of
// `bitsPerChannel` bits each, channel i at byte i * bitsPerChannel / 8, little-endian.
enum class ChannelKind { Typeless, Float, Unorm, Snorm, Uint, Sint };
struct FormatLayout {
    UINT channels = 0;  // 0: not a format of typed buffer views
    UINT bitsPerChannel = 0;
    ChannelKind kind = ChannelKind::Typeless;
};
FormatLayout BufferFormatLayout(DXGI_FORMAT format);

}  // namespace freedml::d3d12
