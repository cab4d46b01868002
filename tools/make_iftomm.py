#!/usr/bin/env python3
"""Writes IFToMM multibody benchmark problems as Motus scenes (docs/benchmarks.md).

    python3 tools/make_iftomm.py A01 > scenes/benchmarks/simple_pendulum.json
    python3 tools/make_iftomm.py A04 > scenes/benchmarks/bricard.json

A01 simple pendulum: a 1 kg point mass P1 on a massless 1 m link, pinned to the ground at the
origin about z, released at rest with the link horizontal (P1 at x = +1 m), gravity 9.81 m/s^2
along -y; 2000 s. A point mass has no rotational inertia; a Motus part needs some, so P1 gets
that of a 1 kg ball of 0.05 mm radius (1e-9 kg m^2): it lengthens the period by 5e-10 relative,
3e-6 rad of phase after 2000 s, and the exact solution tested against includes it.

A04 Bricard mechanism: five uniform bars of 1 m and 1 kg (0.1 m square section) joined in a
closed loop with the ground by six revolutes whose axes turn by 90 degrees from one to the
next; zero degrees of freedom by the count (30 - 30), one in fact (a redundant constraint).
Released at rest under gravity 9.81 m/s^2 along -y; 10 s.
"""
import json
import math
import sys


def marker(name, position=(0, 0, 0), axis="z"):
    m = {"name": name}
    if any(position):
        m["position"] = list(position)
    if axis == "x":
        m["orientation"] = {"axis": [0, 1, 0], "angleDeg": 90}
    elif axis == "y":
        m["orientation"] = {"axis": [1, 0, 0], "angleDeg": -90}
    return m


def scene(name, description, parts, joints, gravity, settings=None):
    s = {"format": "motus-scene", "version": 1, "minorVersion": 2, "name": name, "description": description,
         "gravity": gravity}
    if settings:
        s["settings"] = settings
    s["parts"] = parts
    s["joints"] = joints
    return s


def a01():
    ground = {"name": "ground", "ground": True, "color": "#7a828c",
              "geometry": [{"type": "cylinder", "radius": 0.02, "length": 0.1}],
              "markers": [marker("O")]}
    mass = {"name": "P1", "mass": 1.0, "inertia": [1e-9, 1e-9, 1e-9], "position": [1.0, 0, 0], "color": "#e0703c",
            "geometry": [{"type": "sphere", "radius": 0.05},
                         {"type": "box", "size": [1.0, 0.01, 0.01], "position": [-0.5, 0, 0]}],
            "markers": [marker("O", (-1.0, 0, 0))]}
    return scene(
        "Simple pendulum (IFToMM A01)",
        "IFToMM multibody benchmark A01: a 1 kg point mass P1 on a massless 1 m link pinned to the ground at the "
        "origin, released at rest with the link horizontal (P1 at x = +1 m) under gravity 9.81 m/s^2 along -y, "
        "simulated for 2000 s (about 845 periods of 2.3678 s). Checked: the position of P1 every 0.5 s, to 1e-3 m "
        "(the benchmark's high precision). Made by tools/make_iftomm.py.",
        [ground, mass], [{"name": "pivot", "type": "revolute", "markerI": "P1.O", "markerJ": "ground.O"}],
        [0, -9.81, 0], {"outputInterval": 0.5})


def a04():
    length, mass, side = 1.0, 1.0, 0.1
    axial = mass * (side ** 2 + side ** 2) / 12.0
    transverse = mass * (length ** 2 + side ** 2) / 12.0
    points = [(0, 0, 0), (1, 0, 0), (1, -1, 0), (1, -1, 1), (0, -1, 1), (0, 0, 1)]
    axes = ["y", "z", "x", "y", "z", "x"]
    ground = {"name": "ground", "ground": True, "color": "#7a828c",
              "geometry": [{"type": "box", "size": [0.12, 0.12, 1.0], "position": [0, 0, 0.5]}],
              "markers": [marker("P1", points[0], axes[0]), marker("P6", points[5], axes[5])]}
    parts = [ground]
    joints = [{"name": "P1", "type": "revolute", "markerI": "bar1.P1", "markerJ": "ground.P1"}]
    colors = ["#e0703c", "#3c8ee0", "#e0c03c", "#5cb85c", "#a05cd0"]
    for i in range(5):
        a, b = points[i], points[i + 1]
        com = tuple((a[k] + b[k]) / 2 for k in range(3))
        along = max(range(3), key=lambda k: abs(b[k] - a[k]))
        inertia = [transverse] * 3
        inertia[along] = axial
        size = [side] * 3
        size[along] = length
        name = f"bar{i + 1}"
        parts.append({
            "name": name, "mass": mass, "inertia": inertia, "position": list(com), "color": colors[i],
            "geometry": [{"type": "box", "size": size}],
            "markers": [marker(f"P{i + 1}", tuple(a[k] - com[k] for k in range(3)), axes[i]),
                        marker(f"P{i + 2}", tuple(b[k] - com[k] for k in range(3)), axes[i + 1])]})
        if i > 0:
            joints.append({"name": f"P{i + 1}", "type": "revolute", "markerI": f"{name}.P{i + 1}",
                           "markerJ": f"bar{i}.P{i + 1}"})
    joints.append({"name": "P6", "type": "revolute", "markerI": "bar5.P6", "markerJ": "ground.P6"})
    return scene(
        "Bricard mechanism (IFToMM A04)",
        "IFToMM multibody benchmark A04: five uniform bars of 1 m and 1 kg (0.1 m square section) and the ground "
        "joined in a loop by six revolutes at P1 (0,0,0) axis y, P2 (1,0,0) z, P3 (1,-1,0) x, P4 (1,-1,1) y, "
        "P5 (0,-1,1) z and P6 (0,0,1) x. By the count it cannot move (30 equations on 30 coordinates); it moves "
        "with one degree of freedom, one equation being redundant. Released at rest under gravity 9.81 m/s^2 "
        "along -y; it swings with a period of 4.9917 s. Checked: the point P3 over 10 s, and the energy "
        "(-29.43 J). Made by tools/make_iftomm.py.",
        parts, joints, [0, -9.81, 0], {"outputInterval": 0.01})


problems = {"A01": a01, "A04": a04}
if len(sys.argv) != 2 or sys.argv[1] not in problems:
    sys.exit(f"usage: {sys.argv[0]} {'|'.join(problems)}")
print(json.dumps(problems[sys.argv[1]](), indent=2))
