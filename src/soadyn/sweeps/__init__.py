"""Parameter sweeps and Monte Carlo runs on Ray: :func:`sweep` runs a grid or random set of rollouts and
writes one row per rollout (its parameters and summaries) to a Parquet file, optionally with the
trajectories and a plot of one summary over the parameters.

The rollouts are cut into tasks of ``rollouts_per_task``; each task runs its rollouts one after another with
the rollout kernels (:func:`soadyn.sweeps.worker.run_rollouts`) on a local Ray (started for the sweep) or an
existing cluster (``address``), or in this process (``backend="serial"``). Ray retries the tasks of a worker
that dies (``max_retries``); a rollout that fails (a non-finite state, an unsolved LCP, a bad parameter) is a
row with its error, never a lost rollout. Ray and pyarrow come with ``pip install 'soadyn[ray]'``.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from .config import SweepSpec, load_config, parameter_table
from .results import SweepResult, plot_summary, read_parquet, write_parquet
from .worker import TIMING_COLUMNS, build_model, initial_state, run_rollouts

__all__ = ["sweep", "run_config", "describe", "SweepSpec", "SweepResult", "load_config", "parameter_table", "read_parquet",
           "plot_summary", "run_rollouts", "TIMING_COLUMNS", "BACKENDS"]

BACKENDS = ("ray", "serial")
"""Where the tasks run: ``"ray"`` (a local Ray started for the sweep, or the cluster at ``address``) or
``"serial"`` (one after another in this process, no Ray needed)."""
DEFAULT_MAX_RETRIES = 3
"""Times Ray reruns a task whose worker died (a crash, a kill, a lost node) before its rollouts are
recorded as failed."""


def _ray():
    try:
        import ray
    except ImportError:
        raise ImportError("sweeps on Ray need Ray: pip install 'soadyn[ray]' (or backend='serial')") from None
    return ray


def _chunks(rows: list, size: int) -> list:
    indexed = list(enumerate(rows))
    return [indexed[k:k + size] for k in range(0, len(indexed), size)]


def _crashed_rows(chunk: list, exc: Exception) -> list:
    """Rows for the rollouts of a task Ray gave up on (its worker died more than ``max_retries`` times)."""
    return [{"rollout": i, **params, "status": "failed", "error_type": type(exc).__name__,
             "error": f"the task's worker died and was not recovered: {exc}", "failed_step": -1,
             "t_end": float("nan")} for i, params in chunk]


def _run_serial(spec, chunks, keep, bar) -> list:
    out = []
    for chunk in chunks:
        out.extend(run_rollouts(spec, chunk, keep))
        bar.update(len(chunk))
    return out


def _run_ray(spec, chunks, keep, bar, address, num_cpus, max_retries, ray_init) -> list:
    ray = _ray()
    started = not ray.is_initialized()
    if started:
        kwargs = {"include_dashboard": False, "log_to_driver": False, **(ray_init or {})}
        if address is None:
            kwargs.setdefault("num_cpus", num_cpus)
        ray.init(address=address, **kwargs)
    try:
        task = ray.remote(max_retries=max_retries)(run_rollouts)
        spec_ref = ray.put(spec)
        pending = {task.remote(spec_ref, chunk, keep): chunk for chunk in chunks}
        out = []
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                chunk = pending.pop(ref)
                try:
                    out.extend(ray.get(ref))
                except ray.exceptions.RayError as exc:  # the worker died max_retries + 1 times
                    out.extend(_crashed_rows(chunk, exc))
                bar.update(len(chunk))
        return out
    finally:
        if started:
            ray.shutdown()


def sweep(config=None, *, out=None, backend: str = "ray", address: str | None = None, num_cpus: int | None = None,
          max_retries: int = DEFAULT_MAX_RETRIES, trajectories: bool = False, plot: str | None = None,
          progress: bool | None = None, ray_init: dict | None = None, **fields) -> SweepResult:
    """Run the rollouts of a sweep and collect one row per rollout.

    ``config``: a :class:`SweepSpec`, the path of a TOML/YAML config (see :func:`load_config`), or None with
    the :class:`SweepSpec` fields as keyword arguments (``model=``, ``duration=``, ``grid=``, ``random=``,
    ...). ``out``: a folder for ``<name>.parquet`` (one row per rollout), ``trajectories/rollout-<k>.npz``
    (:meth:`soadyn.Trajectory.save` files, with ``trajectories=True``) and ``<name>-<plot>.png`` (the
    summary ``plot`` over the parameters); None writes nothing.

    ``backend``: ``"ray"`` (default: a local Ray with ``num_cpus`` CPUs, started and shut down here, or the
    running cluster at ``address``, e.g. ``"auto"`` or ``"ray://head:10001"``, whose workers must have
    soadyn installed; an already initialized Ray is used as it is) or ``"serial"``. ``max_retries``: reruns of
    a task whose worker died. ``progress``: a tqdm bar over the rollouts (None: when more than one task).
    ``ray_init``: extra keyword arguments of ``ray.init``.

    Returns a :class:`SweepResult`, rows in rollout order. The rows do not depend on the backend or on how
    rollouts are grouped into tasks (columns other than :data:`TIMING_COLUMNS` are equal bit for bit).
    """
    if config is None:
        spec = SweepSpec(**fields)
    elif fields:
        raise ValueError(f"sweep: give a config or SweepSpec fields, not both (got {sorted(fields)})")
    elif isinstance(config, SweepSpec):
        spec = config
    elif isinstance(config, (str, Path)):
        spec, _ = load_config(config)
    else:
        raise ValueError(f"config: expected a SweepSpec or a config path, got {type(config).__name__}")
    if backend not in BACKENDS:
        raise ValueError(f"backend: expected one of {BACKENDS}, got {backend!r}")
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
        raise ValueError(f"max_retries: expected an integer >= 0, got {max_retries!r}")
    if plot is not None and out is None:
        raise ValueError("plot: needs out, the folder to write the plot to")

    rows = parameter_table(spec)
    # a config error shows here, once, rather than as a failed row per rollout
    model, scene_start = build_model(spec, rows[0])
    initial_state(spec, model, rows[0], scene_start)
    chunks = _chunks(rows, spec.rollouts_per_task)
    from tqdm.auto import tqdm

    show = len(chunks) > 1 if progress is None else bool(progress)
    t0 = time.perf_counter()
    with tqdm(total=len(rows), unit="rollout", desc=spec.name, disable=not show, leave=False) as bar:
        if backend == "serial":
            done = _run_serial(spec, chunks, trajectories, bar)
        else:
            done = _run_ray(spec, chunks, trajectories, bar, address, num_cpus, max_retries, ray_init)
    wall = time.perf_counter() - t0
    done.sort(key=lambda r: r["rollout"])
    trajs = {r["rollout"]: r.pop("trajectory") for r in done if "trajectory" in r}
    result = SweepResult(rows=done, parameters=spec.parameters, wall_time_s=wall)
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        if trajs:
            (out / "trajectories").mkdir(exist_ok=True)
        for k, traj in trajs.items():
            path = traj.save(out / "trajectories" / f"rollout-{k:05d}.npz")
            result.trajectory_paths[k] = path
            result.rows[k]["trajectory"] = str(path.relative_to(out))
        result.path = write_parquet(result, out / f"{spec.name}.parquet", metadata=_spec_metadata(spec, backend))
        if plot is not None:
            result.plot_path = plot_summary(result, plot, out / f"{spec.name}-{plot}.png")
    return result


def _spec_metadata(spec: SweepSpec, backend: str) -> dict:
    meta = {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)}
    meta["model"] = meta["model"] if isinstance(meta["model"], (str, Path)) else getattr(meta["model"], "__name__", "")
    meta["summary"] = None if spec.summary is None else getattr(spec.summary, "__name__", "callable")
    if callable(meta["start"]):
        meta["start"] = getattr(meta["start"], "__name__", "callable")
    meta["backend"] = backend
    return meta


def run_config(path, out=None, plot=None, trajectories=None, address=None, num_cpus=None, max_retries=None,
               serial: bool = False, progress: bool | None = None) -> SweepResult:
    """Run the sweep of a config file (``soadyn sweep CONFIG``): the run options of the file (``out``,
    ``plot``, ``trajectories``, ``address``, ``num_cpus``, ``max_retries``) unless given here; ``out``
    defaults to ``soadyn-out``."""
    spec, options = load_config(path)
    given = {"out": out, "plot": plot, "trajectories": trajectories, "address": address, "num_cpus": num_cpus,
             "max_retries": max_retries}
    options.update({k: v for k, v in given.items() if v is not None})
    options.setdefault("out", "soadyn-out")
    return sweep(spec, backend="serial" if serial else "ray", progress=progress, **options)


def describe(result: SweepResult, backend: str) -> list:
    """Lines summarizing a finished sweep: counts, rate, the errors of failed rollouts and the files."""
    n, failed = len(result), result.failed
    lines = [f"{n} rollouts ({n - len(failed)} ok, {len(failed)} failed) in {result.wall_time_s:.2f} s on "
             f"{backend} ({result.rollouts_per_second:.3g} rollouts/s)"]
    kinds: dict = {}
    for row in failed:
        kinds.setdefault(row["error_type"], row)
    for kind, row in kinds.items():
        count = sum(r["error_type"] == kind for r in failed)
        lines.append(f"  failed     {count} x {kind}, first rollout {row['rollout']}: {row['error']}")
    if result.path is not None:
        lines.append(f"  wrote      {result.path} (one row per rollout)")
    if result.plot_path is not None:
        lines.append(f"  wrote      {result.plot_path}")
    if result.trajectory_paths:
        folder = next(iter(result.trajectory_paths.values())).parent
        lines.append(f"  wrote      {len(result.trajectory_paths)} trajectories under {folder}")
    return lines
