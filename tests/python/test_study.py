"""Studies from Python: motus.sweep on every core equal to one case at a time and to motus-cli
batch's summary, failing cases reported without stopping the others, Ctrl+C, and the same
study on a Dask cluster of two worker processes, one of them killed mid-study."""

import csv
import os
import signal
import subprocess
import tempfile
import threading
import time

import numpy as np
import pytest

import motus

SOURCE = os.environ.get("MOTUS_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("MOTUS_CLI", "motus-cli")
STUDY = os.path.join(SOURCE, "scenes", "slider_crank_study.json")
CASES = os.path.join(SOURCE, "scenes", "slider_crank_study.cases.csv")


def cases_file():
    with open(CASES, newline="") as f:
        rows = list(csv.reader(f))
    header = [h.strip() for h in rows[0]]
    return [{k: (v.strip() if k == "case" else float(v)) for k, v in zip(header, row)}
            for row in rows[1:] if row]


def test_a_sweep_on_two_cores_is_one_case_at_a_time_and_motus_clis_batch():
    cases = cases_file()
    serial = motus.sweep(STUDY, cases, duration=0.5, jobs=1, summarize=["crankPin.|F|"],
                         progress=False)
    parallel = motus.sweep(STUDY, cases, duration=0.5, jobs=2, summarize=["crankPin.|F|"],
                           progress=False)
    assert serial.table == parallel.table
    for a, b in zip(serial.results, parallel.results):
        assert np.array_equal(a.array(), b.array(), equal_nan=True)
    # Each case is the run of its scene with its values set.
    first = cases[0]
    scene = motus.load(STUDY)
    for key, value in first.items():
        if key != "case":
            scene = scene.set(f"/designVariables/{key}/value", value)
    alone = motus.simulate(scene, 0.5)
    assert np.array_equal(alone.array(), serial.results[0].array(), equal_nan=True)
    # motus-cli batch's summary: the same numbers.
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([CLI, "batch", STUDY, "--cases", CASES, "--out-dir", folder,
                        "--duration", "0.5", "--summarize", "crankPin.|F|", "--jobs", "2"],
                       check=True, capture_output=True)
        with open(os.path.join(folder, "summary.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
    assert [r["case"] for r in rows] == [r["case"] for r in serial.table]
    for mine, theirs in zip(serial.table, rows):
        for stat in ("min", "max", "peak", "final"):
            key = f"{stat}(crankPin.|F|)"
            assert mine[key] == float(theirs[key]), key
    frame = serial.to_pandas()
    assert list(frame.index) == [c["case"] for c in cases]


def test_failing_cases_are_reported_and_the_others_run():
    cases = [{"case": "light", "/parts/crank/mass": 0.5},
             {"case": "negative", "/parts/crank/mass": -1.0},
             {"case": "text", "/parts/crank/mass": "heavy"},
             {"case": "heavy", "/parts/crank/mass": 2.0}]
    study = motus.sweep(os.path.join(SOURCE, "scenes", "slider_crank.json"), cases,
                        duration=0.2, jobs=2, progress=False,
                        reduce=lambda r: {"peak": float(np.max(np.abs(r["crankPin.Fx"])))})
    assert [r["status"] for r in study.table] == ["ok", "failed", "failed", "ok"]
    assert "/parts/" in study.failures["negative"] and "mass" in study.failures["negative"]
    assert study.results[1] is None and study.results[3] is not None
    # A heavier crank needs a larger pin force: reduce ran where the case ran.
    assert study["heavy"]["peak"] > study["light"]["peak"] > 0
    with pytest.raises(ValueError, match="every case sets the same keys"):
        motus.sweep(STUDY, [{"L_crank": 0.05}, {"/parts/crank/mass": 1.0}], duration=0.1)
    with pytest.raises(ValueError, match="analysis"):
        motus.sweep(STUDY, [{"L_crank": 0.05}], analysis="dance")


def test_other_analyses_sweep_too():
    masses = [{"/parts/block/mass": m} for m in (1.0, 2.0, 4.0)]
    study = motus.sweep(os.path.join(SOURCE, "scenes", "mass_spring_damper.json"), masses,
                        analysis="modes", jobs=2, progress=False,
                        reduce=lambda m: {"f": float(m.frequency[0])})
    f = [row["f"] for row in study.table]
    # f ∝ 1/sqrt(m), the damping aside: doubling the mass divides f by √2 (to ζ's correction).
    assert f[0] / f[1] == pytest.approx(np.sqrt(2.0), rel=2e-3)
    assert f[1] / f[2] == pytest.approx(np.sqrt(2.0), rel=2e-3)


def test_progress_is_shown_when_asked(capsys):
    motus.sweep(STUDY, cases_file()[:2], duration=0.05, jobs=1, progress=True)
    err = capsys.readouterr().err
    assert "2/2" in err


def test_ctrl_c_stops_a_study_and_keeps_the_cases_that_finished():
    # 400 cases of about 0.1 s each on two cores (20 s): Ctrl+C after 3 s, which leaves time
    # for the first cases to end on a loaded machine (1 s did not under CI's parallel tests).
    cases = [{"case": f"c{k}", "L_crank": 0.05 + 0.00005 * k} for k in range(400)]
    timer = threading.Timer(3.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(motus.Interrupted) as e:
            motus.sweep(STUDY, cases, duration=30.0, jobs=2, progress=False)
    finally:
        timer.cancel()
    study = e.value.result
    assert not study.complete
    done = [r for r in study.table if r["status"] == "ok"]
    assert 0 < len(done) < len(cases)
    assert all(r["status"] in ("ok", "not run") for r in study.table)
    # No worker is left behind.
    time.sleep(0.2)
    children = subprocess.run(["pgrep", "-P", str(os.getpid())], capture_output=True, text=True)
    assert children.stdout.strip() == ""


def _dies_once(marker):
    """A reduce that kills the worker process it runs in the first time it runs anywhere (the
    marker file says it has): a worker lost in the middle of a case."""
    def reduce(result):
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return {"rows": len(result)}
        os.close(fd)
        os.kill(os.getpid(), signal.SIGKILL)
    return reduce


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # (tornado, as Debian 12 has it)
def test_the_same_study_on_a_dask_cluster_loses_no_case_when_a_worker_dies():
    distributed = pytest.importorskip("distributed")
    cases = [{"case": f"c{k}", "L_crank": 0.05 + 0.002 * k} for k in range(12)]
    with tempfile.TemporaryDirectory() as folder:
        marker = os.path.join(folder, "died")
        open(marker, "w").close()  # here: nobody dies
        local = motus.sweep(STUDY, cases, duration=0.4, jobs=1, summarize=["crankPin.|F|"],
                            reduce=_dies_once(marker), progress=False)
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      host="127.0.0.1", dashboard_address=None) as cluster, \
                distributed.Client(cluster) as client:
            on_dask = motus.sweep(STUDY, cases, duration=0.4, client=client,
                                  summarize=["crankPin.|F|"], reduce=_dies_once(marker),
                                  progress=False)
            assert on_dask.table == local.table
            for a, b in zip(local.results, on_dask.results):
                assert np.array_equal(a.array(), b.array(), equal_nan=True)
            # The first case to finish kills its worker; the scheduler runs it again on the
            # other (the killed worker's nanny starts a new one).
            os.remove(marker)
            pids = set(client.run(os.getpid).values())
            again = motus.sweep(STUDY, cases, duration=0.4, client=client,
                                summarize=["crankPin.|F|"], reduce=_dies_once(marker),
                                progress=False)
            assert os.path.exists(marker)  # a worker did die
            assert again.table == local.table
            client.wait_for_workers(2, timeout=30)
            assert set(client.run(os.getpid).values()) != pids
