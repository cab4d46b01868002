"""Monte-Carlo tolerance study of a four-bar's coupler path.

The crank-rocker of scenes/four_bar.json, its crank driven one turn a second. Each of its four
pin-to-pin lengths is made with a manufacturing error (normal, standard deviation SIGMA); each
of the CASES mechanisms is analysed kinematically over one turn on every core, and the coupler's
centre's path compared with the nominal one. The spread of the path is plotted (the nominal
path, the cases' paths, and a histogram of each case's largest deviation).

    PYTHONPATH=build/release/python python3 docs/examples/python/four_bar_tolerance.py out.png 500
"""

import os
import sys

import matplotlib

matplotlib.use(os.environ.get("MPLBACKEND", "Agg"))
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import motus  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SCENE = os.path.join(HERE, "..", "..", "..", "scenes", "four_bar.json")
SIGMA = 0.2e-3  # m: the standard deviation of each length's error


def driven_four_bar():
    """The four-bar with its crank turned at 1 rev/s from where it is placed (45°)."""
    d = motus.load(SCENE).to_dict()
    d["motions"] = [{"name": "drive", "joint": "pivotA", "expression": "2*pi*time"}]
    return motus.Scene.from_dict(d)


def coupler_path(result):
    return np.column_stack([result["coupler.x"], result["coupler.z"]])


def main(out="four_bar_tolerance.png", count=500, seed=1):
    scene = driven_four_bar()
    nominal = coupler_path(motus.kinematics(scene, 1.0, output_dt=0.01))
    rng = np.random.default_rng(seed)
    # The pins' places along each link (the markers' x in their part), each with its error:
    # the ground's D, the crank's B, the coupler's C and the rocker's D.
    cases = []
    for k in range(count):
        e = rng.normal(0.0, SIGMA, 4)
        cases.append({"case": f"mc{k}",
                      "/parts/ground/markers/D/position": [0.4 + e[0], 0, 0],
                      "/parts/crank/markers/B/position": [0.05 + e[1], 0, 0],
                      "/parts/coupler/markers/C/position": [0.2 + e[2], 0, 0],
                      "/parts/rocker/markers/D/position": [-0.15 + e[3], 0, 0]})

    def deviation(result):  # where the case ran: only numbers travel back
        path = coupler_path(result)
        return {"deviation": float(np.max(np.linalg.norm(path - nominal, axis=1)))}

    study = motus.sweep(scene, cases, analysis="kinematics", duration=1.0, output_dt=0.01,
                        reduce=deviation)
    ok = [k for k, row in enumerate(study.table) if row["status"] == "ok"]
    worst = np.array([study.table[k]["deviation"] for k in ok])  # m
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    magnify = 50.0  # the deviations are fractions of a millimetre: drawn 50 times larger
    for k in ok[:50]:
        path = nominal + magnify * (coupler_path(study.results[k]) - nominal)
        left.plot(*path.T, color="0.7", lw=0.5)
    left.plot(*nominal.T, color="C0", lw=1.5, label="nominal")
    left.set_aspect("equal")
    left.set_xlabel("x [m]")
    left.set_ylabel("z [m]")
    left.set_title(f"coupler centre's path (50 cases, deviations ×{magnify:g})")
    left.legend()
    right.hist(1000 * worst, bins=30)
    right.set_xlabel("largest deviation from the nominal path [mm]")
    right.set_ylabel("cases")
    right.set_title(f"{len(ok)} cases, σ = {1000 * SIGMA:g} mm per length")
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(f"{len(ok)} of {count} cases assembled; largest deviation: mean "
          f"{1000 * worst.mean():.3f} mm, 95th percentile {1000 * np.percentile(worst, 95):.3f} "
          f"mm, worst {1000 * worst.max():.3f} mm")
    if study.failures:
        print(f"{len(study.failures)} cases failed, e.g. {next(iter(study.failures.items()))}",
              file=sys.stderr)
    return nominal, worst


if __name__ == "__main__":
    main(*(sys.argv[1:2] or []), *(int(a) for a in sys.argv[2:3]))
