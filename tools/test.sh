#!/usr/bin/env bash
# README command 2: install what is missing, build (Release, warnings are errors) and run
# every test with CTest. GUI tests start their own virtual display when DISPLAY is unset.
# Extra arguments go to ctest, e.g. -R SceneJson or -L ui.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh release
ctest --preset release --parallel 2 "$@"
