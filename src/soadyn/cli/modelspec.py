"""MODEL arguments of the command: a zoo entry ``name[:args]``, an example-robot-data robot or a URDF path."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import soadyn


def zoo() -> dict:
    """Model zoo builders by name: the functions of ``soadyn.models`` that return a Model."""
    from .. import models

    out = {}
    for name in getattr(models, "__all__", ()):
        f = getattr(models, name, None)
        if name == "robot" or not inspect.isfunction(f):
            continue
        if inspect.signature(f).return_annotation in ("Model", soadyn.Model):
            out[name] = f
    return out


def _split_args(text: str) -> list[str]:
    """Split at commas outside brackets and quotes: ``"5,joint_mix=(1,2)"`` -> ``["5", "joint_mix=(1,2)"]``."""
    parts, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def _parse_value(text: str):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def resolve_model(spec: str, floating_base: bool | None = None) -> soadyn.Model:
    """A model from a spec: a zoo entry ``name[:arg,...,key=value]`` (``pendulum:12``, ``auto_tree:10``,
    ``auto_tree:5,branching=2``), an example-robot-data robot (``talos``, ``ur5``, ...) or a URDF path.
    ``ValueError`` with the accepted forms otherwise."""
    from ..models.robots import ROBOTS, robot

    spec = spec.strip()
    builders = zoo()
    name, _, argtext = spec.partition(":")
    if name in builders:
        args, kwargs = [], {}
        for part in _split_args(argtext):
            key, eq, val = part.partition("=")
            if eq:
                kwargs[key.strip()] = _parse_value(val.strip())
            else:
                if kwargs:
                    raise ValueError(f"{spec!r}: positional argument {part!r} after a keyword argument")
                args.append(_parse_value(part))
        try:
            return builders[name](*args, **kwargs)
        except TypeError as exc:
            raise ValueError(f"{spec!r}: bad arguments for {name}{inspect.signature(builders[name])}: {exc}") from None
    if spec in ROBOTS:
        return robot(spec, floating_base)
    path = Path(spec).expanduser()
    if path.suffix.lower() == ".urdf" or path.is_file():
        if not path.is_file():
            raise ValueError(f"{spec!r}: URDF file not found")
        return soadyn.Model.from_urdf(path, floating_base=bool(floating_base))
    raise ValueError(f"unknown model {spec!r}: expected a zoo model {sorted(builders)} as name[:args] "
                     f"(e.g. pendulum:12, auto_tree:10), an example-robot-data robot {sorted(ROBOTS)}, "
                     "or the path of a .urdf file")
