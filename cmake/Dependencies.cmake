# Every external dependency of the build, looked up here and nowhere else, before any target is
# defined. A missing one stops the configure step with one sentence that names the Debian package
# to install (scripts/install-deps.sh installs them all), never an error from inside a third-party
# CMake file.

# freedml_require(<found> <what> <debian packages>): stop with an actionable sentence.
function(freedml_require found what packages)
  if(NOT ${found})
    message(FATAL_ERROR
      "FreeDML needs ${what}, which was not found: install the Debian package(s) ${packages} "
      "(./scripts/install-deps.sh installs every dependency), then configure again.")
  endif()
endfunction()

find_program(FREEDML_PKG_CONFIG_EXECUTABLE pkg-config)
freedml_require(FREEDML_PKG_CONFIG_EXECUTABLE "pkg-config" "pkg-config")
find_package(PkgConfig QUIET)

# Debian's directx-headers-dev: d3d12.h, d3dx12.h, dxcore.h and the wsl/ shims.
pkg_check_modules(DIRECTX_HEADERS QUIET IMPORTED_TARGET DirectX-Headers)
freedml_require(DIRECTX_HEADERS_FOUND "the DirectX headers (DirectX-Headers.pc)" "directx-headers-dev")

find_package(Threads REQUIRED)

# oneDNN: the CPU's dense math. Debian's package config loads only when OpenCL's headers and
# library are present (libdnnl-dev merely recommends them), so OpenCL is checked first: a missing
# OpenCL otherwise surfaces as an error deep inside dnnl-config.cmake.
option(FREEDML_ONEDNN "Use oneDNN for CPU dense math (reference kernels only when OFF)" ON)
if(FREEDML_ONEDNN)
  find_package(OpenCL QUIET)
  freedml_require(OpenCL_FOUND "the OpenCL headers and library that oneDNN's CMake package loads"
                  "ocl-icd-opencl-dev")
  find_package(dnnl CONFIG QUIET)
  freedml_require(dnnl_FOUND "oneDNN (dnnl-config.cmake)" "libdnnl-dev")
endif()

# dmlrun reads JSON models.
find_package(nlohmann_json 3.10 QUIET)
freedml_require(nlohmann_json_FOUND "nlohmann/json 3.10 or newer" "nlohmann-json3-dev")

if(BUILD_TESTING)
  find_package(GTest QUIET)
  freedml_require(GTest_FOUND "GoogleTest" "googletest libgtest-dev")
  find_package(Python3 COMPONENTS Interpreter QUIET)
  freedml_require(Python3_Interpreter_FOUND "Python 3 (the tests compare dmlrun's output with it)"
                  "python3")
endif()

if(FREEDML_BENCH)
  find_package(benchmark QUIET)
  freedml_require(benchmark_FOUND "Google Benchmark (or configure with -DFREEDML_BENCH=OFF)"
                  "libbenchmark-dev")
endif()

# ONNX models (src/onnx, `dmlrun model.onnx`): optional. ONNX's C++ library parses models and infers
# shapes; without it everything else builds and dmlrun reads only JSON models.
option(FREEDML_ONNX "Build the ONNX model lowering when ONNX's C++ library is found" ON)
if(FREEDML_ONNX)
  find_package(ONNX CONFIG QUIET)
  find_package(Protobuf QUIET)
  if(ONNX_FOUND AND Protobuf_FOUND AND TARGET onnx)
    message(STATUS "ONNX ${ONNX_VERSION} found: building the ONNX lowering (dmlrun model.onnx).")
  else()
    message(STATUS "ONNX's C++ library was not found: dmlrun will not read .onnx models. Install the Debian "
                   "packages libonnx-dev and libprotobuf-dev (./scripts/install-deps.sh) and configure again.")
    set(FREEDML_ONNX OFF)
  endif()
endif()
