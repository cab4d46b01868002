#!/usr/bin/env bash
# Runs a command with an X display for Qt's xcb platform: the current display when DISPLAY is
# set, otherwise a private virtual one on a display number of its own (parallel runs never
# share one). Mesa's llvmpipe renders OpenGL in software there.
set -euo pipefail
if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
    export XDG_RUNTIME_DIR="${TMPDIR:-/tmp}/motus-runtime-$(id -u)"
    mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
fi
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-xcb}"
if [ -n "${DISPLAY:-}" ]; then
    exec "$@"
fi
# A private Xvfb renders in software (llvmpipe), where 4x multisampling halves the frame rate:
# no multisampling unless asked for.
export MOTUS_GL_SAMPLES="${MOTUS_GL_SAMPLES:-0}"
# The server picks a free display number itself (-displayfd: it takes the first free one and
# writes it when it is ready for clients), so runs started together never race for one as
# xvfb-run -a's look-then-start does (two tests started at once both took :100, and one's
# program found no display). The command then replaces this script (exec: same process, same
# signals and input as before), and a watcher stops the server once the command has ended.
# -noreset: an X server resets when its last client leaves, closing its clients' state while
# it does. The crash-recovery test kills motus (the only client) and starts it again at once;
# once in a clean-clone run that second start found no display ("could not connect to display
# :1"). The reset is the likeliest cause (not reproduced in 110 tries since); no test needs it.
if ! command -v Xvfb >/dev/null 2>&1; then
    echo "with-display: error: no DISPLAY and Xvfb is missing (run tools/setup-deps.sh)" >&2
    exit 1
fi
numberFile="$(mktemp "${TMPDIR:-/tmp}/motus-display.XXXXXX")"
Xvfb -displayfd 3 -screen 0 1280x1024x24 -nolisten tcp -noreset 3>"$numberFile" </dev/null >/dev/null 2>&1 &
server=$!
for _ in $(seq 1 400); do
    [ -s "$numberFile" ] && break
    if ! kill -0 "$server" 2>/dev/null; then
        rm -f "$numberFile"
        echo "with-display: error: Xvfb did not start" >&2
        exit 1
    fi
    sleep 0.05
done
number="$(tr -d '[:space:]' <"$numberFile")"
rm -f "$numberFile"
if [ -z "$number" ]; then
    kill "$server" 2>/dev/null || true
    echo "with-display: error: Xvfb gave no display number within 20 s" >&2
    exit 1
fi
export DISPLAY=":$number"
self=$$
( while kill -0 "$self" 2>/dev/null; do sleep 0.5; done; kill "$server" 2>/dev/null ) \
    </dev/null >/dev/null 2>&1 &
exec "$@"
