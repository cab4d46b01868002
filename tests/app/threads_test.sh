#!/usr/bin/env bash
# motus-cli's --threads: a pile of 100 boxes settling and a field of 1,200 cubes at rest give
# the same rows, bit for bit, on one thread and on two, and the same as MOTUS_THREADS chooses;
# a count that is not a whole number from 1 to 256 is a usage error that says so.
#   threads_test.sh <motus-cli> <scenes folder> <work folder>
set -u
cli="$1" scenes="$2" work="$3"
rm -rf "$work" && mkdir -p "$work"
fail() { echo "threads_test: $*"; exit 1; }
scene="$scenes/box_pile.json"
for n in 1 2; do
    "$cli" simulate "$scene" --duration 0.3 --every 10 --threads $n --out "$work/t$n.csv" 2> "$work/err$n" ||
        fail "--threads $n exited with $?: $(cat "$work/err$n")"
done
[ "$(wc -l < "$work/t1.csv")" -eq 32 ] || fail "expected 31 rows and a header, got $(wc -l < "$work/t1.csv") lines"
cmp -s "$work/t1.csv" "$work/t2.csv" || fail "the rows differ between --threads 1 and 2"
# The boxes move (the rows are a run, not the start repeated): box0's height changes.
awk -F, 'NR == 2 { z0 = $4 } NR > 2 && $4 != z0 { moved = 1 } END { exit !moved }' "$work/t1.csv" ||
    fail "box0 did not move"
# A field of 1,200 cubes on the floor (tools/make_box_field.py): 4,800 points a step, the narrow
# phase, the islands' solves and the points' merge on the threads with two.
python3 "$scenes/../tools/make_box_field.py" 1200 > "$work/field.json" || fail "no box field"
for n in 1 2; do
    "$cli" simulate "$work/field.json" --duration 0.1 --every 10 --threads $n --out "$work/f$n.csv" 2> "$work/ferr$n" ||
        fail "the field with --threads $n exited with $?: $(cat "$work/ferr$n")"
done
cmp -s "$work/f1.csv" "$work/f2.csv" || fail "the field's rows differ between --threads 1 and 2"
MOTUS_THREADS=2 "$cli" simulate "$scene" --duration 0.3 --every 10 --out "$work/env2.csv" 2> /dev/null ||
    fail "MOTUS_THREADS=2 exited with $?"
cmp -s "$work/t1.csv" "$work/env2.csv" || fail "MOTUS_THREADS=2 differs from --threads 1"
"$cli" simulate "$scene" --duration 0.01 --threads 0 > /dev/null 2> "$work/zero.err"
[ $? -eq 2 ] || fail "--threads 0 is not a usage error"
grep -q -- "--threads: must be a whole number from 1 to 256, got '0'" "$work/zero.err" ||
    fail "the error does not say what --threads takes: $(cat "$work/zero.err")"
"$cli" simulate "$scene" --duration 0.01 --threads two > /dev/null 2> "$work/word.err"
[ $? -eq 2 ] || fail "--threads two is not a usage error"
grep -q -- "got 'two'" "$work/word.err" || fail "the error does not quote the word: $(cat "$work/word.err")"
echo "threads_test: ok"
