"""``soadyn reproduce all``: every table and figure of the four papers into one folder, with an index page
(``index.md``, ``index.html`` and ``index.json``) that sets each result next to the paper's own values
(:mod:`soadyn.experiments.paper_values`) with a verdict and explains every difference.

Experiments (:data:`EXPERIMENTS`): Jain 2014 Tables 1-2 and Fig. 6; Jain 2012 Fig. 4, Table 1 (with the
per-stage cost breakdown of :mod:`soadyn.experiments.jain2012_breakdown`) and Fig. 6; Chang-Khatib 2000
Figs. 3 and 6; Drumwright 2015 Table I (grasp) and Tables II-III (quadruped). Each runs at the paper's sizes
and settings (the reproductions' defaults), or, with ``quick``, at the sizes of the fast reproductions of
the test suite (short runs, few links, few trials: sizes and trends, not the papers' timings). An
experiment that fails is listed with its error, and the others still run.
"""

from __future__ import annotations

import html
import json
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from . import paper_values as pv


@dataclass(frozen=True)
class Experiment:
    """One table or figure: ``key``, the paper and item it reproduces, the command that runs it alone, and
    ``run(out_dir, quick) -> (result, rows)``."""

    key: str
    paper: str
    item: str
    title: str
    command: str
    run: Callable


# ------------------------------------------------------------------------------------------- runs
def _jain2014_table1(out, quick):
    from . import jain2014_table1

    r = jain2014_table1.reproduce_table1(out_dir=out)
    return r, pv.jain2014_table1(r)


def _jain2014_table2(out, quick):
    from . import jain2014

    r = jain2014.reproduce_table2(out_dir=out, links=(3,) if quick else jain2014.TABLE2_LINKS,
                                  duration=0.8 if quick else jain2014.DURATION, progress=False, echo=lambda s: None)
    return r, pv.jain2014_table2(r)


def _jain2014_fig6(out, quick):
    from . import jain2014

    r = jain2014.reproduce_fig6(out_dir=out, n=3 if quick else 12, duration=0.8 if quick else jain2014.DURATION,
                                progress=False)
    series = np.loadtxt(r["files"]["series"], delimiter=",", skiprows=1)
    return r, pv.jain2014_fig6(r, series)


def _jain2012_fig4(out, quick):
    from . import jain2012

    r = jain2012.reproduce_fig4(out_dir=out, duration=0.3 if quick else jain2012.FIG4_DURATION, progress=False)
    return r, pv.jain2012_fig4(r)


def _jain2012_table1(out, quick):
    from . import jain2012_rover as rover

    if quick:
        r = rover.reproduce_table1(out_dir=out, duration=0.02, variants=("ta_none", "ta_projection"),
                                   baseline_dt=2.5e-4, progress=False)
        return r, pv.jain2012_table1(r)
    from . import jain2012_breakdown

    r = rover.reproduce_table1(out_dir=out, progress=False)
    b = jain2012_breakdown.breakdown(r, out_dir=out)
    r["breakdown"] = b
    return r, pv.jain2012_table1(r, b)


def _jain2012_fig6(out, quick):
    from . import jain2012_rover as rover

    if quick:
        r = rover.reproduce_fig6(out_dir=out, duration=0.02, dts=(2e-3, 1e-3), variants=("ta_none", "ta_baumgarte"),
                                 baseline_dt=2.5e-4, progress=False)
    else:
        r = rover.reproduce_fig6(out_dir=out, progress=False)
    return r, pv.jain2012_fig6(r)


def _chang_khatib(scenario: str, quick_duration: float):
    def run(out, quick):
        from . import osc_humanoid

        s = osc_humanoid.run(scenario, duration=quick_duration if quick else 4.0, out_dir=out, progress=False)
        return s, (pv.chang_khatib_fig3 if scenario == "hold-hands" else pv.chang_khatib_fig6)(s)

    return run


def _drumwright_grasp(out, quick):
    from . import drumwright_grasp as dg

    if quick:
        r = dg.reproduce_grasp(out_dir=out, trials=1, steps=12, variants=("coulomb_lemke", "noslip_ppm"),
                               echo=lambda s: None)
    else:
        r = dg.reproduce_grasp(out_dir=out, echo=lambda s: None)
    return r, pv.drumwright_table1(r, dg.PAPER_SIZES, dg.PAPER_TABLE1)


def _drumwright_quadruped(out, quick):
    from . import drumwright_quadruped as dq

    r = dq.reproduce(out_dir=out, duration=0.5 if quick else dq.DURATION)
    return r, pv.drumwright_tables23(r, dq.PAPER, dq.PAPER_CONTACTS)


EXPERIMENTS = (
    Experiment("jain2014-table1", "Jain 2014", "Table 1", "LCP sizes of NMC, MC, RMC, OS for the dual arm",
               "soadyn reproduce jain2014-table1", _jain2014_table1),
    Experiment("jain2014-table2", "Jain 2014", "Table 2", "contact pendulum: OS vs NMC/OS sizes and times",
               "soadyn reproduce jain2014-table2", _jain2014_table2),
    Experiment("jain2014-fig6", "Jain 2014", "Fig. 6", "last link height and velocity, OS vs NMC/OS",
               "soadyn reproduce jain2014-fig6", _jain2014_fig6),
    Experiment("jain2012-fig4", "Jain et al. 2012", "Fig. 4", "FA vs TA trajectories of two mechanisms",
               "soadyn reproduce jain2012-fig4", _jain2012_fig4),
    Experiment("jain2012-table1", "Jain et al. 2012", "Table 1", "LER rover by CE, TA and FA at 1 ms",
               "soadyn reproduce jain2012-table1", _jain2012_table1),
    Experiment("jain2012-fig6", "Jain et al. 2012", "Fig. 6", "LER rover errors vs wall clock over step sizes",
               "soadyn reproduce jain2012-fig6", _jain2012_fig6),
    Experiment("osc-humanoid-fig3", "Chang-Khatib 2000", "Fig. 3", "humanoid holds its hands, torso rocks",
               "soadyn run osc-humanoid --scenario hold-hands", _chang_khatib("hold-hands", 1.0)),
    Experiment("osc-humanoid-fig6", "Chang-Khatib 2000", "Fig. 6", "humanoid touches the floor, right hand kept",
               "soadyn run osc-humanoid --scenario touch-floor", _chang_khatib("touch-floor", 3.0)),
    Experiment("drumwright-grasp", "Drumwright 2015", "Table I", "grasp: Coulomb vs no-slip",
               "soadyn reproduce drumwright-grasp", _drumwright_grasp),
    Experiment("drumwright-quadruped", "Drumwright 2015", "Tables II-III", "quadruped under four contact models",
               "soadyn reproduce drumwright-quadruped", _drumwright_quadruped),
)
"""Every reproduced table and figure, in the order of the index."""


def reproduce_all(out_dir="soadyn-out", quick: bool = False, only=None, echo=print) -> dict:
    """Run the experiments (all, or the keys in ``only``) into ``out_dir`` and write the index there;
    returns the index content (``index.json``). ``quick``: the test suite's short variants."""
    keys = [e.key for e in EXPERIMENTS]
    if only is not None:
        unknown = [k for k in only if k not in keys]
        if unknown:
            raise ValueError(f"only: unknown experiments {unknown}; expected some of {keys}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    for e in EXPERIMENTS:
        if only is not None and e.key not in only:
            continue
        echo(f"{e.paper} {e.item}: {e.title} ...")
        t0 = time.perf_counter()
        try:
            result, rows = e.run(out, quick)
            entry = {"verdict": pv.verdict(rows), "rows": [r.as_dict() for r in rows],
                     "files": sorted({Path(f).name for f in _files(result)}), "error": None}
        except Exception as exc:  # one failing experiment must not hide the others; the index says why
            entry = {"verdict": "failed", "rows": [], "files": [], "error": f"{type(exc).__name__}: {exc}",
                     "traceback": traceback.format_exc()}
        entry.update(key=e.key, paper=e.paper, item=e.item, title=e.title, command=e.command,
                     wall_s=time.perf_counter() - t0)
        entries.append(entry)
        echo(f"  {entry['verdict']} ({entry['wall_s']:.1f} s)" + (f": {entry['error']}" if entry["error"] else ""))
    index = {"quick": bool(quick), "ratio_band": pv.RATIO_BAND, "experiments": entries}
    (out / "index.json").write_text(json.dumps(index, indent=2, default=str) + "\n")
    (out / "index.md").write_text(markdown(index))
    (out / "index.html").write_text(html_page(index))
    index["files"] = {k: str(out / f"index.{k}") for k in ("md", "html", "json")}
    return index


def _files(result: dict) -> list:
    files = list(result.get("files", {}).values())
    if "breakdown" in result:
        files += list(result["breakdown"].get("files", {}).values())
    return files


# ------------------------------------------------------------------------------------------- index
RULES = (f"Sizes (LCP rows, coordinates, contacts) must be equal. A time ratio between two methods matches "
         f"when it is within a factor {pv.RATIO_BAND:g} of the paper's (absolute times are not compared: other "
         "machines and languages). A trend matches when the paper's qualitative claim holds as the row states. "
         "Rows marked 'not compared' are shown for reference; their note says why.")


def _summary_rows(index: dict) -> list:
    return [(e["paper"], e["item"], e["title"], e["verdict"], f"{e['wall_s']:.1f}") for e in index["experiments"]]


def markdown(index: dict) -> str:
    """The index as Markdown: a summary table, then each experiment's rows (paper vs soadyn, verdict,
    note) and its files."""
    def cell(x) -> str:
        return str(x).replace("|", "\\|").replace("\n", " ")

    mode = "quick variant (short runs: sizes and trends, not the papers' timings)" if index["quick"] else \
        "the papers' sizes and settings"
    lines = ["# soadyn: the papers' tables and figures", "", f"Run: {mode}.", "", RULES, "",
             "| paper | item | experiment | verdict | wall (s) |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in _summary_rows(index)]
    for e in index["experiments"]:
        lines += ["", f"## {e['paper']}, {e['item']}: {e['title']}", "",
                  f"Verdict: **{e['verdict']}**. Command: `{e['command']}`."]
        if e["error"]:
            lines += ["", f"Failed: `{cell(e['error'])}`"]
            continue
        lines += ["", "| quantity | paper | soadyn | rule | verdict | note |", "|---|---|---|---|---|---|"]
        lines += ["| " + " | ".join(cell(r[k]) for k in ("quantity", "paper", "soadyn", "rule", "verdict", "note"))
                  + " |" for r in e["rows"]]
        if e["files"]:
            lines += ["", "Files: " + ", ".join(f"[{f}]({f})" for f in e["files"])]
    return "\n".join(lines) + "\n"


def html_page(index: dict) -> str:
    """The index as a standalone HTML page (the same content as :func:`markdown`; PNG files shown inline)."""
    esc = html.escape
    colors = {"match": "#d7f5d7", "matches": "#d7f5d7", "differs": "#f9d6d5", "partly": "#fcefc7",
              "failed": "#f9d6d5", "not compared": "#eeeeee"}

    def td(x, verdict=None):
        style = f' style="background:{colors[verdict]}"' if verdict in colors else ""
        return f"<td{style}>{esc(str(x))}</td>"

    mode = "quick variant (short runs: sizes and trends, not the papers' timings)" if index["quick"] else \
        "the papers' sizes and settings"
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>soadyn: the papers' tables and figures"
             "</title><style>body{font-family:sans-serif;max-width:1200px;margin:auto}table{border-collapse:"
             "collapse;margin:0.5em 0}td,th{border:1px solid #bbb;padding:3px 6px;font-size:90%;vertical-align:"
             "top}img{max-width:100%}</style></head><body>",
             "<h1>soadyn: the papers' tables and figures</h1>", f"<p>Run: {esc(mode)}.</p>", f"<p>{esc(RULES)}</p>",
             "<table><tr><th>paper</th><th>item</th><th>experiment</th><th>verdict</th><th>wall (s)</th></tr>"]
    for e, row in zip(index["experiments"], _summary_rows(index)):
        parts.append("<tr>" + "".join(td(c) for c in row[:2]) + f"<td><a href='#{esc(e['key'])}'>{esc(row[2])}</a>"
                     "</td>" + td(row[3], row[3]) + td(row[4]) + "</tr>")
    parts.append("</table>")
    for e in index["experiments"]:
        parts += [f"<h2 id='{esc(e['key'])}'>{esc(e['paper'])}, {esc(e['item'])}: {esc(e['title'])}</h2>",
                  f"<p>Verdict: <b>{esc(e['verdict'])}</b>. Command: <code>{esc(e['command'])}</code>.</p>"]
        if e["error"]:
            parts.append(f"<p>Failed: <code>{esc(e['error'])}</code></p>")
            continue
        parts.append("<table><tr>" + "".join(f"<th>{h}</th>" for h in ("quantity", "paper", "soadyn", "rule",
                                                                         "verdict", "note")) + "</tr>")
        for r in e["rows"]:
            parts.append("<tr>" + "".join(td(r[k]) for k in ("quantity", "paper", "soadyn", "rule"))
                         + td(r["verdict"], r["verdict"]) + td(r["note"]) + "</tr>")
        parts.append("</table>")
        for f in e["files"]:
            if f.endswith(".png"):
                parts.append(f"<p><img src='{esc(f)}' alt='{esc(f)}'></p>")
        if e["files"]:
            parts.append("<p>Files: " + ", ".join(f"<a href='{esc(f)}'>{esc(f)}</a>" for f in e["files"]) + "</p>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
