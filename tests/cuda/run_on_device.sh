#!/bin/bash
# One device-machine session: build FreeDML with the CUDA plugin there, run the CUDA tests, the
# conformance suite, the DirectML API and graph tests on the CUDA adapter, compute-sanitizer (memcheck,
# racecheck) on a subset, then bench/run_gpu.sh. Logs go to $OUT.
#   tests/cuda/run_on_device.sh [tests|bench|all|conformance|onnx] [deps-dir]
# `conformance` builds only what the conformance suite needs and runs it on the CUDA adapter, then
# compute-sanitizer memcheck over the same cases, and racecheck over the softmax family's cases;
# FREEDML_CONFORMANCE_FILTER (a gtest filter, e.g. 'Conformance_unary_*/cuda') narrows the first
# two (FREEDML_MEMCHECK_FILTER the second alone), FREEDML_RACECHECK_FILTER the third;
# FREEDML_FAMILY_TESTS (e.g. "pooling quantized") adds those families' API tests on the CUDA adapter;
# FREEDML_BENCH_OPS (operator_bench --only's list) then benchmarks those operators against PyTorch.
# `onnx` builds dmlrun with the ONNX lowering (the library comes from deps-dir's Debian packages)
# and runs the ONNX tests on the CUDA adapter: the small models, the real models (torchvision and
# transformers, exported there with that machine's PyTorch) and the ONNX backend suites, whose pass
# counts it prints; FREEDML_ONNX_TESTS (a ctest regex) narrows them, FREEDML_ONNX_BACKEND=0 skips the
# backend suites, FREEDML_ONNX_BENCH (all, quick or case names) adds bench/onnx_models.py on CUDA,
# FREEDML_ONNX_BENCH_TF32 (case names) the same cases with TF32 allowed on both sides,
# FREEDML_ONNX_BENCH_COMPILE (case names) against torch.compile.
# `tests` also installs the build into a prefix, moves the prefix, and lists the adapters with the
# moved dmlrun in a clean environment (the CUDA plugin must be found beside the libraries), then
# runs the CUDA tests, the conformance suite (FREEDML_CONFORMANCE_FILTER narrows it), the DirectML
# API tests on CUDA and the sanitizers. Steps start only while FREEDML_DEVICE_BUDGET seconds
# (default 570, under the device tool's 600 s a command) are not spent; a skipped step says so.
# deps-dir (default .devdeps) holds what the device image lacks: the DirectX headers and
# DirectX-Guids, nlohmann-json, pkg-config, and where missing GoogleTest and Google Benchmark
# (copied into place only when missing). Without oneDNN there, the build uses the reference
# kernels (FREEDML_ONEDNN=OFF); without Google Benchmark, `tests` and `conformance` build no
# benchmark.
set -uo pipefail
what=${1:-all}
deps=${2:-.devdeps}
final=${OUT:-/tmp/freedml-out}
out=/tmp/freedml-logs  # everything here comes back as $OUT/logs.tgz (the tool returns few files)
mkdir -p "$out" "$final"
# The benchmark's results come back as $OUT/cuda/, what docs/performance/cuda/ keeps.
trap 'tar -C "$out" -czf "$final/logs.tgz" . 2>/dev/null; cp "$out/bench_table.txt" "$final/" 2>/dev/null
      mkdir -p "$final/cuda"; for f in bench_table.txt gpu.txt freedml_bench.jsonl torch_bench.jsonl graph_cuda.txt training_bench.jsonl; do
      cp "$out/$f" "$final/cuda/" 2>/dev/null; done' EXIT
. "$(dirname "$0")/device_deps.sh" "$deps"
# Build from a copy that keeps only the test folders this session runs, so that other work in
# progress in the tree (a test folder mid-edit) cannot stop the configure step.
start=$(date +%s)
src=/tmp/freedml-src
rm -rf $src && mkdir -p $src
tar --exclude='./build*' --exclude="./$deps" --exclude=./.git -cf - . | tar -C $src -xf -
# The operator families' API tests (tests/<family>/<family>_api_test), run on the CUDA adapter.
families="reduction data_movement generators pooling normalization region_pooling resampling quantized recurrent attention optimizer training"
keep="conformance cuda dml dmlrun onnx d3d12 d3d12_exec dxcore graph elementwise_binary elementwise_unary $families"
for d in $src/tests/*/; do case " $keep " in *" $(basename "$d") "*) ;; *) rm -rf "$d" ;; esac; done
cd $src
build=build-gpu
bench=ON
[ "$what" = all ] || [ "$what" = bench ] || [ -n "${FREEDML_BENCH_OPS:-}" ] || bench=OFF
configure() { cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON -DFREEDML_BENCH=$bench "$@" \
                > "$out/configure.log" 2>&1; }
if ! configure; then
  if grep -q "oneDNN\|OpenCL" "$out/configure.log"; then
    echo "no oneDNN (or the OpenCL it loads) here: the CPU adapter uses its reference kernels"
    rm -rf $build && configure -DFREEDML_ONEDNN=OFF || { tail -30 "$out/configure.log"; exit 1; }
  else
    tail -30 "$out/configure.log"; exit 1
  fi
fi
targets="d3d12 dxcore directml freedml_cuda dmlrun conformance_test cuda_d3d12_test cuda_dml_test dml_api_test graph_api_test elementwise_binary_test elementwise_unary_test dxcore_tests d3d12_exec_tests"
for f in $families; do targets="$targets ${f}_api_test"; done
[ "$what" = all ] || [ "$what" = bench ] && targets="$targets freedml_gpu_bench operator_bench training_bench"
[ "$what" = conformance ] && targets="d3d12 dxcore directml freedml_cuda conformance_test"
[ "$what" = onnx ] && targets="d3d12 dxcore directml freedml_cuda dmlrun onnx_backend_test"
[ "$what" = conformance ] && for f in ${FREEDML_FAMILY_TESTS:-}; do targets="$targets ${f}_api_test"; done
[ "$what" = conformance ] && [ -n "${FREEDML_BENCH_OPS:-}" ] && targets="$targets operator_bench"
cmake --build $build --target $targets -- -k 0 > "$out/build.log" 2>&1 || { grep -B2 -A12 "error" "$out/build.log" | head -80; }
echo "build: $(( $(date +%s) - start )) s"
FREEDML_DEBUG=1 ./$build/tests/cuda/cuda_d3d12_test --gtest_filter=*AdapterIs* 2>&1 | grep -i "freedml\|OK\|FAIL" | head -5

budget=${FREEDML_DEVICE_BUDGET:-570}
run() {  # name, timeout, command... (the timeout shrinks to what is left of the budget)
  local name=$1 limit=$2; shift 2
  local t0=$(date +%s) left=$(( budget - ($(date +%s) - start) - 10 ))
  if [ "$left" -lt 20 ]; then echo "$name: skipped (${left}s of the budget left)"; return; fi
  [ "$left" -lt "$limit" ] && limit=$left
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
  for f in ${FREEDML_FAMILY_TESTS:-}; do
    FREEDML_ADAPTER=cuda run ${f}_api_on_cuda 120 ./$build/tests/$f/${f}_api_test
  done
  run memcheck 300 compute-sanitizer --tool memcheck --error-exitcode 3 \
    ./$build/tests/conformance/conformance_test --gtest_filter="${FREEDML_MEMCHECK_FILTER:-$filter}"
  grep -E "ERROR SUMMARY|Invalid|========= " "$out/memcheck.log" | head -12
  # Racecheck where kernels share memory between threads: the softmax family's block reductions.
  run racecheck 300 compute-sanitizer --tool racecheck --error-exitcode 3 \
    ./$build/tests/conformance/conformance_test --gtest_filter="${FREEDML_RACECHECK_FILTER:-Conformance_activation_axis*/cuda}"
  grep -E "RACECHECK SUMMARY|========= " "$out/racecheck.log" | head -8
  if [ -n "${FREEDML_BENCH_OPS:-}" ]; then  # after the checks, those operators' benchmark
    FREEDML_ADAPTER=cuda ./$build/bench/operator_bench --only "$FREEDML_BENCH_OPS" > "$out/freedml_bench.jsonl" 2> "$out/bench.log"
    python3 bench/operator_torch.py --device cuda --only "$FREEDML_BENCH_OPS" > "$out/torch_bench.jsonl" 2>> "$out/bench.log"
    python3 bench/cuda/compare.py "$out/freedml_bench.jsonl" "$out/torch_bench.jsonl" | tee "$out/bench_table.txt"
  fi
  echo "total: $(( $(date +%s) - start )) s"
  exit 0
fi
if [ "$what" = onnx ]; then
  grep -E "ONNX" "$out/configure.log" | head -3
  regex="${FREEDML_ONNX_TESTS:-^onnx\.(case|torchvision|dxdispatch)\..*cuda}"
  (cd $build && timeout $(( budget - ($(date +%s) - start) - 120 )) ctest -R "$regex" -j4 --timeout 400 \
      --output-on-failure > "$out/onnx.log" 2>&1)
  echo "onnx ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*|Not Run|Timeout" "$out/onnx.log" | head -40
  # The real models against PyTorch eager on this GPU (bench/onnx_models.py; results come back as
  # $OUT/cuda/onnx_models.jsonl): FREEDML_ONNX_BENCH is "all", "quick" or a list of its case names.
  if [ -n "${FREEDML_ONNX_BENCH:-}" ]; then
    bench_args=""
    case "$FREEDML_ONNX_BENCH" in all) ;; quick) bench_args="--quick" ;; *) bench_args="--cases $FREEDML_ONNX_BENCH" ;; esac
    timeout $(( budget - ($(date +%s) - start) - 30 )) python3 bench/onnx_models.py --dmlrun $build/tools/dmlrun/dmlrun \
        --adapter cuda --reference torch --models-dir $build/onnx-models $bench_args > "$out/onnx_models.jsonl" 2> "$out/onnx_models.log"
    echo "onnx_models rc=$?"; cat "$out/onnx_models.jsonl"; tail -5 "$out/onnx_models.log"
    # FREEDML_ONNX_BENCH_TF32 (case names): the same with --allow-half-precision against PyTorch with TF32.
    if [ -n "${FREEDML_ONNX_BENCH_TF32:-}" ]; then
      timeout $(( budget - ($(date +%s) - start) - 10 )) python3 bench/onnx_models.py --dmlrun $build/tools/dmlrun/dmlrun \
          --adapter cuda --reference torch --models-dir $build/onnx-models --allow-half-precision \
          --cases "$FREEDML_ONNX_BENCH_TF32" >> "$out/onnx_models.jsonl" 2>> "$out/onnx_models.log"
      echo "onnx_models tf32 rc=$?"; grep _tf32 "$out/onnx_models.jsonl"
    fi
    # FREEDML_ONNX_BENCH_COMPILE (case names): against torch.compile instead of eager.
    if [ -n "${FREEDML_ONNX_BENCH_COMPILE:-}" ]; then
      timeout $(( budget - ($(date +%s) - start) - 10 )) python3 bench/onnx_models.py --dmlrun $build/tools/dmlrun/dmlrun \
          --adapter cuda --reference torch --models-dir $build/onnx-models --torch-compile \
          --cases "$FREEDML_ONNX_BENCH_COMPILE" >> "$out/onnx_models.jsonl" 2>> "$out/onnx_models.log"
      echo "onnx_models compile rc=$?"; grep _vs_compile "$out/onnx_models.jsonl"; tail -3 "$out/onnx_models.log"
    fi
    mkdir -p "$final/cuda" && cp "$out/onnx_models.jsonl" "$final/cuda/"
  fi
  [ "${FREEDML_ONNX_BACKEND:-1}" = 0 ] && { echo "total: $(( $(date +%s) - start )) s"; exit 0; }
  for suite in node pytorch-converted pytorch-operator simple; do  # the backend suites' pass counts
    run backend_$suite 100 ./$build/tests/onnx/onnx_backend_test /usr/share/libonnx-testdata/data --adapter cuda \
        --suite $suite --report "$out/backend-$suite-cuda.md"
    grep -m1 -E "[0-9]+ of [0-9]+ pass" "$out/backend-$suite-cuda.md" "$out/backend_$suite.log" | head -1
  done
  echo "total: $(( $(date +%s) - start )) s"
  exit 0
fi
if [ "$what" != bench ]; then
  # An installed prefix, moved, run with a clean environment: the plugin is found beside the
  # libraries and resolves them from its own prefix.
  rm -rf /tmp/p1 /tmp/p2
  if cmake --install $build --prefix /tmp/p1 > "$out/install.log" 2>&1 && mv /tmp/p1 /tmp/p2; then
    echo "moved prefix: env -i PATH=/usr/bin:/bin /tmp/p2/bin/dmlrun --list-adapters"
    env -i PATH=/usr/bin:/bin /tmp/p2/bin/dmlrun --list-adapters 2>&1 | head -10
    for plugin in /tmp/p2/lib*/libfreedml_cuda.so /tmp/p2/lib*/*/libfreedml_cuda.so; do
      [ -e "$plugin" ] || continue
      echo "ldd $plugin:"; ldd "$plugin" | grep -v "linux-vdso\|ld-linux"
      echo "RUNPATH: $(readelf -d "$plugin" | grep -oE 'R(UN)?PATH.*' | sed 's/.*: //')"
    done
    echo "ldd /tmp/p2/bin/dmlrun (FreeDML's libraries):"; ldd /tmp/p2/bin/dmlrun | grep -i "d3d12\|dxcore\|directml"
  else
    echo "install failed:"; tail -20 "$out/install.log"
  fi
  run cuda_d3d12 120 ./$build/tests/cuda/cuda_d3d12_test
  run cuda_dml 240 ./$build/tests/cuda/cuda_dml_test
  grep -A3 "InjectedLaunchFailure" "$out/cuda_dml.log" | grep -v "^\[ RUN" | head -6
  run conformance 240 ./$build/tests/conformance/conformance_test --gtest_filter="${FREEDML_CONFORMANCE_FILTER:-*}"
  echo "conformance failures on cuda by case file (operators without CUDA kernels are refused):"
  grep -E '^\[  FAILED  \] Conformance_.*/cuda \(' "$out/conformance.log" | sed 's/\..*//;s/.*Conformance_//' | sort | uniq -c
  FREEDML_ADAPTER=cuda run dml_api_on_cuda 240 ./$build/tests/dml/dml_api_test
  FREEDML_ADAPTER=cuda run graph_api_on_cuda 120 ./$build/tests/graph/graph_api_test
  # Placed buffers aliasing in one heap (the clients' sub-allocation), and a list Reset and run
  # again while its previous recording executes, on the GPU.
  FREEDML_ADAPTER=cuda run placed_on_cuda 60 ./$build/tests/d3d12_exec/d3d12_exec_tests \
    --gtest_filter='D3D12ExecPlaced.*:D3D12ExecQueue.ResetListRunsWhileItsPreviousRecordingStillExecutes'
  # In-place execution (the kernel set's snapshots of inputs read through another layout).
  for t in elementwise_binary elementwise_unary; do
    FREEDML_ADAPTER=cuda run ${t}_on_cuda 120 ./$build/tests/$t/${t}_test
  done
  for f in $families; do
    FREEDML_ADAPTER=cuda run ${f}_api_on_cuda 120 ./$build/tests/$f/${f}_api_test
  done
  run dxcore 120 ./$build/tests/dxcore/dxcore_tests  # the CUDA adapters' identity and memory budget
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
