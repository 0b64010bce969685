// A test-only replacement of the global operator new that fails one chosen allocation. Linked into
// this test executable only; since the executable defines operator new, the FreeDML libraries it
// loads use it too (ELF symbol interposition), so a test can make any one allocation inside an API
// call fail and check what the application sees.
#pragma once

#include <cstdint>

namespace freedml_test {

enum class FailOn {
    ThisThread,    // the thread that calls Arm (an API call)
    OtherThreads,  // every other thread (a queue's worker, the CPU thread pool)
};

// Makes the `index`-th allocation (0 = the next one) on the chosen threads fail: the throwing forms
// throw std::bad_alloc, the nothrow forms return null. One allocation only; later ones succeed.
void ArmAllocationFailure(uint64_t index, FailOn where);
// Stops counting. Returns true when the armed allocation was reached (and failed).
bool DisarmAllocationFailure();

}  // namespace freedml_test
