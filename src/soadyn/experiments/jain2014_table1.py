"""Jain 2014 Table 1: the LCP sizes of the NMC, MC, RMC and OS formulations (and NMC/OS, Sec. 8) for the
26-link dual-arm robot of Fig. 1 with 4 contacts and n_f = 4 (paper: NMC 310, MC 50, RMC 24, OS 24).

The sizes are those of LCPs actually built by :func:`soadyn.contact.formulations.build` for the robot
(:func:`soadyn.models.dual_arm`) reaching forward and down, with the tips of fingers 0 and 2 of each hand
resting on a table top (normal +z, mu 0.5), next to the paper's formulas (:func:`lcp_sizes`). Each LCP is
also solved at rest under gravity; the post-step velocities of the five are compared and the build+solve
times reported. ``soadyn reproduce jain2014-table1`` prints the table and writes CSV and JSON.
"""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import numpy as np

from ..contact.formulations import FORMULATIONS, ContactSet, build, contact_set, lcp_sizes, solve
from ..dynamics import fk
from ..model import Model
from ..models.dual_arm import dual_arm

__all__ = ["PAPER", "N_F", "DT", "table1_state", "table1_contacts", "reproduce_table1"]

PAPER = {"nmc": 310, "mc": 50, "rmc": 24, "os": 24}
"""Jain 2014 Table 1, the dual-arm LCP dimensions (4 contacts, n_f = 4)."""
N_F = 4
DT = 1e-3
MU = 0.5
TIPS = ("left_finger0_tip", "left_finger2_tip", "right_finger0_tip", "right_finger2_tip")
"""The four contact nodes (fingertips) on the table."""


def table1_state(model: Model) -> np.ndarray:
    """The reaching pose: shoulders pitched 0.6 rad down, elbows 0.5 rad, fingers curled 0.3 rad."""
    q = np.zeros(model.nq)
    for side in ("left", "right"):
        q[model.jnt_qadr[model.joint_id(f"{side}_shoulder_pitch_joint")]] = 0.6
        q[model.jnt_qadr[model.joint_id(f"{side}_elbow_pitch_joint")]] = 0.5
        for k in range(3):
            q[model.jnt_qadr[model.joint_id(f"{side}_finger{k}_joint")]] = 0.3
    return q


def table1_contacts(model: Model, q) -> ContactSet:
    """Fingertips 0 and 2 of each hand against the table (the world): normal +z, mu 0.5."""
    data = model.data()
    fk(model, data, q)
    bodies, points = [], []
    for name in TIPS:
        f = model.frame_id(name)
        b = int(model.frame_body[f])
        bodies.append((b, -1))
        points.append(data.op[b] + data.oR[b] @ model.frame_r[f])
    return contact_set(model, bodies, points, [(0.0, 0.0, 1.0)] * len(TIPS), MU)


def reproduce_table1(out_dir=None) -> dict:
    """Build (and solve) the five LCPs for the dual arm; returns the table as a dict and, with ``out_dir``,
    writes ``jain2014_table1.csv`` and ``.json`` there."""
    model = dual_arm()
    q = table1_state(model)
    qd, tau = np.zeros(model.nv), np.zeros(model.nv)
    cs = table1_contacts(model, q)
    formula = lcp_sizes(model, cs.count, N_F)
    rows, steps = [], {}
    for f in FORMULATIONS:
        lcp = build(f, model, q, qd, tau, cs, DT, N_F)
        t0 = time.perf_counter()
        steps[f] = solve(f, model, q, qd, tau, cs, DT, N_F)
        elapsed = time.perf_counter() - t0
        rows.append({"formulation": f, "paper": PAPER.get(f), "formula": formula[f], "built": lcp.size,
                     "equality_rows": lcp.nfree, "build_solve_ms": 1e3 * elapsed})
    ref = steps["mc"]
    for r in rows:
        s = steps[r["formulation"]]
        r["max_qd_plus_difference_vs_mc"] = float(np.abs(s.qd_plus - ref.qd_plus).max())
        r["max_impulse_difference_vs_mc"] = float(np.abs(s.F - ref.F).max())
    result = {"model": model.name, "links": model.nb, "dofs": model.nv, "loop_rows": model.nc,
              "contacts": cs.count, "n_f": N_F, "dt": DT, "normal_impulses": ref.normal.tolist(), "rows": rows,
              "files": {}}
    if out_dir is not None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        path = out / "jain2014_table1.csv"
        with path.open("w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        result["files"] = {"csv": str(path), "json": str(out / "jain2014_table1.json")}
        (out / "jain2014_table1.json").write_text(json.dumps(result, indent=2))
    return result
