"""Narrow phase against coal (``coal.distance`` / ``coal.collide``) over random poses of every pair type.

Conventions: coal's normal points from its first object to its second and its distance / penetration depth
is signed (negative when penetrating); soadyn's normal points from geom ``b`` to geom ``a`` and we pass
``a`` first, so ``n_soadyn = -n_coal`` and ``gap = distance``. Of a pair's contacts the one with the least
gap is compared (the others are extra support points). coal's ``Plane`` is two-sided (a thin sheet), so
planes are compared only above the plane; ``Halfspace`` is the solid.

Tolerance: ``EXTERNAL`` (1e-7 relative) for gap (or penetration depth) and normal, separated and
penetrating, every pair type including box-box (exact vertex/edge enumeration when separated, the
separating axis depth when penetrating). Measured: round shapes, boxes against round shapes and
halfspaces agree to ~1e-14; box-box to ~1e-10 (coal's own box-box and GJK round-off).
"""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import soadyn as sd
from soadyn.contact import collide
from tests.support import EXTERNAL, assert_close, coal_shape

coal = pytest.importorskip("coal")
pytestmark = pytest.mark.external

N = 150  # random poses per pair type


def _random_size(kind, rng):
    return {"sphere": (rng.uniform(0.1, 0.5),), "capsule": (rng.uniform(0.05, 0.3), rng.uniform(0.1, 0.6)),
            "box": tuple(rng.uniform(0.1, 0.6, 3))}.get(kind, None)


def _pair_model(ka, sa, kb, sb):
    """Geom ``a`` on free body 1 and geom ``b`` on free body 0 (or the world for planes), so that the
    candidate pair is ``(a, b)``; a large margin reports separated pairs too."""
    b = sd.ModelBuilder("pair")
    if kb not in ("plane", "halfspace"):
        b.add_body("B", "world", sd.joints.Free(), inertia=sd.Inertia.sphere(1.0, 0.1))
    b.add_body("A", "world", sd.joints.Free(), inertia=sd.Inertia.sphere(1.0, 0.1))
    b.add_geom("a", "A", ka, sa, margin=10.0)
    b.add_geom("b", "world" if kb in ("plane", "halfspace") else "B", kb, sb)
    m = b.finalize()
    assert m.pair_geom.tolist() == [[0, 1]]
    return m


def _check(ka, kb, seed):
    rng = np.random.default_rng(seed)
    worst = {"sep_gap": 0.0, "sep_normal": 0.0, "pen_gap": 0.0, "pen_normal": 0.0}
    counts = [0, 0]
    for _ in range(N):
        sa, sb = _random_size(ka, rng), _random_size(kb, rng)
        m = _pair_model(ka, sa, kb, sb)
        Ra, Rb = Rotation.random(2, random_state=rng).as_matrix()
        pa = rng.uniform(-0.6, 0.6, 3)
        if kb in ("plane", "halfspace"):
            Rb, pb = np.eye(3), np.zeros(3)
            pa[2] = rng.uniform(-0.3, 1.0) if kb == "halfspace" else rng.uniform(0.0, 1.0)
            q = np.r_[pa, Rotation.from_matrix(Ra).as_quat()]
        else:
            pb = rng.uniform(-0.6, 0.6, 3)
            q = np.r_[pb, Rotation.from_matrix(Rb).as_quat(), pa, Rotation.from_matrix(Ra).as_quat()]
        c = collide(m, m.data(), q)
        ga, gb = coal_shape(ka, sa), coal_shape(kb, sb)
        Ta, Tb = coal.Transform3s(Ra, pa), coal.Transform3s(Rb, pb)
        dreq, dres = coal.DistanceRequest(), coal.DistanceResult()
        dreq.gjk_tolerance = 1e-12
        d = coal.distance(ga, Ta, gb, Tb, dreq, dres)
        if kb == "plane" and d < 0.0:
            continue
        assert c.count >= 1, f"{ka}-{kb}: no contact within the margin (coal distance {d})"
        k = int(np.argmin(c.gap))
        if d > 0.0:
            counts[0] += 1
            ref_n = -dres.normal
            worst["sep_gap"] = max(worst["sep_gap"], abs(c.gap[k] - d) / max(1.0, abs(d)))
            worst["sep_normal"] = max(worst["sep_normal"], float(np.abs(c.normal[k] - ref_n).max()))
            assert_close(c.gap[k], d, EXTERNAL, f"{ka}-{kb} separated gap")
            assert_close(c.normal[k], ref_n, EXTERNAL, f"{ka}-{kb} separated normal")
        else:
            counts[1] += 1
            creq, cres = coal.CollisionRequest(), coal.CollisionResult()
            creq.enable_contact = True
            creq.gjk_tolerance = 1e-12
            creq.epa_tolerance = 1e-12
            coal.collide(ga, Ta, gb, Tb, creq, cres)
            assert cres.isCollision(), f"{ka}-{kb}: coal distance {d} < 0 but no collision"
            ct = cres.getContacts()[0]
            worst["pen_gap"] = max(worst["pen_gap"], abs(c.gap[k] - ct.penetration_depth))
            worst["pen_normal"] = max(worst["pen_normal"], float(np.abs(c.normal[k] + ct.normal).max()))
            assert_close(c.gap[k], ct.penetration_depth, EXTERNAL, f"{ka}-{kb} penetration depth")
            assert_close(c.normal[k], -ct.normal, EXTERNAL, f"{ka}-{kb} penetration normal")
    assert counts[0] > N // 10, f"{ka}-{kb}: too few separated poses ({counts})"
    if kb != "plane":
        assert counts[1] > N // 10, f"{ka}-{kb}: too few penetrating poses ({counts})"
    return worst, counts


PAIRS = [("sphere", "sphere"), ("sphere", "capsule"), ("capsule", "capsule"), ("sphere", "box"),
         ("capsule", "box"), ("box", "box"), ("sphere", "halfspace"), ("capsule", "halfspace"), ("box", "halfspace"),
         ("sphere", "plane"), ("capsule", "plane"), ("box", "plane")]


@pytest.mark.parametrize("ka, kb", PAIRS, ids=lambda k: k)
def test_pairs_match_coal(ka, kb):
    _check(ka, kb, seed=PAIRS.index((ka, kb)))
