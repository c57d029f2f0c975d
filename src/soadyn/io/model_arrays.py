"""A :class:`~soadyn.model.Model` as a flat dict of NumPy arrays and back, so that a saved
:class:`~soadyn.sim.Trajectory` (an ``.npz`` file) carries the model it was computed with.

Every field of the model that its constructor takes is stored under ``model.<field>``: arrays as they are,
tuples of names as string arrays, numbers and strings as 0-d arrays; fields that are None (a model without
loops) are left out and come back as None. Fields the model derives when it is built (the packed buffers
``model_int`` and ``model_float``, ``gravity_accel``) are not stored: they are rebuilt on loading. ``model.__tuples__`` lists the tuple fields.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..model import Model

__all__ = ["PREFIX", "model_to_arrays", "model_from_arrays"]

PREFIX = "model."
_TUPLES = PREFIX + "__tuples__"


def _stored_fields() -> list:
    """The fields of :class:`Model` its constructor takes (derived fields are rebuilt from them)."""
    return [f for f in dataclasses.fields(Model) if f.init]


def model_to_arrays(model: Model) -> dict:
    """``{"model.<field>": array}`` for every field of ``model`` that is not None."""
    if not isinstance(model, Model):
        raise ValueError(f"model: expected a soadyn.Model, got {type(model).__name__}")
    out, tuples = {}, []
    for f in _stored_fields():
        v = getattr(model, f.name)
        if v is None:
            continue
        if isinstance(v, tuple):
            if not all(isinstance(x, str) for x in v):
                raise ValueError(f"model: field {f.name!r} is not a tuple of names and cannot be saved")
            tuples.append(f.name)
            v = np.array(v, dtype=str)
        elif not isinstance(v, (np.ndarray, str, int, float, np.integer, np.floating)):
            raise ValueError(f"model: field {f.name!r} of type {type(v).__name__} cannot be saved")
        out[PREFIX + f.name] = np.asarray(v)
    out[_TUPLES] = np.array(tuples, dtype=str)
    return out


def model_from_arrays(arrays) -> Model | None:
    """The model stored by :func:`model_to_arrays` in ``arrays`` (a dict or an open ``.npz``), or None when
    there is none. Arrays come back read-only and C-contiguous, like a finalized model's."""
    keys = set(arrays.keys() if hasattr(arrays, "keys") else arrays.files)
    if _TUPLES not in keys:
        return None
    tuples = set(str(x) for x in np.asarray(arrays[_TUPLES]).tolist())
    kw = {}
    for f in _stored_fields():
        key = PREFIX + f.name
        if key not in keys:
            continue
        a = np.asarray(arrays[key])
        if f.name in tuples:
            kw[f.name] = tuple(str(x) for x in a.tolist())
        elif a.ndim == 0 and a.dtype.kind in "US":
            kw[f.name] = str(a)
        elif a.ndim == 0 and a.dtype.kind in "iub":
            kw[f.name] = int(a)
        elif a.ndim == 0:
            kw[f.name] = float(a)
        else:
            a = np.ascontiguousarray(a.copy())
            a.setflags(write=False)
            kw[f.name] = a
    try:
        return Model(**kw)
    except TypeError as exc:
        raise ValueError(f"the saved model cannot be rebuilt by this version of soadyn: {exc}") from None
