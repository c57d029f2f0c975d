"""The papers' own values, and each reproduction's results set next to them with a verdict.

Every value below is taken from the papers' text and cited by table or figure (the papers: Jain 2014,
*Contact Dynamics Formulation Using Minimal Coordinates*; Jain, Crean, Kuo, Quadrelli 2012, *Efficient
Constraint Modeling for Closed-Chain Dynamics*; Chang and Khatib 2000, *Operational Space Dynamics*;
Drumwright 2015, *Rapidly computable viscous friction and no-slip rigid contact models*). Values that the
reproductions' modules already hold (Jain 2014 Tables 1-2, Drumwright 2015 Tables I-III) are read from
there, not copied.

A comparison (:class:`Row`) is one quantity with the paper's value, soadyn's, the rule that decides the
verdict, and a note explaining any difference. Rules:

- ``size``: an LCP size, a number of coordinates or contacts; it must be equal (verdict ``match``).
- ``ratio``: a time ratio between two methods of one run; ``match`` if within a factor :data:`RATIO_BAND`
  of the paper's (absolute times are not compared: other machines, other languages).
- ``trend``: a qualitative claim of the paper (who is faster, what grows, what holds), checked as stated
  in the row.
- ``info``: shown for reference, no verdict (``not compared``), with the reason in the note.

Each compare function takes the result dict a reproduction returns (the same content as its JSON file)
and returns a list of rows; :func:`verdict` sums them up.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

RATIO_BAND = 2.0
"""A time ratio matches the paper's if ``1 / RATIO_BAND <= soadyn / paper <= RATIO_BAND``."""
FIG4_AGREEMENT = 1e-6
"""Largest FA-TA difference of Jain 2012 Fig. 4's series that counts as "indistinguishable in the plots",
relative to the plotted range."""
FIG6_HEIGHT_TOL = 0.05
"""Last-link height difference (m) below which Jain 2014 Fig. 6's two curves count as agreeing."""
VELOCITY_JUMP = 0.5
"""A change of the last link's vertical velocity within one step (m/s) that marks a collision."""
HAND_HOLD = 1e-3
"""Hand tracking error (m) that counts as holding the hands still (Chang-Khatib 2000 Fig. 3)."""
TORSO_ROCK = 0.2
"""Waist pitch range (rad) that counts as the torso rocking in the null space (Fig. 3)."""
FLOOR_REACH = 0.05
"""Height (m) the left hand must get below to count as touching the floor (Fig. 6; target 0.02 m)."""
RIGHT_HAND_HOLD = 0.02
"""Right hand error (m) that counts as keeping its pose while the robot bends (Fig. 6)."""

JAIN2012_TABLE1 = {  # variant: (tree dofs, constraint size, constraint error, fidelity error, normalized wall)
    "ce_analytic": (24, 0, 1.3069e-31, 0.00563109, 1.0000),
    "ce_iterative": (24, 0, 3.7367e-15, 0.00563108, 1.7296),
    "ta_none": (36, 12, 5.2351e-13, 0.00563094, 1.6007),
    "ta_baumgarte": (36, 12, 1.3466e-13, 0.00563121, 1.6362),
    "ta_projection": (36, 12, 5.2175e-13, 0.00999659, 1.5907),
    "fa_none": (186, 162, 2.4183e-09, 0.02183112, 59.4236),
    "fa_baumgarte": (186, 162, 5.7032e-11, 0.01082618, 59.4648),
    "fa_projection": (186, 162, None, None, None),  # "Incomplete"
}
"""Jain et al. 2012, Table 1 (LER rover, 1 ms RK4 steps, 3 s)."""
CHANG_KHATIB_CYCLE_MS = 1.2
"""Chang-Khatib 2000 Sec. 5: the operational space dynamics of the 24-link humanoid with 2 operational points
"in less than 1.2 msec" on a 266 MHz Pentium II (servo rate 300 Hz for control and simulation)."""
DRUMWRIGHT_PIVOTS = (5.5, 7)
"""Drumwright 2015 Sec. VII-A: mean and maximum pivots of the modified PPM in the grasp."""


@dataclass
class Row:
    """One compared quantity: ``paper`` and ``soadyn`` as display text, ``rule`` (see the module docstring),
    ``verdict`` (``match``, ``differs``, ``not compared``) and ``note`` (why it differs, or context)."""

    quantity: str
    paper: str
    soadyn: str
    rule: str
    verdict: str
    note: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


def fmt(x, digits: int = 3) -> str:
    """A number as short text (``-`` for None or NaN)."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    if isinstance(x, (bool, np.bool_)):
        return "yes" if x else "no"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    x = float(x)
    return f"{x:.{digits}g}" if 1e-3 <= abs(x) < 1e5 or x == 0.0 else f"{x:.{digits - 1}e}"


def size_row(quantity: str, paper, got, note: str = "") -> Row:
    """Sizes (a number or a tuple of numbers) must be equal."""
    def text(x):
        return ", ".join(fmt(v) for v in x) if isinstance(x, tuple) else fmt(x)

    ok = got is not None and got == paper
    return Row(quantity, text(paper), text(got), "size: equal", "match" if ok else "differs", "" if ok else note)


def ratio_row(quantity: str, paper: float, got, note: str = "") -> Row:
    """A time ratio within a factor :data:`RATIO_BAND` of the paper's."""
    ok = got is not None and math.isfinite(got) and got > 0 and abs(math.log(got / paper)) <= math.log(RATIO_BAND)
    return Row(quantity, fmt(paper), fmt(got), f"ratio: within x{RATIO_BAND:g}", "match" if ok else "differs",
               "" if ok else note)


def trend_row(quantity: str, paper: str, got: str, ok: bool, rule: str, note: str = "") -> Row:
    """A qualitative claim of the paper, checked as ``rule`` says."""
    return Row(quantity, paper, got, f"trend: {rule}", "match" if ok else "differs", "" if ok else note)


def info_row(quantity: str, paper, got, note: str) -> Row:
    """Shown for reference only."""
    return Row(quantity, paper if isinstance(paper, str) else fmt(paper),
               got if isinstance(got, str) else fmt(got), "info", "not compared", note)


def verdict(rows: list) -> str:
    """``matches`` (every compared row matches), ``partly`` (some differ), ``differs`` (none matches) or
    ``not compared`` (no row has a verdict)."""
    judged = [r.verdict for r in rows if r.verdict in ("match", "differs")]
    if not judged:
        return "not compared"
    if all(v == "match" for v in judged):
        return "matches"
    return "differs" if all(v == "differs" for v in judged) else "partly"


# ----------------------------------------------------------------------------------------- Jain 2014
def jain2014_table1(r: dict) -> list:
    """Jain 2014 Table 1: the dual arm's LCP sizes (4 contacts, n_f = 4) from LCPs actually built."""
    rows = [size_row(f"{row['formulation'].upper()} LCP size", row["paper"], row["built"],
                     "the LCP built from the model differs from the paper's count")
            for row in r["rows"] if row["paper"] is not None]
    worst = max(row["max_qd_plus_difference_vs_mc"] for row in r["rows"])
    rows.append(info_row("max |qd+ - qd+(MC)| over the formulations", "equal solutions (Sec. 6)", worst,
                         "every formulation solves the same step: the velocities agree to round-off"))
    return rows


def jain2014_table2(r: dict) -> list:
    """Jain 2014 Table 2: LCP sizes at 4 contacts (exact) and the NMC/OS over OS speedups (ratio band), and
    the trend that the speedup grows with the number of links."""
    rows = []
    for row in r["rows"]:
        n, p = row["n"], row["paper"]
        if p["os"] is None:
            continue
        for f, label in (("os", "OS"), ("nmc_os", "NMC/OS")):
            at4 = row[f]["lcp_size_at_4_contacts"]
            if at4 is None:
                rows.append(info_row(f"n = {n}: {label} LCP size at 4 contacts", p[f],
                                     f"{row[f]['max_lcp_size']} at {row[f]['max_contacts']} contacts",
                                     "the run never had exactly 4 contacts (short run); its sizes follow the "
                                     "same formula n_b + 6 n_u"))
            else:
                rows.append(size_row(f"n = {n}: {label} LCP size at 4 contacts", p[f], at4))
        rows.append(ratio_row(f"n = {n}: speedup NMC/OS / OS", p["speedup"], row["speedup"],
                              "soadyn's OS run is one kernel call with the O(N + n_c^2) compliance, so its time "
                              "grows little with n, where the paper's grows 8x from 3 to 30 links (0.63 to 5.13 s); "
                              "the NMC/OS runs pay Lemke on 5n + 24 rows in both, so soadyn's speedup is larger "
                              "at small n and meets the paper's near 30 links."))
    full = [row for row in r["rows"] if row["paper"]["speedup"] is not None]
    if len(full) >= 2:
        s = [row["speedup"] for row in full]
        rho = _spearman([row["n"] for row in full], s)
        rows.append(trend_row("speedup grows with the number of links", "3.5 -> 50.28 (3 to 30 links)",
                              f"{fmt(s[0])} -> {fmt(s[-1])} (rank correlation {rho:.2f})",
                              rho >= 0.8 and s[-1] > 2 * s[0], "rank correlation with n >= 0.8, last > 2x first"))
    return rows


def _spearman(x, y) -> float:
    rx, ry = np.argsort(np.argsort(x)), np.argsort(np.argsort(y))
    return float(np.corrcoef(rx, ry)[0, 1]) if len(x) > 1 else float("nan")


def jain2014_fig6(r: dict, series: np.ndarray) -> list:
    """Jain 2014 Fig. 6: "good agreement through the first few collisions, with some divergence during the
    later phases". ``series``: the figure's CSV (t, height OS, height NMC/OS, vz OS, vz NMC/OS)."""
    t, vz = series[:, 0], series[:, 3]
    jumps = np.nonzero(np.abs(np.diff(vz)) > VELOCITY_JUMP)[0]
    first = float(t[jumps[0] + 1]) if jumps.size else None
    agree = r["agree_until_s"]
    ok = first is not None and agree > first
    return [
        trend_row("heights agree through the first collisions",
                  "good agreement through the first few collisions",
                  f"agree to {FIG6_HEIGHT_TOL * 100:g} cm until t = {fmt(agree)} s; first collision "
                  f"t = {fmt(first)} s", ok, f"agreement (|dh| < {FIG6_HEIGHT_TOL} m) lasts past the first "
                  "velocity jump", "the run has no collision yet (too short) or the curves part before it"),
        info_row("max height difference over the run", "some divergence later (chaotic collisions)",
                 f"{fmt(r['max_height_difference_m'])} m",
                 "the two coordinate choices round differently and the collisions amplify it, as the paper says"),
    ]


# ----------------------------------------------------------------------------------------- Jain 2012
def jain2012_fig4(r: dict) -> list:
    """Jain 2012 Fig. 4: FA and TA trajectories "in close agreement and ... indistinguishable in the plots"."""
    rows = []
    for name, m in r["mechanisms"].items():
        lo, hi = m["range"]
        rel = m["max_abs_difference"] / max(hi - lo, 1e-300)
        rows.append(trend_row(f"{name}: FA vs TA ({m['quantity']})", "indistinguishable",
                              f"max |FA - TA| = {fmt(m['max_abs_difference'])} ({fmt(rel)} of the range)",
                              rel < FIG4_AGREEMENT, f"difference < {FIG4_AGREEMENT:g} of the plotted range",
                              "the two methods drift apart: a defect of one of them"))
    return rows


def jain2012_table1(r: dict, breakdown: dict | None = None) -> list:
    """Jain 2012 Table 1: sizes (exact), constraint errors (for reference), wall clock normalized to CE
    analytic (ratio band; TA/CE and FA/CE are explained by the measured breakdown when given)."""
    rows = []
    why_ta = why_fa = ("the per-stage breakdown (soadyn reproduce jain2012-table1) shows where the time "
                       "goes")
    if breakdown is not None:
        why_ta, why_fa = breakdown["explanation"]["ta"], breakdown["explanation"]["fa"]
    for row in r["rows"]:
        v = row["variant"]
        p = JAIN2012_TABLE1[v]
        if row["wall_s"] is None:
            rows.append(info_row(f"{v}", "run", row["status"], "not run here"))
            continue
        rows.append(size_row(f"{v}: tree dofs, constraint size", p[:2], (row["tree_dofs"], row["constraint_size"])))
        rows.append(info_row(f"{v}: constraint error", "Incomplete" if p[2] is None else p[2],
                             row["constraint_error"],
                             "the hub force profile and error measure of the paper are not given in full; "
                             "soadyn's is the largest |phi| of the run"))
        if v == "ce_analytic" or p[4] is None or row["normalized_wall"] is None or r["normalized_to"] != "ce_analytic":
            continue
        note = why_fa if v.startswith("fa") else why_ta
        if v == "ce_iterative":
            note = ("soadyn's Newton loop solve is warm-started from the previous stage and converges in one or "
                    "two iterations, close to the closed form")
        rows.append(ratio_row(f"{v}: wall clock / CE analytic", p[4], row["normalized_wall"], note))
    return rows


def jain2012_fig6(r: dict) -> list:
    """Jain 2012 Fig. 6: "the CE method has the best error and speed performance, followed by that of the TA
    method with the FA method showing a significant drop in computational speed for similar error"; errors
    fall as the step is reduced."""
    ok_rows = [row for row in r["rows"] if row["wall_s"] is not None and row["status"] == "ok"]
    rows = []
    by_dt = {}
    for row in ok_rows:
        by_dt.setdefault(row["dt"], {})[row["variant"]] = row
    fastest = []
    for dt, runs in sorted(by_dt.items()):
        fam = {}
        for v, row in runs.items():
            fam.setdefault(v[:2], []).append(row["wall_s"])
        if "ce" in fam and "ta" in fam and "fa" in fam:
            fastest.append(min(fam["ce"]) < min(fam["ta"]) < min(fam["fa"]))
    if fastest:
        rows.append(trend_row("wall clock CE < TA < FA at every step", "CE fastest, then TA, FA far behind",
                              f"{sum(fastest)} of {len(fastest)} steps", all(fastest), "at every step size run",
                              "one of the methods is out of order at some step size"))
    falls = []
    for v in {row["variant"] for row in ok_rows}:
        pts = sorted((row["dt"], row["fidelity_error"]) for row in ok_rows if row["variant"] == v
                     and row["fidelity_error"] is not None and math.isfinite(row["fidelity_error"]))
        if len(pts) >= 2:
            falls.append(pts[0][1] <= pts[-1][1])
    if falls:
        rows.append(trend_row("fidelity error falls with the step", "smaller steps, smaller errors",
                              f"{sum(falls)} of {len(falls)} variants", all(falls),
                              "smallest step's error <= largest step's, per variant",
                              "the error is at round-off level already, or the baseline is too coarse"))
    if not rows:
        rows.append(info_row("trends", "CE < TA < FA", "too few runs", "the quick run has too few variants"))
    return rows


# -------------------------------------------------------------------------------------- Chang-Khatib
def chang_khatib_fig3(s: dict) -> list:
    """Chang-Khatib 2000 Fig. 3: both hands held while the torso rocks in the null space."""
    lo, hi = s["waist_pitch_range_rad"]
    err = max(s["max_hand_error_m"].values())
    return [trend_row("hands held while the torso rocks", "hands constant, torso rocking",
                      f"hand error {fmt(err)} m, waist pitch range {fmt(hi - lo)} rad",
                      err < HAND_HOLD and hi - lo > TORSO_ROCK,
                      f"hand error < {HAND_HOLD:g} m and pitch range > {TORSO_ROCK:g} rad",
                      "the posture motion leaks into the task space: dynamic consistency is lost"),
            _cycle_row(s)]


def chang_khatib_fig6(s: dict) -> list:
    """Chang-Khatib 2000 Fig. 6: the left hand touches the floor while the right hand keeps its pose."""
    z = s["final_left_hand"][2]
    err = s["max_hand_error_m"]["right_hand"]
    return [trend_row("left hand reaches the floor, right hand kept", "touches the floor, right hand constant",
                      f"left hand height {fmt(z)} m, right hand error {fmt(err)} m",
                      z < FLOOR_REACH and err < RIGHT_HAND_HOLD,
                      f"height < {FLOOR_REACH:g} m, error < {RIGHT_HAND_HOLD:g} m",
                      "the reach passes near stretched configurations where Lambda is damped"),
            _cycle_row(s)]


def _cycle_row(s: dict) -> Row:
    return info_row("control cycle (operational space dynamics + control)", f"< {CHANG_KHATIB_CYCLE_MS} ms "
                    "(266 MHz Pentium II)", f"{fmt(s['control_cycle_us'] / 1e3)} ms",
                    "hardware 25 years apart; soadyn's cycle includes the controller's Python side (and, on the "
                    "first run of a fresh install, kernel compilation)")


# ---------------------------------------------------------------------------------------- Drumwright
def drumwright_table1(r: dict, paper_sizes: dict, paper_table: dict) -> list:
    """Drumwright 2015 Table I: the paper's contact generation gives its sizes exactly; the Coulomb over
    no-slip time ratio (ratio band); no-slip holds the grasp for 100 steps where Stewart-Trinkle loses it
    after about ten (trend)."""
    rows = []
    gens = {row["contacts"] for row in r["rows"]}
    by = {(row["contacts"], row["variant"]): row for row in r["rows"]}
    for gen in sorted(gens, key=lambda g: g != "rpisim"):
        c = r["counts"][gen]
        tag = "paper's contacts" if gen == "rpisim" else "soadyn's 4-point contacts"
        note = ("soadyn's default box contacts are the 4 corners of the clipped face with the face normal; the "
                "paper's simulator repeats each corner with its 3 normals (footnote 3): run with contacts='rpisim'")
        rows.append(size_row(f"[{tag}] contacts at the start", paper_sizes["contacts"], c["total"], note))
        rows.append(size_row(f"[{tag}] Coulomb LCP size", paper_sizes["coulomb_lcp"], c["coulomb_lcp"], note))
        rows.append(size_row(f"[{tag}] no-slip LCP size", paper_sizes["noslip_lcp"], c["noslip_lcp"], note))
        ratio = r["speed_ratios"].get(gen, {}).get("coulomb_lemke/noslip_ppm")
        if ratio is not None:
            rows.append(ratio_row(f"[{tag}] time Coulomb (Lemke) / no-slip (PPM), 10 steps",
                                  paper_table["coulomb_lemke"][0] / paper_table["noslip_ppm"][0], ratio["timed"],
                                  "Lemke's cost grows with the cube of the 6m Coulomb rows and the PPM's with the m "
                                  "normal rows; soadyn's step outside the LCP (detection, ABA, Delassus) is small, "
                                  "so the LCP decides the ratio more than in the paper's MATLAB simulator"))
        qp = r["speed_ratios"].get(gen, {}).get("noslip_qp_python/noslip_ppm_python")
        if qp is not None:
            rows.append(ratio_row(f"[{tag}] time no-slip QP / PPM (Python-stepped)",
                                  paper_table["noslip_qp_python"][0] / paper_table["noslip_ppm"][0], qp["timed"],
                                  "proxsuite's dense QP is compiled code called from Python, quadprog's active set "
                                  "was MATLAB; the PPM here is a numba kernel"))
        ns = by.get((gen, "noslip_ppm"))
        st = by.get((gen, "coulomb_lemke"))
        if ns is not None:
            rows.append(trend_row(f"[{tag}] no-slip holds the grasp", "at least 100 iterations",
                                  f"{ns['grasped_steps_min']} of {ns['steps']} steps",
                                  ns["grasped_steps_min"] == ns["steps"], "every step of the run",
                                  "the boxes slipped out"))
            rows.append(info_row(f"[{tag}] modified PPM pivots (mean)", f"{DRUMWRIGHT_PIVOTS[0]} (max "
                                 f"{DRUMWRIGHT_PIVOTS[1]})", ns["mean_pivots"],
                                 "soadyn's no-slip step makes the tangent rows equalities (FIND-INDICES); with the "
                                 "paper's side normals their tangent rows include the face normal, so the "
                                 "equalities already hold the boxes and the normal LCP needs no pivot"
                                 if gen == "rpisim" else "the same no-slip step on 12 contacts, without the side "
                                 "normals' rows"))
        if st is not None:
            rows.append(info_row(f"[{tag}] Stewart-Trinkle keeps the grasp", "about ten iterations",
                                 f"{st['grasped_steps_min']} of {st['steps']} steps"
                                 + (" (diverged)" if st["errors"] else ""),
                                 "how long Lemke's degenerate solutions keep the boxes depends on round-off, as in "
                                 "the paper (Tikhonov retries here)"))
    return rows


def drumwright_tables23(r: dict, paper: dict, paper_contacts: dict) -> list:
    """Drumwright 2015 Tables II-III: the no-slip (PPM) over Coulomb (Lemke) and viscous PPM over viscous
    Lemke speedups (ratio band), the robot walking in every model (trend), contact counts (reference)."""
    rows = []
    for key, table in (("noslip_ppm_vs_coulomb_lemke", "Table II"), ("viscous_ppm_vs_viscous_lemke", "Table III")):
        s = r["speedups"].get(key)
        if s is None:
            continue
        rows.append(ratio_row(f"{table}: speedup {key.replace('_vs_', ' vs ')}", s["paper"], s["measured"],
                              "soadyn steps solo12's 4 foot spheres with a few contacts at a time, where Lemke "
                              "and the PPM both take microseconds and the Python loop (controller, stepping) "
                              "dominates; the paper's event-driven Moby spent its time in contact handling"))
    rc = r["rows"]
    rows.append(trend_row("the quadruped stays up in every contact model", "walks over the terrain (Fig. 2)",
                          ", ".join(f"{row['model']}: " + (f"fell at {fmt(row['fell_at_s'])} s" if row["fell"]
                                                          else "upright") for row in rc),
                          not any(row["fell"] for row in rc), "no fall over the run",
                          "a contact model lets the robot fall: the trot controller is tuned for solo12, not for "
                          "every contact model"))
    rows.append(info_row("distance walked (m)", "ten seconds of walking",
                         " ; ".join(f"{row['model']}: {fmt(row['distance_m'])}" for row in rc),
                         f"over {fmt(r['duration'])} s at a nominal {fmt(r['gait']['nominal_speed_mps'])} m/s "
                         "(the first gait cycle starts from standing)"))
    rows.append(info_row("contacts (min / max / mean)", f"{paper_contacts['min']} / {paper_contacts['max']} / "
                         f"{paper_contacts['mean']}",
                         " ; ".join(f"{row['model']}: {row['contacts_min']} / {row['contacts_max']} / "
                                    f"{fmt(row['contacts_mean'])}" for row in rc),
                         "the paper's quadruped has mesh feet (up to 30 contacts); solo12 here has one sphere per "
                         "foot, at most 4 contacts"))
    return rows
