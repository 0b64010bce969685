#!/bin/bash
# FreeDML's CUDA backend against PyTorch on the same GPU: GEMM, ResNet-50 convolution layers,
# packed element-wise against the copy bandwidth, dispatch overhead, and the memory-bound operators
# (operator_bench.cpp beside operator_torch.py); and compiled graphs on CUDA (graph_bench.cpp: fused
# graph, unfused graph and separate dispatches, once with CUDA-graph replay and once without,
# FREEDML_CUDA_GRAPH=0), written to graph_cuda.txt as RESULT lines.
#   bench/run_gpu.sh [build-dir] [--quick]
# Builds freedml_gpu_bench in the build directory (default build-gpu) when it is missing, runs it
# on the first CUDA adapter and bench/cuda/torch_bench.py on the same GPU, and prints the table.
# Raw JSON lines go to $OUT (or the build directory) as freedml_bench.jsonl and torch_bench.jsonl.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-gpu}
quick=${2:-}
out=${OUT:-$build}
if [ ! -x "$build/bench/cuda/freedml_gpu_bench" ] || [ ! -x "$build/bench/operator_bench" ] ||
   [ ! -x "$build/bench/graph_bench" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFREEDML_BENCH=ON >/dev/null
  cmake --build "$build" --target freedml_gpu_bench operator_bench graph_bench
fi
export FREEDML_ADAPTER=${FREEDML_ADAPTER:-cuda}
"$build/bench/cuda/freedml_gpu_bench" $quick | tee "$out/freedml_bench.jsonl"
"$build/bench/operator_bench" $quick | tee -a "$out/freedml_bench.jsonl"
python3 "$root/bench/cuda/torch_bench.py" $quick | tee "$out/torch_bench.jsonl"
python3 "$root/bench/operator_torch.py" --device cuda $quick | tee -a "$out/torch_bench.jsonl"
"$build/bench/graph_bench" $quick | tee "$out/graph_cuda.txt"
FREEDML_CUDA_GRAPH=0 "$build/bench/graph_bench" $quick | grep ',graph,' |
  sed 's/,compiled graph,/,compiled graph without CUDA graph,/' | tee -a "$out/graph_cuda.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader || true
python3 "$root/bench/cuda/compare.py" "$out/freedml_bench.jsonl" "$out/torch_bench.jsonl" | tee "$out/bench_table.txt"
