"""Tuning a PD controller written in Python that drives a pendulum through Simulator.step.

A 1 kg link on a hinge (the pendulum of scenes/pendulum.json) with a motor: a jointForce whose
torque is the held variable `u`, which Python sets before every 1 ms step from the measured
angle and rate. A grid of gains is tried; each closed loop is scored by its overshoot and its
2 % settling time to a 0.5 rad step; the best is plotted.

    PYTHONPATH=build/release/python python3 docs/examples/python/pd_tuning.py out.png
"""

import math
import os
import sys

import matplotlib

matplotlib.use(os.environ.get("MPLBACKEND", "Agg"))
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import motus  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = 0.5  # rad
MGD = 1.0 * 9.81 * 0.05  # N·m: the link's gravity moment when level


def driven_pendulum():
    d = motus.load(os.path.join(HERE, "..", "..", "..", "scenes", "pendulum.json")).to_dict()
    d["variables"] = [{"name": "u", "initial": 0.0}]
    d["forces"] = [{"name": "motor", "type": "jointForce", "joint": "hinge", "magnitude": "u"}]
    d["settings"] = {"integrator": "rk4", "stepSize": 0.001, "outputInterval": 0.001}
    return motus.Scene.from_dict(d)


def closed_loop(scene, kp, kd, seconds=1.5):
    """The response to a step to TARGET: times, angles. The controller adds the gravity moment
    (feed-forward) to its PD torque."""
    sim = motus.Simulator(scene)
    times, angles = [], []
    for _ in range(int(seconds / 0.001)):
        # The hinge's angle, and its rate: the link turns about world y, its body y (v[4]).
        theta, rate = sim.outputs()["hinge.q0"], sim.v[4]
        sim.set_input("u", kp * (TARGET - theta) - kd * rate - MGD * math.cos(theta))
        sim.step()
        times.append(sim.time)
        angles.append(theta)
    return np.array(times), np.array(angles)


def score(times, angles):
    overshoot = max(0.0, (angles.max() - TARGET) / TARGET)
    outside = np.nonzero(np.abs(angles - TARGET) > 0.02 * TARGET)[0]
    settling = times[outside[-1]] if len(outside) else 0.0
    return overshoot, settling


def main(out="pd_tuning.png"):
    scene = driven_pendulum()
    results = []
    for kp in (0.5, 1.0, 2.0, 4.0):
        for kd in (0.01, 0.03, 0.06, 0.1):
            t, a = closed_loop(scene, kp, kd)
            overshoot, settling = score(t, a)
            results.append((settling + 2.0 * overshoot, kp, kd, overshoot, settling, t, a))
            print(f"kp = {kp:4.1f} N·m/rad  kd = {kd:5.2f} N·m·s/rad  overshoot {100 * overshoot:5.1f} %"
                  f"  settling {settling:5.3f} s")
    best = min(results, key=lambda r: r[0])
    _, kp, kd, overshoot, settling, t, a = best
    fig, ax = plt.subplots(figsize=(6, 4))
    for r in results:
        ax.plot(r[5], r[6], color="0.8", lw=0.5)
    ax.plot(t, a, color="C0", label=f"best: kp={kp:g}, kd={kd:g}")
    ax.axhline(TARGET, color="k", ls="--", lw=0.8)
    ax.set_xlabel("time [s]")
    ax.set_ylabel("hinge angle [rad]")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(f"best: kp = {kp:g}, kd = {kd:g}: overshoot {100 * overshoot:.1f} %, settling "
          f"{settling:.3f} s")
    return kp, kd, overshoot, settling


if __name__ == "__main__":
    main(*sys.argv[1:2])
