"""The Python examples (docs/examples/python/) run as a user runs them, headless, so that they
cannot rot; and what they find is physics, checked."""

import os
import re
import subprocess
import sys
import tempfile

import pytest

SOURCE = os.environ.get("MOTUS_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLES = os.path.join(SOURCE, "docs", "examples", "python")

pytest.importorskip("matplotlib")


def run_example(name, *args):
    with tempfile.TemporaryDirectory() as folder:
        png = os.path.join(folder, "plot.png")
        env = dict(os.environ, MPLBACKEND="Agg")
        done = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), png, *args],
                              capture_output=True, text=True, env=env, timeout=600)
        assert done.returncode == 0, done.stderr
        with open(png, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
        return done.stdout


def test_crank_length_study():
    out = run_example("crank_length_study.py", "6")
    peaks = [float(x) for x in re.findall(r"peak \|F\| =\s+([0-9.]+) N", out)]
    assert len(peaks) == 6
    # A longer crank at the same speed: larger accelerations, a larger pin force.
    assert all(b > a for a, b in zip(peaks, peaks[1:]))


def test_four_bar_tolerance_study():
    out = run_example("four_bar_tolerance.py", "40")
    m = re.search(r"(\d+) of 40 cases assembled; largest deviation: mean ([0-9.]+) mm, 95th "
                  r"percentile ([0-9.]+) mm, worst ([0-9.]+) mm", out)
    assert m, out
    assembled, mean, p95, worst = int(m[1]), float(m[2]), float(m[3]), float(m[4])
    assert assembled == 40
    # Errors of 0.2 mm on each length move the coupler's path by about as much, amplified by
    # the linkage's lever ratios: more than a tenth of it, less than ten times it.
    assert 0.02 < mean < 2.0
    assert mean <= p95 <= worst


def test_pd_tuning():
    out = run_example("pd_tuning.py")
    m = re.search(r"best: kp = ([0-9.]+), kd = ([0-9.]+): overshoot ([0-9.]+) %, settling "
                  r"([0-9.]+) s", out)
    assert m, out
    assert float(m[3]) < 10.0
    assert float(m[4]) < 1.0
