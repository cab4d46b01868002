#!/usr/bin/env bash
# README command 1: install what is missing, build (Release) and open the GUI on the four-bar
# example. Extra arguments go to motus, e.g. another scene or --screenshot shot.png.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh release

args=("$@")
[ ${#args[@]} -gt 0 ] || args=(scenes/four_bar.json)
if [ -z "${DISPLAY:-}" ]; then
    echo "motus: no DISPLAY; starting on a virtual display (Xvfb). Stop with Ctrl+C." >&2
fi
exec bash tools/with-display.sh build/release/bin/motus "${args[@]}"
