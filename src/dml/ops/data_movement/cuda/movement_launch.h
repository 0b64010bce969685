// The launchers of the data movement index map and gather (movement_ops.cu), shared by the planning code and
// the device code; it does not include DirectML.h.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "dml/kernels/cuda/ew_plan.h"
#include "dml/ops/data_movement/movement_plan.h"

namespace freedml::dml::cuda {

// out[c] = in[map(c)] or the map's constant, for elements of `elementBytes` (1, 2, 4 or 8) bytes:
// PADDING, PADDING1, TILE.
cudaError_t LaunchIndexMap(const IndexMap& map, uint32_t elementBytes, void* out, const void* in, LaunchTarget launch);

// The GATHER operators: out[c] = in[gathered(c)] for elements of `elementBytes` bytes and indices of
// `indexBytes` (4 or 8) bytes, signed or not.
cudaError_t LaunchGather(const GatherMap& map, uint32_t elementBytes, uint32_t indexBytes, bool indexSigned, void* out,
                         const void* in, const void* indices, LaunchTarget launch);

// Whether LaunchGather copies `map` by rows (the innermost dimension packed on both sides and its
// rows at least 32 bytes). A map with no index tuple (tupleSize 0, indices unread) that passes is a
// strided copy of rows: SLICE's fast path.
bool IsGatherRowMap(const GatherMap& map, uint32_t elementBytes);

// SCATTER_ELEMENTS and SCATTER_ND (after the input's copy): the map of a ScatterPlan, writing
// `updates` into `out`.
cudaError_t LaunchScatter(const GatherMap& map, uint32_t elementBytes, uint32_t indexBytes, bool indexSigned,
                          void* out, const void* updates, const void* indices, LaunchTarget launch);

// REVERSE_SUBSEQUENCES, with UINT64 lengths where `wideLengths`, UINT32 otherwise.
cudaError_t LaunchReverse(const ReverseMap& map, uint32_t elementBytes, bool wideLengths, void* out, const void* in,
                          const void* lengths, LaunchTarget launch);

// UNFOLD and FOLD (movement_plan.h's WindowMap).
cudaError_t LaunchUnfold(const WindowMap& map, uint32_t elementBytes, void* out, const void* in, LaunchTarget launch);
cudaError_t LaunchFold(const WindowMap& map, FoldType type, void* out, const void* in, LaunchTarget launch);

}  // namespace freedml::dml::cuda
