"""Cylinders and convex meshes (support functions, GJK/EPA; ``soadyn._kernels.convex``) against coal, closed
forms and the definition of penetration depth.

* Separated pairs: the gap and normal of every pair type with a cylinder or a convex mesh against coal's
  ``distance`` (``EXTERNAL``; normals of curved pairs ``CURVED_NORMAL``). Measured: gaps 1e-16 to 5e-9 (GJK
  on curved cylinders stops at ``GJK_TOL``).
* Against a halfspace: the deepest contact's gap and normal against coal's ``collide`` (exact), separated
  and penetrating. Measured: ~1e-16.
* Penetrating pairs: coal's EPA is not a usable oracle here (on random sphere/capsule/box/cylinder pairs it
  returns ``-DBL_MAX`` or a depth up to 3x too large in a few percent of the poses, where the closed form
  and the support-function minimum below agree with soadyn). Instead: the convex hull of a box's corners
  must give what the box primitive gives (exact SAT-based kernels) against spheres, capsules and boxes
  (``ALGORITHMS``); a sphere inside a cylinder has the closed-form depth ``min(R - rho, h - |z|) + r``
  (``DEPTH``); and
  for every other pair the depth is checked against its definition, the minimum over unit directions ``n``
  of the Minkowski difference's support function ``h_A(n) + h_B(-n)`` (numerical minimization, ``DEPTH``).
* Against MuJoCo: a cylinder and a mesh over a plane, imported from MJCF, give MuJoCo's contact distances.
"""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.spatial.transform import Rotation

import soadyn as sd
from soadyn.contact import collide
from tests.support import ALGORITHMS, EXTERNAL, assert_close, coal_shape

coal = pytest.importorskip("coal")
pytestmark = pytest.mark.external

N = 40  # random poses per pair type
CURVED_NORMAL = 1e-5
"""Normals of separated pairs with a curved shape (cylinder, capsule, sphere) against coal: both run GJK to a
relative tolerance on ``|v|^2``, which leaves the direction of ``v`` accurate to about its square root
(measured: up to 3e-7)."""
DEPTH = 1e-6
"""Penetration depth where a cylinder's curved side is involved (EPA on a curved surface converges to about
1e-8 with its vertex budget; Nelder-Mead on the sphere of directions to about 1e-9)."""


def _size(kind, rng):
    if kind == "convex":
        return rng.normal(size=(16, 3)) * rng.uniform(0.1, 0.4, 3)
    return {"sphere": (rng.uniform(0.1, 0.4),), "capsule": (rng.uniform(0.05, 0.3), rng.uniform(0.1, 0.5)),
            "box": tuple(rng.uniform(0.1, 0.5, 3)), "cylinder": (rng.uniform(0.05, 0.4), rng.uniform(0.05, 0.5))
            }.get(kind)


def _pair(ka, sa, kb, sb):
    """Geom ``a`` on free body ``A`` (index 1) against geom ``b`` on free body ``B`` or the world; a large
    margin reports separated pairs."""
    b = sd.ModelBuilder("pair")
    flat = kb == "halfspace"
    if not flat:
        b.add_body("B", "world", sd.joints.Free(), inertia=sd.Inertia.sphere(1.0, 0.1))
    b.add_body("A", "world", sd.joints.Free(), inertia=sd.Inertia.sphere(1.0, 0.1))
    b.add_geom("a", "A", ka, sa, margin=10.0)
    b.add_geom("b", "world" if flat else "B", kb, sb)
    m = b.finalize()
    assert m.pair_geom.tolist() == [[0, 1]]
    return m


def _pose(rng, flat, spread=0.6):
    Ra, Rb = Rotation.random(2, random_state=rng)
    pa, pb = rng.uniform(-spread, spread, 3), rng.uniform(-spread, spread, 3)
    if flat:
        pa[2] = rng.uniform(-0.2, 0.8)
        return Ra.as_matrix(), pa, np.eye(3), np.zeros(3), np.r_[pa, Ra.as_quat()]
    return Ra.as_matrix(), pa, Rb.as_matrix(), pb, np.r_[pb, Rb.as_quat(), pa, Ra.as_quat()]


def _coal(kind, size, m, g):
    verts = m.mesh_vert[m.geom_vertadr[g]:m.geom_vertadr[g] + m.geom_vertnum[g]]
    return coal_shape(kind, size, verts)


def _support(kind, size, verts, R, p, n):
    """Support function ``h(n) = max_{x in core} n . x`` of a core (numpy, for the depth oracle)."""
    l = R.T @ n
    if kind == "sphere":
        return n @ p
    if kind == "capsule":
        return n @ p + size[1] * abs(l[2])
    if kind == "box":
        return n @ p + np.abs(l) @ np.asarray(size)
    if kind == "cylinder":
        return n @ p + size[0] * np.hypot(l[0], l[1]) + size[1] * abs(l[2])
    return n @ p + (verts @ l).max()


def _depth_by_definition(m, kinds, sizes, poses, n_found):
    """``-min_n (h_A(n) + h_B(-n)) - rho_a - rho_b``: coarse sampling, then Nelder-Mead, and the direction
    ``n_found`` (every direction bounds the depth from above, so the least value found is the reference)."""
    verts = [m.mesh_vert[m.geom_vertadr[g]:m.geom_vertadr[g] + m.geom_vertnum[g]] for g in range(2)]

    def h(x):
        n = x / np.linalg.norm(x)
        return (_support(kinds[0], sizes[0], verts[0], *poses[0], n)
                + _support(kinds[1], sizes[1], verts[1], *poses[1], -n))

    dirs = np.random.default_rng(0).normal(size=(3000, 3))
    x0 = dirs[np.argmin([h(x) for x in dirs])]
    best = minimize(h, x0, method="Nelder-Mead", options=dict(xatol=1e-12, fatol=1e-15, maxiter=5000)).fun
    best = min(best, h(np.asarray(n_found)))
    rho = sum(s[0] for k, s in zip(kinds, sizes) if k in ("sphere", "capsule"))
    return -best - rho


SEPARATED = [(a, b) for b in ("cylinder", "convex") for a in ("sphere", "capsule", "box", "cylinder", "convex")]


@pytest.mark.parametrize("ka, kb", SEPARATED + [("cylinder", "halfspace"), ("convex", "halfspace")],
                         ids=lambda k: k)
def test_against_coal(ka, kb):
    rng = np.random.default_rng(SEPARATED.index((ka, kb)) if (ka, kb) in SEPARATED else 99)
    counts = [0, 0]
    for _ in range(N):
        sa, sb = _size(ka, rng), _size(kb, rng)
        m = _pair(ka, sa, kb, sb)
        Ra, pa, Rb, pb, q = _pose(rng, kb == "halfspace")
        c = collide(m, m.data(), q)
        ga, gb = _coal(ka, sa, m, 0), _coal(kb, sb, m, 1)
        Ta, Tb = coal.Transform3s(Ra, pa), coal.Transform3s(Rb, pb)
        dreq, dres = coal.DistanceRequest(), coal.DistanceResult()
        dreq.gjk_tolerance = 1e-12
        d = coal.distance(ga, Ta, gb, Tb, dreq, dres)
        assert c.count >= 1, f"{ka}-{kb}: no contact within the margin (coal distance {d})"
        k = int(np.argmin(c.gap))
        if d > 0.0:
            counts[0] += 1
            assert_close(c.gap[k], d, EXTERNAL, f"{ka}-{kb} separated gap")
            polytopes = {ka, kb} <= {"box", "convex", "halfspace"}
            assert_close(c.normal[k], -dres.normal, EXTERNAL if polytopes else CURVED_NORMAL,
                         f"{ka}-{kb} separated normal")
        elif kb == "halfspace":
            counts[1] += 1
            creq, cres = coal.CollisionRequest(), coal.CollisionResult()
            creq.enable_contact = True
            coal.collide(ga, Ta, gb, Tb, creq, cres)
            ct = cres.getContacts()[0]
            assert_close(c.gap[k], ct.penetration_depth, EXTERNAL, f"{ka}-{kb} penetration depth")
            assert_close(c.normal[k], -ct.normal, EXTERNAL, f"{ka}-{kb} penetration normal")
    assert counts[0] > N // 5, f"{ka}-{kb}: too few separated poses {counts}"


@pytest.mark.parametrize("kb", ["sphere", "capsule", "box"])
def test_convex_box_equals_box(kb):
    """The convex hull of a box's corners against the box primitive's exact kernels."""
    rng = np.random.default_rng(7)
    pen = 0
    for _ in range(N):
        h = np.asarray(_size("box", rng))
        corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * h
        sb = _size(kb, rng)
        Ra, pa, Rb, pb, q = _pose(rng, False, spread=0.3)
        deepest = []
        for ka, sa in (("box", tuple(h)), ("convex", corners)):
            m = _pair(ka, sa, kb, sb)
            c = collide(m, m.data(), q)
            k = int(np.argmin(c.gap))
            deepest.append((c.gap[k], c.normal[k]))
        (g_box, n_box), (g_cvx, n_cvx) = deepest
        assert_close(g_cvx, g_box, ALGORITHMS, f"convex-{kb} gap vs box-{kb}")
        if abs(g_box) > 1e-6:  # touching pairs have no unique normal
            assert_close(n_cvx, n_box, 1e-6, f"convex-{kb} normal vs box-{kb}")
        pen += g_box < 0.0
    assert pen > N // 5, f"too few penetrating poses ({pen})"


def test_sphere_in_cylinder_closed_form():
    rng = np.random.default_rng(3)
    for _ in range(N):
        r, (R, hl) = rng.uniform(0.02, 0.1), _size("cylinder", rng)
        m = _pair("sphere", (r,), "cylinder", (R, hl))
        Rb = Rotation.random(random_state=rng).as_matrix()
        local = np.r_[rng.uniform(-0.7, 0.7, 2) * R, rng.uniform(-0.9, 0.9) * hl]  # centre inside
        if np.hypot(*local[:2]) >= R:
            continue
        pa = Rb @ local
        q = np.r_[np.zeros(3), Rotation.from_matrix(Rb).as_quat(), pa, 0.0, 0.0, 0.0, 1.0]
        c = collide(m, m.data(), q)
        exact = -(min(R - np.hypot(*local[:2]), hl - abs(local[2])) + r)
        assert_close(c.gap.min(), exact, DEPTH, "sphere-in-cylinder depth")


@pytest.mark.parametrize("ka, kb", [("capsule", "cylinder"), ("box", "cylinder"), ("cylinder", "cylinder"),
                                    ("cylinder", "convex"), ("convex", "convex")], ids=lambda k: k)
def test_penetration_depth_by_definition(ka, kb):
    rng = np.random.default_rng(11)
    checked = 0
    while checked < 6:
        sa, sb = _size(ka, rng), _size(kb, rng)
        m = _pair(ka, sa, kb, sb)
        Ra, pa, Rb, pb, q = _pose(rng, False, spread=0.15)
        c = collide(m, m.data(), q)
        if c.count == 0 or c.gap.min() >= 0.0:
            continue
        checked += 1
        k = int(np.argmin(c.gap))
        ref = _depth_by_definition(m, (ka, kb), (m.geom_size[0], m.geom_size[1]), ((Ra, pa), (Rb, pb)), -c.normal[k])
        assert_close(c.gap[k], ref, DEPTH, f"{ka}-{kb} penetration depth")


def test_plane_contacts_match_mujoco(tmp_path):
    """A cylinder and a mesh (MuJoCo collides with its convex hull) over a plane, imported from MJCF: at
    random poses the deepest contact of each geom equals MuJoCo's contact distance, and both find a contact
    or neither. Measured: 2e-16 over 200 poses."""
    mujoco = pytest.importorskip("mujoco")
    from soadyn.io.mjcf import from_mjmodel, state_from_mujoco

    pts = np.random.default_rng(1).normal(size=(30, 3)) * [0.1, 0.06, 0.08]
    (tmp_path / "m.obj").write_text("".join(f"v {x} {y} {z}\n" for x, y, z in pts) + "f 1 2 3\n")
    m = mujoco.MjModel.from_xml_string(
        f"<mujoco><compiler meshdir='{tmp_path}'/><asset><mesh name='m' file='m.obj' inertia='convex'/></asset>"
        "<worldbody><geom name='floor' type='plane' size='0 0 1'/>"
        "<body name='c' pos='0 0 1'><freejoint/><geom name='cyl' type='cylinder' size='0.1 0.2'/></body>"
        "<body name='h' pos='1 0 1'><freejoint/><geom name='hull' type='mesh' mesh='m'/></body>"
        "</worldbody></mujoco>")
    d = mujoco.MjData(m)
    model = from_mjmodel(m)
    rng = np.random.default_rng(0)
    compared = 0
    for _ in range(N):
        q = np.array(m.qpos0)
        for a in (0, 7):
            q[a + 2] = rng.uniform(0.0, 0.3)
            quat = Rotation.random(random_state=rng).as_quat()
            q[a + 3:a + 7] = [quat[3], *quat[:3]]
        d.qpos[:] = q
        mujoco.mj_forward(m, d)
        c = collide(model, model.data(), state_from_mujoco(model, d.qpos, d.qvel)[0])
        for name in ("cyl", "hull"):
            g = model.geom_name.index(name)
            mine = [c.gap[k] for k in range(c.count) if g in c.geom[k]]
            gm = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, name)
            theirs = [d.contact[k].dist for k in range(d.ncon) if gm in (d.contact[k].geom1, d.contact[k].geom2)]
            assert bool(mine) == bool(theirs), f"{name}: soadyn gaps {mine}, MuJoCo distances {theirs}"
            if mine:
                compared += 1
                assert_close(min(mine), min(theirs), EXTERNAL, f"{name}-plane deepest gap vs MuJoCo")
    assert compared > N // 2, f"too few contacts compared ({compared})"
