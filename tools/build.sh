#!/usr/bin/env bash
# Installs what is missing, then configures and builds Motus with a CMake preset
# (default: release, warnings are errors). Incremental: a second run only rebuilds changes.
#   tools/build.sh [preset]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"

bash tools/setup-deps.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
