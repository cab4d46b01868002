#!/usr/bin/env python3
"""Writes the IFToMM benchmark A02 "N four-bar mechanism" as a Motus scene.

N four-bar windows side by side: N + 1 cranks pinned to the ground at A_i = (i, 0, 0) and
N couplers pinned between the crank tips B_i = (i, 1, 0) and B_{i+1}. Every link is a uniform
1 m rod of 1 kg; gravity 9.81 m/s^2 along -y; the joints' axes are z. The cranks start
vertical and B0 moves along +x at 1 m/s (all cranks turn at -1 rad/s, the couplers translate).

    python3 tools/make_n_four_bar.py 2 > scenes/benchmarks/n_four_bar.json
"""
import json
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 2
length, mass = 1.0, 1.0
axial = 1e-4                                  # a thin rod: its own-axis inertia barely matters
transverse = mass * length ** 2 / 12.0

parts = [{
    "name": "ground",
    "ground": True,
    "color": "#7a828c",
    "geometry": [{"type": "box", "size": [n * length + 0.2, 0.05, 0.05], "position": [n * length / 2, -0.05, 0]}],
    "markers": [{"name": f"A{i}", "position": [i * length, 0, 0]} for i in range(n + 1)],
}]
joints = []
for i in range(n + 1):
    parts.append({
        "name": f"crank{i}",
        "mass": mass,
        "inertia": [transverse, axial, transverse],    # rod along its y axis
        "position": [i * length, length / 2, 0],
        "velocity": [length / 2, 0, 0],
        "angularVelocity": [0, 0, -1.0],
        "color": "#e0703c",
        "geometry": [{"type": "box", "size": [0.04, length, 0.04]}],
        "markers": [{"name": "A", "position": [0, -length / 2, 0]}, {"name": "B", "position": [0, length / 2, 0]}],
    })
    joints.append({"name": f"pivotA{i}", "type": "revolute", "markerI": f"crank{i}.A", "markerJ": f"ground.A{i}"})
for i in range(n):
    parts.append({
        "name": f"coupler{i}",
        "mass": mass,
        "inertia": [axial, transverse, transverse],    # rod along its x axis
        "position": [i * length + length / 2, length, 0],
        "velocity": [length, 0, 0],
        "color": "#3c8ee0",
        "geometry": [{"type": "box", "size": [length, 0.04, 0.04], "position": [0, 0, 0.05]}],
        "markers": [{"name": "L", "position": [-length / 2, 0, 0]}, {"name": "R", "position": [length / 2, 0, 0]}],
    })
    joints.append({"name": f"pin{i}L", "type": "revolute", "markerI": f"coupler{i}.L", "markerJ": f"crank{i}.B"})
    joints.append({"name": f"pin{i}R", "type": "revolute", "markerI": f"coupler{i}.R", "markerJ": f"crank{i + 1}.B"})

scene = {
    "format": "motus-scene",
    "version": 1,
    "minorVersion": 2,
    "name": f"N four-bar (IFToMM A02, N = {n})",
    "description": (f"IFToMM multibody benchmark A02 with N = {n}: {2 * n + 1} uniform rods of 1 m and 1 kg, "
                    "cranks pinned to the ground 1 m apart, couplers between their tips. Released with the cranks "
                    "vertical and B0 (the tip of crank0) moving at 1 m/s along +x. Each time the cranks are "
                    "horizontal every link lies on one line and the mechanism gains N degrees of freedom for an "
                    "instant: it must pass through as a parallelogram."),
    "gravity": [0, -9.81, 0],
    "parts": parts,
    "joints": joints,
}
json.dump(scene, sys.stdout, indent=2)
print()
