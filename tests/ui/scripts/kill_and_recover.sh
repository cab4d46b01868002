#!/usr/bin/env bash
# The crash-recovery acceptance test, as a user lives it: start motus on a scene, make edits
# with the keyboard, kill the process with SIGKILL after its autosave, start motus again,
# recover, save, and compare: the saved scene is exactly the scene the
# killed process had (byte for byte, both written by the scene writer).
#
#   kill_and_recover.sh MOTUS SCENE      (needs an X display: tools/with-display.sh)
#
# The keys go in through the X server's test extension (xdotool), as a user's would.
set -euo pipefail
motus=$1
scene=$2
work=$(mktemp -d)
pid=
cleanup() {
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "kill_and_recover: $*" >&2
    exit 1
}

export MOTUS_RECOVERY_DIR=$work/recovery MOTUS_AUTOSAVE_SECONDS=1 XDG_CONFIG_HOME=$work/config \
    XDG_DATA_HOME=$work/data MOTUS_GL_SAMPLES=0
cp "$scene" "$work/mechanism.json"

# The main window of process $1 (visible, its title ends in "Motus"), waited for. Qt makes and
# destroys short-lived windows while it sets up OpenGL; a search that meets one as it goes
# fails with BadWindow (and prints nothing), so a failed or empty search is simply repeated,
# and a window counts only once it is still there a moment later.
main_window() {
    local w
    while :; do
        w=$(xdotool search --onlyvisible --pid "$1" --name 'Motus$' 2>/dev/null | head -1 || true)
        if [ -n "$w" ]; then
            sleep 0.3
            xdotool getwindowname "$w" >/dev/null 2>&1 && { echo "$w"; return 0; }
        fi
        sleep 0.2
    done
}
# Sends keys to the main window of process $1, looked up afresh and focused first (there is no
# window manager).
keys() {
    local target
    target=$(timeout 60 bash -c "$(declare -f main_window); main_window $1") ||
        fail "process $1 has no main window to type into"
    shift
    xdotool windowfocus --sync "$target"
    xdotool key --delay 150 "$@"
}

"$motus" "$work/mechanism.json" &
pid=$!
timeout 60 bash -c "$(declare -f main_window); main_window $pid" >/dev/null || fail "motus did not open a window"
sleep 1
# Three parts added (Edit > Add Part), the last one duplicated (Edit > Duplicate).
keys "$pid" ctrl+shift+p ctrl+shift+p ctrl+shift+p
sleep 0.5
keys "$pid" ctrl+d
# The autosave (every second here) writes the recovery; wait until it holds all four edits.
recovery=
for _ in $(seq 1 100); do
    recovery=$(ls "$work"/recovery/session-"$pid".json 2>/dev/null || true)
    if [ -n "$recovery" ] && [ -f "$work/recovery/session-$pid.info" ] &&
        [ "$(grep -c '"name": "part' "$recovery" || true)" -ge 4 ]; then
        break
    fi
    sleep 0.2
done
[ -n "$recovery" ] || fail "no autosave appeared in $work/recovery"
parts=$(grep -c '"name": "part' "$recovery" || true)
[ "$parts" -eq 4 ] || fail "the autosave holds $parts new parts, not 4"
sleep 1.5  # one more autosave period: nothing is left unsaved
cp "$recovery" "$work/expected.json"
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
pid=
cmp -s "$work/mechanism.json" "$scene" || fail "the user's file was written by the autosave"

# The next start recovers it (--recover: the offer's Recover without the question, which
# tests/ui/mainwindow/recovery_test.cpp answers through the dialog).
"$motus" --recover &
pid=$!
timeout 60 bash -c "$(declare -f main_window); main_window $pid" >/dev/null || fail "no window with the recovered scene"
sleep 1
# Save (to the user's file, which the recovery names) and quit.
keys "$pid" ctrl+s
sleep 1
keys "$pid" ctrl+q
for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
kill -0 "$pid" 2>/dev/null && fail "motus did not quit after saving"
pid=
cmp "$work/expected.json" "$work/mechanism.json" || fail "the recovered and saved scene differs from the killed one's"
[ -z "$(ls "$work/recovery")" ] || fail "recovery files were left after the user decided: $(ls "$work/recovery")"
echo "kill_and_recover: the scene of the killed motus ($parts parts added) was recovered exactly"
