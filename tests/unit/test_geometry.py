"""Collision geometry: builder validation, candidate pairs (exclusions, masks), and every pair function
against closed forms (soadyn.contact.geometry, soadyn._kernels.collision)."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import soadyn as sd
from soadyn.contact import collide
from soadyn.contact.geometry import GEOM_BOX, GEOM_HALFSPACE, GEOM_SPHERE
from tests.support import SAME_MATH, assert_close


def scene(*geoms, world=(), exclude_parent_child=True):
    """A model with one free body per geom spec ``(kind, size, kwargs)`` named ``g0, g1, ..`` and world
    geoms ``w0, w1, ..``."""
    b = sd.ModelBuilder("scene", exclude_parent_child=exclude_parent_child)
    for k, (kind, size, kw) in enumerate(world):
        b.add_geom(f"w{k}", "world", kind, size, **kw)
    for k, (kind, size, kw) in enumerate(geoms):
        b.add_body(f"b{k}", "world", sd.joints.Free(), inertia=sd.Inertia.sphere(1.0, 0.1))
        b.add_geom(f"g{k}", f"b{k}", kind, size, **kw)
    return b.finalize()


def pose_q(model, *poses):
    """``q`` placing free body ``k`` at ``poses[k] = (position, rotation matrix or None)``."""
    q = model.neutral_q()
    for k, (p, R) in enumerate(poses):
        a = model.jnt_qadr[k]
        q[a:a + 3] = p
        q[a + 3:a + 7] = Rotation.from_matrix(np.eye(3) if R is None else R).as_quat()
    return q


def detect(model, *poses):
    return collide(model, model.data(), pose_q(model, *poses))


HALFSPACE = ("halfspace", None, {})


# ------------------------------------------------------------------------------------------- builder
def test_fields_and_pairs():
    m = scene(("sphere", 0.1, {}), ("box", (0.1, 0.2, 0.3), {}), world=[HALFSPACE])
    assert m.ng == 3 and m.geom_name == ("w0", "g0", "g1")
    assert m.geom_type.tolist() == [GEOM_HALFSPACE, GEOM_SPHERE, GEOM_BOX]
    assert m.geom_body.tolist() == [-1, 0, 1]
    assert_close(m.geom_size[2], [0.1, 0.2, 0.3], SAME_MATH, "box size")
    # b is the geom on the lower body (world first): normals point away from the floor
    assert m.pair_geom.tolist() == [[1, 0], [2, 0], [2, 1]]
    assert m.pair_max.tolist() == [1, 4, 1] and m.ncon_max == 6
    for a in (m.geom_body, m.geom_E, m.pair_geom):
        assert not a.flags.writeable
    d = m.data()
    assert d.con_gap.shape == (6,) and d.gR.shape == (3, 3, 3)


def test_model_without_geoms():
    m = sd.models.pendulum(3)
    assert m.ng == 0 and m.pair_geom.shape == (0, 2) and m.ncon_max == 0
    c = collide(m, m.data(), m.neutral_q())
    assert c.count == 0 and c.point.shape == (0, 3)


def test_fixed_joint_merge_moves_geoms():
    b = sd.ModelBuilder("merge")
    b.add_body("base", "world", sd.joints.Free(), inertia=sd.Inertia.sphere(1.0, 0.1))
    b.add_body("plate", "base", sd.joints.Fixed(), placement=sd.Transform(np.eye(3), [0.0, 0.0, -0.5]))
    b.add_geom("foot", "plate", "sphere", 0.1, placement=(np.eye(3), [0.2, 0.0, 0.0]))
    b.add_geom("floor", "world", "halfspace")
    m = b.finalize()
    assert m.geom_body[0] == m.body_id("base")
    assert_close(m.geom_r[0], [0.2, 0.0, -0.5], SAME_MATH, "merged geom position")
    q = m.neutral_q()
    q[2] = 0.55  # foot centre at z = 0.05
    c = collide(m, m.data(), q)
    assert c.count == 1 and c.geom[0].tolist() == [0, 1]
    assert_close(c.gap, [-0.05], SAME_MATH, "gap")


def test_exclusions_and_masks():
    def chain(**kw):
        b = sd.ModelBuilder("chain", **kw)
        b.add_body("l1", "world", sd.joints.Revolute([0, 1, 0]), inertia=sd.Inertia.sphere(1.0, 0.1))
        b.add_body("l2", "l1", sd.joints.Revolute([0, 1, 0]), sd.Transform(np.eye(3), [0, 0, -1.0]),
                   inertia=sd.Inertia.sphere(1.0, 0.1))
        b.add_body("l3", "l2", sd.joints.Revolute([0, 1, 0]), sd.Transform(np.eye(3), [0, 0, -1.0]),
                   inertia=sd.Inertia.sphere(1.0, 0.1))
        b.add_geom("floor", "world", "halfspace", group=2)
        b.add_geom("s1", "l1", "sphere", 0.1)
        b.add_geom("s1b", "l1", "capsule", (0.1, 0.3))  # same body as s1: never a pair
        b.add_geom("s2", "l2", "sphere", 0.1)
        b.add_geom("s3", "l3", "sphere", 0.1, mask=1)  # does not accept group 2 (the floor)
        return b

    def pairs(b):
        m = b.finalize()
        return {frozenset(m.geom_name[g] for g in p) for p in m.pair_geom}

    got = pairs(chain())
    # parent-child (s1-s2, s1b-s2, s2-s3) excluded; the world is never a parent; s3-floor masked out
    assert got == {frozenset(p) for p in [("floor", "s1"), ("floor", "s1b"), ("floor", "s2"), ("s1", "s3"),
                                         ("s1b", "s3")]}
    got = pairs(chain(exclude_parent_child=False))
    assert frozenset(("s1", "s2")) in got and frozenset(("s2", "s3")) in got
    assert frozenset(("s1", "s1b")) not in got
    b = chain()
    b.exclude_pair("s3", "s1")
    assert frozenset(("s1", "s3")) not in pairs(b) and frozenset(("s1b", "s3")) in pairs(b)
    b = chain()
    b.exclude_pair("s3", "nope")
    with pytest.raises(sd.ModelError, match="nope"):
        b.finalize()


def test_world_world_and_plane_pairs_skipped():
    m = scene(world=[HALFSPACE, ("sphere", 0.1, {}), ("plane", None, {})])
    assert m.npair == 0 and m.ncon_max == 0


@pytest.mark.parametrize("kind, size, kw, match", [
    ("sphere", 0.0, {}, "size"),
    ("sphere", -1.0, {}, "size"),
    ("sphere", float("nan"), {}, "finite"),
    ("capsule", 0.1, {}, "radius, half_length"),
    ("box", (0.1, 0.0, 0.1), {}, "size"),
    ("plane", (1.0, 0.0), {}, "finite plane"),
    ("halfspace", 1.0, {}, "none"),
    ("cone", 1.0, {}, "kind"),
    ("sphere", 0.1, {"mu": -0.1}, "mu"),
    ("sphere", 0.1, {"restitution": 1.5}, "restitution"),
    ("sphere", 0.1, {"margin": -1e-3}, "margin"),
    ("sphere", 0.1, {"group": 1.5}, "group"),
    ("sphere", 0.1, {"placement": (np.diag([1.0, 1.0, 2.0]), np.zeros(3))}, "rotation"),
])
def test_bad_geoms(kind, size, kw, match):
    b = sd.ModelBuilder()
    with pytest.raises(ValueError, match=match) as err:
        b.add_geom("bad_geom", "world", kind, size, **kw)
    assert "bad_geom" in str(err.value) or match == "kind"


def test_bad_body_and_duplicates():
    b = sd.ModelBuilder()
    b.add_geom("g", "ghost", "sphere", 0.1)
    with pytest.raises(sd.ModelError, match="'g'.*ghost"):
        b.finalize()
    b = sd.ModelBuilder()
    b.add_geom("g", "world", "sphere", 0.1)
    with pytest.raises(sd.ModelError, match="duplicate geom name 'g'"):
        b.add_geom("g", "world", "box", (1, 1, 1))


def test_collide_checks_inputs():
    m = scene(("sphere", 0.1, {}), world=[HALFSPACE])
    q = m.neutral_q()
    with pytest.raises(ValueError, match="q"):
        collide(m, m.data(), q[:-1])
    q[0] = np.nan
    with pytest.raises(ValueError, match="q"):
        collide(m, m.data(), q)
    with pytest.raises(ValueError, match="data"):
        collide(m, sd.models.pendulum(2).data(), m.neutral_q())


# ------------------------------------------------------------------------------------ pair functions
def test_sphere_on_halfspace_and_plane():
    for world in (HALFSPACE, ("plane", None, {})):
        m = scene(("sphere", 0.5, {"mu": 0.3, "restitution": 0.2}), world=[world])
        c = detect(m, ([1.0, 2.0, 0.4], None))
        assert c.count == 1 and c.geom[0].tolist() == [1, 0] and c.body[0].tolist() == [0, -1]
        assert_close(c.gap, [-0.1], SAME_MATH, "gap")
        assert_close(c.normal, [[0, 0, 1]], SAME_MATH, "normal from floor (b) to sphere (a)")
        assert_close(c.point, [[1.0, 2.0, -0.05]], SAME_MATH, "midpoint of the witness points")
        assert_close([c.mu[0], c.eps[0]], [0.5, 0.2], SAME_MATH, "max of mu and restitution")
    assert detect(m, ([0.0, 0.0, 0.51], None)).count == 0


def test_margin():
    m = scene(("sphere", 0.5, {"margin": 0.01}), world=[("halfspace", None, {"margin": 0.02})])
    assert detect(m, ([0, 0, 0.529], None)).count == 1
    assert detect(m, ([0, 0, 0.531], None)).count == 0


def test_finite_plane_rectangle():
    m = scene(("sphere", 0.5, {}), world=[("plane", (1.0, 2.0), {})])
    assert detect(m, ([0.9, -1.9, 0.4], None)).count == 1
    assert detect(m, ([1.1, 0.0, 0.4], None)).count == 0
    assert detect(m, ([0.0, 2.1, 0.4], None)).count == 0


def test_sphere_sphere():
    m = scene(("sphere", 0.3, {}), ("sphere", 0.2, {}))
    c = detect(m, ([0.0, 0.0, 0.0], None), ([0.3, 0.0, 0.4], None))  # distance 0.5: touching
    assert c.geom[0].tolist() == [1, 0]  # b = geom on the lower body
    assert_close(c.gap, [0.0], SAME_MATH, "gap")
    assert_close(c.normal, [[0.6, 0.0, 0.8]], SAME_MATH, "normal from g0 to g1")
    c = detect(m, ([0.0, 0.0, 0.0], None), ([0.0, 0.4, 0.0], None))
    assert_close(c.gap, [-0.1], SAME_MATH, "gap")
    assert_close(c.point, [[0.0, 0.25, 0.0]], SAME_MATH, "point")


def test_box_resting_on_halfspace():
    m = scene(("box", (0.2, 0.3, 0.1), {}), world=[HALFSPACE])
    c = detect(m, ([1.0, 0.0, 0.099], None))
    assert c.count == 4
    assert_close(c.gap, np.full(4, -0.001), SAME_MATH, "gaps")
    assert_close(np.sort(c.point[:, 0]), [0.8, 0.8, 1.2, 1.2], SAME_MATH, "corner x")
    assert_close(np.sort(c.point[:, 1]), [-0.3, -0.3, 0.3, 0.3], SAME_MATH, "corner y")
    assert_close(c.normal, np.tile([0, 0, 1.0], (4, 1)), SAME_MATH, "normals")


def test_tilted_box_deepest_corner():
    h = np.array([0.2, 0.3, 0.1])
    R = Rotation.from_rotvec([0.3, -0.2, 0.1]).as_matrix()
    p = np.array([0.0, 0.0, 0.2])
    corners = np.array([p + R @ (h * s) for s in np.array(np.meshgrid(*[[-1, 1]] * 3)).reshape(3, -1).T])
    m = scene(("box", tuple(h), {}), world=[HALFSPACE])
    c = detect(m, (p, R))
    below = np.sort(corners[:, 2][corners[:, 2] <= 0.0])
    assert c.count == min(4, below.size) >= 1
    assert_close(c.gap, below[:c.count], SAME_MATH, "gaps of the deepest corners, deepest first")
    k = np.argmin(corners[:, 2])
    assert_close(c.point[0], corners[k] - [0, 0, 0.5 * corners[k, 2]], SAME_MATH, "deepest corner")


def test_capsule_lying_on_plane():
    m = scene(("capsule", (0.1, 0.5), {}), world=[("plane", None, {})])
    R = Rotation.from_rotvec([0.0, np.pi / 2, 0.0]).as_matrix()  # axis along world x
    c = detect(m, ([0.0, 0.0, 0.09], R))
    assert c.count == 2
    assert_close(np.sort(c.point[:, 0]), [-0.5, 0.5], SAME_MATH, "segment ends")
    assert_close(c.gap, [-0.01, -0.01], SAME_MATH, "gaps")


def test_capsule_pairs():
    m = scene(("capsule", (0.1, 0.5), {"margin": 0.1}), ("capsule", (0.2, 1.0), {}))
    Rx = Rotation.from_rotvec([0.0, np.pi / 2, 0.0]).as_matrix()
    Ry = Rotation.from_rotvec([np.pi / 2, 0.0, 0.0]).as_matrix()
    c = detect(m, ([0, 0, 0], Rx), ([0.3, 0.2, 0.35], Ry))  # crossed: one contact, along z
    assert c.count == 1
    assert_close(c.gap, [0.05], SAME_MATH, "crossed gap")
    assert_close(c.normal, [[0, 0, 1.0]], SAME_MATH, "normal from g0 (below) to g1")
    c = detect(m, ([0, 0, 0], Rx), ([0.7, 0.0, 0.29], Rx))  # parallel, overlap x in [-0.3, 0.5]
    assert c.count == 2
    assert_close(np.sort(c.point[:, 0]), [-0.3, 0.5], SAME_MATH, "overlap ends")
    assert_close(c.gap, [-0.01, -0.01], SAME_MATH, "parallel gaps")
    assert detect(m, ([0, 0, 0], Rx), ([0.3, 0.2, 0.41], Ry)).count == 0  # beyond the margin
    m = scene(("sphere", 0.1, {"margin": 1.0}), ("capsule", (0.2, 1.0), {}))
    c = detect(m, ([0, 0, 0], None), ([0, 0.25, 1.5], None))  # beyond the capsule's end
    assert_close(c.gap, [np.hypot(0.25, 0.5) - 0.3], SAME_MATH, "sphere-capsule gap")


def test_sphere_and_capsule_on_box():
    m = scene(("box", (0.5, 0.5, 0.5), {}), ("sphere", 0.1, {}))
    c = detect(m, ([0, 0, 0], None), ([0.55, 0.55, 0.0], None))  # beside an edge
    assert_close(c.gap, [np.sqrt(0.005) - 0.1], SAME_MATH, "sphere-edge gap")
    assert_close(c.normal, [[np.sqrt(0.5), np.sqrt(0.5), 0.0]], SAME_MATH, "normal from box to sphere")
    c = detect(m, ([0, 0, 0], None), ([0.0, 0.0, 0.45], None))  # centre inside
    assert_close(c.gap, [-0.15], SAME_MATH, "inside gap")
    assert_close(c.normal, [[0, 0, 1.0]], SAME_MATH, "inside normal")
    m = scene(("box", (0.5, 0.5, 0.5), {}), ("capsule", (0.1, 0.3), {}))
    Rx = Rotation.from_rotvec([0.0, np.pi / 2, 0.0]).as_matrix()
    c = detect(m, ([0, 0, 0], None), ([0.0, 0.2, 0.59], Rx))  # lying on the top face
    assert c.count == 2
    assert_close(c.gap, [-0.01, -0.01], SAME_MATH, "capsule on box gaps")
    assert_close(c.normal, np.tile([0, 0, 1.0], (2, 1)), SAME_MATH, "normals from box to capsule")


def test_box_box_face_and_edge():
    m = scene(("box", (0.5, 0.5, 0.5), {}), ("box", (0.2, 0.2, 0.2), {}))
    c = detect(m, ([0, 0, 0], None), ([0.1, 0.0, 0.69], None))  # small box resting on the big one
    assert c.count == 4
    assert_close(c.gap, np.full(4, -0.01), SAME_MATH, "face gaps")
    assert_close(c.normal, np.tile([0, 0, 1.0], (4, 1)), SAME_MATH, "normals from big to small")
    assert_close(np.sort(c.point[:, 0]), [-0.1, -0.1, 0.3, 0.3], SAME_MATH, "corner x")
    c = detect(m, ([0, 0, 0], None), ([0.1, 0.0, 0.72], None))  # separated: no contact
    assert c.count == 0
    # edge on edge: the small box turned 45 deg about x, the big one 45 deg about y
    Rx = Rotation.from_rotvec([np.pi / 4, 0, 0]).as_matrix()
    Ry = Rotation.from_rotvec([0, np.pi / 4, 0]).as_matrix()
    z = 0.5 * np.sqrt(2) + 0.2 * np.sqrt(2) - 0.01
    c = detect(m, ([0, 0, 0], Ry), ([0.0, 0.0, z], Rx))
    assert c.count == 1
    assert_close(c.gap, [-0.01], 1e-9, "edge-edge gap")
    assert_close(c.normal, [[0, 0, 1.0]], 1e-9, "edge-edge normal")
    assert_close(c.point, [[0.0, 0.0, 0.5 * np.sqrt(2) - 0.005]], 1e-9, "edge-edge point")


def test_box_box_tilted_gives_edge_points():
    m = scene(("box", (1.0, 1.0, 0.5), {}), ("box", (0.2, 0.3, 0.1), {}))
    R = Rotation.from_rotvec([0.2, 0.0, 0.0]).as_matrix()  # tilted about x: one long edge lowest
    low = R @ np.array([0.0, -0.3, -0.1])
    p = np.array([0.0, 0.0, 0.5 - low[2] - 0.002])
    c = detect(m, ([0, 0, 0], None), (p, R))
    assert c.count == 2
    assert_close(c.gap, [-0.002, -0.002], 1e-12, "edge gaps")
    assert_close(np.sort(c.point[:, 0]), [-0.2, 0.2], 1e-12, "edge ends")


@pytest.mark.parametrize("tilt", [0.0, 6e-8, 1e-6, 1e-4])
@pytest.mark.parametrize("lift", [-1e-8, 1e-10, 1e-8, 1e-4])
def test_box_resting_yawed_tilted_and_overhanging_keeps_its_face(tilt, lift):
    """A cube on a cube, yawed 5 deg, shifted a few mm and tilted slightly (a staggered stack at rest): face
    contacts whatever the tilt, also when an edge-edge axis lies within the tilt of the face normal, and when
    the cubes are just apart and the overhanging corner sets the separating axis separation."""
    m = scene(("box", (0.1, 0.1, 0.1), {"margin": 0.005}), ("box", (0.1, 0.1, 0.1), {}))  # the default margin
    R = Rotation.from_rotvec([0, 0, np.radians(5.0)]).as_matrix() @ \
        Rotation.from_rotvec(tilt * np.array([1.0, 0.3, 0.0]) / np.hypot(1.0, 0.3)).as_matrix()
    p = np.array([0.004, -0.003, 0.2])
    corners = np.array([[x, y, -0.1] for x in (-0.1, 0.1) for y in (-0.1, 0.1)])
    p[2] += 0.1 + lift - (p + corners @ R.T)[:, 2].min()  # the lowest bottom corner at `lift` over the face
    c = detect(m, ([0, 0, 0], None), (p, R))
    assert c.count >= 3, f"{c.count} contacts: the face was lost"
    assert np.all(np.abs(c.normal[:, 2]) > 1.0 - 1e-6), "face normals"
    # every contact a point of the upper face over the lower one; the lowest within the tilt's reach
    assert np.all(np.abs(c.point[:, :2]) <= 0.1 + 1e-9)
    assert lift - 1e-12 <= c.gap.min() <= lift + 0.2 * tilt + 1e-12


def test_fully_augmented_carries_geoms():
    b = sd.ModelBuilder("arm")
    b.add_body("l1", "world", sd.joints.Revolute([0, 1, 0]), inertia=sd.Inertia.sphere(1.0, 0.1))
    b.add_body("l2", "l1", sd.joints.Revolute([0, 1, 0]), sd.Transform(np.eye(3), [0, 0, -1.0]),
               inertia=sd.Inertia.sphere(1.0, 0.1))
    b.add_geom("floor", "world", "halfspace", placement=(np.eye(3), [0, 0, -1.2]))
    b.add_geom("s1", "l1", "sphere", 0.2, mu=0.9)
    b.add_geom("s2", "l2", "capsule", (0.1, 0.2), margin=0.01)
    m = b.finalize()
    fa = m.fully_augmented()
    assert fa.geom_name == m.geom_name and fa.pair_geom.tolist() == m.pair_geom.tolist()
    for f in ("geom_body", "geom_type", "geom_size", "geom_E", "geom_r", "geom_mu", "geom_margin"):
        assert_close(getattr(fa, f), getattr(m, f), SAME_MATH, f)
    q = np.array([0.3, -0.4])
    from soadyn.augmented import fa_state

    q_fa, _ = fa_state(m, fa, q)
    c, c_fa = collide(m, m.data(), q), collide(fa, fa.data(), q_fa)
    assert c.count == c_fa.count >= 1
    assert_close(c_fa.point, c.point, 1e-12, "FA contact points")
    assert_close(c_fa.gap, c.gap, 1e-12, "FA gaps")
