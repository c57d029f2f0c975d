"""Mass properties of geoms (``Inertia.from_geom``, ``add_geom(density=, mass=)``) against closed forms,
MuJoCo's compiler (which derives body inertias from geoms) and trimesh's mesh mass properties."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import soadyn as sd
from tests.support import ALGORITHMS, EXTERNAL, assert_close

RHO = 1250.0  # kg/m^3


def test_closed_forms():
    r, h = 0.1, 0.3
    s = sd.Inertia.from_geom("sphere", r, density=RHO)
    assert_close(s.mass, RHO * 4 / 3 * np.pi * r ** 3, ALGORITHMS, "sphere mass")
    assert_close(s.Ic, np.eye(3) * 0.4 * s.mass * r * r, ALGORITHMS, "sphere inertia")
    b = sd.Inertia.from_geom("box", (0.1, 0.2, 0.3), mass=2.0)
    assert_close(np.diag(b.Ic), np.array([0.4 ** 2 + 0.6 ** 2, 0.2 ** 2 + 0.6 ** 2, 0.2 ** 2 + 0.4 ** 2]) * 2 / 12,
                 ALGORITHMS, "box inertia")
    c = sd.Inertia.from_geom("cylinder", (r, h), density=RHO)
    assert_close(c.mass, RHO * np.pi * r * r * 2 * h, ALGORITHMS, "cylinder mass")
    # a capsule of zero length is a sphere; its inertia grows by the parallel-axis terms of the caps
    assert_close(sd.Inertia.capsule(1.0, r, 1e-12).Ic, sd.Inertia.sphere(1.0, r).Ic, ALGORITHMS, "short capsule")
    cap = sd.Inertia.from_geom("capsule", (r, h), density=RHO)
    assert_close(cap.mass, RHO * np.pi * r * r * (2 * h + 4 / 3 * r), ALGORITHMS, "capsule mass")
    # the convex hull of a box's corners is the box
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * [0.1, 0.2, 0.3]
    box = sd.Inertia.from_geom("convex", corners + [1.0, 2.0, 3.0], mass=2.0)
    assert_close(box.com, [1.0, 2.0, 3.0], ALGORITHMS, "convex box centre of mass")
    assert_close(box.Ic, b.Ic, ALGORITHMS, "convex box inertia")
    with pytest.raises(ValueError, match="exactly one"):
        sd.Inertia.from_geom("sphere", r)
    with pytest.raises(ValueError, match="positive size"):
        sd.Inertia.from_geom("box", (0.1, 0.2), density=RHO)


def test_convex_against_trimesh():
    trimesh = pytest.importorskip("trimesh")
    pts = np.random.default_rng(4).normal(size=(60, 3)) * [0.3, 0.1, 0.2] + [0.5, -0.2, 0.1]
    hull = trimesh.convex.convex_hull(pts)
    hull.density = RHO
    I = sd.Inertia.from_geom("convex", pts, density=RHO)
    assert_close(I.mass, hull.mass, EXTERNAL, "convex mass vs trimesh", scale=hull.mass)
    assert_close(I.com, hull.center_mass, EXTERNAL, "convex centre of mass vs trimesh")
    assert_close(I.Ic, hull.moment_inertia, EXTERNAL, "convex inertia vs trimesh", scale=np.abs(I.Ic).max())


GEOMS = {"sphere": "size='0.1'", "capsule": "size='0.07 0.2'", "cylinder": "size='0.08 0.15'",
         "box": "size='0.1 0.2 0.05'"}


@pytest.mark.parametrize("kind", sorted(GEOMS) + ["convex"])
def test_add_geom_density_matches_mujoco(kind, tmp_path):
    """A body whose inertia comes only from one placed geom: soadyn's body inertia against the one MuJoCo's
    compiler derives (``body_mass``, ``body_ipos``, ``body_inertia`` in the principal frame)."""
    mujoco = pytest.importorskip("mujoco")
    rng = np.random.default_rng(5)
    R = Rotation.random(random_state=rng)
    pos = rng.uniform(-0.2, 0.2, 3)
    quat = np.r_[R.as_quat()[3], R.as_quat()[:3]]
    pts = rng.normal(size=(30, 3)) * [0.1, 0.05, 0.08]
    if kind == "convex":
        (tmp_path / "m.obj").write_text("".join(f"v {x} {y} {z}\n" for x, y, z in pts) + "f 1 2 3\n")
        asset, geom = "<asset><mesh name='m' file='m.obj' inertia='convex'/></asset>", "type='mesh' mesh='m'"
    else:
        asset, geom = "", f"type='{kind}' {GEOMS[kind]}"
    xml = (f"<mujoco><compiler meshdir='{tmp_path}'/>{asset}<worldbody><body name='b'><freejoint/>"
           f"<geom {geom} density='{RHO}' pos='{' '.join(map(str, pos))}' quat='{' '.join(map(str, quat))}'/>"
           "</body></worldbody></mujoco>")
    m = mujoco.MjModel.from_xml_string(xml)
    b = sd.ModelBuilder("one")
    b.add_body("b", "world", sd.joints.Free())
    size = pts if kind == "convex" else [float(x) for x in GEOMS[kind].split("'")[1].split()]
    if kind == "convex":
        size = m.mesh_vert[m.mesh_vertadr[0]:m.mesh_vertadr[0] + m.mesh_vertnum[0]]  # MuJoCo's mesh frame
        pos, R = m.geom_pos[0], Rotation.from_quat(np.r_[m.geom_quat[0][1:], m.geom_quat[0][0]])
    b.add_geom("g", "b", kind, size, placement=(R.as_matrix(), pos), density=RHO)
    model = b.finalize()
    I = sd.Inertia.from_matrix(model.body_I[0])
    E = np.empty(9)
    mujoco.mju_quat2Mat(E, m.body_iquat[1])
    E = E.reshape(3, 3)
    assert_close(model.body_mass[0], m.body_mass[1], EXTERNAL, f"{kind} mass vs MuJoCo", scale=m.body_mass[1])
    assert_close(I.com, m.body_ipos[1], EXTERNAL, f"{kind} centre of mass vs MuJoCo")
    assert_close(I.Ic, E @ np.diag(m.body_inertia[1]) @ E.T, EXTERNAL, f"{kind} inertia vs MuJoCo",
                 scale=m.body_inertia[1].max())
