#!/usr/bin/env python3
"""Writes the heavy symmetric top in steady precession as a Motus scene.

A symmetric top (mass m, centre of mass at l from its tip along its symmetry axis, moments
I1 = I2 and I3 about the centre of mass) on a ball joint at its tip, its axis tilted by theta
from the vertical, spinning with omega3 about that axis. Released on the slow steady precession:
its precession rate phi' is the smaller root of

    A cos(theta) phi'^2 - I3 omega3 phi' + m g l = 0,    A = I1 + m l^2 (about the tip)

and the exact motion is then a rotation of the whole top about the vertical at phi', with the
axis at theta and the spin psi' = omega3 - phi' cos(theta) about it: the centre of mass moves on
a horizontal circle of radius l sin(theta) at phi'. Printed to stderr: phi', psi'.

    python3 tools/make_heavy_top.py > scenes/benchmarks/heavy_top.json
"""
import json
import math
import sys

m, l, I1, I3 = 1.0, 0.1, 0.004, 0.006
g = 9.81
theta = math.pi / 6
omega3 = 100.0

A = I1 + m * l * l
a, b, c = A * math.cos(theta), -I3 * omega3, m * g * l
phi = (-b - math.sqrt(b * b - 4 * a * c)) / (2 * a)
psi = omega3 - phi * math.cos(theta)

# Body z is the symmetry axis; the top leans towards -y (a rotation about x by theta).
axis = (0.0, -math.sin(theta), math.cos(theta))
com = tuple(l * k for k in axis)
omega = (psi * axis[0], psi * axis[1], psi * axis[2] + phi)     # phi' about z plus the spin
# v = (phi z) x com  (the tip is fixed, and the spin about the axis moves no point of it)
velocity = (-phi * com[1], phi * com[0], 0.0)

scene = {
    "format": "motus-scene",
    "version": 1,
    "minorVersion": 2,
    "name": "Heavy symmetric top in steady precession",
    "description": (
        f"A {m:g} kg symmetric top (I1 = I2 = {I1:g}, I3 = {I3:g} kg m^2 about its centre of mass, {l:g} m from "
        f"its tip) on a ball joint at its tip, tilted {math.degrees(theta):g} degrees and spinning at "
        f"omega3 = {omega3:g} rad/s, released on its slow steady precession: phi' = {phi:.12g} rad/s, the smaller "
        "root of A cos(theta) phi'^2 - I3 omega3 phi' + m g l = 0 (A = I1 + m l^2). The exact motion keeps the "
        "centre of mass on a horizontal circle of radius l sin(theta), turning at phi'. Made by "
        "tools/make_heavy_top.py."),
    "settings": {"outputInterval": 0.01},
    "parts": [
        {
            "name": "floor",
            "ground": True,
            "color": "#7a828c",
            "geometry": [{"type": "box", "size": [0.4, 0.4, 0.01], "position": [0, 0, -0.005]}],
            "markers": [{"name": "tip"}],
        },
        {
            "name": "top",
            "mass": m,
            "inertia": [I1, I1, I3],
            "position": list(com),
            "orientation": {"axis": [1, 0, 0], "angleDeg": math.degrees(theta)},
            "velocity": list(velocity),
            "angularVelocity": list(omega),
            "color": "#e0703c",
            "geometry": [
                {"type": "cone", "radius": 0.06, "length": 0.1, "position": [0, 0, -0.05],
                 "orientation": {"axis": [1, 0, 0], "angleDeg": 180}},
                {"type": "cylinder", "radius": 0.08, "length": 0.01, "position": [0, 0, 0.005]},
                {"type": "cylinder", "radius": 0.006, "length": 0.06, "position": [0, 0, 0.04]},
            ],
            "markers": [{"name": "tip", "position": [0, 0, -l]}],
        },
    ],
    "joints": [{"name": "pivot", "type": "spherical", "markerI": "top.tip", "markerJ": "floor.tip"}],
}
print(json.dumps(scene, indent=2))
print(f"phi' = {phi!r} rad/s, psi' = {psi!r} rad/s", file=sys.stderr)
