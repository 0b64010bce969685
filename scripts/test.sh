#!/usr/bin/env bash
# The README's second command (and what CI runs): install what is missing, build, run every test;
# then build again with AddressSanitizer and UndefinedBehaviorSanitizer and run the suite there.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
jobs=$(nproc)

echo "== build (g++, warnings as errors)"
FREEDML_BUILD_DIR=build ./scripts/build.sh -DFREEDML_WERROR=ON
echo "== tests"
ctest --test-dir build --output-on-failure -j"$jobs"

if [[ "${FREEDML_SKIP_SANITIZERS:-0}" != 1 ]]; then
  # The CUDA plugin is left out here: without a GPU its code does not run, and the first build
  # already compiled it.
  echo "== build (clang++, AddressSanitizer + UndefinedBehaviorSanitizer)"
  CC=clang CXX=clang++ FREEDML_BUILD_DIR=build-asan FREEDML_BUILD_TYPE=Debug \
    ./scripts/build.sh -DFREEDML_SANITIZE=ON -DFREEDML_WERROR=ON -DFREEDML_BENCH=OFF -DFREEDML_CUDA=OFF
  echo "== tests under sanitizers"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE no-sanitizer
  echo "== every test passed (g++ build, and clang build under ASan+UBSan)"
else
  echo "== every test passed (g++ build; the sanitized build was skipped)"
fi
