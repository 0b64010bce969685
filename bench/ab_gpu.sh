#!/bin/bash
# A/B of freedml_gpu_bench on one GPU: is a change slower than the code it replaces?
#   [FREEDML_GPU_BENCH=gemm,...] bench/ab_gpu.sh BASE_DIR [ROUNDS] [DEPS_DIR]
# BASE_DIR is a source tree of the baseline (e.g. `git archive <commit> | tar -x -C .benchbase`).
# Builds freedml_gpu_bench in BASE_DIR and in this tree side by side (Release, no oneDNN, no
# tests), then runs them alternately ROUNDS times each (default 4: A B A B ...), so that the
# clock and the neighbours of a shared machine treat both alike. Prints, per figure, the median
# and the range of each side and the ratio of the medians (new / base; >1 is better for
# throughput, <1 for microseconds). Raw JSON lines go to /tmp/freedml-ab (and
# $OUT/ab.jsonl, each line prefixed with its side and round). Give BASE_DIR
# the same bench/cuda/gpu_bench.cpp as this tree, so that only the library differs.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base=$(cd "${1:?usage: bench/ab_gpu.sh BASE_DIR [ROUNDS] [DEPS_DIR]}" && pwd)
rounds=${2:-4}
. "$root/tests/cuda/device_deps.sh" "${3:-$root/.devdeps}"
out=/tmp/freedml-ab
rm -rf "$out"
mkdir -p "$out"

build() {  # source-dir build-dir
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFREEDML_BENCH=ON -DFREEDML_ONEDNN=OFF \
        -DBUILD_TESTING=OFF >"$2.configure.log" 2>&1 &&
    cmake --build "$2" --target freedml_gpu_bench -j "$(( $(nproc) / 2 ))" >"$2.build.log" 2>&1
}
start=$(date +%s)
build "$base" /tmp/ab-base & pid_base=$!
build "$root" /tmp/ab-new & pid_new=$!
wait $pid_base || { tail -30 /tmp/ab-base.build.log /tmp/ab-base.configure.log; exit 1; }
wait $pid_new || { tail -30 /tmp/ab-new.build.log /tmp/ab-new.configure.log; exit 1; }
echo "build: $(( $(date +%s) - start )) s"

export FREEDML_ADAPTER=${FREEDML_ADAPTER:-cuda}
for r in $(seq 1 "$rounds"); do
  /tmp/ab-base/bench/cuda/freedml_gpu_bench >"$out/base.$r.jsonl" 2>"$out/base.$r.err" || tail -5 "$out/base.$r.err"
  /tmp/ab-new/bench/cuda/freedml_gpu_bench >"$out/new.$r.jsonl" 2>"$out/new.$r.err" || tail -5 "$out/new.$r.err"
done
if [ -n "${OUT:-}" ]; then
  for f in "$out"/*.jsonl; do sed "s|^|$(basename "$f" .jsonl) |" "$f"; done >"$OUT/ab.jsonl"
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
python3 - "$out" "$rounds" <<'EOF'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])

def figures(path):
    found = {}
    for line in open(path):
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        label = " ".join(str(r[k]) for k in ("bench", "type", "n", "layer") if k in r)
        for key, value in r.items():
            if key in ("tflops", "add_gbs", "scale_bias_gbs", "copy_gbs", "us_per_dispatch"):
                found[f"{label} {key}"] = value
    return found

runs = {side: [figures(f"{out}/{side}.{r}.jsonl") for r in range(1, rounds + 1)] for side in ("base", "new")}
print(f"{'figure':40} {'base median [range]':>26} {'new median [range]':>26} {'new/base':>8}")
for name in runs["base"][0]:
    b = [run[name] for run in runs["base"] if name in run]
    n = [run[name] for run in runs["new"] if name in run]
    if not b or not n:
        continue
    mb, mn = statistics.median(b), statistics.median(n)
    print(f"{name:40} {mb:10.2f} [{min(b):6.1f},{max(b):6.1f}] {mn:10.2f} [{min(n):6.1f},{max(n):6.1f}] {mn / mb:8.3f}")
EOF
