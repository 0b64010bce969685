#!/bin/bash
# FreeDML's CUDA backend against PyTorch on the same GPU: GEMM, ResNet-50 convolution layers,
# packed element-wise against the copy bandwidth, dispatch overhead, the memory-bound operators
# (operator_bench.cpp beside operator_torch.py), attention, LSTM and the integer matrix multiplies
# against FLOAT16 GEMM (sequence_bench.cpp --gpu beside sequence_torch.py), a CNN training step
# (training_bench.cpp beside training_torch.py; its per-operator profile stays in training_bench.jsonl),
# whole ONNX models (ResNet-50, MobileNetV2, BERT-base, GPT-2 small through dmlrun beside the same
# torch models in eager mode: bench/onnx_models.py), and compiled graphs on CUDA (graph_bench.cpp:
# fused graph, unfused graph and separate dispatches, once with CUDA-graph replay and once without,
# FREEDML_CUDA_GRAPH=0), written to graph_cuda.txt as RESULT lines.
#   bench/run_gpu.sh [build-dir] [--quick]
# Builds freedml_gpu_bench in the build directory (default build-gpu) when it is missing, runs it
# on the first CUDA adapter and bench/cuda/torch_bench.py on the same GPU, and prints the table.
# Raw JSON lines go to $OUT (or the build directory) as freedml_bench.jsonl and torch_bench.jsonl,
# the table as bench_table.txt and the GPU's facts as gpu.txt: copied into docs/performance/cuda/,
# bench/report.py puts them into docs/PERFORMANCE.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-gpu}
quick=${2:-}
out=${OUT:-$build}
if [ ! -x "$build/bench/cuda/freedml_gpu_bench" ] || [ ! -x "$build/bench/operator_bench" ] ||
   [ ! -x "$build/bench/sequence_bench" ] || [ ! -x "$build/bench/training_bench" ] || [ ! -x "$build/bench/graph_bench" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFREEDML_BENCH=ON >/dev/null
  cmake --build "$build" --target freedml_gpu_bench operator_bench sequence_bench training_bench graph_bench
fi
export FREEDML_ADAPTER=${FREEDML_ADAPTER:-cuda}
"$build/bench/cuda/freedml_gpu_bench" $quick | tee "$out/freedml_bench.jsonl"
"$build/bench/operator_bench" $quick | tee -a "$out/freedml_bench.jsonl"
"$build/bench/sequence_bench" --gpu $quick | tee -a "$out/freedml_bench.jsonl"
# The CNN training step (issue 24), PyTorch with the optimizer FreeDML ran (SGD where it has no Adam).
"$build/bench/training_bench" --profile $quick | tee "$out/training_bench.jsonl"
grep '"bench": "train"' "$out/training_bench.jsonl" >>"$out/freedml_bench.jsonl" || true
optimizer=$(grep -o '"optimizer": "[a-z]*"' "$out/training_bench.jsonl" | head -1 | cut -d'"' -f4 || true)
python3 "$root/bench/cuda/torch_bench.py" $quick | tee "$out/torch_bench.jsonl"
python3 "$root/bench/operator_torch.py" --device cuda $quick | tee -a "$out/torch_bench.jsonl"
python3 "$root/bench/sequence_torch.py" --device cuda $quick | tee -a "$out/torch_bench.jsonl"
python3 "$root/bench/training_torch.py" --device cuda --optimizer "${optimizer:-adam}" $quick | tee -a "$out/torch_bench.jsonl"
"$build/bench/graph_bench" $quick | tee "$out/graph_cuda.txt"
FREEDML_CUDA_GRAPH=0 "$build/bench/graph_bench" $quick | grep ',graph,' |
  sed 's/,compiled graph,/,compiled graph without CUDA graph,/' | tee -a "$out/graph_cuda.txt"
# Real ONNX models through dmlrun on CUDA against the same torch models in eager mode on the same GPU
# (bench/onnx_models.py; needs torch, torchvision and transformers, and a build with libonnx).
if [ -x "$build/tools/dmlrun/dmlrun" ] || cmake --build "$build" --target dmlrun >/dev/null 2>&1; then
  python3 "$root/bench/onnx_models.py" --dmlrun "$build/tools/dmlrun/dmlrun" --adapter cuda --reference torch \
      --models-dir "$build/onnx-models" $quick --split "$out/freedml_bench.jsonl" "$out/torch_bench.jsonl" |
    tee "$out/onnx_models.jsonl" || true
  # The convolution models again with TF32 allowed on both sides (PyTorch's default for convolutions).
  python3 "$root/bench/onnx_models.py" --dmlrun "$build/tools/dmlrun/dmlrun" --adapter cuda --reference torch \
      --models-dir "$build/onnx-models" --allow-half-precision --cases resnet50_b1,resnet50_b16,mobilenet_v2_b1 \
      --split "$out/freedml_bench.jsonl" "$out/torch_bench.jsonl" | tee -a "$out/onnx_models.jsonl" || true
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader || true
{  # the facts bench/report.py prints above the table
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "gpu: $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | head -1)"
  echo "driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)"
  echo "command: tests/cuda/run_on_device.sh bench (bench/run_gpu.sh $quick)"
} > "$out/gpu.txt"
python3 "$root/bench/cuda/compare.py" "$out/freedml_bench.jsonl" "$out/torch_bench.jsonl" | tee "$out/bench_table.txt"
