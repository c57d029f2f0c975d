"""One simulation step called from Python for the dynamics benchmark: ``Simulator.step`` on solo12 standing on
its four feet (sphere feet on a floor, the scene suite's ``solo12_standing``) against MuJoCo's ``mj_step`` on
the same scene converted to MJCF, both at ``dt`` = 1 ms from the same standing state.
"""

from __future__ import annotations

from .timing import TimingConfig, time_calls

__all__ = ["time_step"]


def time_step(cfg: TimingConfig) -> dict:
    """Per-step times of both engines (median [min, max]) and their ratio; each steps on from its last state,
    as a simulation loop does (the robot stands still): ``q, qd = sim.step(q, qd)`` against ``mj_step``."""
    import mujoco

    from ..contact import ContactSettings
    from ..models.scenes import solo12_standing
    from ..sim import Simulator
    from .scenes_engines import DT, mujoco_start

    scene = solo12_standing()
    sim = Simulator(scene.model, DT, contact=ContactSettings())
    q0, qd0 = scene.q0.copy(), scene.qd0.copy()
    q, qd = sim.step(q0, qd0)
    for _ in range(200):  # settle into resting contact
        q, qd = sim.step(q, qd)
    mm, md = mujoco_start(scene)
    mujoco.mj_step(mm, md, nstep=200)
    ncon = int(sim.last_step_stats["contacts"])
    state = [q, qd]

    def soadyn_step():
        state[0], state[1] = sim.step(state[0], state[1])

    t = time_calls({"soadyn": soadyn_step, "mujoco": lambda: mujoco.mj_step(mm, md)}, cfg)
    return {"model": "solo12_standing", "contacts_soadyn": ncon, "contacts_mujoco": int(md.ncon),
            "soadyn": t["soadyn"].as_dict(), "mujoco": t["mujoco"].as_dict(),
            "ratio": t["soadyn"].median / t["mujoco"].median}
