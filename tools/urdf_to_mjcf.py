#!/usr/bin/env python3
"""Writes the MJCF twin of a URDF robot: the same links (as bodies, with their inertials) and
joints (revolute and continuous as hinges, prismatic as slides, fixed as nothing: the child
body is welded to its parent), the URDF link "world" as MuJoCo's world body. Geometry is left
out: the twin is for comparing dynamics (mass, centre of mass, joint-space mass matrix), not
for drawing.

Numbers are written with 17 significant digits so that MuJoCo reads the URDF's values, and
each link's inertia is given whole (fullinertia) in its inertial frame, as URDF has it.

    tools/urdf_to_mjcf.py robot.urdf > robot.xml
"""

import math
import sys
import xml.etree.ElementTree as ET


def numbers(text, count):
    values = [float(v) for v in (text or "").split()] if text else [0.0] * count
    if len(values) != count:
        raise SystemExit(f"expected {count} numbers, got '{text}'")
    return values


def text(values):
    return " ".join(repr(float(v)) for v in values)


def rpy_to_quat(roll, pitch, yaw):
    """URDF's rpy (fixed axes x, then y, then z: R = Rz(yaw) Ry(pitch) Rx(roll)) as w x y z."""
    cr, sr = math.cos(roll / 2), math.sin(roll / 2)
    cp, sp = math.cos(pitch / 2), math.sin(pitch / 2)
    cy, sy = math.cos(yaw / 2), math.sin(yaw / 2)
    return [cr * cp * cy + sr * sp * sy,
            sr * cp * cy - cr * sp * sy,
            cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy]


def rotation(q):
    """The rotation matrix of the unit quaternion w x y z."""
    w, x, y, z = q
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]


def origin(element):
    o = element.find("origin") if element is not None else None
    if o is None:
        return [0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]
    return numbers(o.get("xyz"), 3), rpy_to_quat(*numbers(o.get("rpy"), 3))


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    robot = ET.parse(sys.argv[1]).getroot()
    links = {link.get("name"): link for link in robot.findall("link")}
    children = {}  # parent link name -> [joint element]
    child_links = set()
    for joint in robot.findall("joint"):
        parent = joint.find("parent").get("link")
        children.setdefault(parent, []).append(joint)
        child_links.add(joint.find("child").get("link"))
    roots = [name for name in links if name not in child_links]
    if len(roots) != 1:
        raise SystemExit(f"expected one root link, found {roots}")

    out = [f'<mujoco model="{robot.get("name")}">',
           '  <compiler angle="radian" inertiafromgeom="false"/>',
           '  <option gravity="0 0 -9.81"/>',
           "  <worldbody>"]

    def inertial(link, indent):
        element = link.find("inertial")
        if element is None:
            return
        pos, quat = origin(element)
        mass = float(element.find("mass").get("value"))
        i = element.find("inertia")
        v = {k: float(i.get(k, "0")) for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")}
        inertia = [[v["ixx"], v["ixy"], v["ixz"]],
                   [v["ixy"], v["iyy"], v["iyz"]],
                   [v["ixz"], v["iyz"], v["izz"]]]
        # MJCF's fullinertia is in the body's axes: I_B = R I R^T with R the inertial frame's.
        if quat != [1.0, 0.0, 0.0, 0.0]:
            r = rotation(quat)
            inertia = [[sum(r[a][k] * inertia[k][l] * r[b][l] for k in range(3) for l in range(3))
                        for b in range(3)] for a in range(3)]
        full = [inertia[0][0], inertia[1][1], inertia[2][2],
                inertia[0][1], inertia[0][2], inertia[1][2]]
        if mass == 0.0 and not any(full):
            return  # a massless frame: MJCF says so by giving it no inertial
        out.append(f'{indent}<inertial pos="{text(pos)}" mass="{mass!r}" '
                   f'fullinertia="{text(full)}"/>')

    def body(joint, indent):
        name = joint.find("child").get("link")
        pos, quat = origin(joint)
        out.append(f'{indent}<body name="{name}" pos="{text(pos)}" quat="{text(quat)}">')
        kind = joint.get("type")
        if kind in ("revolute", "continuous", "prismatic"):
            axis_element = joint.find("axis")
            axis = numbers(axis_element.get("xyz"), 3) if axis_element is not None else [1, 0, 0]
            attributes = (f'name="{joint.get("name")}" '
                          f'type="{"slide" if kind == "prismatic" else "hinge"}" '
                          f'pos="0 0 0" axis="{text(axis)}"')
            limit = joint.find("limit")
            if kind != "continuous" and limit is not None and limit.get("lower") is not None:
                lower, upper = float(limit.get("lower")), float(limit.get("upper"))
                if upper > lower:
                    attributes += f' limited="true" range="{lower!r} {upper!r}"'
            out.append(f"{indent}  <joint {attributes}/>")
        elif kind != "fixed":
            raise SystemExit(f"joint '{joint.get('name')}': type {kind} is not converted")
        inertial(links[name], indent + "  ")
        for child in children.get(name, []):
            body(child, indent + "  ")
        out.append(f"{indent}</body>")

    root = roots[0]
    if root == "world":
        for joint in children.get(root, []):
            body(joint, "    ")
    else:
        raise SystemExit("the root link must be 'world' (the twin is welded to the world)")
    out += ["  </worldbody>", "</mujoco>"]
    print("\n".join(out))


if __name__ == "__main__":
    main()
