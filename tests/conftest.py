"""Fixtures shared by the test modules."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from .helpers import ROOT

REPO_ROOT = Path(__file__).resolve().parents[1]
# What a project root holds that ptogen reads or writes (the package itself is installed).
PROJECT_PARTS = ("specs", "templates", "generated", ".clang-format")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A private copy of the project (specs, templates, generated tree, style) to edit freely."""
    for name in ("specs", "templates", "generated"):
        shutil.copytree(ROOT / name, tmp_path / name)
    shutil.copy(ROOT / ".clang-format", tmp_path / ".clang-format")
    return tmp_path


@pytest.fixture(scope="session")
def _format_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One clang-format result cache for the whole session, seeded from the repo's.

    Entries are keyed by a hash of (formatter, style, source), so sharing them cannot change any
    output; without it every copy formats ~1800 files from scratch (several seconds each time).
    """
    cache = tmp_path_factory.mktemp("ptogen-format-cache") / "format"
    seed = REPO_ROOT / ".ptogen-cache" / "format"
    if seed.is_dir():
        shutil.copytree(seed, cache)
    else:
        cache.mkdir()
    return cache


@pytest.fixture
def project_copy(tmp_path: Path, _format_cache: Path) -> Path:
    """A private copy of the project root (specs/, templates/, generated/, .clang-format) in
    tmp_path, to edit and regenerate freely with `--root <copy>`; returns its path."""
    for name in PROJECT_PARTS:
        src = REPO_ROOT / name
        if src.is_dir():
            shutil.copytree(src, tmp_path / name)
        else:
            shutil.copy2(src, tmp_path / name)
    (tmp_path / ".ptogen-cache").mkdir()
    (tmp_path / ".ptogen-cache" / "format").symlink_to(_format_cache, target_is_directory=True)
    return tmp_path


def run_ptogen(
    *args: str | os.PathLike[str], cwd: str | os.PathLike[str], env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `python -m ptogen.cli ARGS` in a real process (exit code, stdout, stderr as a user sees
    them); never raises on a non-zero exit."""
    return subprocess.run(
        [sys.executable, "-m", "ptogen.cli", *map(str, args)],
        cwd=cwd,
        env=dict(env) if env is not None else None,
        capture_output=True,
        text=True,
        check=False,
    )
