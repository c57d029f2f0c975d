"""What a sweep leaves behind: :class:`SweepResult` (one row per rollout), the Parquet dataset and the plot
of one summary over the parameters."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["SweepResult", "write_parquet", "read_parquet", "plot_summary"]

_FIXED = ("rollout", "status", "error_type", "error", "failed_step", "t_end", "wall_time_s")


def _pyarrow():
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise ImportError("sweep results are written as Parquet by pyarrow: pip install 'soadyn[ray]'") from None
    return pyarrow


@dataclass
class SweepResult:
    """The rows of a sweep in rollout order: ``rows[k]`` is rollout ``k``'s ``{column: value}`` with its
    parameters, ``status`` (``"ok"`` or ``"failed"``), ``error_type``, ``error``, ``failed_step`` (-1 unless a
    step failed), ``t_end``, ``wall_time_s`` and the summaries (missing, read as NaN, for a failed rollout).

    ``parameters``: the parameter names; ``path``: the Parquet file written (None if none); ``plot_path``;
    ``trajectory_paths``: ``{rollout: path}`` of the saved trajectories; ``wall_time_s``: the whole sweep."""

    rows: list
    parameters: list
    path: Path | None = None
    plot_path: Path | None = None
    trajectory_paths: dict = field(default_factory=dict)
    wall_time_s: float = 0.0

    def __len__(self) -> int:
        return len(self.rows)

    def __repr__(self) -> str:
        return (f"<soadyn.SweepResult: {len(self)} rollouts, {len(self.failed)} failed, parameters "
                f"{self.parameters}>")

    @property
    def columns(self) -> list:
        """Every column name: the fixed ones, the parameters, then the summaries in first-seen order."""
        seen = dict.fromkeys(["rollout", *self.parameters, "status", "error_type", "error", "failed_step",
                              "t_end", "wall_time_s"])
        for row in self.rows:
            seen.update(dict.fromkeys(row))
        return list(seen)

    @property
    def summaries(self) -> list:
        """The summary columns (neither fixed nor parameters)."""
        return [c for c in self.columns if c not in _FIXED and c not in self.parameters]

    @property
    def failed(self) -> list:
        """The rows of the rollouts that failed."""
        return [r for r in self.rows if r["status"] != "ok"]

    @property
    def rollouts_per_second(self) -> float:
        return len(self.rows) / self.wall_time_s if self.wall_time_s > 0 else math.inf

    def column(self, name: str) -> np.ndarray:
        """One column over the rollouts; a number column as float64 with NaN where a row lacks it."""
        if name not in self.columns:
            raise ValueError(f"column: unknown column {name!r} (columns: {self.columns})")
        values = [r.get(name) for r in self.rows]
        present = [v for v in values if v is not None]
        if present and all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in present):
            return np.array([math.nan if v is None else float(v) for v in values])
        return np.array(values, dtype=object)

    def table(self):
        """The rows as a ``pyarrow.Table`` (what :meth:`write` stores)."""
        pa = _pyarrow()
        cols = self.columns
        return pa.Table.from_pylist([{c: r.get(c) for c in cols} for r in self.rows])

    def to_pandas(self):
        """The rows as a pandas DataFrame (needs pandas)."""
        return self.table().to_pandas()


def write_parquet(result: SweepResult, path, metadata: dict | None = None) -> Path:
    """Write ``result`` as one Parquet file (one row per rollout); ``metadata`` (JSON-serializable) is kept
    in the schema under ``b"soadyn.sweep"``. Returns the path."""
    pa = _pyarrow()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    table = result.table()
    meta = {b"soadyn.sweep": json.dumps({"parameters": result.parameters, **(metadata or {})},
                                        default=str).encode()}
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), **meta})
    pa.parquet.write_table(table, path)
    return path


def read_parquet(path) -> SweepResult:
    """Read a sweep written by :func:`write_parquet` back into a :class:`SweepResult`."""
    pa = _pyarrow()
    table = pa.parquet.read_table(Path(path))
    meta = json.loads((table.schema.metadata or {}).get(b"soadyn.sweep", b"{}"))
    rows = [{k: v for k, v in row.items() if v is not None} for row in table.to_pylist()]
    return SweepResult(rows=rows, parameters=list(meta.get("parameters", [])), path=Path(path))


def plot_summary(result: SweepResult, summary: str, path, parameters: list | None = None) -> Path:
    """A PNG of ``summary`` over the parameters: against the parameter for one parameter (a line per value
    of a second grid parameter when there are two and it has few values), else a scatter of the first two
    parameters coloured by ``summary``. Failed rollouts are marked with red crosses. Returns the path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    params = list(parameters or result.parameters)
    if not params:
        raise ValueError("plot: the sweep has no parameters to plot against")
    for name in [summary, *params]:
        result.column(name)  # ValueError naming an unknown column
    y = result.column(summary)
    if y.dtype == object:
        raise ValueError(f"plot: {summary!r} is not a number column")
    ok = np.array([r["status"] == "ok" for r in result.rows])
    x = result.column(params[0])
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    if len(params) == 1 or len(set(result.column(params[1]).tolist())) <= 8:
        groups = [(None, np.ones(len(result), bool))] if len(params) == 1 else \
            [(g, result.column(params[1]) == g) for g in sorted(set(result.column(params[1]).tolist()))]
        for g, sel in groups:
            s = sel & ok
            order = np.argsort(x[s], kind="stable")
            label = None if g is None else f"{params[1]} = {g:g}" if isinstance(g, float) else f"{params[1]} = {g}"
            ax.plot(x[s][order], y[s][order], "o-", ms=3, lw=1, label=label)
        ax.set_ylabel(summary)
        bad = ~ok
        if bad.any():
            lo = np.nanmin(y[ok]) if ok.any() else 0.0
            ax.plot(x[bad], np.full(bad.sum(), lo), "x", color="red", label=f"failed ({bad.sum()})")
        if len(params) > 1 or bad.any():
            ax.legend(fontsize=8)
    else:
        x2 = result.column(params[1])
        sc = ax.scatter(x[ok], x2[ok], c=y[ok], s=14, cmap="viridis")
        fig.colorbar(sc, ax=ax, label=summary)
        if (~ok).any():
            ax.plot(x[~ok], x2[~ok], "x", color="red", label=f"failed ({(~ok).sum()})")
            ax.legend(fontsize=8)
        ax.set_ylabel(params[1])
    ax.set_xlabel(params[0])
    ax.set_title(f"{summary} over {len(result)} rollouts", fontsize=10)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
