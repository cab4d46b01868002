#!/usr/bin/env bash
# Runs a command with an X display for Qt's xcb platform: the current display when DISPLAY is
# set, otherwise a private virtual one (xvfb-run -a picks a free server number, so parallel
# runs do not collide). Mesa's llvmpipe renders OpenGL in software there.
set -euo pipefail
if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
    export XDG_RUNTIME_DIR="${TMPDIR:-/tmp}/motus-runtime-$(id -u)"
    mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
fi
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-xcb}"
if [ -n "${DISPLAY:-}" ]; then
    exec "$@"
fi
if ! command -v xvfb-run >/dev/null 2>&1; then
    echo "with-display: error: no DISPLAY and xvfb-run is missing (run tools/setup-deps.sh)" >&2
    exit 1
fi
# A private Xvfb renders in software (llvmpipe), where 4x multisampling halves the frame rate:
# no multisampling unless asked for.
export MOTUS_GL_SAMPLES="${MOTUS_GL_SAMPLES:-0}"
exec xvfb-run -a -s "-screen 0 1280x1024x24 -nolisten tcp" "$@"
