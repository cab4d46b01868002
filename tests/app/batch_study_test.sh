#!/usr/bin/env bash
# A design-variable study (motus-cli batch): the crank length of scenes/slider_crank_study.json
# swept by its name as a column, results summarised per case. The cases run two at a time in
# programs of their own give the same files, bit for bit, as one at a time in one program; the
# peak crank-pin force grows with the crank (the pin's acceleration L ω² grows with L at the
# same speed); a column naming no design variable fails its cases, naming what is missing.
#   batch_study_test.sh <motus-cli> <scenes folder> <work folder>
set -u
cli="$1" scenes="$2" work="$3"
rm -rf "$work" && mkdir -p "$work"
fail() { echo "batch_study_test: $*"; exit 1; }
scene="$scenes/slider_crank_study.json" cases="$scenes/slider_crank_study.cases.csv"
for jobs in 1 2; do
    "$cli" batch "$scene" --cases "$cases" --out-dir "$work/jobs$jobs" --duration 1 --jobs $jobs \
        --summarize 'crankPin.|F|' --summarize crankPivot.Tz > "$work/stdout$jobs" 2> "$work/stderr$jobs" ||
        fail "--jobs $jobs exited with $?: $(cat "$work/stderr$jobs")"
    sed "s#$work/jobs$jobs#OUT#" "$work/jobs$jobs/summary.csv" > "$work/summary$jobs"
done
cmp -s "$work/summary1" "$work/summary2" || fail "summaries differ: $(diff "$work/summary1" "$work/summary2")"
for f in "$work"/jobs1/L*.csv; do
    cmp -s "$f" "$work/jobs2/$(basename "$f")" || fail "$(basename "$f") differs between --jobs 1 and 2"
done
head -1 "$work/summary1" | grep -qx 'case,L_crank,status,exit,file,min(crankPin.|F|),max(crankPin.|F|),peak(crankPin.|F|),final(crankPin.|F|),min(crankPivot.Tz),max(crankPivot.Tz),peak(crankPivot.Tz),final(crankPivot.Tz)' ||
    fail "summary header: $(head -1 "$work/summary1")"
[ "$(grep -c ',ok,0,' "$work/summary1")" -eq 6 ] || fail "not every case ran: $(cat "$work/summary1")"
# Peak pin force, by crank length: strictly growing.
awk -F, 'NR > 1 { if (NR > 2 && !($8 > peak)) bad = 1; peak = $8; n++ }
         END { exit (bad || n != 6) }' "$work/summary1" || fail "the peak pin force does not grow with the crank: $(cat "$work/summary1")"
# The same crank length set as a design variable's value (--set) gives the case's run.
"$cli" simulate "$scene" --duration 1 --set /designVariables/L_crank/value=0.07 --out "$work/single.csv" 2> /dev/null ||
    fail "simulate with --set exited with $?"
cmp -s "$work/single.csv" "$work/jobs1/L70mm.csv" || fail "--set of the design variable differs from its case"
# A column naming no design variable: each case fails, saying so.
printf 'L_crnk\n0.05\n' > "$work/wrong.csv"
"$cli" batch "$scene" --cases "$work/wrong.csv" --out-dir "$work/wrong" --duration 0.1 --jobs 2 > /dev/null 2> "$work/wrong.stderr"
[ $? -eq 1 ] || fail "a column naming no design variable did not fail the batch"
grep -q "override /designVariables/L_crnk/value=0.05 names nothing: /designVariables has no element named 'L_crnk'" "$work/wrong.stderr" ||
    fail "the error does not name the missing design variable: $(cat "$work/wrong.stderr")"
echo "batch_study_test: ok"
