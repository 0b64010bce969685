#!/usr/bin/env bash
# Configures and builds FreeDML into build/ (or $FREEDML_BUILD_DIR). Extra arguments go to CMake.
# Compiles through ccache when it is installed (FREEDML_CCACHE=0 turns that off).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${FREEDML_BUILD_DIR:-build}
launcher=()
if [[ ${FREEDML_CCACHE:-1} != 0 ]] && command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=${FREEDML_BUILD_TYPE:-RelWithDebInfo} "${launcher[@]}" "$@" >/dev/null
cmake --build "$build_dir" -j"$(nproc)"
