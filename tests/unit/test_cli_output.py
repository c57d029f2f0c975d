"""The command line's output paths: checked before any run, a user's files never replaced without --force,
operating-system errors as one clear line."""

from __future__ import annotations

import os

import click
import pytest
from click.testing import CliRunner

from soadyn.cli import OutputPath, main


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_existing_files_are_kept_without_force(tmp_path):
    (tmp_path / "pendulum3-os.npz").write_text("my data")
    r = invoke("demo", "--links", "3", "--duration", "0.01", "--out", tmp_path)
    assert r.exit_code == 2 and "already holds files" in r.output and "--force" in r.output, r.output
    assert (tmp_path / "pendulum3-os.npz").read_text() == "my data"
    r = invoke("demo", "--links", "3", "--duration", "0.01", "--out", tmp_path, "--force")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "pendulum3-os.npz").read_bytes()[:2] == b"PK", "--force replaces the file"


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes anywhere")
def test_unwritable_out_fails_before_the_run(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        r = invoke("demo", "--out", locked / "sub")
        assert r.exit_code == 2 and "cannot write" in r.output, r.output
    finally:
        locked.chmod(0o700)


def test_out_that_is_a_file_or_an_existing_json_is_refused(tmp_path):
    f = tmp_path / "taken"
    f.write_text("x")
    r = invoke("demo", "--out", f)
    assert r.exit_code == 2 and "is not a folder" in r.output, r.output
    r = invoke("bench", "dynamics", "--quick", "--json", f)
    assert r.exit_code == 2 and "exists: pass --force" in r.output, r.output
    assert f.read_text() == "x"


def test_output_path_type_probes_writability(tmp_path, monkeypatch):
    """The folder check writes a probe file; an OSError there becomes a usage error naming the folder
    (works under root too, where permissions do not stop writes)."""
    def refuse(self, data):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("pathlib.Path.write_bytes", refuse)
    with pytest.raises(click.BadParameter, match="cannot write there \\(Permission denied\\)"):
        OutputPath(folder=True).convert(str(tmp_path / "new"), None, None)


def test_os_errors_during_a_run_are_one_line(tmp_path, monkeypatch):
    import soadyn.experiments.jain2014 as j

    def full(*a, **k):
        raise OSError(28, "No space left on device", str(tmp_path / "x.npz"))

    monkeypatch.setattr(j, "demo", full)
    r = invoke("demo", "--out", tmp_path / "o")
    assert r.exit_code == 1 and r.output.strip() == f"Error: No space left on device: {tmp_path / 'x.npz'}", r.output
