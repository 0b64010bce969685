# Sourced by the device-machine scripts: puts CUDA on the path and copies into place what the
# device image lacks from the deps folder given as $1 (DirectX headers and DirectX-Guids,
# nlohmann-json, pkg-config, and where missing GoogleTest and Google Benchmark, and the ONNX
# library, protobuf and the ONNX backend test data as Debian packages); make_device_deps.sh fills it.
deps=${1:-.devdeps}
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
# GoogleTest and Google Benchmark: static libraries, headers and CMake packages.
for pkg in GTest benchmark; do
  if [ ! -d /usr/lib/x86_64-linux-gnu/cmake/$pkg ] && [ ! -d /usr/local/lib/cmake/$pkg ] && [ -d "$deps/cmake/$pkg" ]; then
    mkdir -p /usr/lib/x86_64-linux-gnu/cmake
    cp -r "$deps/cmake/$pkg" /usr/lib/x86_64-linux-gnu/cmake/
    case $pkg in
      GTest) cp "$deps"/lib/libgtest*.a "$deps"/lib/libgmock*.a /usr/lib/x86_64-linux-gnu/
             cp -r "$deps"/include/gtest "$deps"/include/gmock /usr/include/ ;;
      benchmark) cp "$deps"/lib/libbenchmark*.a /usr/lib/x86_64-linux-gnu/
                 cp -r "$deps"/include/benchmark /usr/include/ ;;
    esac
  fi
done
# ONNX's C++ library, protobuf and the backend test data: the Debian packages are unpacked aside and
# only files the image lacks are copied into /usr (never replacing one of its own).
if [ ! -d /usr/include/onnx ] && ls "$deps"/debs/*.deb > /dev/null 2>&1; then
  rm -rf /tmp/devdebs && mkdir -p /tmp/devdebs
  for f in "$deps"/debs/*.deb; do dpkg-deb -x "$f" /tmp/devdebs; done
  cp -rn /tmp/devdebs/usr/. /usr/ && ldconfig
fi
