"""soadyn: minimal-coordinate multibody dynamics with the spatial operator algebra.

Importing soadyn compiles nothing; kernels compile on first use and are cached on disk
(``soadyn warmup`` compiles them all once). The compiled kernels are cached in a folder keyed by a hash of
the kernel sources (``soadyn._cache``), unless ``NUMBA_CACHE_DIR`` is set.
"""

from ._cache import configure_cache

configure_cache()  # before any kernel module is imported (numba fixes a kernel's cache folder at decoration)

from . import contact, control, derivatives, embedding, joints, lcp, loops, models, spatial
from .data import Data
from .dynamics import (aba, aba_batch, crba, difference, fk, frame_bias_acceleration, frame_jacobian, frame_pose,
                       frame_velocity, integrate, minv, rnea, rnea_batch)
from .lcp import LCPError
from .builder import ModelBuilder
from .model import Model, ModelError
from .osim import SingularCompliance, operational_space_dynamics, osim, osim_inv
from .spatial import Inertia, Transform
from .sim import Simulator, Trajectory, energy
from .sweeps import sweep

__version__ = "0.1.0"

__all__ = [
    "Model", "ModelBuilder", "ModelError", "Data", "Inertia", "Transform", "joints", "models", "spatial",
    "fk", "frame_pose", "frame_jacobian", "frame_velocity", "frame_bias_acceleration",
    "rnea", "crba", "aba", "minv", "aba_batch", "rnea_batch", "integrate", "difference",
    "Simulator", "Trajectory", "energy",
    "osim_inv", "osim", "operational_space_dynamics", "SingularCompliance", "control", "loops", "embedding",
    "lcp", "LCPError", "contact", "sweep",
    "derivatives",
]
