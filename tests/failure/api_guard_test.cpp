// The guard itself (src/common/api_guard.h): which HRESULT each kind of exception becomes, that the
// report sees it, and that a report which throws in turn still lets the HRESULT through.
#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/api_guard.h"

namespace freedml_test {
namespace {

using freedml::ExceptionFailure;

struct Case {
    const char* name;
    void (*thrower)();
    HRESULT expected;
    HRESULT removal;  // the device-removed reason
};

TEST(ApiGuard, EachExceptionBecomesItsHResult) {
    const Case cases[] = {
        {"bad_alloc", [] { throw std::bad_alloc(); }, E_OUTOFMEMORY, E_OUTOFMEMORY},
        {"length_error", [] { throw std::length_error("vector"); }, E_OUTOFMEMORY, E_OUTOFMEMORY},
        {"InvalidArgument", [] { throw freedml::InvalidArgument("axis 7 of 4"); }, E_INVALIDARG, E_INVALIDARG},
        {"runtime_error", [] { throw std::runtime_error("oneDNN said no"); }, E_FAIL,
         DXGI_ERROR_DRIVER_INTERNAL_ERROR},
        {"int", [] { throw 42; }, E_FAIL, DXGI_ERROR_DRIVER_INTERNAL_ERROR},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        std::vector<std::string> reports;
        auto report = [&](const char* method, const ExceptionFailure& failure) {
            EXPECT_EQ(failure.hr, c.expected);
            EXPECT_EQ(freedml::RemovalReason(failure), c.removal);
            reports.push_back(freedml::DescribeFailure(method, failure));
        };
        EXPECT_EQ(freedml::Guard("IFoo::Bar", report, [&]() -> HRESULT {
                      c.thrower();
                      return S_OK;
                  }),
                  c.expected);
        ASSERT_EQ(reports.size(), 1u);
        EXPECT_EQ(reports[0].rfind("IFoo::Bar: ", 0), 0u) << reports[0];
        freedml::GuardVoid("IFoo::Baz", report, [&] { c.thrower(); });
        EXPECT_EQ(reports.size(), 2u);
    }
    EXPECT_NE(std::string(freedml::DescribeFailure("M", {E_INVALIDARG, "axis 7 of 4"})).find("axis 7 of 4"),
              std::string::npos);
}

TEST(ApiGuard, NoExceptionNoReport) {
    int reports = 0;
    auto report = [&](const char*, const ExceptionFailure&) { ++reports; };
    EXPECT_EQ(freedml::Guard("M", report, [] { return S_FALSE; }), S_FALSE);
    EXPECT_EQ(freedml::Guard("M", report, [] { return E_INVALIDARG; }), E_INVALIDARG);
    EXPECT_EQ(reports, 0);
}

TEST(ApiGuard, AReportThatThrowsIsDropped) {
    auto report = [](const char*, const ExceptionFailure&) { throw std::bad_alloc(); };
    EXPECT_EQ(freedml::Guard("M", report, []() -> HRESULT { throw std::bad_alloc(); }), E_OUTOFMEMORY);
    freedml::GuardVoid("M", report, [] { throw std::runtime_error("x"); });  // must not terminate
}

}  // namespace
}  // namespace freedml_test
