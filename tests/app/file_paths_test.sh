#!/usr/bin/env bash
# Output and input paths that are not plain files: motus-cli writes a FIFO or a device in
# place and never replaces it, follows a symbolic link, never overwrites an input, gives two
# concurrent writers their own temporaries, reports a full disk (stdout included) with its
# cause, and refuses to read a FIFO, a device or a folder instead of blocking on it.
#   file_paths_test.sh <motus-cli> <scenes folder> <work folder> <case>
# Every command runs under `timeout`, so a regression fails instead of hanging. Nothing here
# writes a /dev node but /dev/full, and each test checks the node is still a device after.
set -u
cli="$1" scenes="$2" work="$3/$4" case="$4"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "file_paths_test $case: $*"; [ -f err ] && cat err; exit 1; }
partials() { find . -name '*.partial' | wc -l; }
cp "$scenes/pendulum.json" scene.json

case "$case" in
fifo_output_is_written_in_place)
    mkfifo out.csv
    cat out.csv > got.csv &
    reader=$!
    timeout 20 "$cli" simulate scene.json --duration 0.01 --out out.csv 2> err || fail "exit $?"
    wait "$reader"
    [ -p out.csv ] || fail "the FIFO was replaced"
    head -1 got.csv | grep -q '^time,link.x' || fail "the reader got no CSV"
    [ "$(wc -l < got.csv)" -eq 12 ] || fail "the reader got $(wc -l < got.csv) lines, not 12"
    ;;
device_output_is_written_in_place)
    # /dev/full: a character device whose writes fail as on a full disk.
    timeout 20 "$cli" simulate scene.json --duration 0.01 --out /dev/full 2> err
    status=$?
    [ -c /dev/full ] || fail "/dev/full is no longer a character device"
    [ "$status" -eq 1 ] || fail "exit $status, expected 1"
    grep -q "^motus-cli: error: cannot write '/dev/full': the disk is full (/dev/full)$" err ||
        fail "the error does not say the disk is full"
    timeout 20 "$cli" simulate scene.json --duration 0.01 --out /dev/null 2> err || fail "/dev/null: exit $?"
    [ -c /dev/null ] || fail "/dev/null is no longer a character device"
    ;;
symlink_output_replaces_the_file_it_names)
    mkdir results && echo old > results/real.csv && ln -s results/real.csv link.csv
    timeout 20 "$cli" simulate scene.json --duration 0.01 --out link.csv 2> err || fail "exit $?"
    [ -L link.csv ] || fail "the link was replaced by a file"
    head -1 results/real.csv | grep -q '^time,' || fail "the file the link names was not written"
    [ "$(partials)" -eq 0 ] || fail "a temporary was left"
    ;;
output_equal_to_an_input_is_refused)
    cp scene.json before.json
    timeout 20 "$cli" simulate scene.json --duration 0.01 --out ./scene.json 2> err
    [ $? -eq 2 ] || fail "exit status is not 2"
    cmp -s scene.json before.json || fail "the scene was overwritten"
    grep -q "the output './scene.json' is the input 'scene.json'" err || fail "the message does not name both"
    cp "$scenes/urdf/three_link_arm.urdf" arm.urdf
    timeout 20 "$cli" import arm.urdf --out arm.urdf 2> err
    [ $? -eq 2 ] || fail "import over its own input: exit status is not 2"
    cmp -s arm.urdf "$scenes/urdf/three_link_arm.urdf" || fail "the URDF was overwritten"
    timeout 20 "$cli" simulate scene.json --duration 0.01 --out a.csv --run a.csv 2> err
    [ $? -eq 2 ] || fail "--out and --run of one file: exit status is not 2"
    grep -q -- "--out and --run name the same file" err || fail "--out and --run: no message"
    ;;
concurrent_writers_each_write_a_whole_file)
    timeout 60 "$cli" simulate "$scenes/chain_100.json" --duration 0.4 --out shared.csv 2> err1 &
    first=$!
    timeout 60 "$cli" simulate "$scenes/chain_100.json" --duration 0.2 --out shared.csv 2> err2 &
    second=$!
    wait "$first"; s1=$?
    wait "$second"; s2=$?
    cat err1 err2 > err
    [ "$s1" -eq 0 ] && [ "$s2" -eq 0 ] || fail "exit statuses $s1 and $s2"
    [ "$(partials)" -eq 0 ] || fail "a temporary was left"
    fields=$(head -1 shared.csv | tr ',' '\n' | wc -l)
    awk -F, -v n="$fields" 'NF != n { bad = 1 } END { exit bad }' shared.csv || fail "a row is mixed"
    last=$(tail -1 shared.csv | cut -d, -f1)
    rows=$(($(wc -l < shared.csv) - 1))
    { [ "$last" = 0.4 ] || [ "$last" = 0.2 ]; } || fail "the file ends at t = $last, neither run's end"
    [ "$(grep -c '^0,' shared.csv)" -eq 1 ] || fail "the file holds two runs"
    echo "concurrent writers: $rows rows ending at $last"
    ;;
errors_give_their_cause)
    timeout 20 "$cli" simulate scene.json --duration 0.01 --out no/such/folder.csv 2> err
    grep -q "cannot write 'no/such/folder.csv': no such folder" err || fail "missing folder"
    long=$(printf 'n%.0s' $(seq 1 300)).csv
    timeout 20 "$cli" statics scene.json --out "$long" 2> err
    grep -q ": name too long" err || fail "name too long"
    timeout 20 "$cli" format scene.json --out no/such/scene.json 2> err
    grep -q "cannot write 'no/such/scene.json': no such folder" err || fail "format: missing folder"
    ! grep -q "may be full" err || fail "a guess instead of the cause"
    ;;
stdout_on_a_full_disk_is_an_error)
    timeout 20 "$cli" import "$scenes/urdf/three_link_arm.urdf" > /dev/full 2> err
    status=$?
    [ -c /dev/full ] || fail "/dev/full is no longer a character device"
    [ "$status" -eq 1 ] || fail "import > /dev/full: exit $status, expected 1"
    grep -q "^motus-cli: error: cannot write the output: the disk is full (stdout)$" err ||
        fail "import: no error for stdout"
    timeout 20 "$cli" format scene.json > /dev/full 2> err
    [ $? -eq 1 ] || fail "format > /dev/full: exit status is not 1"
    # Rows streamed to stdout: the cause from errno, not a guess ("closed or the disk is full").
    timeout 20 "$cli" simulate scene.json --duration 2 > /dev/full 2> err
    [ $? -eq 1 ] || fail "simulate > /dev/full: exit status is not 1"
    grep -q "^motus-cli: error: cannot write the output: the disk is full (stdout)$" err ||
        fail "simulate: the cause of a failed write to stdout is not said"
    ;;
dash_output_is_stdout)
    # '--out -' is stdout, for every command that writes text; no file named '-' is made.
    timeout 20 "$cli" simulate scene.json --duration 0.01 --out - > sim.csv 2> err || fail "simulate: exit $?"
    [ "$(wc -l < sim.csv)" -eq 12 ] || fail "simulate wrote $(wc -l < sim.csv) lines to stdout, not 12"
    head -1 sim.csv | grep -q '^time,link.x' || fail "simulate: no CSV on stdout"
    timeout 20 "$cli" kinematics "$scenes/slider_crank.json" --duration 0.01 --output-dt 0.005 --out - > kin.csv 2> err ||
        fail "kinematics: exit $?"
    [ "$(wc -l < kin.csv)" -eq 4 ] || fail "kinematics wrote $(wc -l < kin.csv) lines to stdout, not 4"
    timeout 20 "$cli" statics scene.json --out - > statics.csv 2> err || fail "statics: exit $?"
    head -1 statics.csv | grep -q '^time,' || fail "statics: no CSV on stdout"
    timeout 20 "$cli" format scene.json --out - > formatted.json 2> err || fail "format: exit $?"
    timeout 20 "$cli" format scene.json > plain.json 2> err || fail "format to stdout: exit $?"
    cmp -s formatted.json plain.json || fail "format --out - differs from format's stdout"
    timeout 20 "$cli" import "$scenes/urdf/three_link_arm.urdf" --out - > arm.json 2> err || fail "import: exit $?"
    grep -q '"parts"' arm.json || fail "import: no scene on stdout"
    [ ! -e ./- ] || fail "a file named '-' was written"
    ;;
hangup_keeps_the_rows_and_leaves_no_temporary)
    timeout 60 "$cli" simulate "$scenes/chain_100.json" --duration 100000 --out run.csv 2> err &
    pid=$!
    for _ in $(seq 1 100); do
        [ "$(find . -name 'run.csv.*.partial' -size +20k | wc -l)" -gt 0 ] && break
        sleep 0.1
    done
    kill -HUP "$pid"
    wait "$pid"
    status=$?
    [ "$status" -eq 5 ] || fail "exit status $status, expected 5 (interrupted)"
    [ -f run.csv ] || fail "the rows computed were not written"
    [ "$(partials)" -eq 0 ] || fail "a temporary was left"
    grep -q "interrupted at t = " err || fail "stderr does not say where the run stopped"
    ;;
fifo_and_device_inputs_are_refused)
    mkfifo fifo.json
    timeout 10 "$cli" check fifo.json 2> err
    [ $? -eq 1 ] || fail "check of a FIFO: exit status is not 1"
    grep -q "'fifo.json' is a FIFO, not a file" err || fail "check of a FIFO: no reason"
    mkdir folder.json
    timeout 10 "$cli" check folder.json 2> err
    grep -q "'folder.json' is a folder, not a file" err || fail "a folder as a scene"
    ! grep -q MiB err || fail "a folder's size reported"
    timeout 10 "$cli" batch scene.json --cases /dev/zero --out-dir out --analysis statics 2> err
    [ $? -eq 1 ] || fail "batch --cases /dev/zero: exit status is not 1"
    grep -q "'/dev/zero' is a character device, not a file" err || fail "batch --cases /dev/zero"
    timeout 10 "$cli" batch scene.json --cases fifo.json --out-dir out --analysis statics 2> err
    grep -q "is a FIFO, not a file" err || fail "batch --cases of a FIFO"
    # A cases file is read whole: one beyond 16 MiB is refused before it is read.
    truncate -s 17M big.csv
    timeout 10 "$cli" batch scene.json --cases big.csv --out-dir out --analysis statics 2> err
    [ $? -eq 1 ] || fail "batch --cases of 17 MiB: exit status is not 1"
    grep -q "the cases file is 17 MiB; a cases file is limited to 16 MiB (big.csv)" err ||
        fail "batch --cases of 17 MiB: no reason"
    timeout 10 "$cli" import fifo.json 2> err; [ $? -eq 1 ] || fail "import of a FIFO"
    mkfifo arm.urdf
    timeout 10 "$cli" import arm.urdf 2> err
    grep -q "'arm.urdf' is a FIFO, not a file" err || fail "import of a FIFO URDF"
    mkfifo run.motusrun
    timeout 10 "$cli" render run.motusrun --out r.mp4 2> err
    grep -q "'run.motusrun' is a FIFO, not a file" err || fail "render of a FIFO run"
    # A mesh a scene names, and the material library an OBJ names.
    mkfifo mesh.obj
    sed 's/"type": "box"/"type": "mesh", "file": "mesh.obj"/' scene.json > meshed.json
    grep -q mesh.obj meshed.json || fail "no mesh in the test scene"
    timeout 10 "$cli" check meshed.json 2> err
    grep -q "is a FIFO, not a file" err || fail "a FIFO mesh"
    ;;
cases_with_cr_line_endings_run)
    printf 'case,/forces/spring/stiffness\r\nsoft,400\r\nstiff,1600\r\n' > crlf.csv
    printf 'case,/forces/spring/stiffness\rsoft,400\rstiff,1600\r' > cr.csv
    cp "$scenes/mass_spring_damper.json" msd.json
    for cases in crlf cr; do
        timeout 30 "$cli" batch msd.json --cases $cases.csv --out-dir $cases --analysis statics > summary 2> err ||
            fail "$cases: exit $?"
        [ "$(grep -c ',ok,0,' summary)" -eq 2 ] || fail "$cases: $(grep -c ',ok,0,' summary) cases ran, not 2"
    done
    printf 'case,/forces/spring/stiffness\n' > none.csv
    timeout 30 "$cli" batch msd.json --cases none.csv --out-dir none --analysis statics > /dev/null 2> err
    [ $? -eq 1 ] || fail "a cases file of no case: exit status is not 1"
    grep -q "no case" err || fail "a cases file of no case: no message"
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "$case: ok"
