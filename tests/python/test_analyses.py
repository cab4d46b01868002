"""The analyses from Python against motus-cli and closed forms: kinematics, inverse dynamics,
statics, modes, assembly and info; the stepping simulator's inputs, snapshots, views and its
refusal of a second caller."""

import csv
import json
import math
import os
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


def cli(args, out_suffix=".csv"):
    """motus-cli's output file for `args` (as text), and its stderr."""
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "out" + out_suffix)
        done = subprocess.run([CLI, *args, "--out", out], check=True, capture_output=True,
                              text=True)
        with open(out) as f:
            return f.read(), done.stderr


def csv_table(text):
    rows = list(csv.reader(text.splitlines()))
    return rows[0], np.array([[float(x) for x in row] for row in rows[1:]])


@pytest.mark.parametrize("analysis", ["kinematics", "inverse"])
def test_kinematic_analyses_equal_the_clis_csv_bit_for_bit(analysis):
    header, values = csv_table(cli([analysis, scene_path("slider_crank.json"), "--duration",
                                    "0.5", "--output-dt", "0.01"])[0])
    run = getattr(motus, analysis)(scene_path("slider_crank.json"), 0.5, output_dt=0.01)
    assert run.channels == header
    assert np.array_equal(run.array(), values, equal_nan=True)
    assert run.analysis == analysis
    assert run.failure is None
    if analysis == "kinematics":  # no masses or forces: reactions are not computed
        assert np.isnan(run["crankPin.Fx"]).all()
    else:
        assert np.isfinite(run["crankPin.Fx"]).all()
        # The motor's power is its effort times its rate, row by row.
        effort = [c for c in run.channels if c.endswith(".effort")][0]
        power = effort[:-len("effort")] + "power"
        assert run.units[power] == "W"


def test_inverse_dynamics_balances_a_driven_pendulum():
    # A 1 kg link driven at constant rate: the motor's torque is the gravity moment m g d cos θ
    # plus nothing else (θ̈ = 0): closed form along the whole turn.
    scene = motus.load(scene_path("pendulum.json"))
    d = scene.to_dict()
    d["motions"] = [{"name": "spin", "joint": "hinge", "expression": "2*pi*time"}]
    run = motus.inverse(d, 1.0, output_dt=0.01)
    effort = run["spin.effort"]
    theta = run["hinge.q0"]
    g = 9.81
    expected = 1.0 * g * 0.05 * np.cos(theta)
    # The sign is the convention of the joint's axis; the magnitude is the closed form's.
    assert np.max(np.abs(np.abs(effort) - np.abs(expected))) < 1e-6 * g * 0.05


def test_statics_finds_the_springs_rest_and_says_it_is_stable():
    text, stderr = cli(["statics", scene_path("mass_spring_damper.json")])
    header, values = csv_table(text)
    r = motus.statics(scene_path("mass_spring_damper.json"))
    assert r.channels == header
    assert np.array_equal(r.array(), values, equal_nan=True)
    assert r.stability == "stable" and "stable" in stderr
    assert r.unstable_directions == 0
    assert r.residual < 1e-6
    # The spring holds the block's weight: k x = m g, 2 kg on 800 N/m.
    assert abs(r["spring.force"][0]) == pytest.approx(2.0 * 9.81, rel=1e-6)
    assert r.units["spring.force"] == "N"


def test_an_inverted_pendulum_is_an_unstable_equilibrium():
    scene = motus.load(scene_path("pendulum.json"))
    # Upright: the link above the hinge (turned about y by -90°).
    d = scene.to_dict()
    link = [p for p in d["parts"] if p["name"] == "link"][0]
    link["position"] = [0, 0, 0.05]
    link["orientation"] = {"axis": [0, 1, 0], "angleDeg": -90}
    r = motus.statics(d)
    # Upright is an equilibrium (the nearest one), unstable in one direction: the hinge's.
    assert r.stability == "unstable"
    assert r.unstable_directions == 1
    assert r["link.z"][0] == pytest.approx(0.05, abs=1e-9)
    assert r["hinge.q0"][0] == pytest.approx(-math.pi / 2, abs=1e-9)


def test_modes_are_the_closed_forms():
    m = motus.modes(scene_path("mass_spring_damper.json"), equilibrium=True)
    # ω = sqrt(k/m) = 20 rad/s, ζ = c / (2 sqrt(k m)) = 0.05.
    assert len(m) == 1
    assert m.frequency[0] == pytest.approx(20.0 / (2 * math.pi), rel=1e-6)
    assert m.damping_ratio[0] == pytest.approx(0.05, rel=1e-6)
    assert not m.unstable[0]
    # The block moves along its slide only: its shape is a unit translation.
    assert m.shapes.shape == (1, len(m.parts), 6)
    block = m.parts.index("block")
    assert np.max(np.abs(m.shapes[0, block, :3])) == pytest.approx(1.0)
    # The linearised equations: K = ω², C = 2 ζ ω in the mass-normalised coordinate.
    assert m.K[0, 0] == pytest.approx(400.0, rel=1e-6)
    assert m.C[0, 0] == pytest.approx(2.0, rel=1e-6)
    # The same numbers as motus-cli's CSV.
    header, values = csv_table(cli(["modes", scene_path("mass_spring_damper.json"),
                                    "--equilibrium"])[0])
    frame = m.to_pandas()
    assert list(frame.columns) == header[1:]
    assert np.array_equal(frame.to_numpy(dtype=float), values[:, 1:], equal_nan=True)


def test_a_pendulums_frequency_is_sqrt_mgd_over_i():
    m = motus.modes(scene_path("pendulum.json"), equilibrium=True)
    inertia = 0.000866666667 + 1.0 * 0.05 ** 2  # about the pivot
    assert m.frequency[0] == pytest.approx(math.sqrt(9.81 * 0.05 / inertia) / (2 * math.pi),
                                           rel=1e-6)


def test_assembly_puts_a_displaced_part_back_as_motus_cli_does():
    d = motus.load(scene_path("four_bar.json")).to_dict()
    coupler = [p for p in d["parts"] if p["name"] == "coupler"][0]
    coupler["position"] = [x + 0.01 for x in coupler.get("position", [0, 0, 0])]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "displaced.json")
        with open(path, "w") as f:
            json.dump(d, f)
        text, stderr = cli(["assemble", path], ".json")
        assembled = motus.assemble(motus.load(path))
    assert assembled.scene.to_dict() == json.loads(text)
    assert 0.001 < assembled.moved < 0.1
    assert "assembled" in stderr
    again = motus.assemble(assembled.scene)
    assert again.moved < 1e-9 and again.turned < 1e-9


def test_a_mechanism_that_cannot_close_is_explained():
    scene = motus.load(scene_path("four_bar.json"))
    d = scene.to_dict()
    ground = [p for p in d["parts"] if p.get("ground")][0]
    marker = ground["markers"][-1]
    marker["position"] = [5.0, 0.0, 0.0]
    with pytest.raises(motus.SceneError) as e:
        motus.assemble(d)
    assert "cannot" in str(e.value) or "close" in str(e.value)
    with pytest.raises(motus.SceneError):
        motus.simulate(d, 0.1)


def test_info_is_motus_clis():
    done = subprocess.run([CLI, "info", scene_path("four_bar.json")], capture_output=True,
                          text=True, check=True)
    expected = json.loads(done.stdout)
    got = motus.info(scene_path("four_bar.json"))
    expected.pop("file")
    got.pop("file")
    assert got == expected
    assert got["dof"]["actual"] == 1
    assert got["errors"] == []


INPUT_SCENE = {
    "format": "motus-scene", "version": 1, "name": "Driven pendulum",
    "parts": [
        {"name": "ground", "ground": True, "markers": [{"name": "pivot",
         "orientation": {"axis": [1, 0, 0], "angleDeg": -90}}]},
        {"name": "link", "mass": 1.0, "inertia": [6.6666667e-05, 0.000866666667, 0.000866666667],
         "position": [0.05, 0, 0],
         "markers": [{"name": "pivot", "position": [-0.05, 0, 0],
                      "orientation": {"axis": [1, 0, 0], "angleDeg": -90}}]}],
    "joints": [{"name": "hinge", "type": "revolute", "markerI": "link.pivot",
                "markerJ": "ground.pivot"}],
    "variables": [{"name": "u", "initial": 0.0}],
    "forces": [{"name": "motor", "type": "jointForce", "joint": "hinge", "magnitude": "u"}],
    "settings": {"integrator": "rk4", "stepSize": 0.001, "outputInterval": 0.001},
}


def test_an_input_set_from_python_is_the_scenes_own_value():
    # u held at 0.2 N·m from Python is the scene with u's initial value 0.2, bit for bit.
    sim = motus.Simulator(INPUT_SCENE)
    assert sim.inputs == {"u": 0.0}
    sim.set_input("u", 0.2)
    sim.step(300)
    d = json.loads(json.dumps(INPUT_SCENE))
    d["variables"][0]["initial"] = 0.2
    own = motus.Simulator(d)
    own.step(300)
    assert np.array_equal(sim.q, own.q) and np.array_equal(sim.v, own.v)
    assert sim.inputs == {"u": 0.2}


def test_parts_at_rest_sleep_and_wake_when_asked():
    # Four boxes dropped 1 cm on the ground, sleeping after 0.2 s at rest: all asleep by 0.6 s,
    # awake when asked and standing where they slept, asleep again 0.2 s later.
    parts = [{"name": "ground", "ground": True, "geometry": [{"type": "plane"}]}]
    for k in range(4):
        parts.append({"name": f"box{k}", "mass": 1.0, "inertia": [1 / 600] * 3,
                      "position": [0.2 * k, 0.0, 0.06],
                      "geometry": [{"type": "box", "size": [0.1, 0.1, 0.1]}]})
    scene = {"format": "motus-scene", "version": 1, "minorVersion": 22, "name": "resting",
             "parts": parts, "joints": [],
             "settings": {"integrator": "timeStepping", "stepSize": 0.001},
             "contact": {"sleepTime": 0.2}}
    sim = motus.Simulator(scene)
    assert sim.asleep == 0
    sim.step(600)
    assert sim.asleep == 4
    q = np.array(sim.q)
    assert sim.wake() == 4 and sim.asleep == 0
    sim.step(100)
    assert np.abs(np.array(sim.q) - q).max() < 1e-6
    sim.step(200)
    assert sim.asleep == 4


def test_a_pd_loop_in_python_holds_the_pendulum_level():
    # The link released level falls; a PD torque computed in Python each step brings it to
    # 0.3 rad and holds it there against gravity (the torque tends to m g d cos θ).
    sim = motus.Simulator(INPUT_SCENE)
    target, kp, kd = 0.3, 5.0, 0.3
    # The hinge turns the link about world y, its body y: the rate is its ω'_y (v[4]).
    for _ in range(4000):
        theta, rate = sim.outputs()["hinge.q0"], sim.v[4]
        sim.set_input("u", kp * (target - theta) - kd * rate)
        sim.step()
    out = sim.outputs()
    g_moment = 1.0 * 9.81 * 0.05 * math.cos(out["hinge.q0"])
    # At rest; the steady error is the gravity moment over kp.
    assert abs(sim.inputs["u"]) == pytest.approx(g_moment, rel=0.02)
    assert abs(abs(out["hinge.q0"] - target) - g_moment / kp) < 0.01


def test_inputs_refuse_what_is_not_one():
    sim = motus.Simulator(INPUT_SCENE)
    with pytest.raises(KeyError, match="held variables"):
        sim.set_input("torque", 1.0)
    with pytest.raises(ValueError, match="finite"):
        sim.set_input("u", float("nan"))
    with pytest.raises(TypeError):
        sim.set_input("u", "1.0")
    with pytest.raises(TypeError):
        sim.step(1.5)


def test_snapshots_and_recorded_frames_give_the_same_run_again():
    sim = motus.Simulator(scene_path("double_pendulum.json"))
    sim.step(100)
    snap = sim.snapshot()
    sim.step(150)
    first = sim.q.copy()
    sim.restore(snap)
    assert sim.time == snap.time
    sim.step(150)
    assert np.array_equal(sim.q, first)
    # From a recorded frame of a run of the same scene: the run's rows after it.
    run = motus.simulate(scene_path("double_pendulum.json"), 0.3)
    sim.restore(run, 0.1)
    assert sim.time == pytest.approx(0.1, abs=1e-12)
    k = int(round(0.2 / (run.time[1] - run.time[0])))
    sim.step(k - int(round(0.1 / (run.time[1] - run.time[0]))))
    out = sim.outputs()
    for name in run.channels[1:10]:
        assert out[name] == run[name][k], name
    other = motus.simulate(scene_path("pendulum.json"), 0.1)
    with pytest.raises(ValueError, match="another scene"):
        sim.restore(other, 0.05)


def test_the_state_is_a_read_only_view_that_follows_the_simulator():
    sim = motus.Simulator(scene_path("pendulum.json"))
    state = sim.state
    q = state.q
    before = q.copy()
    sim.step(50)
    assert not np.array_equal(q, before)  # the same array, moved on
    assert np.array_equal(q, sim.q)
    with pytest.raises(ValueError):
        q[0] = 1.0
    assert len(sim.bodies) * 7 == len(q)


def test_a_second_thread_stepping_the_same_simulator_is_refused():
    sim = motus.Simulator(scene_path("chain_100.json"))
    refused = []

    def long_step():  # until it is the one stepping (the other may hold it for a step)
        while True:
            try:
                sim.step(400)
                return
            except RuntimeError:
                continue

    for _ in range(5):  # (should the long step end before the other thread calls in)
        worker = threading.Thread(target=long_step)
        worker.start()
        while worker.is_alive() and not refused:
            try:
                sim.step(1)
            except RuntimeError as e:
                refused.append(str(e))
        worker.join()
        if refused:
            break
    assert refused and "another thread" in refused[0]
    sim.step(1)  # free again


def test_render_films_a_run_on_a_display():
    # On a virtual display of its own (tools/with-display.sh), as a user on a server would.
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "pendulum.webm")
        code = ("import motus, sys; run = motus.simulate(sys.argv[1], 0.5); "
                "motus.render(run, sys.argv[2], size=(320, 240), fps=10)")
        env = dict(os.environ)
        env.pop("DISPLAY", None)
        done = subprocess.run([os.path.join(SOURCE, "tools", "with-display.sh"), sys_executable(),
                               "-c", code, scene_path("pendulum.json"), out],
                              capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr
        with open(out, "rb") as f:
            assert f.read(4) == b"\x1a\x45\xdf\xa3"  # Matroska/WebM
        # Without a display: a clear error, no file.
        with pytest.raises(RuntimeError, match="display"):
            saved = os.environ.pop("DISPLAY", None)
            try:
                motus.render(motus.simulate(scene_path("pendulum.json"), 0.1),
                             os.path.join(folder, "none.webm"))
            finally:
                if saved is not None:
                    os.environ["DISPLAY"] = saved
        assert not os.path.exists(os.path.join(folder, "none.webm"))
        with pytest.raises(ValueError, match="even"):
            motus.render("x.motusrun", os.path.join(folder, "odd.webm"), size=(321, 240))


def sys_executable():
    import sys
    return sys.executable


def test_a_scene_edited_during_a_run_leaves_the_run_as_it_was():
    # Scenes are values: edits made while a run of one goes on (another thread) give new
    # scenes; the run is the unedited scene's, bit for bit.
    scene = motus.load(scene_path("four_bar.json"))
    expected = motus.simulate(scene, 1.0)
    results = []
    runner = threading.Thread(target=lambda: results.append(motus.simulate(scene, 1.0)))
    runner.start()
    edited = scene
    while runner.is_alive():
        edited = edited.set("/parts/crank/mass", 3.0).set("/settings/stepSize", 0.002)
    runner.join()
    assert np.array_equal(results[0].array(), expected.array(), equal_nan=True)
    assert scene.to_dict() == motus.load(scene_path("four_bar.json")).to_dict()
    sim = motus.Simulator(scene)
    sim.step(10)
    edited = scene.set("/parts/crank/mass", 5.0)
    sim.step(10)
    ref = motus.Simulator(scene)
    ref.step(20)
    assert np.array_equal(sim.q, ref.q)
