#!/usr/bin/env bash
# Installs what FreeDML needs to build and test on Debian 12, skipping what is already there.
# Run as root (or with sudo). Python packages are installed only with --python (benchmarks and
# regenerating test data need them; building and testing do not).
set -euo pipefail

# ocl-icd-opencl-dev: libdnnl-dev only recommends it, but oneDNN's CMake package refuses to load
# without OpenCL's headers and library. cmake/Dependencies.cmake names the package of anything
# missing here.
packages=(cmake g++ clang make pkg-config git python3 directx-headers-dev googletest libgtest-dev
          libbenchmark-dev nlohmann-json3-dev libdnnl-dev ocl-icd-opencl-dev libonnx-dev libprotobuf-dev)
# Installs those of the named Debian packages that are not installed yet.
install_missing() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "Installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}
install_missing "${packages[@]}"

if [[ "${1:-}" == "--python" ]]; then
  python3 -m pip install --quiet numpy onnx onnxruntime
  # The real-model tests (tests/onnx/torchvision_test.py) export torchvision's models and the
  # transformers package's BERT and GPT-2 with Debian's PyTorch (1.13, in /usr/bin/python3);
  # transformers 4.40 is a release that still runs on torch 1.13. Without them those tests skip.
  install_missing python3-torch python3-torchvision
  if ! /usr/bin/python3 -c "import transformers" 2>/dev/null; then
    /usr/bin/python3 -m pip install --quiet --break-system-packages 'transformers==4.40.2'
  fi
fi
