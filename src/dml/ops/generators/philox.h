// Philox 4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3",
// SC 2011), the generator of DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10: a 128-bit counter and a
// 64-bit key give four 32-bit outputs through ten rounds. Host and device code share it.
#pragma once

#include <cstdint>

#include "dml/ops/generators/generator_plan.h"  // FREEDML_GEN_HD

namespace freedml::dml::generators {

struct Philox4x32 {
    uint32_t v[4];
};

// The counter `counter` (word 0 least significant) plus `add`, modulo 2^128.
FREEDML_GEN_HD inline Philox4x32 AddToCounter(const uint32_t counter[4], uint64_t add) {
    Philox4x32 out;
    uint64_t carry = add;
    for (int i = 0; i < 4; ++i) {
        const uint64_t sum = uint64_t(counter[i]) + (carry & 0xffffffffu);
        out.v[i] = uint32_t(sum);
        carry = (carry >> 32) + (sum >> 32);
    }
    return out;
}

FREEDML_GEN_HD inline Philox4x32 Philox4x32x10(Philox4x32 x, uint32_t key0, uint32_t key1) {
    constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;     // the round multipliers
    constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;   // the key schedule's increments
    for (int round = 0; round < 10; ++round) {
        const uint64_t p0 = uint64_t(kMul0) * x.v[0];
        const uint64_t p1 = uint64_t(kMul1) * x.v[2];
        const uint32_t y0 = uint32_t(p1 >> 32) ^ x.v[1] ^ key0;
        const uint32_t y1 = uint32_t(p1);
        const uint32_t y2 = uint32_t(p0 >> 32) ^ x.v[3] ^ key1;
        const uint32_t y3 = uint32_t(p0);
        x.v[0] = y0;
        x.v[1] = y1;
        x.v[2] = y2;
        x.v[3] = y3;
        key0 += kWeyl0;
        key1 += kWeyl1;
    }
    return x;
}

}  // namespace freedml::dml::generators
