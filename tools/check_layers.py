#!/usr/bin/env python3
"""The engine's layers form a ladder: a folder of engine/ includes only folders on lower
rungs (docs/architecture.md, "Layers"). The GUI and the programs have a ladder of their own
above it (ui/ then app/). Prints every include that climbs a ladder, or reaches sideways to
another folder on the same rung, with its file and line, and exits 1.

Also checks what the engine must never include: Qt and OpenSceneGraph (the GUI's), Bullet
anywhere but in contact/ (collision detection only), ui/ or app/; that ui/ never includes
app/; and that ui/render/ (motus_render, which motus-cli links) never includes Qt.

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
    ("io",),                             # Motus's files: scenes, runs, CSV; meshes
    ("runtime", "import"),               # the engine thread; robot descriptions (URDF, MJCF, SDF)
]
RUNG = {folder: rung for rung, folders in enumerate(LADDER) for folder in folders}

ENGINE_INCLUDE = re.compile(r'^\s*#\s*include\s+"engine/([^/"]+)/[^"]+"')
FORBIDDEN = [
    (re.compile(r'^\s*#\s*include\s+<(Q[A-Za-z]*|QtCore|QtGui|QtWidgets)[/>]'), None, "Qt belongs to the GUI"),
    (re.compile(r'^\s*#\s*include\s+<osg[A-Za-z]*/'), None, "OpenSceneGraph belongs to the GUI"),
    (re.compile(r'^\s*#\s*include\s+"(ui|app)/'), None, "the engine never reaches up to the GUI or the programs"),
    (re.compile(r'^\s*#\s*include\s+<(btBulletCollisionCommon|btBulletDynamicsCommon|Bullet[A-Za-z]*/|LinearMath/)'),
     "contact", "Bullet is used for collision detection, inside contact/ only"),
]


# The GUI's folders and the programs', lowest first (docs/architecture.md, "ui/").
UI_LADDER = [
    ("ui/common",),                                   # engine text as Qt text
    ("ui/session", "ui/document", "ui/viewport", "ui/models", "ui/properties",
     "ui/analysis"),                                  # the run, the document, the panels' parts
    ("ui/render", "ui/plots", "ui/timeline"),         # built on the run and the 3D view
    ("ui/mainwindow",),                               # the window and its action groups
    ("app/gui", "app/cli", "app/python"),             # the programs, the Python module
]
UI_RUNG = {folder: rung for rung, folders in enumerate(UI_LADDER) for folder in folders}
UI_INCLUDE = re.compile(r'^\s*#\s*include\s+"((?:ui|app)/[^/"]+)/[^"]+"')
QT_INCLUDE = re.compile(r'^\s*#\s*include\s+<(Q[A-Za-z]*|QtCore|QtGui|QtWidgets)[/>]')


def check_ui(root: pathlib.Path, problems: list) -> int:
    files = sorted(p for top in ("ui", "app") for p in (root / top).rglob("*")
                   if p.suffix in (".h", ".cpp"))
    for path in files:
        relative = path.relative_to(root)
        if len(relative.parts) < 3:
            continue  # ui/CMakeLists.txt and the like
        folder = "/".join(relative.parts[:2])
        if folder not in UI_RUNG:
            problems.append(f"{relative}: folder '{folder}' has no rung on the ladder "
                            f"(give it one in tools/check_layers.py and docs/architecture.md)")
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            where = f"{relative}:{number}"
            if folder == "ui/render" and QT_INCLUDE.match(line):
                problems.append(f"{where}: {line.strip()}: ui/render/ is motus_render, which "
                                f"motus-cli links without Qt")
            match = UI_INCLUDE.match(line)
            if not match:
                continue
            target = match.group(1)
            if target not in UI_RUNG:
                problems.append(f"{where}: includes {target}/, a folder with no rung")
            elif target != folder and UI_RUNG[target] >= UI_RUNG[folder]:
                how = "sideways (same rung)" if UI_RUNG[target] == UI_RUNG[folder] else "up the ladder"
                problems.append(f"{where}: {folder}/ (rung {UI_RUNG[folder]}) includes "
                                f"{target}/ (rung {UI_RUNG[target]}): {how}")
    return len(files)


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
    ui_files = check_ui(root, problems)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} include(s) break the layers (docs/architecture.md, \"Layers\" and \"ui/\")")
        return 1
    print(f"layers: {len(files)} engine files and {ui_files} ui/ and app/ files, every include "
          f"goes down its ladder")
    return 0


if __name__ == "__main__":
    sys.exit(main())
