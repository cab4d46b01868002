"""Studies: a scene run once per case (a set of values), on every core or on a Dask cluster.

    study = motus.sweep("scenes/slider_crank.json",
                        [{"case": f"L{L}", "L_crank": L} for L in (0.05, 0.07, 0.09)],
                        duration=1.0, summarize=["crankPin.|F|"])
    study.to_pandas()        # a row per case: its values, status, min/max/peak/final of each channel
    study.results[0]         # case 1's Result (its columns)

Each case runs in a process of its own (jobs=N at a time, default every core) or, with
`client=`, on the workers of a Dask distributed cluster; the results are those of one case at a
time in this process, case by case. A failing case is reported in its row and the others run.
"""

import math as _math
import os as _os
import signal as _signal
import sys as _sys
import time as _time

import motus as _motus

_ANALYSES = ("simulate", "kinematics", "inverse", "statics", "modes")


def _scene_path(column):
    """A case's key as the scene path it sets: a design variable's bare name ("L_crank") is its
    value, "/designVariables/L_crank/value"; paths as Scene.set takes them."""
    if "/" in column or "." in column:
        return column
    return f"/designVariables/{column}/value"


def _stats(result, channels):
    """Per channel: min, max, peak (largest magnitude) and final value over the result's rows;
    NAME.|V| is the length of NAME.Vx, NAME.Vy, NAME.Vz."""
    import numpy
    out = {}
    for name in channels:
        values = None
        if name in result:
            values = numpy.asarray(result[name], dtype=float)
        elif name.endswith("|") and ".|" in name:
            base, quantity = name[:name.rfind(".|") + 1], name[name.rfind(".|") + 2:-1]
            parts = [base + quantity + axis for axis in ("x", "y", "z")]
            if all(p in result for p in parts):
                values = numpy.sqrt(sum(numpy.asarray(result[p], dtype=float) ** 2 for p in parts))
        for stat in ("min", "max", "peak", "final"):
            out[f"{stat}({name})"] = _math.nan
        if values is None or len(values) == 0:
            continue
        out[f"min({name})"] = float(numpy.nanmin(values))
        out[f"max({name})"] = float(numpy.nanmax(values))
        out[f"peak({name})"] = float(numpy.nanmax(numpy.abs(values)))
        out[f"final({name})"] = float(values[-1])
    return out


def _run_case(scene_text, base_directory, paths, values, analysis, options, summarize, reduce,
              keep):
    """One case, wherever it runs: its row's outcome, summary and (kept) result. Never raises
    for the case's own failure: the row says it."""
    row = {"status": "ok", "error": ""}
    result = None
    try:
        scene = _motus.Scene(_motus._motus.scene_from_json(scene_text, base_directory))
        for path, value in zip(paths, values):
            scene = scene.set(path, value)
        if analysis == "simulate":
            result = _motus.simulate(scene, **options)
        elif analysis == "kinematics":
            result = _motus.kinematics(scene, **options)
        elif analysis == "inverse":
            result = _motus.inverse(scene, **options)
        elif analysis == "statics":
            result = _motus.statics(scene)
        else:
            result = _motus.modes(scene, equilibrium=True, **options)
        if isinstance(result, _motus.Result) and result.failure:
            row["status"], row["error"] = "failed", result.failure
        if summarize and isinstance(result, _motus.Result):
            row.update(_stats(result, summarize))
        if reduce is not None:
            reduced = reduce(result)
            if not isinstance(reduced, dict):
                reduced = {"value": reduced}
            row.update(reduced)
    except KeyboardInterrupt:
        raise
    except Exception as e:  # the case's failure, reported in its row
        row["status"], row["error"] = "failed", f"{type(e).__name__}: {e}"
    return row, (result if keep else None)


class Study:
    """A sweep's outcome: `table` a row (dict) per case, in the cases' order: `case` its name,
    its values by key, `status` ("ok", "failed"), `error`, then min/max/peak/final of each
    summarised channel and what `reduce` returned; `results` each case's Result (or Modes;
    None when it failed or keep=False), `failures` {case: error}."""

    def __init__(self, names, keys, values, rows, results, complete=True):
        self.cases = list(names)
        self.keys = list(keys)
        self.table = []
        for name, vals, row in zip(names, values, rows):
            entry = {"case": name}
            entry.update(zip(keys, vals))
            entry.update(row or {"status": "not run", "error": ""})
            self.table.append(entry)
        self.results = list(results)
        self.complete = complete

    @property
    def failures(self):
        return {r["case"]: r["error"] for r in self.table if r["status"] == "failed"}

    def __len__(self):
        return len(self.table)

    def __getitem__(self, case):
        """The row of the case named `case` (or at index `case`)."""
        if isinstance(case, int):
            return self.table[case]
        for row in self.table:
            if row["case"] == case:
                return row
        raise KeyError(f"no case {case!r} in this study")

    def columns(self):
        seen = []
        for row in self.table:
            for key in row:
                if key not in seen:
                    seen.append(key)
        return seen

    def to_pandas(self):
        """The table as a pandas DataFrame indexed by case."""
        import pandas
        return pandas.DataFrame(self.table, columns=self.columns()).set_index("case")

    def save_csv(self, path):
        """The table as CSV (numbers in the shortest form that reads back the same)."""
        import csv
        columns = self.columns()
        tmp = f"{path}.tmp{_os.getpid()}"
        with open(tmp, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(columns)
            for row in self.table:
                writer.writerow(["" if (isinstance(v := row.get(c, ""), float) and _math.isnan(v))
                                 else repr(v) if isinstance(v, float) else v for c in columns])
        _os.replace(tmp, path)

    def __repr__(self):
        failed = len(self.failures)
        return (f"<motus.Study {len(self)} cases, {failed} failed"
                f"{'' if self.complete else ', interrupted'}>")


def _cases_of(cases):
    """(names, keys, values) of cases given as a list of dicts, a dict of lists, or a pandas
    DataFrame (a row per case; a 'case' column names them)."""
    if hasattr(cases, "to_dict") and hasattr(cases, "columns"):  # a pandas DataFrame
        cases = cases.to_dict("records")
    elif isinstance(cases, dict):
        lengths = {len(v) for v in cases.values()}
        if len(lengths) > 1:
            raise ValueError("sweep(cases={key: [values]}): every list has as many values")
        n = lengths.pop() if lengths else 0
        cases = [{k: v[i] for k, v in cases.items()} for i in range(n)]
    cases = list(cases)
    keys = []
    for k, case in enumerate(cases):
        if not isinstance(case, dict):
            raise TypeError(f"case {k + 1} is a {type(case).__name__}: a case is a dict of "
                            "scene paths (or design variables' names) to values")
        for key in case:
            if not isinstance(key, str):
                raise TypeError(f"case {k + 1}: a key is a scene path or a design variable's "
                                f"name, not {key!r}")
            if key != "case" and key not in keys:
                keys.append(key)
    names, values, used = [], [], set()
    for k, case in enumerate(cases):
        missing = [key for key in keys if key not in case]
        if missing:
            raise ValueError(f"case {k + 1} has no value for {', '.join(missing)} (every case "
                             "sets the same keys)")
        name = str(case.get("case", f"case-{k + 1}"))
        while name in used:
            name += "_"
        used.add(name)
        names.append(name)
        values.append([case[key] for key in keys])
    return names, keys, values


class _Progress:
    """A bar: tqdm's (a notebook's widget, or the terminal's) when installed, else one line on a
    terminal's stderr; nothing when off."""

    def __init__(self, total, shown):
        self.total, self.done, self.failed = total, 0, 0
        self._bar = None
        self._line = False
        self._last = 0.0
        if shown is None:
            shown = _sys.stderr.isatty() or "ipykernel" in _sys.modules
        if not shown or total == 0:
            return
        try:
            from tqdm.auto import tqdm
            self._bar = tqdm(total=total, desc="motus.sweep", unit="case")
        except ImportError:
            self._line = True
        self._started = _time.monotonic()

    def update(self, ok):
        self.done += 1
        self.failed += 0 if ok else 1
        if self._bar is not None:
            self._bar.update(1)
            if self.failed:
                self._bar.set_postfix(failed=self.failed)
        elif self._line and (_time.monotonic() - self._last > 0.1 or self.done == self.total):
            self._last = _time.monotonic()
            width = 30
            full = int(width * self.done / self.total)
            failed = f", {self.failed} failed" if self.failed else ""
            _sys.stderr.write(f"\rmotus.sweep [{'#' * full}{'.' * (width - full)}] "
                              f"{self.done}/{self.total}{failed} "
                              f"{_time.monotonic() - self._started:.0f} s")
            _sys.stderr.flush()

    def close(self):
        if self._bar is not None:
            self._bar.close()
        elif self._line:
            _sys.stderr.write("\n")
            _sys.stderr.flush()


# What the forked workers of a local sweep run: set before the pool forks (so that `reduce`
# may be any function, a lambda too), read by index in the workers.
_job = None


def _start_worker(jobs):
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    # The workers share the cores: each one's contact solves keep to its share.
    _motus._motus.set_threads(max(1, _motus._motus.threads() // jobs))


def _run_indexed(k):
    job = _job
    return k, _run_case(job["scene"], job["base"], job["paths"], job["values"][k],
                        job["analysis"], job["options"], job["summarize"], job["reduce"],
                        job["keep"])


def _dask_case(scene, base, paths, values, analysis, options, summarize, reduce, keep):
    return _run_case(scene, base, paths, values, analysis, options, summarize, reduce, keep)


def sweep(scene, cases, analysis="simulate", *, jobs=None, client=None, summarize=(),
          reduce=None, keep=True, progress=None, **options):
    """Runs `analysis` ("simulate", "kinematics", "inverse", "statics", "modes" at equilibrium)
    of `scene` once per case, with the analysis' `options` (duration=, output_dt=, …).

    `cases`: a list of dicts (or a dict of lists, or a pandas DataFrame), each setting scene
    paths ("/parts/crank/mass") or design variables by name ("L_crank") to its values; a
    "case" key names it. `jobs` processes at a time (default: every core; 1 runs here), or
    with `client` (a dask.distributed Client) on its cluster's workers: the scene and each
    case are shipped to them, a case a lost worker held runs again elsewhere. `summarize`:
    channels whose min, max, peak and final value each row gets (NAME.|F| the length of
    NAME.Fx, NAME.Fy, NAME.Fz); `reduce(result)`: a function run where the case ran, its dict
    (or value) added to the row; `keep=False` drops the results (only the table comes back).
    `progress`: a bar (tqdm's when installed) — default on a terminal or in a notebook.
    Ctrl+C stops the study: motus.Interrupted's `result` is the Study of what finished."""
    global _job
    if analysis not in _ANALYSES:
        raise ValueError(f"analysis is one of {', '.join(_ANALYSES)}, not {analysis!r}")
    if isinstance(summarize, str):
        summarize = [summarize]
    summarize = [str(c) for c in summarize]
    if reduce is not None and not callable(reduce):
        raise TypeError("reduce is a function of a case's result")
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise ValueError(f"jobs is a whole number ≥ 1, not {jobs!r}")
    base = _motus._scene(scene)
    names, keys, values = _cases_of(cases)
    paths = [_scene_path(k) for k in keys]
    scene_text, base_dir = base._native.text, base._native.base_directory
    rows = [None] * len(names)
    results = [None] * len(names)
    bar = _Progress(len(names), progress)

    def finished(k, outcome):
        rows[k], results[k] = outcome
        bar.update(outcome[0]["status"] == "ok")

    def study(complete):
        return Study(names, keys, values, rows, results, complete)

    try:
        if client is not None:
            _run_on_dask(client, scene_text, base_dir, paths, values, analysis, options,
                         summarize, reduce, keep, finished)
        else:
            cores = len(_os.sched_getaffinity(0)) if hasattr(_os, "sched_getaffinity") else (
                _os.cpu_count() or 1)
            jobs = min(jobs or cores, max(len(names), 1))
            if jobs <= 1:
                for k in range(len(names)):
                    finished(k, _run_case(scene_text, base_dir, paths, values[k], analysis,
                                          options, summarize, reduce, keep))
            else:
                import multiprocessing
                _job = dict(scene=scene_text, base=base_dir, paths=paths, values=values,
                            analysis=analysis, options=options, summarize=summarize,
                            reduce=reduce, keep=keep)
                pool = multiprocessing.get_context("fork").Pool(jobs, _start_worker, (jobs,))
                try:
                    for k, outcome in pool.imap_unordered(_run_indexed, range(len(names))):
                        finished(k, outcome)
                    pool.close()
                except BaseException:
                    pool.terminate()
                    raise
                finally:
                    pool.join()
                    _job = None
    except KeyboardInterrupt:
        bar.close()
        raise _motus.Interrupted(study(False)) from None
    bar.close()
    return study(True)


def _run_on_dask(client, scene_text, base_dir, paths, values, analysis, options, summarize,
                 reduce, keep, finished):
    """The cases on a Dask cluster: the scene sent to every worker once, a task per case; the
    scheduler runs again elsewhere what a lost worker held."""
    from distributed import as_completed
    scene_future = client.scatter(scene_text, broadcast=True)
    futures = {}
    for k, vals in enumerate(values):
        future = client.submit(_dask_case, scene_future, base_dir, paths, vals, analysis,
                               options, summarize, reduce, keep, pure=False,
                               key=f"motus-case-{k}-{_os.getpid()}-{id(futures)}")
        futures[future] = k
    try:
        for future in as_completed(futures):
            k = futures[future]
            try:
                finished(k, future.result())
            except KeyboardInterrupt:
                raise
            except Exception as e:  # the cluster's failure (the case's own is in its row)
                finished(k, ({"status": "failed", "error": f"{type(e).__name__}: {e}"}, None))
    except KeyboardInterrupt:
        client.cancel(list(futures))
        raise
