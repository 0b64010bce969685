#!/bin/bash
# Compares Debian's oneDNN (what FreeDML builds against) with PyPI's newest GNU OpenMP build of
# oneDNN 3.x on f32 matmuls with packed B, under the short OpenMP spin libdirectml asks for
# (FREEDML_OMP_SPIN_COUNT in CMakeLists.txt; SPIN=N overrides it here).
# Needs g++, libdnnl-dev and pip (scripts/install-deps.sh --python); downloads two wheels into a
# temporary folder. Usage: bench/onednn_versions/run.sh [sizes...] (default 128 256 512 1024).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sizes=("${@:-128 256 512 1024}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
spin=${SPIN:-$(sed -n 's/^set(FREEDML_OMP_SPIN_COUNT \([0-9]*\) .*/\1/p' "$here/../../CMakeLists.txt")}
if [[ ! $spin =~ ^[0-9]+$ ]]; then
    echo "run.sh: no spin count: FREEDML_OMP_SPIN_COUNT not found in CMakeLists.txt and SPIN unset or not a number" >&2
    exit 1
fi
python3 -m pip download --quiet --no-deps -d "$work" onednn-cpu-gomp==2023.2.0 onednn-devel-cpu-gomp==2023.2.0
for wheel in "$work"/*.whl; do python3 -m zipfile -e "$wheel" "$work/unpacked"; done
include=$(dirname "$(find "$work/unpacked" -path '*include/oneapi/dnnl/dnnl.hpp' | head -1)")/../..
lib=$(dirname "$(find "$work/unpacked" -name 'libdnnl.so.3' | head -1)")
g++ -O2 -std=c++17 "$here/matmul_versions.cpp" -o "$work/debian" -ldnnl
g++ -O2 -std=c++17 -I"$include" "$here/matmul_versions.cpp" -o "$work/pypi" -L"$lib" -l:libdnnl.so.3 -Wl,-rpath,"$lib"
for round in 1 2; do
    GOMP_SPINCOUNT=$spin "$work/debian" ${sizes[*]}
    GOMP_SPINCOUNT=$spin "$work/pypi" ${sizes[*]}
done
