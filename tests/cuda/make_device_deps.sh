#!/bin/bash
# Fills a deps folder (default .devdeps, which .git/info/exclude keeps out of the repository) with
# what the GPU machine's image lacks, taken from this Debian machine: the DirectX headers and
# DirectX-Guids, nlohmann-json, GoogleTest, pkg-config, and the ONNX C++ library with protobuf and
# the ONNX backend test data as Debian packages (device_deps.sh unpacks them there, so that
# `dmlrun model.onnx` and the ONNX tests build and run on the CUDA adapter).
#   tests/cuda/make_device_deps.sh [deps-dir]
set -euo pipefail
deps=${1:-.devdeps}
lib=/usr/lib/x86_64-linux-gnu
for pkg in directx-headers-dev nlohmann-json3-dev libgtest-dev pkgconf-bin libpkgconf3; do
  dpkg -s $pkg > /dev/null 2>&1 || { echo "install $pkg first (./scripts/install-deps.sh)"; exit 1; }
done
mkdir -p "$deps"/{include,lib,bin,cmake,pkgconfig,debs}
cp -r /usr/include/directx /usr/include/dxguids /usr/include/wsl /usr/include/nlohmann \
      /usr/include/gtest /usr/include/gmock "$deps/include/"
cp $lib/libDirectX-Guids.a $lib/libgtest*.a $lib/libgmock*.a $lib/libpkgconf.so.3* "$deps/lib/"
cp $lib/pkgconfig/DirectX-Headers.pc "$deps/pkgconfig/"
cp -r /usr/share/cmake/nlohmann_json $lib/cmake/GTest "$deps/cmake/"
cp /usr/bin/pkgconf "$deps/bin/"
# The ONNX packages as .deb files: compressed, they stay well inside what a device call carries.
(cd "$deps/debs" && rm -f ./*.deb &&
 apt-get download libonnx1 libonnx-dev libonnxifi libprotobuf32 libprotobuf-lite32 libprotobuf-dev libonnx-testdata)
du -sh "$deps"
