"""What stepping from Python costs: motus.Simulator.step on chain-16 against the C++ benchmark's
step of the same scene (motus_bench BM_ChainSymplectic/16), and MuJoCo's mj_step called from
Python (Debian's libmujoco through ctypes) on the same chain, interleaved in one window.

    PYTHONPATH=build/release/python python3 tests/bench/python_step_bench.py build/release/bin/motus_bench

Prints a table (µs per step, medians of the rounds) for docs/performance.md. A benchmark, not a
test: it asserts nothing about time.
"""

import ctypes
import ctypes.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import motus

LINKS = 16
DT = 1e-3
ROUNDS = 7


def chain_scene(n):
    """chain-N as tests/support/mechanisms.cpp builds it: N 1 kg links 0.1 × 0.02 × 0.02 m, on
    revolutes about y end to end from the ground at the origin, level at the start;
    symplectic Euler at 1 ms."""
    y_axis = {"axis": [1, 0, 0], "angleDeg": -90}  # the markers' z along world y
    parts = [{"name": "ground", "ground": True,
              "markers": [{"name": "j0", "orientation": y_axis}]}]
    joints = []
    for k in range(n):
        parts.append({"name": f"link{k}", "mass": 1.0,
                      "inertia": [(0.02 ** 2 + 0.02 ** 2) / 12, (0.1 ** 2 + 0.02 ** 2) / 12,
                                  (0.1 ** 2 + 0.02 ** 2) / 12],
                      "position": [0.1 * k + 0.05, 0, 0],
                      "markers": [{"name": "a", "position": [-0.05, 0, 0], "orientation": y_axis},
                                  {"name": "b", "position": [0.05, 0, 0], "orientation": y_axis}]})
        joints.append({"name": f"j{k}", "type": "revolute", "markerI": f"link{k}.a",
                       "markerJ": "ground.j0" if k == 0 else f"link{k - 1}.b"})
    return {"format": "motus-scene", "version": 1, "name": f"chain-{n}", "parts": parts,
            "joints": joints,
            "settings": {"integrator": "symplecticEuler", "stepSize": DT, "outputInterval": DT}}


def motus_per_step(scene, steps, per_call):
    sim = motus.Simulator(scene)
    started = time.perf_counter()
    if per_call == 1:
        for _ in range(steps):
            sim.step()
    else:
        for _ in range(steps // per_call):
            sim.step(per_call)
    return (time.perf_counter() - started) / steps * 1e6


def cpp_per_step(bench):
    """BM_ChainSymplectic/16: 2 s of chain-16 at 1 ms, its wall time per step."""
    out = subprocess.run([bench, "--benchmark_filter=BM_ChainSymplectic/16/",
                          "--benchmark_format=json"], capture_output=True, text=True, check=True)
    run = json.loads(out.stdout)["benchmarks"][0]
    seconds = run["real_time"] * {"ms": 1e-3, "us": 1e-6, "ns": 1e-9, "s": 1.0}[run["time_unit"]]
    return seconds / 2000 * 1e6


def mujoco_chain_xml(n):
    bodies = ""
    for k in range(n):
        pos = "0 0 0" if k == 0 else "0.1 0 0"
        bodies += (f'<body name="b{k}" pos="{pos}"><inertial pos="0.05 0 0" mass="1" '
                   f'diaginertia="{(0.0008) / 12} {(0.0104) / 12} {(0.0104) / 12}"/>'
                   f'<joint type="hinge" pos="0 0 0" axis="0 1 0"/>')
    bodies += "</body>" * n
    return (f'<mujoco model="chain-{n}"><option timestep="{DT}" gravity="0 0 -9.81"/>'
            f"<worldbody>{bodies}</worldbody></mujoco>")


class MuJoCo:
    """libmujoco through ctypes (Debian 12: libmujoco2.2.2)."""

    def __init__(self, xml):
        path = ctypes.util.find_library("mujoco") or "libmujoco.so.2.2.2"
        self.lib = ctypes.CDLL(path)
        self.lib.mj_loadXML.restype = ctypes.c_void_p
        self.lib.mj_loadXML.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_char_p,
                                        ctypes.c_int]
        self.lib.mj_makeData.restype = ctypes.c_void_p
        self.lib.mj_makeData.argtypes = [ctypes.c_void_p]
        self.lib.mj_step.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self.lib.mj_deleteData.argtypes = [ctypes.c_void_p]
        self.lib.mj_deleteModel.argtypes = [ctypes.c_void_p]
        with tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False) as f:
            f.write(xml)
        error = ctypes.create_string_buffer(1000)
        self.m = self.lib.mj_loadXML(f.name.encode(), None, error, 1000)
        os.unlink(f.name)
        if not self.m:
            raise RuntimeError(error.value.decode())
        self.d = self.lib.mj_makeData(self.m)

    def per_step(self, steps):
        step, m, d = self.lib.mj_step, self.m, self.d
        started = time.perf_counter()
        for _ in range(steps):
            step(m, d)
        return (time.perf_counter() - started) / steps * 1e6

    def close(self):
        self.lib.mj_deleteData(self.d)
        self.lib.mj_deleteModel(self.m)


def main(bench):
    scene = motus.Scene.from_dict(chain_scene(LINKS))
    rows = {"C++ (motus_bench)": [], "Python step(1000)": [], "Python step() x 2000": [],
            "MuJoCo mj_step from Python (ctypes)": []}
    try:
        mujoco = MuJoCo(mujoco_chain_xml(LINKS))
    except (OSError, RuntimeError) as e:
        print(f"MuJoCo not measured: {e}", file=sys.stderr)
        mujoco = None
        del rows["MuJoCo mj_step from Python (ctypes)"]
    for _ in range(ROUNDS):
        rows["C++ (motus_bench)"].append(cpp_per_step(bench))
        rows["Python step(1000)"].append(motus_per_step(scene, 2000, 1000))
        rows["Python step() x 2000"].append(motus_per_step(scene, 2000, 1))
        if mujoco:
            rows["MuJoCo mj_step from Python (ctypes)"].append(mujoco.per_step(2000))
    if mujoco:
        mujoco.close()
    cpp = statistics.median(rows["C++ (motus_bench)"])
    print(f"chain-{LINKS}, symplectic Euler at 1 ms, medians of {ROUNDS} interleaved rounds")
    print("| stepping | µs per step | against C++ |")
    print("|---|---|---|")
    for name, values in rows.items():
        m = statistics.median(values)
        print(f"| {name} | {m:.2f} | {m / cpp:.2f}× |")
    overhead = statistics.median(rows["Python step() x 2000"]) - statistics.median(
        rows["Python step(1000)"])
    print(f"per-call overhead of step(): {overhead:.2f} µs")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/release/bin/motus_bench")
