#!/usr/bin/env python3
"""Writes a scene of N cubes resting on a ground plane, on a square grid, for measuring contact
set-up and stepping at scale (10,000 boxes: docs/performance.md).

Each cube is 0.1 m and 1 kg, its centre 0.05 m above the plane (resting), 0.2 m from its
neighbours (no two cubes touch): N contact pairs, one per cube with the plane.

    python3 tools/make_box_field.py 10000 > /tmp/box_field_10000.json
    /usr/bin/time -v build/release/bin/motus-cli simulate /tmp/box_field_10000.json --duration 0.001
"""
import json
import math
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
side = math.ceil(math.sqrt(n))
pitch, size, mass = 0.2, 0.1, 1.0
inertia = mass * size * size / 6.0

parts = [{"name": "ground", "ground": True, "geometry": [{"type": "plane"}]}]
for k in range(n):
    parts.append({
        "name": f"box{k}",
        "mass": mass,
        "inertia": [inertia, inertia, inertia],
        "position": [pitch * (k % side), pitch * (k // side), size / 2],
        "geometry": [{"type": "box", "size": [size, size, size]}],
    })
json.dump({
    "format": "motus-scene",
    "version": 1,
    "name": f"Box field {n}",
    "description": f"{n} cubes of 0.1 m resting on the ground plane, 0.2 m apart.",
    "settings": {"integrator": "timeStepping", "stepSize": 0.001},
    "contact": {"enabled": True},
    "parts": parts,
    "joints": [],
}, sys.stdout, indent=1)
print()
