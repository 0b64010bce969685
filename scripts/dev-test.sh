#!/usr/bin/env bash
# The inner loop: build what changed in build/ (or $FREEDML_BUILD_DIR) and run the fast test tiers,
# unit and api (tests/CMakeLists.txt explains the tiers). Extra arguments go to ctest:
#   ./scripts/dev-test.sh -R dml_api        # one suite
#   ./scripts/dev-test.sh --rerun-failed
# The full suite is ./scripts/test.sh (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${FREEDML_BUILD_DIR:-build}
FREEDML_BUILD_DIR=$build_dir ./scripts/build.sh
ctest --test-dir "$build_dir" -L '^(unit|api)$' -LE slow -j"$(nproc)" --output-on-failure "$@"
