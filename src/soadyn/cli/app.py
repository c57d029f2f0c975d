"""The ``soadyn`` click group and what every command shares: output paths checked before the run (with
``--force``), operating-system errors as one line, and :func:`fail`."""

from __future__ import annotations

from pathlib import Path

import click

import soadyn

from .kernels import setup_cache


class OutputPath(click.ParamType):
    """An output folder (``--out``) or file (``--json``), checked before the run: a folder is created and
    must accept a file; an existing non-empty folder or an existing file is only written into with
    ``--force`` (a user's files are never replaced silently)."""

    name = "path"

    def __init__(self, folder: bool):
        self.folder = folder

    def convert(self, value, param, ctx):
        path = Path(value)
        force = bool(ctx and ctx.meta.get("soadyn_force"))
        try:
            if self.folder:
                if path.exists() and not path.is_dir():
                    self.fail(f"{path} exists and is not a folder", param, ctx)
                taken = sorted(p.name for p in path.iterdir()) if path.is_dir() else []
                if taken and not force:
                    self.fail(f"{path} already holds files ({', '.join(taken[:5])}{', ...' if len(taken) > 5 else ''})"
                              ": pass --force to write into it (files of the same names are replaced), or choose "
                              "another folder", param, ctx)
                path.mkdir(parents=True, exist_ok=True)
                probe = path / ".soadyn-write-test"
                probe.write_bytes(b"")
                probe.unlink()
            else:
                if path.is_dir():
                    self.fail(f"{path} is a folder", param, ctx)
                if path.exists() and not force:
                    self.fail(f"{path} exists: pass --force to replace it, or choose another file", param, ctx)
                if not path.parent.is_dir():
                    self.fail(f"folder {path.parent} does not exist", param, ctx)
        except OSError as exc:
            self.fail(f"{path}: cannot write there ({exc.strerror or exc})", param, ctx)
        return path


OUT_FOLDER = OutputPath(folder=True)
OUT_FILE = OutputPath(folder=False)


def _remember_force(ctx, param, value):
    ctx.meta["soadyn_force"] = bool(value)


def add_force_options(group: click.Group) -> None:
    """Give every command with an output path a ``--force`` flag, processed before the path (eager)."""
    for cmd in group.commands.values():
        if isinstance(cmd, click.Group):
            add_force_options(cmd)
        elif any(isinstance(p.type, OutputPath) for p in cmd.params) and not any(p.name == "force" for p in cmd.params):
            cmd.params.append(click.Option(["--force"], is_flag=True, is_eager=True, expose_value=False,
                                           callback=_remember_force,
                                           help="Write into an existing output folder or replace an existing file."))


class _Group(click.Group):
    """The command group: operating-system errors (disk full, permissions) end in one clear line."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except OSError as exc:
            where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
            raise click.ClickException(f"{exc.strerror or exc}{where}") from None




@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(soadyn.__version__, prog_name="soadyn")
def main():
    """soadyn: minimal-coordinate multibody dynamics with the spatial operator algebra."""
    setup_cache()


def fail(msg: str):
    raise click.ClickException(msg)
