#!/bin/bash
# FreeDML's benchmarks side by side, in one command:
#   bench/run.sh [--device cpu|cuda|cuda:N] [--quick] [--no-install] [--build DIR] [--docs DIR]
# Installs what the comparisons need (Debian: python3-torch, python3-matplotlib, python3-venv,
# libdnnl-dev, libbenchmark-dev; PyPI into DIR/venv: numpy, onnx, onnxruntime), builds a Release
# FreeDML in build-bench/, runs every benchmark, and writes docs/PERFORMANCE.md with
# docs/performance/results.csv and PNG plots. Every ratio is measured against its reference in the
# same run. --device picks the FreeDML adapter (FREEDML_ADAPTER); the CPU-only references (raw
# oneDNN, ONNX Runtime's CPU provider, the FMA peak) run for cpu only, and a cuda run writes to
# docs/cuda/ so the CPU report stays. --quick: fewer rounds and sizes (a smoke run, minutes);
# FREEDML_BENCH_MODELS=all keeps every ONNX model case (batch 16 and 8 too) in a quick run.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
device=cpu
quick=0
install=1
build="$root/build-bench"
docs=""
while [ $# -gt 0 ]; do
  case "$1" in
    --device) device=$2; shift 2 ;;
    --device=*) device=${1#--device=}; shift ;;
    --quick) quick=1; shift ;;
    --no-install) install=0; shift ;;
    --build) build=$2; shift 2 ;;
    --docs) docs=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "bench/run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
case "$device" in
  cpu) docs=${docs:-$root/docs} ;;
  cuda|cuda:*) docs=${docs:-$root/docs/cuda} ;;
  *) echo "bench/run.sh: --device is cpu, cuda or cuda:N" >&2; exit 2 ;;
esac
export FREEDML_ADAPTER=$device
say() { echo "== $*" >&2; }

# ---- What the comparisons need ----------------------------------------------------------------
if [ "$install" = 1 ]; then
  missing=()
  for package in cmake g++ pkg-config directx-headers-dev libbenchmark-dev libdnnl-dev nlohmann-json3-dev \
                 libgtest-dev python3-torch python3-matplotlib python3-venv; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
fi
# The ONNX model benchmark exports BERT and GPT-2 from transformers (4.40 still runs on Debian's torch 1.13).
if [ "$install" = 1 ] && ! "/usr/bin/python3" -c "import transformers" 2>/dev/null; then
  say "installing transformers 4.40 for Debian's Python"
  /usr/bin/python3 -m pip install -q --break-system-packages 'transformers==4.40.2' || say "transformers did not install"
fi
venv="$build/venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import onnx, onnxruntime, numpy" 2>/dev/null; then
  if [ "$install" = 1 ]; then
    say "creating $venv with numpy, onnx, onnxruntime"
    mkdir -p "$build"
    /usr/bin/python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check numpy onnx onnxruntime
  fi
fi
# Debian's interpreter has python3-torch and python3-matplotlib; the venv has ONNX Runtime (and a
# numpy that Debian's PyTorch was not built for, so the two stay apart).
system_python=/usr/bin/python3

# ---- Build ---------------------------------------------------------------------------------------
say "building a Release FreeDML in $build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DFREEDML_BENCH=ON >/dev/null
jobs=$(nproc)
targets=()
for target in dispatch_bench graph_bench dense_bench dense_bench_alone elementwise_bench operator_bench pooling_bench \
              resample_bench data_movement_bench binding_bench binding_rules_bench sequence_bench training_bench dmlrun; do
  if cmake --build "$build" -j"$jobs" --target "$target" >"$build/build-$target.log" 2>&1; then
    targets+=("$target")
  else
    say "$target did not build (see $build/build-$target.log); its figures are left out"
  fi
done
has() { [[ " ${targets[*]} " == *" $1 "* ]]; }
bin="$build/bench"

# ---- Run -----------------------------------------------------------------------------------------
raw="$build/bench-raw"
rm -rf "$raw"
mkdir -p "$raw"
started=$(date +%s)
rounds=7; sample=0.1; sizes=64,128,256,512,1024,2048; layers="$root/bench/resnet50_convs.csv"; elements=16777216
if [ "$quick" = 1 ]; then
  rounds=3; sample=0.03; sizes=64,256,1024; elements=4194304
  head -6 "$root/bench/resnet50_convs.csv" >"$raw/layers.csv"
  layers="$raw/layers.csv"
fi

{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|fma|avx512f|avx512_bf16|avx512_fp16|f16c)$' | tr '\n' ' ')"
  echo "cores: $(nproc) ($(grep -c ^processor /proc/cpuinfo) in /proc/cpuinfo)"
  echo "memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"
  echo "kernel: $(uname -sr)"
  echo "compiler: $(c++ --version | head -1)"
  echo "oneDNN: $(dpkg -s libdnnl-dev 2>/dev/null | awk '/^Version/ {print $2}') (Debian libdnnl-dev, OpenMP runtime)"
  echo "PyTorch: $($system_python -c 'import torch; print(torch.__version__)' 2>/dev/null || echo missing) (Debian python3-torch)"
  echo "ONNX Runtime: $("$venv/bin/python" -c 'import onnxruntime; print(onnxruntime.__version__)' 2>/dev/null || echo missing) (PyPI)"
  echo "device: $device"
  echo "threads: $(nproc) for every library (FreeDML's pool and oneDNN use every core; PyTorch and ONNX Runtime are set to it)"
} >"$raw/machine.txt"

# run NAME COMMAND...: runs a benchmark, its output to $raw/NAME, its command to commands.tsv.
run() {
  local name=$1; shift
  say "$name: $*"
  local quoted
  quoted=$(printf '%q ' "$@")
  printf '%s\t%s\n' "$name" "$(echo "${quoted% }" | sed -e "s|$PATH|\$PATH|" -e "s|$root/||g")" >>"$raw/commands.tsv"
  "$@" >"$raw/$name" 2>"$raw/$name.err" || say "$name failed (exit $?; see $raw/$name.err)"
}
common=(--rounds "$rounds" --sample-seconds "$sample")
if [ "$device" = cpu ]; then
  has dense_bench && run peak.txt "$bin/dense_bench" --peak
fi
has dispatch_bench && run dispatch.txt "$bin/dispatch_bench" "${common[@]}"
graph_quick=(); [ "$quick" = 1 ] && graph_quick=(--quick)
has graph_bench && run graph.txt "$bin/graph_bench" "${common[@]}" "${graph_quick[@]}"
pooling_onednn=(); [ "$device" = cpu ] || pooling_onednn=(--no-onednn)
has pooling_bench && run pooling.txt "$bin/pooling_bench" "${common[@]}" "${pooling_onednn[@]}"
has resample_bench && run resample.txt "$bin/resample_bench" "${common[@]}" "${graph_quick[@]}"
has data_movement_bench && run data_movement.txt "$bin/data_movement_bench" "${common[@]}" "${graph_quick[@]}"
if has binding_bench; then
  run binding.out "$bin/binding_bench" --benchmark_min_time=0.05 \
      --benchmark_out="$raw/binding.json" --benchmark_out_format=json
fi
if has binding_rules_bench && [ "$device" = cpu ]; then
  run binding_rules.out "$bin/binding_rules_bench" --benchmark_min_time=0.05 \
      --benchmark_out="$raw/binding_rules.json" --benchmark_out_format=json
fi
# elementwise_bench runs elementwise_torch.py with `python3`: Debian's, where python3-torch is.
has elementwise_bench && run elementwise.txt env PATH="/usr/bin:$PATH" "$bin/elementwise_bench" --elements "$elements" --iterations "$rounds"
onednn=(); [ "$device" = cpu ] || onednn=(--no-onednn)
if has dense_bench; then
  run gemm.txt "$bin/dense_bench" --gemm --sizes "$sizes" "${common[@]}" "${onednn[@]}"
  run conv.txt "$bin/dense_bench" --conv --layers "$layers" "${common[@]}" "${onednn[@]}"
fi
# FreeDML alone in its process (dense_bench_alone links no oneDNN of its own, so libdirectml loads
# it and chooses OpenMP's wait policy: cmake/DnnlLazy.cmake), with no variable set, with OpenMP's
# default spinning asked for explicitly (GOMP_SPINCOUNT=300000, what libgomp does when nothing is set)
# and with the passive policy (threads sleep at once).
alone_bench=dense_bench_alone; has dense_bench_alone || alone_bench=dense_bench
if has "$alone_bench" && [ "$device" = cpu ]; then
  head -4 "$root/bench/resnet50_convs.csv" >"$raw/layers-alone.csv"
  alone=(--no-onednn --gemm --conv --types FLOAT32 --sizes 256,1024 --layers "$raw/layers-alone.csv"
         --rounds "$rounds" --sample-seconds "$sample")
  run threading-default.txt "$bin/$alone_bench" "${alone[@]}" --suffix " (alone; no variable set)"
  run threading-spin.txt env GOMP_SPINCOUNT=300000 "$bin/$alone_bench" "${alone[@]}" \
      --suffix " (alone; GOMP_SPINCOUNT=300000)"
  run threading-passive.txt env OMP_WAIT_POLICY=passive "$bin/$alone_bench" "${alone[@]}" \
      --suffix " (alone; OMP_WAIT_POLICY=passive)"
  # Without the one-thread twins that medium GEMMs and convolutions switch to on busy cores.
  run threading-team.txt env FREEDML_CPU_CONTENTION=off "$bin/$alone_bench" "${alone[@]}" \
      --suffix " (alone; FREEDML_CPU_CONTENTION=off)"
  # The same beside a competing process: a busy loop pinned to one core (the first this script may
  # use) while they run; the report divides each figure by its idle twin above.
  if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
    spin_cpu=$(taskset -pc $$ | sed -e 's/.*: *//' -e 's/[^0-9].*//')
    taskset -c "${spin_cpu:-0}" bash -c 'while :; do :; done' &
    spinner=$!
    trap 'kill $spinner 2>/dev/null || true' EXIT
    run competing-default.txt "$bin/$alone_bench" "${alone[@]}" --suffix " (alone; no variable set; spinner)"
    run competing-spin.txt env GOMP_SPINCOUNT=300000 "$bin/$alone_bench" "${alone[@]}" \
        --suffix " (alone; GOMP_SPINCOUNT=300000; spinner)"
    run competing-passive.txt env OMP_WAIT_POLICY=passive "$bin/$alone_bench" "${alone[@]}" \
        --suffix " (alone; OMP_WAIT_POLICY=passive; spinner)"
    run competing-team.txt env FREEDML_CPU_CONTENTION=off "$bin/$alone_bench" "${alone[@]}" \
        --suffix " (alone; FREEDML_CPU_CONTENTION=off; spinner)"
    kill $spinner 2>/dev/null || true
    wait $spinner 2>/dev/null || true
    trap - EXIT
  fi
fi
# The integer matrix multiplies against ONNX Runtime's MatMulInteger and QLinearMatMul (ort.txt).
int8_sizes=1024,4096; [ "$quick" = 1 ] && int8_sizes=1024
# (dense_bench runs under FreeDML's short spin unless a policy is chosen, as FreeDML alone would: the
# first line asks for OpenMP's default spinning explicitly, the second for the passive policy.)
if has dense_bench && [ "$device" = cpu ]; then
  run int8.txt env GOMP_SPINCOUNT=300000 "$bin/dense_bench" --int8 --sizes "$int8_sizes" "${common[@]}"
  run int8-passive.txt env OMP_WAIT_POLICY=passive "$bin/dense_bench" --int8 --sizes "$int8_sizes" "${common[@]}" \
      --suffix " (OMP_WAIT_POLICY=passive)"
fi
torch_device=cpu; [ "$device" = cpu ] || torch_device=cuda
op_quick=(); [ "$quick" = 1 ] && op_quick=(--quick)
has operator_bench && run ops-freedml.jsonl "$bin/operator_bench" "${op_quick[@]}"
run ops-torch.jsonl "$system_python" "$root/bench/operator_torch.py" --device "$torch_device" --threads "$(nproc)" \
    "${op_quick[@]}"
# Attention and LSTM (issue 20) beside PyTorch and, on the CPU, ONNX Runtime (JSON lines).
seq_gpu=(); [ "$device" = cpu ] || seq_gpu=(--gpu)
has sequence_bench && run seq-freedml.jsonl "$bin/sequence_bench" "${seq_gpu[@]}" "${op_quick[@]}"
if has sequence_bench && [ "$device" = cpu ]; then
  run seq-freedml-passive.jsonl env OMP_WAIT_POLICY=passive "$bin/sequence_bench" "${op_quick[@]}"
fi
run seq-torch.jsonl "$system_python" "$root/bench/sequence_torch.py" --device "$torch_device" --threads "$(nproc)" \
    "${op_quick[@]}"
if [ "$device" = cpu ]; then
  run seq-ort.jsonl "$venv/bin/python" "$root/bench/sequence_ort.py" --threads "$(nproc)" "${op_quick[@]}"
fi
# Real models through dmlrun model.onnx against ONNX Runtime's CPU provider on the same inputs (issue
# 21): exported once with Debian's PyTorch (torchvision, transformers) into $build/onnx-models.
if has dmlrun && [ "$device" = cpu ]; then
  run onnx-models.jsonl "$venv/bin/python" "$root/bench/onnx_models.py" --dmlrun "$build/tools/dmlrun/dmlrun" \
      --export-python "$system_python" --models-dir "$build/onnx-models" --threads "$(nproc)" \
      $([ "${FREEDML_BENCH_MODELS:-}" = all ] || echo "${op_quick[@]}")
fi
run torch.txt "$system_python" "$root/bench/references.py" --framework torch --device "$torch_device" \
    --what gemm,conv,dispatch --sizes "$sizes" --layers "$layers" "${common[@]}"
if [ "$device" = cpu ]; then
  run ort.txt "$venv/bin/python" "$root/bench/references.py" --framework ort --what gemm,conv,elementwise,dispatch,int8 \
      --int8-sizes "$int8_sizes" --sizes "$sizes" --layers "$layers" --elements "$elements" "${common[@]}"
elif [ -x "$root/bench/run_gpu.sh" ]; then
  # The CUDA backend's own GPU benchmarks (bench/cuda/), kept beside the report's raw files.
  OUT="$raw" run gpu.out "$root/bench/run_gpu.sh" "$build"
fi
# GEMM FLOAT32 against ONNX Runtime once more, the two processes taking turns (three each): the
# ratio in the GEMM table compares two processes run minutes apart, and on a shared machine a burst
# of other load lasting seconds can fall on one side only. The report gives each turn's ratio and
# the ratio of each side's median over the turns ("GEMM against ONNX Runtime, in turns").
if has dense_bench && [ "$device" = cpu ] && [ "$quick" != 1 ]; then
  for turn in 1 2 3; do
    run "turns-$turn-freedml.txt" "$bin/dense_bench" --gemm --no-onednn --types FLOAT32 --sizes "$sizes" "${common[@]}"
    run "turns-$turn-ort.txt" "$venv/bin/python" "$root/bench/references.py" --framework ort --what gemm \
        --types FLOAT32 --sizes "$sizes" "${common[@]}"
  done
fi
# One CNN training step through the API beside PyTorch's, with the same optimizer (training_bench
# says which it ran: SGD where this FreeDML has no ADAM_OPTIMIZER).
if has training_bench; then
  run train-freedml.jsonl "$bin/training_bench" --profile "${op_quick[@]}"
  optimizer=$(grep -o '"optimizer": "[a-z]*"' "$raw/train-freedml.jsonl" | head -1 | cut -d'"' -f4 || true)
  run train-torch.jsonl "$system_python" "$root/bench/training_torch.py" --device "$torch_device" \
      --threads "$(nproc)" --optimizer "${optimizer:-adam}" "${op_quick[@]}"
  if [ "$device" = cpu ]; then
    # Both sides again with OpenMP's passive wait policy (oneDNN's and PyTorch's teams stop spinning).
    run train-freedml-passive.jsonl env OMP_WAIT_POLICY=passive "$bin/training_bench" "${op_quick[@]}"
    run train-torch-passive.jsonl env OMP_WAIT_POLICY=passive "$system_python" "$root/bench/training_torch.py" \
        --device cpu --threads "$(nproc)" --optimizer "${optimizer:-adam}" "${op_quick[@]}"
  fi
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)" >>"$raw/machine.txt"
echo "run: $(( $(date +%s) - started )) s for every benchmark$([ "$quick" = 1 ] && echo ' (--quick)')" >>"$raw/machine.txt"

say "writing $docs/PERFORMANCE.md"
"$system_python" "$root/bench/report.py" "$raw" "$docs"
