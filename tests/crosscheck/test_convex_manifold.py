"""Contact manifolds of the support-function pairs (``soadyn._kernels.manifold``): a convex box mesh (the hull
of a box's 8 corners) and a cylinder lying on boxes and meshes.

* Against the box primitive's face clipping (ODE's box-box, an independent algorithm): the hull of a box's
  corners lying on a box, turned about the vertical, offset, overhanging and tilted within the margin,
  gives the box-box contacts (each point and its depth; the box-box kernel keeps up to 8 clipped points,
  the manifold the 4 that span them, so every manifold point must be one of the box's). Tilted more, the
  support feature may be part of the face: every contact must then still join the two surfaces.
* Against MuJoCo's multi-point convex collisions (``multiccd``): the same scenes imported from MJCF (a box
  mesh, a cylinder cap and a cylinder side on a box; a box mesh on a larger mesh): as many contacts, the
  same depths and normals, the same points for the meshes and points on the rim (cap) or the line ends
  (side) for the cylinder, whose rim MuJoCo samples at other angles.
* Physics: the box mesh and the cylinder (on its cap, on its side) rest on a halfspace and on a box without
  rocking (drift and kinetic energy after 1 s), and the box mesh on a tilted box sticks when
  ``tan(angle) <= mu`` and else slides at ``g (sin - mu cos)`` (Coulomb's closed form), as the primitive box
  does (``bench.scenes_checks``).
"""

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import soadyn as sd
from soadyn.bench.scenes_checks import INCLINE_ACCEL, INCLINE_STICK, REST_DRIFT, REST_KE
from soadyn._kernels.manifold import FEATURE_TILT
from soadyn.contact import ContactSettings, collide
from soadyn.models.scenes import G, incline_acceleration
from soadyn.spatial import Transform
from soadyn.trajectory import energy
from tests.support import ALGORITHMS, EXTERNAL, assert_close

H = np.array([0.1, 0.07, 0.05])
"""Half-extents of the box whose corners make the convex mesh."""
CORNERS = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * H
SUPPORT = (0.3, 0.3, 0.1)
"""Half-extents of the supporting box (top face at z = 0)."""
MARGIN = 0.005
N = 12  # poses per comparison
MJ_FLOAT = 1e-6
"""MuJoCo stores mesh vertices in single precision: positions and depths of mesh contacts agree to ~1e-8."""
CYL_R, CYL_H = 0.06, 0.1


def _on_support(ka, sa, support="box", mu=0.8, ground=np.eye(3), margin=MARGIN, extent=SUPPORT):
    """A free body carrying geom ``a`` (2 kg) above a world box (top face through the origin, turned by
    ``ground``) or a halfspace."""
    b = sd.ModelBuilder("rest", gravity=(0.0, 0.0, -G))
    b.add_body("body", "world", sd.joints.Free(), inertia=sd.Inertia.sphere(1.0, 0.1))
    b.add_geom("a", "body", ka, sa, mu=mu, margin=margin, mass=2.0)
    if support == "box":
        b.add_geom("ground", "world", "box", extent, Transform.from_pose(ground, ground @ [0.0, 0.0, -extent[2]]),
                   mu=mu)
    else:
        b.add_geom("ground", "world", "halfspace", None, Transform.from_pose(ground), mu=mu)
    return b.finalize()


def _q(R, p):
    return np.r_[p, Rotation.from_matrix(R).as_quat()]


def _poses(rng, tilt=0.0):
    """Box poses lying on the support: turned about z, offset (partly overhanging), tilted about a horizontal
    axis by up to ``tilt``, the lowest corner from 2 mm deep to 2 mm above."""
    for _ in range(N):
        R = Rotation.from_rotvec(np.r_[rng.normal(size=2), 0.0] * tilt / math.sqrt(2)) * Rotation.from_euler(
            "z", rng.uniform(-np.pi, np.pi))
        R = R.as_matrix()
        p = np.r_[rng.uniform(-0.3, 0.3, 2), 0.0]
        p[2] = -(R @ CORNERS.T)[2].min() + rng.uniform(-0.002, 0.002)
        yield R, p


def test_box_mesh_on_box_equals_box_box():
    """Tilted less than ``FEATURE_TILT`` the bottom face is found whole: the points are box-box's where
    box-box clips faces (its normal the support's face normal)."""
    rng = np.random.default_rng(5)
    mesh, box = _on_support("convex", CORNERS), _on_support("box", tuple(H))
    checked = 0
    for R, p in _poses(rng, tilt=FEATURE_TILT * 0.7):
        c_mesh = collide(mesh, mesh.data(), _q(R, p))
        c_box = collide(box, box.data(), _q(R, p))
        if c_box.count == 0 or c_box.normal[0, 2] < 1.0 - ALGORITHMS:
            continue  # separated over the support's edge: box-box gives the one closest pair
        assert c_mesh.count == min(c_box.count, 4), (c_mesh.count, c_box.count)
        checked += 1
        for x, n, g in zip(c_mesh.point, c_mesh.normal, c_mesh.gap):
            k = int(np.argmin(np.linalg.norm(c_box.point - x, axis=1)))
            assert_close(x, c_box.point[k], ALGORITHMS, "manifold point vs box-box point")
            assert_close(g, c_box.gap[k], ALGORITHMS, "manifold depth vs box-box depth")
            assert_close(n, c_box.normal[k], ALGORITHMS, "normal")
    assert checked > N // 2


def test_box_mesh_tilted_on_box_touches_both_surfaces():
    """Tilted up to twice ``FEATURE_TILT`` (a face may be found as part of it, an edge or a vertex): every
    contact's witness points lie on the mesh's surface and on the support's, ``gap`` apart along the
    normal, and the deepest gap is box-box's."""
    rng = np.random.default_rng(6)
    mesh, box = _on_support("convex", CORNERS), _on_support("box", tuple(H))
    for R, p in _poses(rng, tilt=2.0 * FEATURE_TILT):
        c_mesh = collide(mesh, mesh.data(), _q(R, p))
        c_box = collide(box, box.data(), _q(R, p))
        assert (c_mesh.count > 0) == (c_box.count > 0)
        if c_box.count:
            assert_close(c_mesh.gap.min(), c_box.gap.min(), ALGORITHMS, "deepest gap vs box-box")
        for x, n, g in zip(c_mesh.point, c_mesh.normal, c_mesh.gap):
            on_mesh = np.abs(R.T @ (x + 0.5 * g * n - p)) / H  # box coordinates over half-extents
            on_support = np.abs(x - 0.5 * g * n - [0.0, 0.0, -SUPPORT[2]]) / SUPPORT
            assert_close(on_mesh.max(), 1.0, ALGORITHMS, "witness point on the mesh's surface")
            assert_close(on_support.max(), 1.0, ALGORITHMS, "witness point on the support's surface")
            assert g <= MARGIN


def _mujoco_scene(geom_xml, support_xml):
    mujoco = pytest.importorskip("mujoco")
    from soadyn.io.mjcf import from_mjmodel

    verts = " ".join(map(str, CORNERS.ravel()))
    big = " ".join(map(str, (CORNERS * 3).ravel()))
    m = mujoco.MjModel.from_xml_string(
        f"<mujoco><option><flag multiccd='enable'/></option>"
        f"<asset><mesh name='bx' vertex='{verts}'/><mesh name='big' vertex='{big}'/></asset>"
        f"<worldbody>{support_xml}<body name='body'><freejoint/>{geom_xml}</body></worldbody></mujoco>")
    return mujoco, m, mujoco.MjData(m), from_mjmodel(m)


def _mujoco_contacts(mujoco, m, d, q):
    d.qpos[:] = np.r_[q[:3], q[6], q[3:6]]
    mujoco.mj_forward(m, d)
    out = []
    for k in range(d.ncon):
        c = d.contact[k]
        sign = 1.0 if m.geom_bodyid[c.geom2] == 1 else -1.0  # MuJoCo's normal points from geom1 to geom2
        out.append((np.array(c.pos), c.dist, sign * np.array(c.frame[:3])))
    return out


@pytest.mark.parametrize("kind", ["mesh", "cap", "side", "mesh_on_mesh"])
def test_flat_contacts_match_mujoco(kind):
    """Lying flat (turned about the vertical, offset, from 2 mm deep to 2 mm above within the margin), in
    MuJoCo with multiccd and in soadyn from the same MJCF."""
    geom = {"mesh": "<geom name='a' type='mesh' mesh='bx' margin='0.005'/>",
            "mesh_on_mesh": "<geom name='a' type='mesh' mesh='bx' margin='0.005'/>",
            "cap": f"<geom name='a' type='cylinder' size='{CYL_R} {CYL_H}' margin='0.005'/>",
            "side": f"<geom name='a' type='cylinder' size='{CYL_R} {CYL_H}' margin='0.005'/>"}[kind]
    support = ("<geom name='ground' type='mesh' mesh='big' pos='0 0 -0.15'/>" if kind == "mesh_on_mesh" else
               "<geom name='ground' type='box' size='0.3 0.3 0.1' pos='0 0 -0.1'/>")
    mujoco, m, d, model = _mujoco_scene(geom, support)
    rng = np.random.default_rng(2)
    for _ in range(N):
        yaw = Rotation.from_euler("z", rng.uniform(-np.pi, np.pi))
        R = (yaw * Rotation.from_euler("x", 90, degrees=True)).as_matrix() if kind == "side" else yaw.as_matrix()
        down = {"side": CYL_R, "cap": CYL_H}.get(kind, H[2])
        inside = 0.15 if kind != "mesh_on_mesh" else 0.05  # no overhang: no reduction to choose
        q = _q(R, np.r_[rng.uniform(-inside, inside, 2), down + rng.uniform(-0.002, 0.002)])
        mine = collide(model, model.data(), q)
        theirs = _mujoco_contacts(mujoco, m, d, q)
        assert mine.count == len(theirs), f"{kind}: {mine.count} contacts, MuJoCo {len(theirs)}"
        assert_close(np.sort(mine.gap), np.sort([t[1] for t in theirs]), MJ_FLOAT, f"{kind} depths vs MuJoCo")
        for x, n, g in zip(mine.point, mine.normal, mine.gap):
            assert_close(n, theirs[0][2], MJ_FLOAT, f"{kind} normal vs MuJoCo")
            local = R.T @ (x + 0.5 * g * n - q[:3])  # the witness point on the cylinder
            if kind in ("mesh", "mesh_on_mesh"):
                assert_close(min(np.linalg.norm(t[0] - x) for t in theirs), 0.0, MJ_FLOAT, "mesh contact point")
            elif kind == "cap":  # on the rim of the bottom cap
                assert_close([np.hypot(*local[:2]), local[2]], [CYL_R, -CYL_H], EXTERNAL, "cap contact on the rim")
            else:  # the ends of the bottom line
                assert_close([abs(local[2]), local[1]], [CYL_H, -CYL_R], EXTERNAL, "side contact at a line end")


SHAPES = {"box mesh": ("convex", CORNERS, np.eye(3), H[2]),
          "cylinder cap": ("cylinder", (CYL_R, CYL_H), np.eye(3), CYL_H),
          "cylinder side": ("cylinder", (CYL_R, CYL_H), Rotation.from_euler("x", 90, degrees=True).as_matrix(),
                            CYL_R)}


@pytest.mark.parametrize("support", ["halfspace", "box"])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_rests_without_rocking(shape, support):
    kind, size, R0, down = SHAPES[shape]
    model = _on_support(kind, size, support, margin=0.0)
    R = Rotation.from_euler("z", 20, degrees=True).as_matrix() @ R0
    q0 = _q(R, [0.03, -0.02, down])
    traj = sd.Simulator(model, dt=1e-3, contact=ContactSettings()).rollout(q0, np.zeros(model.nv), duration=1.0)
    drift = np.linalg.norm(traj.q[:, :3] - q0[:3], axis=1).max()
    ke = energy(model, model.data(), traj.q[-1], traj.qd[-1])[0]
    assert drift < REST_DRIFT, f"{shape} on a {support}: drift {drift:.3g} m"
    assert ke < REST_KE, f"{shape} on a {support}: kinetic energy {ke:.3g} J"
    assert traj.stats["max_contacts"] == (2 if shape == "cylinder side" else 4)


@pytest.mark.parametrize("mu", [0.6, 0.3])
def test_box_mesh_on_tilted_box_incline(mu):
    angle = math.radians(28.0)
    ground = Rotation.from_euler("y", angle).as_matrix()  # downhill: ground[:, 0]
    model = _on_support("convex", CORNERS, "box", mu=mu, ground=ground, margin=0.0, extent=(2.0, 0.5, 0.1))
    q0 = _q(ground, ground @ [0.0, 0.0, H[2]])
    traj = sd.Simulator(model, dt=1e-3, contact=ContactSettings()).rollout(q0, np.zeros(model.nv), duration=1.0)
    travel = (traj.q[:, :3] - q0[:3]) @ ground[:, 0]
    a = incline_acceleration(angle, mu)
    if a == 0.0:
        assert np.abs(travel).max() < INCLINE_STICK, f"mu {mu}: moved {np.abs(travel).max():.3g} m"
        return
    k = traj.t.size // 2
    fit = 2.0 * np.polyfit(traj.t[k:], travel[k:], 2)[0]
    assert abs(fit / a - 1.0) <= INCLINE_ACCEL, f"mu {mu}: acceleration {fit:.5g}, expected {a:.5g}"
