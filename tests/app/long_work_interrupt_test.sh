#!/usr/bin/env bash
# Work that may run for hours (modes --at 1e6 runs the scene to that time first, render of a
# scene runs it before filming) stops at Ctrl+C (SIGINT): exit status 5 within a few seconds,
# and stderr says where it stopped.
#   long_work_interrupt_test.sh <stderr pattern (grep -E)>... -- <command...>
set -u
patterns=()
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
    patterns+=("$1")
    shift
done
shift
err=$(mktemp)
"$@" > /dev/null 2> "$err" &
pid=$!
sleep 2
kill -INT "$pid"
# Stopped within 5 s of the signal, else killed and failed.
for _ in $(seq 1 50); do
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.1
done
fail() { echo "long_work_interrupt_test: $*"; cat "$err"; rm -f "$err"; exit 1; }
if kill -0 "$pid" 2> /dev/null; then
    kill -KILL "$pid"
    wait "$pid"
    fail "still running 5 s after SIGINT: $*"
fi
wait "$pid"
status=$?
[ "$status" -eq 5 ] || fail "exit status $status, expected 5: $*"
for pattern in "${patterns[@]}"; do
    grep -Eq "$pattern" "$err" || fail "stderr does not match '$pattern'"
done
rm -f "$err"
echo "interrupted: ok"
