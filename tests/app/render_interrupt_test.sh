#!/usr/bin/env bash
# Ctrl+C (SIGINT) during `motus-cli render` stops it with exit status 5, leaves no partial file
# and the existing file of that name as it was. Needs an X display (run it through
# tools/with-display.sh).
#   render_interrupt_test.sh <motus-cli> <run.motusrun> <out.webm>
set -u
cli="$1" run="$2" out="$3"
rm -f "$out".*.partial
partial() { ls "$out".*.partial 2> /dev/null | head -1; }
echo "an earlier video" > "$out"
# Large and slow enough (VP9 at 1280x720, about 120 frames) to be caught half-way.
"$cli" render "$run" --out "$out" --size 1280x720 --fps 60 2> "$out.stderr" &
pid=$!
for _ in $(seq 1 300); do
    [ -n "$(partial)" ] && grep -q "frame [0-9]* of" "$out.stderr" && break
    sleep 0.05
done
[ -n "$(partial)" ] && written_beside=1 || written_beside=0
kill -INT "$pid"
wait "$pid"
status=$?
fail() { echo "render_interrupt_test: $*"; cat "$out.stderr"; exit 1; }
[ "$written_beside" -eq 1 ] || fail "no $out.*.partial while rendering"
[ "$status" -eq 5 ] || fail "exit status $status, expected 5"
[ -z "$(partial)" ] || fail "the partial file was left behind"
[ "$(cat "$out")" = "an earlier video" ] || fail "the earlier file was changed"
grep -q "^motus-cli: error: interrupted: no video was written ($out)$" "$out.stderr" ||
    fail "stderr does not say that no video was written"
echo "interrupted: ok"
