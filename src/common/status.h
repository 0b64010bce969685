// Status: the result of a validation step. It carries the HRESULT a COM method returns and a
// message a user can act on, with the context it gathered on the way up (Dawn's error model:
// "While validating inputs[2] of ...").
#pragma once

#include <cstdarg>
#include <string>
#include <utility>
#include <vector>

#include "common/platform.h"

namespace freedml {

// printf-style formatting into a std::string (g++ 12 has no <format>).
std::string Format(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string FormatV(const char* format, va_list args);

// UTF-8 <-> wide (wchar_t is 4 bytes on Linux; SetName takes wide strings).
std::string Narrow(const wchar_t* text);
std::wstring Widen(const std::string& text);

class [[nodiscard]] Status {
public:
    Status() = default;  // success
    Status(HRESULT hr, std::string message) : hr_(hr), message_(std::move(message)) {}

    static Status Ok() { return {}; }

    bool ok() const { return SUCCEEDED(hr_); }
    explicit operator bool() const = delete;  // say ok() so the reader sees which way it goes
    HRESULT hr() const { return hr_; }
    const std::string& message() const { return message_; }

    // Adds "While <context>:" in front of the contexts already gathered. Returns *this so a
    // caller can write `return status.AddContext(...)`.
    Status& AddContext(std::string context) {
        contexts_.push_back(std::move(context));
        return *this;
    }

    // The message with its contexts, outermost first:
    //   "While creating a GEMM operator: While validating ATensor: DimensionCount (9) ..."
    std::string FullMessage() const;

private:
    HRESULT hr_ = S_OK;
    std::string message_;
    std::vector<std::string> contexts_;  // innermost first
};

Status Error(HRESULT hr, const char* format, ...) __attribute__((format(printf, 2, 3)));

// "No kernel for this on this adapter": the one HRESULT with which an adapter refuses a valid
// operator (a type, data type, layout or fused activation its kernels do not run), so that
// CompileOperator fails the same way on the CPU and on CUDA. DXGI_ERROR_UNSUPPORTED is what
// DirectML answers when a device cannot provide what was asked (DMLCreateDevice1 above the
// supported feature level); E_INVALIDARG would blame a desc that is valid, and E_NOTIMPL is kept for
// methods outside FreeDML's compute subset.
constexpr HRESULT kNoKernel = DXGI_ERROR_UNSUPPORTED;
// kNoKernel with the message "No kernel on this adapter: <formatted text>".
Status NoKernel(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace freedml

// Returns E_INVALIDARG with a formatted message when the condition holds.
#define INVALID_IF(condition, ...)                                         \
    do {                                                                   \
        if (condition) return ::freedml::Error(E_INVALIDARG, __VA_ARGS__); \
    } while (0)

// Returns the status of an expression when it failed.
#define FREEDML_TRY(expression)                     \
    do {                                            \
        ::freedml::Status status_ = (expression);   \
        if (!status_.ok()) return status_;          \
    } while (0)

// Like FREEDML_TRY, adding a context ("While ...") to a failure.
#define FREEDML_TRY_CONTEXT(expression, ...)                                             \
    do {                                                                                 \
        ::freedml::Status status_ = (expression);                                        \
        if (!status_.ok()) return std::move(status_.AddContext(::freedml::Format(__VA_ARGS__))); \
    } while (0)
