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

# The Python module importable after the README's commands (python3 -c "import motus"): a .pth
# file in the user's site-packages naming this build's package folder, as `pip install --user
# -e` does (PYTHONPATH and an installed motus still come first).
if [ "$preset" = release ] && [ -d "build/$preset/python/motus" ]; then
    site=$(/usr/bin/python3 -m site --user-site 2> /dev/null || true)
    if [ -n "$site" ] && mkdir -p "$site" 2> /dev/null; then
        echo "$PWD/build/$preset/python" > "$site/motus-build.pth" 2> /dev/null || true
    fi
fi
