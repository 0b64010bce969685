// FreeDML - DirectML.h compiled on its own, in each include order that applications use.
// Built by the header_standalone_* tests with -fsyntax-only -Wall -Wextra -Werror.
#ifndef FREEDML_INCLUDE_ORDER
#define FREEDML_INCLUDE_ORDER 1
#endif

#if FREEDML_INCLUDE_ORDER == 1
#include <DirectML.h> // first and only include
#elif FREEDML_INCLUDE_ORDER == 2
#include <wsl/winadapter.h>
#include <d3d12.h>
#include <DirectML.h>
#elif FREEDML_INCLUDE_ORDER == 3
#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <DirectML.h>
#include <dxguids/dxguids.h>
#endif

#include <DirectML.h> // a second include is harmless

// Something from every part of the header, at whatever DML_TARGET_VERSION is in force.
static DML_OPERATOR_DESC UseTheHeader(const DML_GEMM_OPERATOR_DESC* gemm)
{
    (void)__uuidof(IDMLDevice);
    return DML_OPERATOR_DESC{DML_OPERATOR_GEMM, gemm};
}

int main()
{
    DML_GEMM_OPERATOR_DESC gemm{};
    return UseTheHeader(&gemm).Type == DML_OPERATOR_GEMM ? 0 : 1;
}
