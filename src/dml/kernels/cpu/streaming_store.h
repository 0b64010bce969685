// Writing a large output past the caches. An ordinary store first reads the line it writes into
// the cache (a write-allocate), so a row that reads n bytes and writes n bytes moves 3n bytes
// through memory; a non-temporal store writes the line whole and moves 2n. When the output is far
// larger than the caches, nothing gains from it being cached (its reader finds it in memory either
// way), and the memory-bound rows of element-wise operators run up to half again faster.
//
// The rows themselves stay plain vectorized loops (vector_math.h): StreamRow runs one into a small
// tile that stays in L1 and copies the tile out with non-temporal stores of the widest registers
// the CPU has (cpu_isa.h).
#pragma once

#include <cstddef>
#include <cstdint>

namespace freedml::dml::cpu {

// Whether an operator whose output is `outputBytes` long should write it with non-temporal stores:
// 32 MiB and more, beyond what a core's share of the last-level cache could keep for the next
// operator (every output of ResNet-50 or BERT at batch 1 stays below it).
bool ShouldStreamOutput(uint64_t outputBytes);

// dst <- src with non-temporal stores where dst's alignment allows (ordinary stores for the
// unaligned head and the tail). The stores are weakly ordered: end with StreamFence() before
// another thread may read dst.
void StreamCopy(const void* src, void* dst, size_t bytes);

// Orders the non-temporal stores before it ahead of every later store (a thread's last act on its
// chunk, before the pool's join publishes it).
void StreamFence();

// The tile of StreamRow: 4 KiB, which stays in L1 between the row and the copy.
inline constexpr size_t kStreamTileBytes = 4096;

// row(in + i, tile, m) over tiles of `in`, each tile copied to out + i with non-temporal stores,
// then a StreamFence: the same values as row(in, out, n), written past the caches. `out` may be
// `in` (each tile is read before it is written).
template <class T, class Row>
void StreamRow(const T* in, T* out, size_t n, Row&& row) {
    constexpr size_t kTile = kStreamTileBytes / sizeof(T);
    alignas(64) T tile[kTile];
    for (size_t i = 0; i < n; i += kTile) {
        const size_t m = n - i < kTile ? n - i : kTile;
        row(in + i, tile, m);
        StreamCopy(tile, out + i, m * sizeof(T));
    }
    StreamFence();
}

// row(in, out, n) as it is, or through StreamRow where `stream` (ShouldStreamOutput of the whole
// output, decided once per execution).
template <class T, class Row>
void RunRow(bool stream, const T* in, T* out, size_t n, Row&& row) {
    if (stream) {
        StreamRow(in, out, n, row);
    } else {
        row(in, out, n);
    }
}

}  // namespace freedml::dml::cpu
