#!/usr/bin/env bash
# A study on a Slurm cluster (motus-cli batch --emit-slurm, --slice, --merge), run here by a
# stand-in for sbatch that runs the job array's tasks and then the merge as Slurm would: the
# merged summary.csv and every case's file are those of the study run in one go; a slice whose
# task did not run is named by the merge, with the command that runs it again; bad slices are
# refused.
#   batch_slurm_test.sh <motus-cli> <scenes folder> <work folder>
set -u
cli="$1" scenes="$2" work="$3"
rm -rf "$work" && mkdir -p "$work/bin"
fail() { echo "batch_slurm_test: $*"; exit 1; }
scene="$scenes/slider_crank_study.json" cases="$scenes/slider_crank_study.cases.csv"

# sbatch as this test's Slurm: `sbatch --parsable SCRIPT` runs the script's array (#SBATCH
# --array=0-N) task by task with SLURM_ARRAY_TASK_ID set; `--wrap CMD` runs CMD. Tasks listed
# in SKIP_TASKS are not run (a node lost).
cat > "$work/bin/sbatch" <<'SBATCH'
#!/usr/bin/env bash
script="" wrap=""
while [ $# -gt 0 ]; do
    case "$1" in
        --wrap) wrap="$2"; shift 2 ;;
        --*=*|--parsable) shift ;;
        --*) shift 2 ;;
        *) script="$1"; shift ;;
    esac
done
if [ -n "$wrap" ]; then bash -c "$wrap" >> "$SBATCH_LOG" 2>&1; echo 2; exit 0; fi
last=$(sed -n 's/^#SBATCH --array=0-\([0-9]*\)$/\1/p' "$script")
for k in $(seq 0 "$last"); do
    case " ${SKIP_TASKS:-} " in *" $k "*) continue ;; esac
    SLURM_ARRAY_TASK_ID=$k SLURM_CPUS_PER_TASK=2 bash "$script" >> "$SBATCH_LOG" 2>&1 ||
        echo "task $k failed" >> "$SBATCH_LOG"
done
echo 1
SBATCH
chmod +x "$work/bin/sbatch"
export SBATCH_LOG="$work/sbatch.log"

# The study in one go, for reference.
"$cli" batch "$scene" --cases "$cases" --out-dir "$work/whole" --duration 0.5 \
    --summarize 'crankPin.|F|' > /dev/null 2> "$work/whole.stderr" ||
    fail "the study in one go exited with $?: $(cat "$work/whole.stderr")"

count=$(($(wc -l < "$work/whole/summary.csv") - 1))
[ "$count" -ge 6 ] || fail "the study has $count cases: expected the 6 or more of $cases"

# The script: 3 slices of the cases.
"$cli" batch "$scene" --cases "$cases" --out-dir "$work/cluster" --duration 0.5 \
    --summarize 'crankPin.|F|' --emit-slurm "$work/study.slurm" --slices 3 2> "$work/emit.stderr" ||
    fail "--emit-slurm exited with $?: $(cat "$work/emit.stderr")"
[ -x "$work/study.slurm" ] || fail "the script is not executable"
grep -q '^#SBATCH --array=0-2$' "$work/study.slurm" || fail "no array of 3 tasks: $(cat "$work/study.slurm")"
[ ! -e "$work/cluster/summary.csv" ] || fail "--emit-slurm ran the study"
PATH="$work/bin:$PATH" bash "$work/study.slurm" > "$work/submit.out" ||
    fail "submitting exited with $?: $(cat "$work/submit.out") $(cat "$SBATCH_LOG")"
grep -q "submitted" "$work/submit.out" || fail "no word of what was submitted: $(cat "$work/submit.out")"
for k in 0 1 2; do
    [ -s "$work/cluster/summary.slice-$k-of-3.csv" ] || fail "slice $k wrote no summary: $(cat "$SBATCH_LOG")"
done
sed "s#$work/whole#OUT#" "$work/whole/summary.csv" > "$work/whole.summary"
sed "s#$work/cluster#OUT#" "$work/cluster/summary.csv" > "$work/cluster.summary"
cmp -s "$work/whole.summary" "$work/cluster.summary" ||
    fail "the merged summary differs from the study in one go: $(diff "$work/whole.summary" "$work/cluster.summary")"
for f in "$work"/whole/L*.csv; do
    cmp -s "$f" "$work/cluster/$(basename "$f")" || fail "$(basename "$f") differs"
done

# A task lost: the merge names its slice and how to run it again, and keeps the others.
rm -rf "$work/lost"
"$cli" batch "$scene" --cases "$cases" --out-dir "$work/lost" --duration 0.5 \
    --summarize 'crankPin.|F|' --emit-slurm "$work/lost.slurm" --slices 3 2> /dev/null ||
    fail "--emit-slurm (lost) failed"
: > "$SBATCH_LOG"
PATH="$work/bin:$PATH" SKIP_TASKS=1 bash "$work/lost.slurm" > /dev/null
grep -q "slice(s) 1 of 3 have no summary" "$SBATCH_LOG" || fail "the lost slice is not named: $(cat "$SBATCH_LOG")"
grep -q -- "--slice K/3" "$SBATCH_LOG" || fail "no command to run it again: $(cat "$SBATCH_LOG")"
rows=$(($(wc -l < "$work/lost/summary.csv") - 1))
lost=$(($(wc -l < "$work/cluster/summary.slice-1-of-3.csv") - 1))
[ "$rows" -eq $((count - lost)) ] || fail "the merge kept $rows cases of the two slices that ran"
# Run it, merge again: whole.
"$cli" batch "$scene" --cases "$cases" --out-dir "$work/lost" --duration 0.5 --slice 1/3 \
    --summarize 'crankPin.|F|' > /dev/null 2>&1 || fail "--slice 1/3 failed"
"$cli" batch --merge --out-dir "$work/lost" > /dev/null 2> "$work/merge.stderr" ||
    fail "the second merge exited with $?: $(cat "$work/merge.stderr")"
sed "s#$work/lost#OUT#" "$work/lost/summary.csv" > "$work/lost.summary"
cmp -s "$work/whole.summary" "$work/lost.summary" || fail "the second merge is not the whole study"

# Refused: a slice out of range, a malformed one, --slice with --emit-slurm, --merge of nothing.
for bad in "--slice 3/3" "--slice 1" "--slice a/b" "--slice 0/3 --emit-slurm $work/x.slurm"; do
    # shellcheck disable=SC2086
    "$cli" batch "$scene" --cases "$cases" --out-dir "$work/bad" --duration 0.1 $bad \
        > /dev/null 2> "$work/bad.stderr"
    [ $? -eq 2 ] || fail "'$bad' was not refused as a usage error: $(cat "$work/bad.stderr")"
    grep -q -- "--slice" "$work/bad.stderr" || fail "'$bad': the message does not name --slice"
done
mkdir -p "$work/empty"
"$cli" batch --merge --out-dir "$work/empty" > /dev/null 2> "$work/empty.stderr"
[ $? -eq 1 ] || fail "a merge of nothing did not fail"
grep -q "no slice summaries" "$work/empty.stderr" || fail "a merge of nothing: $(cat "$work/empty.stderr")"
echo "batch_slurm_test: ok"
