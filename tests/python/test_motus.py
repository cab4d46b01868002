"""The Python module `motus` against the engine's other faces and against physics: runs equal to
motus-cli's CSV bit for bit, a pendulum's period, stepping equal to a run, run files, scenes
edited by path, and bad input refused with the place and the reason."""

import csv
import math
import os
import random
import signal
import subprocess
import tempfile
import threading

import numpy as np
import pytest

import motus

SOURCE = os.environ.get("MOTUS_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("MOTUS_CLI", "motus-cli")


def scene_path(name):
    return os.path.join(SOURCE, "scenes", name)


def cli_csv(args):
    """motus-cli's CSV for `args`: its header and its values (the shortest text that reads back
    to the same double: float() gives the run's doubles)."""
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "run.csv")
        subprocess.run([CLI, *args, "--out", out], check=True, capture_output=True)
        with open(out, newline="") as f:
            rows = list(csv.reader(f))
    return rows[0], np.array([[float(x) for x in row] for row in rows[1:]])


def test_version_is_the_projects():
    with open(os.path.join(SOURCE, "CMakeLists.txt")) as f:
        text = f.read()
    assert f"project(Motus VERSION {motus.__version__} " in text


@pytest.mark.parametrize("name,duration", [("slider_crank.json", 1.0), ("four_bar.json", 1.0),
                                           ("box_pile.json", 0.3)])
def test_a_run_equals_the_clis_csv_bit_for_bit(name, duration):
    header, values = cli_csv(["simulate", scene_path(name), "--duration", str(duration)])
    run = motus.simulate(scene_path(name), duration=duration)
    assert run.channels == header
    assert run.array().shape == values.shape
    # Bit for bit (NaN where the CSV says nan).
    assert np.array_equal(run.array(), values, equal_nan=True)
    assert run.failure is None


def test_options_are_the_clis():
    header, values = cli_csv(["simulate", scene_path("pendulum.json"), "--duration", "0.5",
                              "--integrator", "rk4", "--dt", "0.0005", "--output-dt", "0.001",
                              "--every", "2"])
    run = motus.simulate(scene_path("pendulum.json"), 0.5, integrator="rk4", dt=0.0005,
                         output_dt=0.001, every=2)
    assert np.array_equal(run.array(), values, equal_nan=True)
    assert run.time[1] - run.time[0] == pytest.approx(0.002, abs=1e-15)


def test_the_pendulums_period_is_the_elliptic_integrals():
    # README: a link on a hinge released horizontal swings with period 0.614423 s.
    run = motus.simulate(scene_path("pendulum.json"), duration=1.3, output_dt=1e-4)
    angle = run["hinge.q0"] if "hinge.q0" in run else run[[c for c in run.channels if c.endswith(".q0")][0]]
    t = run.time
    rate = np.gradient(angle, t)
    # Turning points: the rate changes sign; a period spans every other one.
    turns = [t[k] - rate[k] * (t[k + 1] - t[k]) / (rate[k + 1] - rate[k])
             for k in range(1, len(t) - 1) if rate[k] * rate[k + 1] < 0.0]
    assert len(turns) >= 3
    assert turns[2] - turns[0] == pytest.approx(0.614423, abs=2e-5)
    assert run.units["time"] == "s"
    assert run.units[[c for c in run.channels if c.endswith(".q0")][0]] == "rad"


def test_stepping_gives_the_runs_states():
    run = motus.simulate(scene_path("double_pendulum.json"), duration=0.2)
    sim = motus.Simulator(scene_path("double_pendulum.json"))
    names = sim.channels
    assert names == run.channels
    for k in range(1, 5):
        sim.step(10)
        row = sim.outputs()
        i = 10 * k
        assert sim.time == pytest.approx(run.time[i], abs=1e-12)
        for name in names[1:15]:
            assert row[name] == pytest.approx(run[name][i], abs=1e-12), name
    sim.reset()
    assert sim.time == 0.0
    assert sim.q.shape == (14,) and sim.v.shape == (12,)


def test_a_run_file_keeps_every_frame():
    run = motus.simulate(scene_path("four_bar.json"), duration=0.5)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "four_bar.motusrun")
        run.save(path)
        again = motus.load_run(path)
    assert again.channels == run.channels
    assert np.array_equal(again.array(), run.array(), equal_nan=True)
    assert again.scene().name == motus.load(scene_path("four_bar.json")).name


def test_scenes_are_edited_by_path():
    scene = motus.load(scene_path("slider_crank.json"))
    heavier = scene.set("/parts/crank/mass", 2.5).set("parts.2.mass", 0.125)
    d = heavier.to_dict()
    parts = {p["name"]: p for p in d["parts"]}
    assert parts["crank"]["mass"] == 2.5
    assert d["parts"][2]["mass"] == 0.125
    # The original is a value: unchanged.
    assert {p["name"]: p for p in scene.to_dict()["parts"]}["crank"]["mass"] != 2.5
    # Round trip through a dict, and text set as text (an expression).
    again = motus.Scene.from_dict(d, base_directory=os.path.join(SOURCE, "scenes"))
    assert again.to_dict() == d
    faster = scene.set("motions.motor.expression", "720d*time")
    assert faster.to_dict()["motions"][0]["expression"] == "720d*time"
    # A motor twice as fast: the crank turns twice as far.
    slow, fast = motus.simulate(scene, 0.2), motus.simulate(faster, 0.2)
    assert fast["crankPivot.q0"][-1] == pytest.approx(2 * slow["crankPivot.q0"][-1], rel=1e-9)


def test_bad_input_is_refused_with_the_place_and_the_reason():
    scene = motus.load(scene_path("slider_crank.json"))
    with pytest.raises(motus.SceneError) as e:
        scene.set("/parts/crank/mass", -1.0)
    assert e.value.path == "/parts/1/mass" and "mass" in e.value.reason
    assert isinstance(e.value, ValueError)
    with pytest.raises(motus.SceneError) as e:
        scene.set("/parts/crnak/mass", 2.0)
    assert "/parts has no element named 'crnak'" in str(e.value)
    with pytest.raises(motus.SceneError):
        scene.set("/parts/crank/mass", float("nan"))
    with pytest.raises(motus.SceneError) as e:
        motus.load(os.path.join(SOURCE, "scenes", "no_such_scene.json"))
    assert "no_such_scene.json" in str(e.value)
    with pytest.raises(ValueError) as e:
        motus.simulate(scene, duration="long")
    assert "duration" in str(e.value)
    with pytest.raises(ValueError) as e:
        motus.simulate(scene, 1.0, integrator="rk5")
    assert "unknown integrator 'rk5'" in str(e.value)
    with pytest.raises(ValueError) as e:
        motus.simulate(scene, 1.0, dt=1e-12)
    assert "dt=1e-12 s is below" in str(e.value)
    with pytest.raises(ValueError):
        motus.simulate(scene, float("nan"))
    with pytest.raises(TypeError):
        motus.simulate(42, 1.0)
    run = motus.simulate(scene, 0.1)
    with pytest.raises(KeyError) as e:
        run["crankPin.Fxx"]
    assert "crankPin.Fx" in str(e.value)


def test_random_dicts_are_refused_never_a_crash():
    rng = random.Random(7)
    base = motus.load(scene_path("four_bar.json")).to_dict()
    values = [None, 0, -1, 1e308, -1e-300, "", "x", [], [1, 2], {}, {"a": 1}, True, 3.5,
              [float(1)] * 3, "time*2", "1/0"]

    def mutate(node, depth=0):
        """One value somewhere in `node` replaced by one of `values`."""
        keys = list(node) if isinstance(node, dict) else list(range(len(node))) \
            if isinstance(node, list) else []
        if not keys or depth >= 6:
            return
        key = rng.choice(keys)
        if rng.random() < 0.3:
            node[key] = rng.choice(values)
        else:
            mutate(node[key], depth + 1)

    refused = 0
    for _ in range(300):
        d = _copy(base)
        for _ in range(rng.randint(1, 3)):
            mutate(d)
        try:
            scene = motus.Scene.from_dict(d)
        except motus.SceneError as e:
            refused += 1
            assert e.reason
            continue
        try:
            motus.simulate(scene, 0.01)
        except (motus.SceneError, ValueError):
            pass
    assert refused > 50


def _copy(d):
    import json
    return json.loads(json.dumps(d))


def test_ctrl_c_stops_a_run_and_keeps_what_was_computed():
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(motus.Interrupted) as e:
            motus.simulate(scene_path("chain_100.json"), duration=1000.0)
    finally:
        timer.cancel()
    result = e.value.result
    assert isinstance(e.value, KeyboardInterrupt)
    assert result.interrupted and 0.0 < result.time[-1] < 1000.0
    assert np.all(np.diff(result.time) > 0)


def test_to_pandas_is_the_same_table():
    run = motus.simulate(scene_path("slider_crank.json"), 0.1)
    frame = run.to_pandas()
    assert list(frame.columns) == run.channels[1:]
    assert np.array_equal(frame.index.values, run.time)
    assert np.array_equal(frame["crankPin.Fx"].values, run["crankPin.Fx"])
