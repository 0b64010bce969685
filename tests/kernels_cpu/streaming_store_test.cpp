// streaming_store.h: StreamCopy writes exactly its bytes at every alignment of source and
// destination (non-temporal lines between ordinary head and tail stores), StreamRow gives the
// row's values out of place and in place over ragged tiles, and the threshold is where it says.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "dml/kernels/cpu/streaming_store.h"

namespace freedml::dml::cpu::test {
namespace {

TEST(StreamingStore, CopiesEveryAlignmentAndLength) {
    std::vector<unsigned char> source(1024), destination(1024);
    for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<unsigned char>(i * 131 + 7);
    for (size_t length : {size_t(0), size_t(1), size_t(15), size_t(63), size_t(64), size_t(65), size_t(200),
                          size_t(511), size_t(700)}) {
        for (size_t to = 0; to < 64; to += 3) {
            for (size_t from = 0; from < 64; from += 5) {
                std::fill(destination.begin(), destination.end(), 0xEE);
                StreamCopy(source.data() + from, destination.data() + to, length);
                StreamFence();
                for (size_t i = 0; i < destination.size(); ++i) {
                    const bool inside = i >= to && i < to + length;
                    const unsigned char want = inside ? source[from + i - to] : 0xEE;
                    ASSERT_EQ(destination[i], want)
                        << "byte " << i << " of a " << length << "-byte copy from offset " << from << " to " << to;
                }
            }
        }
    }
}

TEST(StreamingStore, StreamRowMatchesTheRow) {
    auto row = [](const float* in, float* out, size_t n) {
        for (size_t i = 0; i < n; ++i) out[i] = in[i] * 2.0f + 1.0f;
    };
    const size_t n = 3 * (kStreamTileBytes / sizeof(float)) + 37;  // three tiles and a ragged one
    std::vector<float> in(n + 1), out(n + 1, -1.0f);
    for (size_t i = 0; i < in.size(); ++i) in[i] = float(i);
    StreamRow(in.data() + 1, out.data() + 1, n, row);  // off the 64-byte alignment of the vectors' storage
    EXPECT_EQ(out[0], -1.0f);
    for (size_t i = 1; i <= n; ++i) ASSERT_EQ(out[i], in[i] * 2.0f + 1.0f) << "element " << i;
    StreamRow(in.data(), in.data(), n, row);  // in place
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(in[i], float(i) * 2.0f + 1.0f) << "element " << i << " in place";
    EXPECT_EQ(in[n], float(n));
}

TEST(StreamingStore, StreamsFrom32MiB) {
    EXPECT_FALSE(ShouldStreamOutput(0));
    EXPECT_FALSE(ShouldStreamOutput((uint64_t(32) << 20) - 1));
    EXPECT_TRUE(ShouldStreamOutput(uint64_t(32) << 20));
}

}  // namespace
}  // namespace freedml::dml::cpu::test
