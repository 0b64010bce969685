// No C++ exception crosses the API (docs/ERRORS.md). An exported function or COM method that can
// throw (anything that allocates can: std::string, std::vector, new) runs its body through
// Guard, which turns the exception into the HRESULT that D3D12 and DirectML give for the same
// failure and reports a message:
//
//   std::bad_alloc (and std::length_error)  -> E_OUTOFMEMORY
//   freedml::InvalidArgument                -> E_INVALIDARG
//   anything else                           -> E_FAIL
//
// Work that runs at execution time (a queue's worker, kernels) cannot return an HRESULT; it
// catches with CurrentExceptionFailure and removes the device instead.
#pragma once

#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/platform.h"

namespace freedml {

// The one exception FreeDML code may throw on purpose, for a bad argument found deep inside a
// helper that has no Status to return; Guard answers it with E_INVALIDARG. Prefer a Status.
class InvalidArgument : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

struct ExceptionFailure {
    HRESULT hr;
    const char* what;  // a sentence naming the failure; valid until the catch block ends
};

// Classifies the exception being handled. Call only inside a catch block.
inline ExceptionFailure CurrentExceptionFailure() noexcept {
    try {
        throw;
    } catch (const std::bad_alloc&) {
        return {E_OUTOFMEMORY, "Out of host memory"};
    } catch (const std::length_error&) {
        return {E_OUTOFMEMORY, "A size exceeded what host memory can hold"};
    } catch (const InvalidArgument& e) {
        return {E_INVALIDARG, e.what()};
    } catch (const std::exception& e) {
        return {E_FAIL, e.what()};
    } catch (...) {
        return {E_FAIL, "An unknown internal exception"};
    }
}

// What GetDeviceRemovedReason reports when an exception removes the device: out of memory stays
// E_OUTOFMEMORY, a bad argument E_INVALIDARG, and anything else is the implementation's own
// failure (DXGI_ERROR_DRIVER_INTERNAL_ERROR, D3D12's reason for an internal driver error).
inline HRESULT RemovalReason(const ExceptionFailure& failure) {
    return failure.hr == E_FAIL ? DXGI_ERROR_DRIVER_INTERNAL_ERROR : failure.hr;
}

// The report of an interface with no message channel (DXCore, private data): the HRESULT says it all.
inline void NoReport(const char*, const ExceptionFailure&) noexcept {}

// Runs `body` (which returns an HRESULT); an exception becomes its HRESULT, and `report` (called
// with the method's name and the failure) says so. A report that throws in turn (no memory left
// for the message) is dropped: the HRESULT still reaches the caller.
template <class Body, class Report>
HRESULT Guard(const char* method, Report&& report, Body&& body) noexcept {
    try {
        return std::forward<Body>(body)();
    } catch (...) {
        ExceptionFailure failure = CurrentExceptionFailure();
        try {
            report(method, failure);
        } catch (...) {
        }
        return failure.hr;
    }
}

// The same for a method that returns nothing: `report` decides what the failure does (for most,
// remove the device, as DirectML does for a misused void method).
template <class Body, class Report>
void GuardVoid(const char* method, Report&& report, Body&& body) noexcept {
    try {
        std::forward<Body>(body)();
    } catch (...) {
        ExceptionFailure failure = CurrentExceptionFailure();
        try {
            report(method, failure);
        } catch (...) {
        }
    }
}

// "Out of host memory (a C++ exception was caught at the API boundary)."
inline std::string FailureSentence(const ExceptionFailure& failure) {
    return std::string(failure.what) + " (a C++ exception was caught at the API boundary).";
}
// The same after the method's name: "ID3D12Device::CreateHeap: Out of host memory (...)."
inline std::string DescribeFailure(const char* method, const ExceptionFailure& failure) {
    return std::string(method) + ": " + FailureSentence(failure);
}

}  // namespace freedml
