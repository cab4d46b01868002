"""Motus from Python: rigid multibody mechanisms, the same engine as the GUI and motus-cli.

    import motus
    scene = motus.load("scenes/slider_crank.json")
    scene = scene.set("/parts/crank/mass", 2.0)        # as motus-cli --set names it
    run = motus.simulate(scene, duration=1.0)
    run["crankPin.Fx"]                                  # a numpy array [N], one per output
    run.time, run.channels, run.units["crankPin.Fx"]
    run.save("run.motusrun"); motus.load_run("run.motusrun")

Every function is described, with its units, in docs/python.md.
"""

import json as _json
import math as _math

import numpy as _numpy  # noqa: F401  (results are numpy arrays: loaded with the module)

from . import _motus

__version__ = _motus.__version__
__all__ = ["Scene", "SceneError", "Result", "Modes", "Assembly", "Interrupted", "Simulator",
           "Study", "load", "simulate", "kinematics", "inverse", "statics", "modes", "assemble",
           "info", "load_run", "render", "sweep", "__version__"]

SceneError = _motus.SceneError
SceneError.__doc__ = (
    "A scene the engine refuses: `path` is the JSON path of the first error ('/parts/2/mass'; "
    "'' for the whole scene), `reason` what is wrong, `diagnostics` every finding as "
    "(severity, path, message).")


class Interrupted(KeyboardInterrupt):
    """Ctrl+C during a run or a study: `result` holds what was computed until then (a Result,
    or a Study of the cases that finished)."""

    def __init__(self, result):
        if hasattr(result, "time"):
            end = result.time[-1] if len(result.time) else 0.0
            text = f"the run was interrupted at t = {end:g} s"
        else:
            done = sum(1 for row in result.table if row["status"] != "not run")
            text = f"the study was interrupted after {done} of {len(result)} cases"
        super().__init__(text)
        self.result = result


def _json_value(path, value):
    """A Python value as the JSON text a scene holds (NaN and infinities refused)."""
    try:
        return _json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise SceneError(f"set {path}: {value!r} cannot be in a scene ({e})") from None


class Scene:
    """A mechanism as the engine reads it. Scenes are values: `set` gives a new one."""

    def __init__(self, native):
        self._native = native

    @staticmethod
    def from_dict(d, base_directory=""):
        """The scene a dict in the scene format describes (docs/scene-format.md); meshes'
        paths start at `base_directory`. Refused with SceneError, the path and the reason."""
        if not isinstance(d, dict):
            raise SceneError(f"a scene is a dict in the scene format, not {type(d).__name__}")
        return Scene(_motus.scene_from_json(_json_value("/", d), base_directory))

    def to_dict(self):
        """The scene in the scene format, every key as Motus writes it."""
        return _json.loads(self._native.text)

    def to_json(self):
        return self._native.text

    def save(self, path):
        """Writes the scene file (atomically: the old file stays whole until the new one is)."""
        _motus.save_scene(self._native, str(path))

    def set(self, path, value):
        """The scene with `path` ('/parts/crank/mass', 'parts.crank.mass', as motus-cli --set
        names it: an array element by index or by name) set to `value` (a number, a list, a
        str, a bool, a dict). Refused with SceneError when the path names nothing or the
        value is not one the scene may hold."""
        if not isinstance(path, str):
            raise SceneError(f"a path is a str such as '/parts/crank/mass', not {type(path).__name__}")
        if isinstance(value, float) and not _math.isfinite(value):
            raise SceneError(f"set {path}: {value!r} is not a finite number")
        return Scene(_motus.set_in_scene(self._native, path, _json_value(path, value)))

    @property
    def name(self):
        return self._native.name

    @property
    def warnings(self):
        """What the engine noticed reading it (not errors)."""
        return list(self._native.warnings)

    def __repr__(self):
        return f"<motus.Scene {self.name!r}>"


def load(path):
    """The scene file at `path` (SceneError when it cannot be read)."""
    return Scene(_motus.load(str(path)))


def _scene(scene):
    if isinstance(scene, Scene):
        return scene
    if isinstance(scene, dict):
        return Scene.from_dict(scene)
    if isinstance(scene, str):
        return load(scene)
    raise TypeError(f"a scene is a motus.Scene, a dict or a file's path, not {type(scene).__name__}")


class Result:
    """A run's results: a column per channel of `motus-cli simulate`'s CSV (the same doubles),
    one value per output. `result["crankPin.Fx"]` a numpy array, `result.time` the times [s],
    `result.channels` the names, `result.units` each one's unit."""

    def __init__(self, native):
        self._native = native
        self._table = native.table()
        self.channels = list(native.names)
        self.units = dict(zip(native.names, native.units))
        self._index = {name: k for k, name in enumerate(self.channels)}
        self.interrupted = native.interrupted
        self.failure = native.failure or None
        self.warnings = list(native.warnings)
        #: "simulate", "kinematics", "inverse" or "statics"
        self.analysis = native.analysis
        #: inverse: redundant equations (the reactions of their joints are one of many)
        self.redundant_equations = native.redundant_equations
        if self.analysis == "statics":
            #: statics: "stable", "unstable", "neutral" or "unknown"
            self.stability = native.stability
            #: statics: the directions that lead away from an unstable equilibrium
            self.unstable_directions = native.unstable_directions
            #: statics: the largest acceleration at rest [m/s², rad/s²]
            self.residual = native.residual

    # A result travels between processes (motus.sweep, Dask) as its columns: its frames stay
    # where it ran (save() there).
    def __reduce__(self):
        return (_result_from_columns, (self._table, self.channels, self.units, self.failure,
                                       self.warnings, self.analysis, self.redundant_equations,
                                       {k: getattr(self, k) for k in
                                        ("stability", "unstable_directions", "residual")
                                        if hasattr(self, k)}))

    @property
    def time(self):
        return self._table[:, 0]

    def __getitem__(self, name):
        try:
            return self._table[:, self._index[name]]
        except KeyError:
            import difflib
            near = difflib.get_close_matches(name, self.channels, n=3)
            hint = f" (did you mean {', '.join(repr(n) for n in near)}?)" if near else ""
            raise KeyError(f"no channel {name!r} in this run{hint}") from None

    def __contains__(self, name):
        return name in self._index

    def __len__(self):
        return self._table.shape[0]

    def array(self):
        """Every column as one 2-D array (rows: outputs; columns: `channels`)."""
        return self._table

    def to_pandas(self):
        """A pandas DataFrame indexed by time (pandas must be installed)."""
        import pandas
        return pandas.DataFrame(self._table[:, 1:], index=pandas.Index(self.time, name="time"),
                                columns=self.channels[1:])

    def save(self, path):
        """Writes the run file (scene and frames, as the GUI opens it): a forward dynamics run."""
        if self._native is None:
            raise ValueError("this result came from another process (a sweep's case): it holds "
                             "its columns, not its frames; save the run where it ran, or "
                             "simulate the case again")
        if self.analysis != "simulate":
            raise ValueError(f"a run file holds a forward dynamics run, not {self.analysis}: "
                             "save the columns with result.to_pandas().to_csv(path)")
        self._native.save(str(path))

    def scene(self):
        if self._native is None:
            raise ValueError("this result came from another process: its scene is the case's")
        return Scene.from_dict(_json.loads(self._native.scene_json()))

    def __repr__(self):
        end = self.time[-1] if len(self) else 0.0
        return f"<motus.Result {len(self)} outputs to t = {end:g} s, {len(self.channels)} channels>"


def simulate(scene, duration=None, *, integrator=None, dt=None, output_dt=None, max_step=None,
             rtol=None, atol=None, projection_tolerance=None, formulation=None, every=1):
    """Forward dynamics of `scene` (a Scene, a dict or a file's path) for `duration` seconds
    (else the scene's end time), as `motus-cli simulate` runs it with the same options; the
    engine runs with the GIL released. Ctrl+C raises motus.Interrupted, whose `result` holds
    what was computed. A run that stops early (a mechanism that locks, a blow-up) returns what
    it computed, its reason in `result.failure`."""
    options = dict(duration=duration, integrator=integrator, dt=dt, output_dt=output_dt,
                   max_step=max_step, rtol=rtol, atol=atol,
                   projection_tolerance=projection_tolerance, formulation=formulation,
                   every=every)
    result = Result(_motus.simulate(_scene(scene)._native, options))
    if result.interrupted:
        raise Interrupted(result)
    return result


def _result_from_columns(table, channels, units, failure, warnings, analysis, redundant,
                         statics):
    result = Result.__new__(Result)
    result._native = None
    result._table = table
    result.channels = list(channels)
    result.units = dict(units)
    result._index = {name: k for k, name in enumerate(result.channels)}
    result.interrupted = False
    result.failure = failure
    result.warnings = list(warnings)
    result.analysis = analysis
    result.redundant_equations = redundant
    for key, value in statics.items():
        setattr(result, key, value)
    return result


def _positive(name, value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    return value


def kinematics(scene, duration=None, *, dt=None, output_dt=None):
    """The kinematic analysis of a fully driven mechanism (`motus-cli kinematics`): positions,
    velocities and accelerations from the joints and motions alone, for `duration` seconds
    (else the scene's end time), a row every `output_dt` [s] (else the scene's output
    interval), Newton's steps every `dt` [s]. The columns of its CSV (reactions are NaN: no
    masses or forces are involved). Ctrl+C raises motus.Interrupted with what was computed."""
    options = dict(duration=_positive("duration", duration), dt=_positive("dt", dt),
                   output_dt=_positive("output_dt", output_dt))
    return _finished(Result(_motus.kinematics(_scene(scene)._native, options)))


def inverse(scene, duration=None, *, dt=None, output_dt=None):
    """Inverse dynamics of a fully driven mechanism (`motus-cli inverse`): the kinematic
    analysis with the joints' reactions, the motions' efforts [N, N·m] and power [W] that
    produce it. `result.redundant_equations` > 0: the reactions of the joints they belong to
    are one of many that balance it (motus.info names them)."""
    options = dict(duration=_positive("duration", duration), dt=_positive("dt", dt),
                   output_dt=_positive("output_dt", output_dt))
    return _finished(Result(_motus.inverse(_scene(scene)._native, options)))


def statics(scene):
    """The static equilibrium nearest the scene's pose (`motus-cli statics`): a Result of one
    row in simulate's columns (the pose, the reactions and efforts that hold it), with
    `stability` ("stable", "unstable", "neutral"), `unstable_directions` and `residual` (the
    largest acceleration left at rest). SceneError when there is none."""
    return _finished(Result(_motus.statics(_scene(scene)._native)))


def _finished(result):
    if result.interrupted:
        raise Interrupted(result)
    return result


class Modes:
    """Small vibrations (`motus-cli modes`): `frequency` [Hz], `damping_ratio`, `unstable`,
    `growth_rate` [1/s], one per mode (ascending frequency, unstable first); `shapes` an
    array (modes × parts × 6): each part's centre of mass displacement x, y, z and rotation
    rx, ry, rz (world axes), scaled so the part whose centre moves most moves 1; `parts`
    their names. The linearised equations z'' + C z' + K z = f: `K`, `C`, `f`, and `N` (the
    bodies' velocity coordinates, named in `velocity_coordinates`, per minimal coordinate)."""

    def __init__(self, native):
        import numpy
        self.parts = list(native.parts)
        self.frequency = numpy.array(native.frequency, dtype=float)
        self.damping_ratio = numpy.array(native.damping_ratio, dtype=float)
        self.growth_rate = numpy.array(native.growth_rate, dtype=float)
        self.unstable = numpy.array(native.unstable, dtype=bool)
        self.shapes = native.shapes().reshape(len(self.frequency), len(self.parts), 6)
        self.N, self.K, self.C = native.N(), native.K(), native.C()
        self.f = native.f()[:, 0] if native.f().ndim == 2 else native.f()
        self.velocity_coordinates = list(native.velocity_coordinates)
        self.residual = native.residual
        self.time = native.time
        self.warnings = list(native.warnings)

    def __len__(self):
        return len(self.frequency)

    @property
    def channels(self):
        """The shape columns of `motus-cli modes`: 'crank.x', … 'crank.rz' per part."""
        return [f"{p}.{c}" for p in self.parts for c in ("x", "y", "z", "rx", "ry", "rz")]

    def to_pandas(self):
        """A DataFrame as `motus-cli modes` writes its CSV, a row per mode (pandas installed)."""
        import pandas
        frame = pandas.DataFrame(self.shapes.reshape(len(self), -1), columns=self.channels)
        frame.insert(0, "growthRate", self.growth_rate)
        frame.insert(0, "unstable", self.unstable.astype(int))
        frame.insert(0, "dampingRatio", self.damping_ratio)
        frame.insert(0, "frequency", self.frequency)
        frame.index = pandas.RangeIndex(1, len(self) + 1, name="mode")
        return frame

    def __repr__(self):
        shown = ", ".join(f"{f:.4g}" for f in self.frequency[:4])
        more = ", …" if len(self) > 4 else ""
        return f"<motus.Modes {len(self)} modes: {shown}{more} Hz>"


def modes(scene, *, equilibrium=False, at=None):
    """Natural frequencies, damping ratios and mode shapes (`motus-cli modes`): about the
    scene's pose; with `equilibrium=True` about the equilibrium nearest it; with `at` [s] about
    the pose a run reaches then (frozen: its velocities are not part of it)."""
    at = _positive("at", at)
    if at is not None and (not _math.isfinite(at) or at < 0):
        raise ValueError(f"at must be a time ≥ 0 s, not {at!r}")
    native = _motus.modes(_scene(scene)._native, bool(equilibrium), -1.0 if at is None else at)
    if native.interrupted:
        raise KeyboardInterrupt("the modes were interrupted")
    return Modes(native)


class Assembly(tuple):
    """`motus.assemble`'s answer: (scene, moved [m], turned [rad])."""
    __slots__ = ()

    def __new__(cls, scene, moved, turned):
        return super().__new__(cls, (scene, moved, turned))

    scene = property(lambda self: self[0], doc="the scene with its parts where the joints hold")
    moved = property(lambda self: self[1], doc="the farthest a part moved [m]")
    turned = property(lambda self: self[2], doc="the most a part turned [rad]")


def assemble(scene):
    """The scene with its parts where every joint and motion holds, nearest (in the mass metric)
    to where they were placed (`motus-cli assemble`): an Assembly (scene, moved [m], turned
    [rad]). A mechanism that cannot close raises SceneError saying which joint, by how much,
    and the loop."""
    native, moved, turned = _motus.assemble(_scene(scene)._native)
    return Assembly(Scene(native), moved, turned)


def info(scene):
    """The mechanism's structure and mobility (`motus-cli info`'s JSON, as a dict): parts with
    their mass properties, bodies, joints with their equations, motions, `dof` (Grübler's count
    and the actual one), `redundantConstraints` each with its meaning and remedy, `summary`,
    the `formulation` a run steps in and why, `errors`."""
    return _json.loads(_motus.info(_scene(scene)._native))


def load_run(path):
    """A run file (`Result.save`, `motus-cli simulate --run`, the GUI's File ▸ Save Run)."""
    return Result(_motus.load_run(str(path)))


def _program(name):
    """A Motus program (motus-cli) beside this package: the build tree's bin/ (the package in
    build/<preset>/python/motus), the install prefix's bin/, else on PATH; MOTUS_CLI names one."""
    import os
    import shutil
    if name == "motus-cli" and os.environ.get("MOTUS_CLI"):
        return os.environ["MOTUS_CLI"]
    here = os.path.dirname(os.path.abspath(__file__))
    for up in (("..", "..", "bin"), ("..", "..", "..", "..", "bin")):
        candidate = os.path.normpath(os.path.join(here, *up, name))
        if os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which(name)
    if not found:
        raise RuntimeError(f"{name} is not beside the motus package nor on PATH (it is built "
                           "and installed with it; MOTUS_CLI names another)")
    return found


def render(run, out, *, duration=None, size=(1280, 720), fps=30, start=None, end=None,
           view="isometric"):
    """Films `run` as a video, off screen as the GUI's 3D view draws it (`motus-cli render`):
    `out` a .mp4 (H.264) or .webm (VP9) file, written whole or not at all. `run` a Result of
    simulate, a run file's path, or a scene (Scene, dict, a .json path) run for `duration`
    [s] first. `size` (width, height) in pixels, both even; `fps` frames per second; `start`,
    `end` the times of the run [s] it spans; `view` isometric, front, back, left, right, top or
    bottom. Needs an X display (DISPLAY; on a server xvfb-run): RuntimeError says why it
    cannot. Ctrl+C stops it (KeyboardInterrupt), leaving no partial file."""
    import os
    import signal
    import subprocess
    import tempfile
    if isinstance(size, str):
        size = tuple(int(x) for x in size.lower().split("x"))
    width, height = (int(x) for x in size)
    if width <= 0 or height <= 0 or width % 2 or height % 2:
        raise ValueError(f"size is (width, height) in pixels, both even and positive, not {size!r}")
    if not os.environ.get("DISPLAY"):
        raise RuntimeError("render needs an X display and DISPLAY is not set: run Python under "
                           "xvfb-run (a virtual display) on a machine without a screen")
    with tempfile.TemporaryDirectory() as folder:
        args = []
        if isinstance(run, Result):
            source = os.path.join(folder, "run.motusrun")
            run.save(source)
        elif isinstance(run, (Scene, dict)):
            source = os.path.join(folder, "scene.json")
            _scene(run).save(source)
            if duration is None:
                raise TypeError("render(scene, …) runs it first: give duration= [s]")
        else:
            source = str(run)
        if duration is not None:
            args += ["--duration", repr(float(duration))]
        args += ["--size", f"{width}x{height}", "--fps", str(int(fps)), "--view", str(view)]
        if start is not None:
            args += ["--from", repr(float(start))]
        if end is not None:
            args += ["--to", repr(float(end))]
        process = subprocess.Popen([_program("motus-cli"), "render", source, "--out", str(out),
                                    *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   text=True)
        try:
            _, errors = process.communicate()
        except KeyboardInterrupt:
            process.send_signal(signal.SIGINT)
            process.wait()
            raise
    if process.returncode != 0:
        lines = [line for line in errors.splitlines() if "error" in line] or errors.splitlines()
        raise RuntimeError("render: " + (lines[-1] if lines else f"exit {process.returncode}"))


class SimulatorState(tuple):
    """`Simulator.state`: (time [s], q, v): q the bodies' positions and Euler parameters, v
    their velocities (7 and 6 per body, `Simulator.bodies` names them), read-only views of the
    simulator's own state (no copy: they follow it as it steps; copy() to keep one)."""
    __slots__ = ()
    time = property(lambda self: self[0])
    q = property(lambda self: self[1])
    v = property(lambda self: self[2])


class Simulator:
    """Forward dynamics stepped from Python: `step(n)` advances n steps of the scene's step
    size (its output interval with dopri45) on the calling thread, the GIL released; Ctrl+C
    stops between two steps with KeyboardInterrupt.

    `time` [s], `state` (time, q, v as read-only views), `q` and `v`; `outputs()` the channels
    of `motus-cli simulate` now, by name. Inputs: the scene's held variables (a variable with
    an `initial` value, read by forces' expressions), `set_input(name, value)` between steps,
    `inputs` their values. `snapshot()` and `restore(snapshot)` go back to a state exactly;
    `restore(result, time)` goes on from the frame of a `simulate` run of the same scene."""

    def __init__(self, scene):
        self._native = _motus.Stepper(_scene(scene)._native)

    def step(self, n=1):
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"step(n) takes a whole number of steps, not {type(n).__name__}")
        self._native.step(n)

    def reset(self):
        """Back to the scene's start (t = 0, the inputs at their initial values)."""
        self._native.reset()

    def set_input(self, name, value):
        """Sets the held variable `name` to `value` (a finite number) from now on."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"set_input('{name}', …) takes a number, not {type(value).__name__}")
        self._native.set_input(str(name), float(value))

    @property
    def inputs(self):
        return self._native.inputs

    def wake(self):
        """Wakes every sleeping part (the scene's contact `sleepTime`): they are stepped again
        from where they slept. Returns how many slept."""
        return self._native.wake()

    @property
    def asleep(self):
        """How many parts sleep now (0 unless the scene's contact `sleepTime` is set)."""
        return self._native.asleep

    def snapshot(self):
        """The state now, to restore() later (exactly: the run from it is the same)."""
        return self._native.snapshot()

    def restore(self, what, time=None):
        """Back to a snapshot(), or to the frame of `what` (a Result of simulate() of the same
        scene and settings) at or just before `time` [s]."""
        if isinstance(what, Result):
            if what._native is None:
                raise ValueError("this result came from another process: it has no frames")
            if time is None:
                raise TypeError("restore(result, time): the time of the frame [s]")
            self._native.restore_frame(what._native, float(time))
        else:
            self._native.restore(what)

    @property
    def time(self):
        return self._native.time

    @property
    def state(self):
        return SimulatorState((self._native.time, self._native.q, self._native.v))

    @property
    def q(self):
        return self._native.q

    @property
    def v(self):
        return self._native.v

    @property
    def bodies(self):
        """The bodies' names, in the order of q (7 each) and v (6 each)."""
        return list(self._native.bodies)

    @property
    def channels(self):
        return list(self._native.names)

    def outputs(self):
        return self._native.outputs()


from .study import Study, sweep  # noqa: E402  (uses what is above)
