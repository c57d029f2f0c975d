"""The contact scenes (soadyn.models.scenes): the same system in soadyn, MuJoCo and DART (masses, inertias,
poses and start velocities compared through the energies), the closed forms, bad input."""

import math

import numpy as np
import pytest

import soadyn as sd
from soadyn.models import scenes as S

ENERGY_TOL = 1e-9
"""Relative agreement of the start energies across engines (the same numbers, written three ways)."""


def all_scenes():
    return [S.ball_drop(), S.newtons_cradle(), S.box_on_incline(heading=math.radians(45.0)),
            S.rolling_sphere(direction=0.3), S.rolling_capsule(direction=(1.0, 2.0)),
            S.sliding_sphere(direction=(1.0, 1.0)), S.box_stack(5), S.box_stack(5, *S.staggered_offsets(5)),
            S.box_pyramid(), S.solo12_standing()]


def soadyn_energy(sc):
    return sd.sim.energy(sc.model, sc.model.data(), sc.q0, sc.qd0)


@pytest.fixture(scope="module")
def scenes():
    return all_scenes()


@pytest.mark.external
def test_mujoco_scenes_match_soadyn(scenes):
    mujoco = pytest.importorskip("mujoco")
    from soadyn.models.scenes_mjcf import mujoco_model, mujoco_start

    for sc in scenes:
        m = mujoco_model(sc)
        d = mujoco.MjData(m)
        mujoco_start(sc, m, d)
        mujoco.mj_energyPos(m, d)
        mujoco.mj_energyVel(m, d)
        ke, pe = soadyn_energy(sc)
        assert abs(d.energy[1] - ke) <= ENERGY_TOL * max(1.0, ke), sc.name
        assert abs(d.energy[0] - pe) <= ENERGY_TOL * max(1.0, abs(pe)), sc.name
        assert abs(m.body_mass.sum() - sc.model.body_mass.sum()) <= ENERGY_TOL, sc.name


@pytest.mark.external
def test_dart_scenes_match_soadyn(scenes):
    pytest.importorskip("dartpy")
    from soadyn.models.scenes_dart import dart_world

    for sc in scenes:
        _, skels = dart_world(sc)
        ke, pe = soadyn_energy(sc)
        ked = sum(s.computeKineticEnergy() for s in skels)
        ped = sum(s.computePotentialEnergy() for s in skels)
        assert abs(ked - ke) <= ENERGY_TOL * max(1.0, ke), sc.name
        assert abs(ped - pe) <= ENERGY_TOL * max(1.0, abs(pe)), sc.name


def test_start_states_touch_or_clear():
    """Resting scenes start with their contacts closed (gap 0), the drop and the cradle with none."""
    for sc, touching in ((S.box_stack(5), True), (S.box_pyramid(), True), (S.box_on_incline(), True),
                         (S.rolling_sphere(), True), (S.ball_drop(), False), (S.newtons_cradle(), False)):
        c = sd.contact.collide(sc.model, sc.model.data(), sc.q0)
        if touching:
            assert c.count > 0 and np.abs(c.gap).max() < 1e-12, sc.name
        else:
            assert c.count == 0 or c.gap.min() > 5e-4, sc.name


def test_closed_forms():
    assert np.allclose(S.drop_apexes(1.0, 0.5), [0.25, 0.0625, 0.015625])
    a = math.radians(30.0)
    assert S.incline_acceleration(a, 0.3) == pytest.approx(9.81 * (0.5 - 0.3 * math.cos(a)))
    assert S.incline_acceleration(a, math.tan(a) + 1e-9) == 0.0
    assert S.rolling_time(2.0, 0.3) == pytest.approx(4.0 / (7 * 0.3 * 9.81))
    assert S.rolling_speed(7.0) == pytest.approx(5.0)
    # a capsule of zero length is a sphere; a long thin one a rod
    assert S.capsule_inertia(2.0, 0.1, 0.0) == pytest.approx((0.008, 0.008, 0.008))
    ixx, _, izz = S.capsule_inertia(1.0, 1e-4, 1.0)
    assert ixx == pytest.approx(4.0 / 12.0, rel=1e-3) and izz < 1e-7


def test_staggered_offsets_are_within_the_bounds():
    off, yaw = S.staggered_offsets(10, seed=3)
    step = np.linalg.norm(np.diff(off, axis=0), axis=1)
    assert np.all((step >= 0.003) & (step <= 0.005))
    assert np.all(np.abs(yaw) <= math.radians(5.0)) and off[0].tolist() == [0.0, 0.0]


@pytest.mark.parametrize("call, word", [
    (lambda: S.ball_drop(radius=-1.0), "radius"),
    (lambda: S.newtons_cradle(n=1), "n"),
    (lambda: S.box_stack(3, offsets=np.zeros((2, 2))), "offsets"),
    (lambda: S.box_pyramid(spacing=0.5), "spacing"),
    (lambda: S.sliding_sphere(direction=(0.0, 0.0)), "direction"),
    (lambda: S.ball_drop(restitution=1.5), "restitution"),
])
def test_bad_input_names_the_argument(call, word):
    with pytest.raises(ValueError, match=word):
        call()
