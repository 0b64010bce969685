#!/usr/bin/env bash
# The README's first command: install what is missing, build, and run the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh -DBUILD_TESTING=OFF -DFREEDML_BENCH=OFF
# The main job: dmlrun runs a DirectML model (GEMMs with fused activations, chained). It runs in
# build/ because the model also writes its result to a .npy file there.
cd build
tools/dmlrun/dmlrun ../models/chain.json
