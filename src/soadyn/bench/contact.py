"""Benchmark topic contact: the Jain 2014 Sec. 8 pendulum scene (floor, wall, self-collision, friction 0.5,
restitution 0.5, 1 ms steps, 5 s) simulated in one run by soadyn's OS formulation (minimal coordinates, hard
contact), soadyn's NMC/OS (the OS kernel on the fully augmented model) and MuJoCo on the same scene
(:mod:`soadyn.bench.contact_mujoco`; MuJoCo's own soft-contact solver, whose penetration is reported too).

Per size ``n``: the wall time of the whole run (one kernel call for soadyn; ``mj_step`` in a Python loop for
MuJoCo, the way a user steps it), the ratios ``os / mujoco`` and ``nmc_os / os``, the largest penetration of
each run and the largest LCP size soadyn met. Before timing, a short OS run and a short NMC/OS run must keep
the last link within :data:`AGREE` of each other (the two formulations simulate the same system); otherwise
:class:`BenchError` and nothing is timed.
"""

from __future__ import annotations

import time

__all__ = ["run", "format_table", "BenchError", "SUMMARY", "LINKS", "AGREE"]

SUMMARY = "Contact: Jain 2014 pendulum, soadyn OS vs soadyn NMC/OS vs MuJoCo, wall time of a 5 s run."
LINKS = (3, 12, 30)
QUICK_LINKS = (3, 12)
AGREE = 1e-2
"""Largest last-link height difference (m) between OS and NMC/OS over the first 0.2 s. The two are different
first-order time discretizations of the same system (the FA step enforces the hinges at velocity level, an
O(dt) difference that grows with the number of links: 0.3 mm at n = 12, 2.7 mm at n = 30 at 1 ms)."""


class BenchError(RuntimeError):
    """OS and NMC/OS disagree on the check run: nothing is timed."""


def _check(n: int) -> float:
    import numpy as np

    from ..experiments import jain2014

    a = jain2014.simulate(n, "os", duration=0.2, progress=False)
    b = jain2014.simulate(n, "nmc_os", duration=0.2, progress=False)
    err = float(np.abs(a.height - b.height).max())
    if err > AGREE:
        raise BenchError(f"n = {n}: OS and NMC/OS last-link heights differ by {err:.3e} m over 0.2 s "
                         f"(> {AGREE:g}); nothing timed")
    return err


def run(quick: bool = False, log=print) -> dict:
    from ..experiments import jain2014
    from . import contact_mujoco

    links = QUICK_LINKS if quick else LINKS
    duration = 1.0 if quick else jain2014.DURATION
    rows = []
    for n in links:
        agree = _check(n)
        runs = {f: jain2014.simulate(n, f, duration=duration, progress=False) for f in jain2014.FORMULATIONS}
        t0 = time.perf_counter()
        mj = contact_mujoco.run_mujoco_pendulum(n, duration=duration)
        mj_total = time.perf_counter() - t0
        row = {"n": n, "duration": duration, "check_height_difference_m": agree,
               "os_s": runs["os"].wall_time_s, "nmc_os_s": runs["nmc_os"].wall_time_s,
               "mujoco_s": float(mj["wall_s"]), "mujoco_total_s": mj_total,
               "os_penetration_m": runs["os"].traj.stats["max_penetration"],
               "nmc_os_penetration_m": runs["nmc_os"].traj.stats["max_penetration"],
               "mujoco_penetration_m": float(mj["max_penetration"]),
               "os_max_lcp": runs["os"].traj.stats["max_lcp_size"],
               "nmc_os_max_lcp": runs["nmc_os"].traj.stats["max_lcp_size"]}
        row["os_over_mujoco"] = row["os_s"] / row["mujoco_s"]
        row["nmc_os_over_os"] = row["nmc_os_s"] / row["os_s"]
        rows.append(row)
        log(f"n = {n}: OS {row['os_s']:.3f} s, NMC/OS {row['nmc_os_s']:.3f} s, MuJoCo {row['mujoco_s']:.3f} s")
    return {"topic": "contact", "quick": quick, "rows": rows}


def format_table(result: dict) -> str:
    lines = [f"{'n':>3} {'OS s':>8} {'NMC/OS s':>9} {'MuJoCo s':>9} {'OS/MuJoCo':>10} {'NMC/OS/OS':>10} "
             f"{'pen OS':>9} {'pen NMC/OS':>10} {'pen MuJoCo':>10} {'LCP OS':>7} {'LCP NMC/OS':>10}"]
    for r in result["rows"]:
        lines.append(f"{r['n']:>3} {r['os_s']:8.3f} {r['nmc_os_s']:9.3f} {r['mujoco_s']:9.3f} "
                     f"{r['os_over_mujoco']:10.2f} {r['nmc_os_over_os']:10.1f} {r['os_penetration_m']:9.2e} "
                     f"{r['nmc_os_penetration_m']:10.2e} {r['mujoco_penetration_m']:10.2e} {r['os_max_lcp']:>7} "
                     f"{r['nmc_os_max_lcp']:>10}")
    return "\n".join(lines)
