#!/usr/bin/env bash
# The README's first command: install what is missing, build, and run the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh -DBUILD_TESTING=OFF -DFREEDML_BENCH=OFF
if [[ -x build/tools/dmlrun/dmlrun && -f models/hello_identity.json ]]; then
  build/tools/dmlrun/dmlrun models/hello_identity.json
else
  build/samples/d3d12_copy/d3d12_copy
fi
