"""Small replay fixtures for the viewer tests: trajectories built from given states (no simulation)."""

from __future__ import annotations

import numpy as np

import soadyn as sd

SWING_PERIOD = 1.0
"""Period (s) of the prescribed swing of :func:`swinging_pendulum`."""


def swinging_pendulum(links: int = 3, duration: float = 1.0, rate: float = 100.0) -> sd.Trajectory:
    """The Jain 2014 contact pendulum (spheres, a floor and a wall) moved along a prescribed swing
    ``q_i(t) = a_i sin(2 pi t / T)``, recorded at ``rate`` states per second (kinematics only: the
    replay needs states, not dynamics)."""
    model = sd.models.pendulum(links, scene="jain2014")
    t = np.arange(int(round(duration * rate)) + 1) / rate
    w = 2.0 * np.pi / SWING_PERIOD
    amp = np.linspace(0.25, 0.1, model.nq)  # clear of the wall at x = 4 m and the floor
    Q = amp * np.sin(w * t)[:, None]
    QD = amp * w * np.cos(w * t)[:, None]
    return sd.Trajectory.from_states(model, t, Q, QD, stats={"dt": 1.0 / rate})
