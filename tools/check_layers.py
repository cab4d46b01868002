#!/usr/bin/env python3
"""The engine's layers form a ladder: a folder of engine/ includes only folders on lower
rungs (docs/architecture.md, "Layers"). Prints every include that climbs the ladder, or
reaches sideways to another folder on the same rung, with its file and line, and exits 1.

Also checks what the engine must never include: Qt and OpenSceneGraph (the GUI's), and
Bullet anywhere but in contact/ (collision detection only).

Usage: tools/check_layers.py [SOURCE_DIR]   (default: the checkout this script is in)
"""

import pathlib
import re
import sys

# Rung of each folder of engine/, lowest first. Folders on one rung are independent.
LADDER = [
    ("math",),                           # spatial algebra, constants
    ("expr", "solver"),                  # expressions, the block factorisation
    ("model",),                          # scene description and compiled model
    ("state",),                          # the state of a run
    ("kinematics",),                     # body frames, marker vectors, joint coordinates
    ("constraints", "forces", "contact"),  # rows, applied forces, collision and contact
    ("dynamics",),                       # the workspace, the KKT solve, accelerations
    ("integrators",),                    # steppers
    ("analysis",),                       # runs and analyses built on the steppers
    ("record",),                         # recordings of runs
    ("io",),                             # files: scenes, runs, CSV, URDF, meshes
    ("runtime",),                        # the engine thread
]
RUNG = {folder: rung for rung, folders in enumerate(LADDER) for folder in folders}

ENGINE_INCLUDE = re.compile(r'^\s*#\s*include\s+"engine/([^/"]+)/[^"]+"')
FORBIDDEN = [
    (re.compile(r'^\s*#\s*include\s+<(Q[A-Za-z]*|QtCore|QtGui|QtWidgets)[/>]'), None, "Qt belongs to the GUI"),
    (re.compile(r'^\s*#\s*include\s+<osg[A-Za-z]*/'), None, "OpenSceneGraph belongs to the GUI"),
    (re.compile(r'^\s*#\s*include\s+<(btBulletCollisionCommon|btBulletDynamicsCommon|Bullet[A-Za-z]*/|LinearMath/)'),
     "contact", "Bullet is used for collision detection, inside contact/ only"),
]


def main() -> int:
    root = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent
    engine = root / "engine"
    problems = []
    files = sorted(p for p in engine.rglob("*") if p.suffix in (".h", ".cpp"))
    for path in files:
        relative = path.relative_to(engine)
        folder = relative.parts[0] if len(relative.parts) > 1 else None  # None: engine/version.*
        if folder is not None and folder not in RUNG:
            problems.append(f"engine/{relative}: folder '{folder}' has no rung on the ladder "
                            f"(give it one in tools/check_layers.py and docs/architecture.md)")
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            where = f"engine/{relative}:{number}"
            match = ENGINE_INCLUDE.match(line)
            if match:
                target = match.group(1)
                if target not in RUNG:
                    problems.append(f"{where}: includes engine/{target}/, a folder with no rung")
                elif folder is not None and target != folder and RUNG[target] >= RUNG[folder]:
                    how = "sideways (same rung)" if RUNG[target] == RUNG[folder] else "up the ladder"
                    problems.append(f"{where}: engine/{folder}/ (rung {RUNG[folder]}) includes "
                                    f"engine/{target}/ (rung {RUNG[target]}): {how}")
            for pattern, allowed, reason in FORBIDDEN:
                if pattern.match(line) and folder != allowed:
                    problems.append(f"{where}: {line.strip()}: {reason}")
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} include(s) break the engine's layers (docs/architecture.md, \"Layers\")")
        return 1
    print(f"engine layers: {len(files)} files, every include goes down the ladder")
    return 0


if __name__ == "__main__":
    sys.exit(main())
