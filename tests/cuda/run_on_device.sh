#!/bin/bash
# One device-machine session: build FreeDML with the CUDA plugin there, run the CUDA tests, the
# conformance suite and the DirectML API tests on the CUDA adapter, compute-sanitizer (memcheck,
# racecheck) on a subset, then bench/run_gpu.sh. Logs go to $OUT.
#   tests/cuda/run_on_device.sh [tests|bench|all|conformance] [deps-dir]
# `conformance` builds only what the conformance suite needs and runs it on the CUDA adapter, then
# compute-sanitizer memcheck over the same cases, and racecheck over the softmax family's cases;
# FREEDML_CONFORMANCE_FILTER (a gtest filter, e.g. 'Conformance_unary_*/cuda') narrows the first
# two, FREEDML_RACECHECK_FILTER the third.
# deps-dir (default .devdeps) holds what the device image lacks: the DirectX headers and
# DirectX-Guids, nlohmann-json, pkg-config (copied into place only when missing).
set -uo pipefail
what=${1:-all}
deps=${2:-.devdeps}
final=${OUT:-/tmp/freedml-out}
out=/tmp/freedml-logs  # everything here comes back as $OUT/logs.tgz (the tool returns few files)
mkdir -p "$out" "$final"
trap 'tar -C "$out" -czf "$final/logs.tgz" . 2>/dev/null; cp "$out/bench_table.txt" "$final/" 2>/dev/null' EXIT
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
if [ ! -d /usr/include/directx ] && [ -d "$deps" ]; then
  cp -r "$deps"/include/* /usr/include/
  cp "$deps"/lib/libDirectX-Guids.a /usr/lib/x86_64-linux-gnu/
  mkdir -p /usr/lib/x86_64-linux-gnu/pkgconfig /usr/share/cmake
  cp "$deps"/pkgconfig/*.pc /usr/lib/x86_64-linux-gnu/pkgconfig/
  [ -d /usr/share/cmake/nlohmann_json ] || cp -r "$deps"/cmake/nlohmann_json /usr/share/cmake/
  if ! command -v pkg-config >/dev/null; then
    cp "$deps"/lib/libpkgconf.so.3* /usr/lib/x86_64-linux-gnu/ && ldconfig
    cp "$deps"/bin/pkgconf /usr/local/bin/pkg-config
  fi
fi
# Build from a copy that keeps only the test folders this session runs, so that other work in
# progress in the tree (a test folder mid-edit) cannot stop the configure step.
start=$(date +%s)
src=/tmp/freedml-src
rm -rf $src && mkdir -p $src
tar --exclude='./build*' --exclude="./$deps" --exclude=./.git -cf - . | tar -C $src -xf -
for d in $src/tests/*/; do case $(basename "$d") in conformance|cuda|dml|d3d12_exec) ;; *) rm -rf "$d" ;; esac; done
cd $src
build=build-gpu
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON -DFREEDML_BENCH=ON \
  > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
targets="d3d12 dxcore directml freedml_cuda conformance_test cuda_d3d12_test cuda_dml_test dml_api_test freedml_gpu_bench"
[ "$what" = conformance ] && targets="d3d12 dxcore directml freedml_cuda conformance_test"
cmake --build $build --target $targets -- -k 0 > "$out/build.log" 2>&1 || { grep -B2 -A12 "error" "$out/build.log" | head -80; }
echo "build: $(( $(date +%s) - start )) s"
FREEDML_DEBUG=1 ./$build/tests/cuda/cuda_d3d12_test --gtest_filter=*AdapterIs* 2>&1 | grep -i "freedml\|OK\|FAIL" | head -5

run() {  # name, timeout, command...
  local name=$1 limit=$2; shift 2
  local t0=$(date +%s)
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "$name: rc=$rc $(( $(date +%s) - t0 ))s $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/$name.log" | tr '\n' ' ' | head -c 300)"
  grep -E '^\[  FAILED  \]' "$out/$name.log" | head -20
}
if [ "$what" = conformance ]; then
  filter="${FREEDML_CONFORMANCE_FILTER:-*/cuda}"
  run conformance 300 ./$build/tests/conformance/conformance_test --gtest_filter="$filter"
  grep -E '^\[  FAILED  \]' "$out/conformance.log" | sed 's/\..*//;s/.*Conformance_//' | sort | uniq -c
  grep -B3 -A12 -m5 'Failure' "$out/conformance.log" | head -120
  run memcheck 300 compute-sanitizer --tool memcheck --error-exitcode 3 \
    ./$build/tests/conformance/conformance_test --gtest_filter="$filter"
  grep -E "ERROR SUMMARY|Invalid|========= " "$out/memcheck.log" | head -12
  # Racecheck where kernels share memory between threads: the softmax family's block reductions.
  run racecheck 300 compute-sanitizer --tool racecheck --error-exitcode 3 \
    ./$build/tests/conformance/conformance_test --gtest_filter="${FREEDML_RACECHECK_FILTER:-Conformance_activation_axis*/cuda}"
  grep -E "RACECHECK SUMMARY|========= " "$out/racecheck.log" | head -8
  echo "total: $(( $(date +%s) - start )) s"
  exit 0
fi
if [ "$what" != bench ]; then
  run cuda_d3d12 120 ./$build/tests/cuda/cuda_d3d12_test
  run cuda_dml 240 ./$build/tests/cuda/cuda_dml_test
  run conformance 240 ./$build/tests/conformance/conformance_test
  echo "conformance failures on cuda by case file (operators without CUDA kernels are refused):"
  grep -E '^\[  FAILED  \] Conformance_.*/cuda \(' "$out/conformance.log" | sed 's/\..*//;s/.*Conformance_//' | sort | uniq -c
  FREEDML_ADAPTER=cuda run dml_api_on_cuda 240 ./$build/tests/dml/dml_api_test
fi
if [ "$what" = all ] || [ "$what" = bench ]; then
  OUT=$out timeout 300 bench/run_gpu.sh $build > "$out/bench.log" 2>&1; echo "bench rc=$?"
  cat "$out/bench_table.txt" 2>/dev/null || tail -20 "$out/bench.log"
fi
if [ "$what" != bench ]; then
  sub="*Identity*:*Add*:*Join*:*Gemm*"
  run memcheck 200 compute-sanitizer --tool memcheck --error-exitcode 3 ./$build/tests/cuda/cuda_dml_test --gtest_filter="$sub"
  grep -E "ERROR SUMMARY|Invalid|========= " "$out/memcheck.log" | head -8
  run memcheck_d3d12 120 compute-sanitizer --tool memcheck --error-exitcode 3 ./$build/tests/cuda/cuda_d3d12_test --gtest_filter=-*OutOfMemory*
  grep -E "ERROR SUMMARY" "$out/memcheck_d3d12.log" | head -3
  run racecheck 200 compute-sanitizer --tool racecheck --error-exitcode 3 ./$build/tests/cuda/cuda_dml_test --gtest_filter="*Identity*:*Add*:*Join*"
  grep -E "ERROR SUMMARY|RACE|========= " "$out/racecheck.log" | head -8
fi
echo "total: $(( $(date +%s) - start )) s"
