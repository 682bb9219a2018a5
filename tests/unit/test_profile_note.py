"""The user hears, once, when the C availability profile is missing (conservative and dbf
are then about 4x slower), and `schedlab --version` says which profile runs."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import schedlab.platform as platform
from schedlab.cli import app


def test_version_names_the_profile() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.startswith("schedlab ")
    assert "availability profile: " in result.stdout
    expected = "C extension" if platform.USING_C_PROFILE else "pure Python"
    assert expected in result.stdout


def test_a_missing_c_profile_is_said_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(platform, "CProfile", None)
    monkeypatch.setattr(platform, "USING_C_PROFILE", False)
    monkeypatch.setattr(platform, "_warned", False)
    platform.warn_once_if_python_profile()
    platform.warn_once_if_python_profile()
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1
    assert "not compiled" in lines[0] and "4x slower" in lines[0]


def test_no_note_when_compiled_or_forced(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(platform, "CProfile", object)
    monkeypatch.setattr(platform, "USING_C_PROFILE", False)  # as with SCHEDLAB_PURE_PYTHON=1
    monkeypatch.setattr(platform, "_warned", False)
    platform.warn_once_if_python_profile()
    assert capsys.readouterr().err == ""
    assert "SCHEDLAB_PURE_PYTHON" in platform.profile_note()


def test_an_install_with_a_compiler_builds_the_c_profile() -> None:
    """CI installs schedlab fresh (`pip install .`) on a machine with a C compiler: the
    extension must then be there, or conservative and dbf silently lose a factor 4."""
    import shutil

    if not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler here: the pure-Python profile is expected")
    assert platform.CProfile is not None
