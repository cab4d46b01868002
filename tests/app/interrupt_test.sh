#!/usr/bin/env bash
# An interrupted run (SIGINT, as Ctrl+C sends) keeps every row it computed, streamed to the
# results file while it ran, says where it stopped and exits with status 5.
#   interrupt_test.sh <motus-cli> <scene> <out.csv>
set -u
cli="$1" scene="$2" out="$3"
rm -f "$out" "$out".*.partial
# The rows go to a temporary of a unique name next to the target until the end.
partial() { ls "$out".*.partial 2> /dev/null | head -1; }
"$cli" simulate "$scene" --duration 100000 --out "$out" 2> "$out.stderr" &
pid=$!
# Rows reach the disk while the run goes on (flushed at least every second).
for _ in $(seq 1 100); do
    p=$(partial)
    [ -n "$p" ] && [ -s "$p" ] && [ "$(wc -l < "$p")" -gt 20 ] && break
    sleep 0.1
done
p=$(partial)
rows_while_running=$( [ -n "$p" ] && wc -l < "$p" || echo 0)
kill -INT "$pid"
wait "$pid"
status=$?
fail() { echo "interrupt_test: $*"; cat "$out.stderr"; exit 1; }
[ "$status" -eq 5 ] || fail "exit status $status, expected 5"
[ "$rows_while_running" -gt 20 ] || fail "only $rows_while_running rows on disk while running"
[ -f "$out" ] && [ -z "$(partial)" ] || fail "the results file was not completed under its name"
rows=$(($(wc -l < "$out") - 1))
grep -q "interrupted at t = [0-9.e-]* s; the $rows rows computed so far are written" "$out.stderr" ||
    fail "stderr does not say where the run stopped with the $rows rows written"
# Every row is whole: as many fields as the header, the last time matches the message.
fields=$(head -1 "$out" | tr ',' '\n' | wc -l)
awk -F, -v n="$fields" 'NF != n { bad = 1 } END { exit bad }' "$out" || fail "a row has the wrong number of fields"
echo "interrupted after $rows rows: ok"
