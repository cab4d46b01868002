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


def a03():
    """Andrews' squeezing mechanism, Hairer-Wanner test set data (docs/benchmarks.md)."""
    m = [0.04325, 0.00365, 0.02373, 0.00706, 0.07050, 0.00706, 0.05498]
    inertia = [2.194e-6, 4.410e-7, 5.255e-6, 5.667e-7, 1.169e-5, 5.667e-7, 1.912e-5]
    xa, ya, xb, yb, xc, yc = -0.06934, -0.00227, -0.03635, 0.03273, 0.014, 0.072
    rr, d, ss, e, zt, zf, u, sc, sd = 0.007, 0.028, 0.035, 0.02, 0.04, 0.02, 0.04, 0.018, 0.02
    ra, da, sa, sb, ea, ta, tb, ua, ub, fa = (0.00092, 0.0115, 0.01874, 0.01043, 0.01421, 0.02308, 0.00916,
                                              0.01228, 0.00449, 0.01421)
    c0, l0, mom = 4530.0, 0.07785, 0.033
    beta, theta = -0.0617138900142764496, 0.0
    gamma, phi, delta = 0.455279819163070380, 0.222668390165885885, 0.487364979543842550
    omega, eps = -0.222668390165885885, 1.23054744454982119

    def add(p, *terms):
        return tuple(p[k] + sum(c * v[k] for c, v in terms) for k in range(2))

    def unit(angle):
        return (math.cos(angle), math.sin(angle))

    O, A, B, C = (0.0, 0.0), (xa, ya), (xb, yb), (xc, yc)
    F = add(O, (rr, unit(beta)))
    E = add(F, (-d, unit(beta + theta)))
    e1, e2 = unit(gamma), (math.sin(gamma), -math.cos(gamma))
    D = add(B, (sd, e1), (sc, e2))
    G = add(A, (zt, unit(delta)))
    ge = (math.sin(phi + delta), -math.cos(phi + delta))
    ah = (math.sin(eps), -math.cos(eps))
    H = add(A, (u, ah))
    he = unit(omega + eps)
    ag = unit(delta)
    coms = [add(O, (ra, unit(beta))),
            add(F, (-da, unit(beta + theta))),
            add(B, (sb, e1), (sa, e2)),
            add(G, (e - ea, ge)),
            add(A, (ta, ag), (tb, (-ag[1], ag[0]))),
            add(H, (zf - fa, he)),
            add(A, (ua, ah), (ub, (-ah[1], ah[0])))]
    # Every part's frame is the world frame at t = 0: markers at world points, the centre of mass
    # where the test set puts it. The motion is planar, so only the moment about z matters; the
    # others are set equal to it.
    points = {"O": O, "A": A, "B": B, "C": C, "D": D, "E": E, "F": F, "G": G, "H": H}

    def at(name, p=None):
        p = points[name] if p is None else p
        return {"name": name, "position": [p[0], p[1], 0.0]}

    def bar(p, q, width=0.002):
        mid = ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)
        length = math.hypot(q[0] - p[0], q[1] - p[1])
        angle = math.degrees(math.atan2(q[1] - p[1], q[0] - p[0]))
        return {"type": "box", "size": [length, width, 0.002], "position": [mid[0], mid[1], 0.0],
                "orientation": {"axis": [0, 0, 1], "angleDeg": angle}}

    spec = [("OF", "#e0703c", ["O", "F"], [bar(O, F, 0.003)]),
            ("FE", "#3c8ee0", ["F", "E"], [bar(F, E)]),
            ("BDE", "#e0c03c", ["B", "D", "E"], [bar(B, D, 0.003), bar(D, E, 0.003), bar(E, B, 0.003)]),
            ("GE", "#5cb85c", ["G", "E"], [bar(G, E)]),
            ("AG", "#a05cd0", ["A", "G"], [bar(A, G, 0.004)]),
            ("HE", "#5cb8b8", ["H", "E"], [bar(H, E)]),
            ("AH", "#d05c8c", ["A", "H"], [bar(A, H, 0.004)])]
    parts = [{"name": "ground", "ground": True, "color": "#7a828c",
              "geometry": [{"type": "cylinder", "radius": 0.002, "length": 0.004,
                            "position": [p[0], p[1], 0.0]} for p in (O, A, B, C)],
              "markers": [at("O"), at("A"), at("B"), at("C")]}]
    for k, (name, color, marks, shapes) in enumerate(spec):
        parts.append({"name": name, "mass": m[k], "inertia": [inertia[k]] * 3,
                      "centerOfMass": [coms[k][0], coms[k][1], 0.0], "color": color,
                      "geometry": shapes, "markers": [at(p) for p in marks]})
    pins = [("O", "OF.O", "ground.O"), ("F", "FE.F", "OF.F"), ("E_FE", "FE.E", "BDE.E"), ("B", "BDE.B", "ground.B"),
            ("E_GE", "GE.E", "BDE.E"), ("G", "GE.G", "AG.G"), ("A_AG", "AG.A", "ground.A"),
            ("E_HE", "HE.E", "BDE.E"), ("H", "HE.H", "AH.H"), ("A_AH", "AH.A", "ground.A")]
    joints = [{"name": n, "type": "revolute", "markerI": i, "markerJ": j} for n, i, j in pins]
    forces = [{"name": "drive", "type": "pointTorque", "marker": "OF.O", "components": [0, 0, mom]},
              {"name": "spring", "type": "springDamper", "markerI": "BDE.D", "markerJ": "ground.C",
               "stiffness": c0, "damping": 0.0, "freeLength": l0}]
    s = scene(
        "Andrews' squeezing mechanism (IFToMM A03)",
        "IFToMM multibody benchmark A03, Andrews' squeezing mechanism, with the data of the Hairer-Wanner test set "
        "(problem 'andrews'): seven bodies in a plane, ten revolute joints (four bodies meet at E), a torque of "
        "0.033 N m on the crank OF and a spring of 4530 N/m (free length 0.07785 m) from D to the ground point C; "
        "no gravity. Released at rest in the test set's consistent position; the crank turns 2.5 times in 0.03 s. "
        "Checked: the seven angles at 0.03 s against the test set's reference solution, and the energy balance "
        "E - E0 = 0.033 (beta - beta0). Made by tools/make_iftomm.py.",
        parts, joints, [0, 0, 0], {"outputInterval": 1e-4})
    s["forces"] = forces
    return s


def a05():
    """The stiff flyball governor (docs/benchmarks.md)."""
    w0 = 2.0 * math.pi
    alpha = math.radians(30.0)
    rod_m, ball_m, hinge_x = 0.3, 5.0, 0.05
    # Rod and ball as one part, its frame at the hinge with x along the rod: centre of mass and
    # moments about it from the rod (uniform, 1 m x 0.01 m x 0.01 m) and the point mass at its end.
    mass = rod_m + ball_m
    cx = (rod_m * 0.5 + ball_m * 1.0) / mass
    axial = rod_m * 2e-4 / 12.0
    transverse = rod_m * (1.0 + 1e-4) / 12.0 + rod_m * (0.5 - cx) ** 2 + ball_m * (1.0 - cx) ** 2

    def spin(position):
        return [-w0 * position[1], w0 * position[0], 0.0]

    def part(name, m_, inertia, position, **extra):
        p = {"name": name, "mass": m_, "inertia": inertia, "position": position,
             "velocity": spin(position), "angularVelocity": [0.0, 0.0, w0]}
        p.update(extra)
        return p

    ground = {"name": "ground", "ground": True, "color": "#7a828c",
              "geometry": [{"type": "cylinder", "radius": 0.04, "length": 0.02, "position": [0, 0, -0.01]}],
              "markers": [marker("base")]}
    shaft = part("shaft", 0.3, [0.3 * (1 + 1e-4) / 12, 0.3 * (1 + 1e-4) / 12, 0.3 * 2e-4 / 12], [0, 0, 0.5],
                 color="#8c9bab", geometry=[{"type": "box", "size": [0.01, 0.01, 1.0]}],
                 markers=[marker("base", (0, 0, -0.5)), marker("slide", (0, 0, 0)),
                          marker("hingeA", (hinge_x, 0, 0.5), "y"), marker("hingeB", (-hinge_x, 0, 0.5), "y")])
    slider = part("slider", 3.0, [0.005, 0.005, 0.005], [0, 0, 0.5], color="#e0c03c",
                  geometry=[{"type": "box", "size": [0.1, 0.1, 0.1]}],
                  markers=[marker("slide"), marker("sideA", (hinge_x, 0, 0)), marker("sideB", (-hinge_x, 0, 0))])
    parts = [ground, shaft, slider]
    joints = [{"name": "shaftPivot", "type": "revolute", "markerI": "shaft.base", "markerJ": "ground.base"},
              {"name": "sliderGuide", "type": "prismatic", "markerI": "slider.slide", "markerJ": "shaft.slide"}]
    forces = []
    for side, sign in (("A", 1.0), ("B", -1.0)):
        # The rod leaves its hinge outwards and 30 degrees down: its frame is the hinge's, turned
        # about y so that x points along the rod.
        hinge = (sign * hinge_x, 0.0, 1.0)
        turn = alpha if sign > 0 else math.pi - alpha
        c, s = math.cos(turn / 2), math.sin(turn / 2)
        rod = part(f"rod{side}", mass, [axial, transverse, transverse], list(hinge),
                   centerOfMass=[cx, 0, 0], orientation={"quaternion": [c, 0.0, s, 0.0]}, color="#3c8ee0",
                   geometry=[{"type": "box", "size": [1.0, 0.01, 0.01], "position": [0.5, 0, 0]},
                             {"type": "sphere", "radius": 0.05, "position": [1.0, 0, 0]}],
                   markers=[marker("hinge", (0, 0, 0), "y"), marker("middle", (0.5, 0, 0))])
        parts.append(rod)
        joints.append({"name": f"hinge{side}", "type": "revolute", "markerI": f"rod{side}.hinge",
                       "markerJ": f"shaft.hinge{side}"})
        forces.append({"name": f"spring{side}", "type": "springDamper", "markerI": f"slider.side{side}",
                       "markerJ": f"rod{side}.middle", "stiffness": 8e5, "damping": 4e4, "freeLength": 0.5})
    s = scene(
        "Stiff flyball governor (IFToMM A05)",
        "IFToMM multibody benchmark A05, the stiff flyball governor: a free vertical shaft (1 m, 0.3 kg) on a "
        "revolute at its foot, a 3 kg slider on it (prismatic, its centre 0.5 m up), two 1 m rods of 0.3 kg "
        "hinged at (+-0.05, 0, 1) with 5 kg point masses at their ends, 30 degrees below the horizontal, and two "
        "spring-dampers (8e5 N/m, 4e4 N s/m, free length 0.5 m) from the slider's sides to the rods' middles. "
        "The whole assembly turns at 2 pi rad/s about the vertical at the start; gravity 9.81 m/s^2 down; 10 s. "
        "Checked: angular momentum about the shaft (53.8689987 kg m^2/s, conserved), energy never rising and "
        "balanced by the dampers' work, the mirror symmetry of the two sides. Made by tools/make_iftomm.py.",
        parts, joints, [0, 0, -9.81], {"outputInterval": 0.01})
    s["forces"] = forces
    return s


def slider_crank():
    """The spatial slider-crank of the IFToMM library (Haug 1989, section 12.2)."""
    A, B, C = (0.0, 0.1, 0.12), (0.0, 0.1, 0.2), (0.2, 0.0, 0.0)
    rod = [(C[k] - B[k]) / 0.3 for k in range(3)]                     # (2/3, -1/3, -2/3)
    cross = (0.0, -2.0 / math.sqrt(5.0), 1.0 / math.sqrt(5.0))        # normalised rod x (1, 0, 0)
    third = (rod[1] * cross[2] - rod[2] * cross[1], rod[2] * cross[0] - rod[0] * cross[2],
             rod[0] * cross[1] - rod[1] * cross[0])
    # Quaternion of the conrod frame [rod, cross, third] (Shepperd's method; the trace is positive).
    R = [[rod[i], cross[i], third[i]] for i in range(3)]
    w = 0.5 * math.sqrt(1.0 + R[0][0] + R[1][1] + R[2][2])
    quat = [w, (R[2][1] - R[1][2]) / (4 * w), (R[0][2] - R[2][0]) / (4 * w), (R[1][0] - R[0][1]) / (4 * w)]
    mid = [(B[k] + C[k]) / 2 for k in range(3)]
    ground = {"name": "ground", "ground": True, "color": "#7a828c",
              "geometry": [{"type": "box", "size": [0.5, 0.04, 0.01], "position": [0.2, 0, -0.035]},
                           {"type": "box", "size": [0.02, 0.04, 0.04], "position": [-0.02, 0.1, 0.12]}],
              "markers": [marker("A", A, "x"), marker("rail", (0, 0, 0), "x")]}
    crank = {"name": "crank", "mass": 0.12, "inertia": [1e-4, 1e-4, 1e-5], "position": [0, 0.1, 0.16],
             "velocity": [0, -0.24, 0], "angularVelocity": [6, 0, 0], "color": "#e0703c",
             "geometry": [{"type": "box", "size": [0.01, 0.01, 0.08]}],
             "markers": [marker("A", (0, 0, -0.04), "x"), marker("B", (0, 0, 0.04))]}
    conrod = {"name": "conrod", "mass": 0.5, "inertia": [4e-4, 4e-3, 4e-3], "position": mid,
              "orientation": {"quaternion": quat}, "velocity": [0.12, -0.24, 0], "angularVelocity": [1.92, -0.96, 0.48],
              "color": "#3c8ee0", "geometry": [{"type": "box", "size": [0.3, 0.008, 0.008]}],
              "markers": [marker("B", (-0.15, 0, 0)), marker("C", (0.15, 0, 0), "y")]}
    slider = {"name": "slider", "mass": 2.0, "inertia": [1e-4, 1e-4, 1e-4], "position": list(C),
              "velocity": [0.24, 0, 0], "color": "#e0c03c", "geometry": [{"type": "box", "size": [0.05, 0.03, 0.03]}],
              "markers": [marker("C", (0, 0, 0), "x")]}
    joints = [{"name": "crankPivot", "type": "revolute", "markerI": "crank.A", "markerJ": "ground.A"},
              {"name": "ball", "type": "spherical", "markerI": "conrod.B", "markerJ": "crank.B"},
              {"name": "cardan", "type": "universal", "markerI": "slider.C", "markerJ": "conrod.C"},
              {"name": "rail", "type": "prismatic", "markerI": "slider.C", "markerJ": "ground.rail"}]
    return scene(
        "Spatial slider-crank (IFToMM)",
        "IFToMM multibody benchmark 'spatial rigid slider-crank' (Haug 1989, section 12.2): a crank of 0.08 m "
        "(0.12 kg) turning about x at A = (0, 0.1, 0.12), a conrod of 0.3 m (0.5 kg; 4e-4 kg m^2 about its "
        "axis, 4e-3 across) on a ball joint at the crank pin B and a universal joint at the slider C, and a "
        "2 kg slider on the x axis. Crank up at the start, turning at 6 rad/s; gravity 9.81 m/s^2 along -z; 5 s. "
        "Checked: the slider's position against the mechanism's exact one-degree-of-freedom reduction, and the "
        "energy (0.76643568 J). Made by tools/make_iftomm.py.",
        [ground, crank, conrod, slider], joints, [0, 0, -9.81], {"outputInterval": 0.01})


problems = {"A01": a01, "A03": a03, "A04": a04, "A05": a05, "slider-crank": slider_crank}
if len(sys.argv) != 2 or sys.argv[1] not in problems:
    sys.exit(f"usage: {sys.argv[0]} {'|'.join(problems)}")
print(json.dumps(problems[sys.argv[1]](), indent=2))
