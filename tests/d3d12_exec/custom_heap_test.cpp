// CUSTOM heaps on the CPU adapter, a cache-coherent UMA adapter: only L0, every CPU page property.
#include "exec_test.h"
#include "custom_heap_cases.h"

namespace freedml_test {
namespace {

class D3D12ExecCustomHeap : public ExecTest {};

TEST_F(D3D12ExecCustomHeap, RulesAndDataOnAUmaAdapter) {
    CheckCustomHeaps(device(), true);
    EXPECT_TRUE(messages().Contains("MemoryPoolPreference is D3D12_MEMORY_POOL_L1, but the adapter is UMA"))
        << messages().Dump();
    EXPECT_TRUE(messages().Contains("a CUSTOM heap needs CPUPageProperty NOT_AVAILABLE, WRITE_COMBINE or WRITE_BACK"))
        << messages().Dump();
}

}  // namespace
}  // namespace freedml_test
