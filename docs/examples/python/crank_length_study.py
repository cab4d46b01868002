"""Slider-crank crank-length study: the peak crank-pin force against the crank's length.

The scene scenes/slider_crank_study.json makes the crank's length a design variable, L_crank
(its mass, inertia, pin and the rod's and slider's places follow it). Each length is a case of
a motus.sweep on every core; the plot is saved as a PNG.

    PYTHONPATH=build/release/python python3 docs/examples/python/crank_length_study.py out.png
"""

import os
import sys

import matplotlib

matplotlib.use(os.environ.get("MPLBACKEND", "Agg"))
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import motus  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SCENE = os.path.join(HERE, "..", "..", "..", "scenes", "slider_crank_study.json")


def main(out="crank_length_study.png", count=12):
    lengths = np.linspace(0.03, 0.09, count)  # m, within the design variable's range
    cases = [{"case": f"L{1000 * L:.1f}mm", "L_crank": float(L)} for L in lengths]
    study = motus.sweep(SCENE, cases, duration=1.0, summarize=["crankPin.|F|"], keep=False)
    if study.failures:
        print("failed:", study.failures, file=sys.stderr)
    peak = np.array([row["peak(crankPin.|F|)"] for row in study.table])  # N
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(1000 * lengths, peak, "o-")
    ax.set_xlabel("crank length L_crank [mm]")
    ax.set_ylabel("peak crank-pin force |F| [N]")
    ax.set_title("Slider-crank: peak pin force against crank length")
    ax.grid(True)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    for L, F in zip(lengths, peak):
        print(f"L_crank = {1000 * L:5.1f} mm   peak |F| = {F:8.2f} N")
    return lengths, peak


if __name__ == "__main__":
    main(*(sys.argv[1:2] or []), *(int(a) for a in sys.argv[2:3]))
