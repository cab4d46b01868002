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

from . import _motus

__version__ = _motus.__version__
__all__ = ["Scene", "SceneError", "Result", "Interrupted", "Simulator", "load", "simulate",
           "load_run", "__version__"]

SceneError = _motus.SceneError
SceneError.__doc__ = (
    "A scene the engine refuses: `path` is the JSON path of the first error ('/parts/2/mass'; "
    "'' for the whole scene), `reason` what is wrong, `diagnostics` every finding as "
    "(severity, path, message).")


class Interrupted(KeyboardInterrupt):
    """Ctrl+C during a run: `result` holds what was computed until then."""

    def __init__(self, result):
        super().__init__(f"the run was interrupted at t = {result.time[-1] if len(result.time) else 0.0:g} s")
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
        """Writes the run file (scene and frames, as the GUI opens it)."""
        self._native.save(str(path))

    def scene(self):
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


def load_run(path):
    """A run file (`Result.save`, `motus-cli simulate --run`, the GUI's File ▸ Save Run)."""
    return Result(_motus.load_run(str(path)))


class Simulator:
    """Forward dynamics stepped from Python: `step(n)` advances n steps of the scene's step
    size (its output interval with dopri45) on the calling thread, the GIL released.
    `time` [s], `q` and `v` (the bodies' positions and Euler parameters, their velocities:
    copies), `outputs()` the channels of `motus-cli simulate` now, by name."""

    def __init__(self, scene):
        self._native = _motus.Stepper(_scene(scene)._native)

    def step(self, n=1):
        self._native.step(int(n))

    def reset(self):
        self._native.reset()

    @property
    def time(self):
        return self._native.time

    @property
    def q(self):
        return self._native.q

    @property
    def v(self):
        return self._native.v

    @property
    def channels(self):
        return list(self._native.names)

    def outputs(self):
        return self._native.outputs()
