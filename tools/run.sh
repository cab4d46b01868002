#!/usr/bin/env bash
# README command 1: install what is missing, build (Release) and open the GUI on the four-bar
# example. Extra arguments go to motus: another scene, and options such as --screenshot
# shot.png or --run-to 2 (the four-bar stays the scene unless one is named).
set -euo pipefail
cd "$(dirname "$0")/.."
# MOTUS_NO_BUILD=1 and MOTUS_BIN=path: a build known to be current (the test of this script).
[ "${MOTUS_NO_BUILD:-0}" = 1 ] || bash tools/build.sh release

# Is a scene among the arguments? Options that take a value skip it.
scene_given=0
expect_value=0
for arg in "$@"; do
    if [ "$expect_value" = 1 ]; then expect_value=0; continue; fi
    case "$arg" in
        --screenshot|--run-to|--plot|--measure-fps|--quality|--analysis|--mode) expect_value=1 ;;
        -*) ;;
        *) scene_given=1 ;;
    esac
done
args=("$@")
[ "$scene_given" = 1 ] || args=(scenes/four_bar.json "$@")
if [ -z "${DISPLAY:-}" ]; then
    echo "motus: no DISPLAY; starting on a virtual display (Xvfb). Stop with Ctrl+C." >&2
fi
exec bash tools/with-display.sh "${MOTUS_BIN:-build/release/bin/motus}" "${args[@]}"
