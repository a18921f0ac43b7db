"""Fixtures shared by the test modules."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .helpers import ROOT

# Content-addressed caches (each entry keyed by a hash of everything that makes it, and checked
# when read), so every project copy of a test session may share them: a test that edits one spec
# then formats a few files instead of all of them.
SHARED_CACHES = ("format", "jinja")


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ptogen-cache")
    for name in SHARED_CACHES:
        seed = ROOT / ".ptogen-cache" / name
        if seed.is_dir():
            shutil.copytree(seed, root / name)
        else:
            (root / name).mkdir()
    return root


@pytest.fixture
def project(tmp_path: Path, shared_cache: Path) -> Path:
    """A private copy of the project (specs, templates, generated tree, style) to edit freely."""
    for name in ("specs", "templates", "generated"):
        shutil.copytree(ROOT / name, tmp_path / name)
    shutil.copy(ROOT / ".clang-format", tmp_path / ".clang-format")
    (tmp_path / ".ptogen-cache").mkdir()
    for name in SHARED_CACHES:
        (tmp_path / ".ptogen-cache" / name).symlink_to(shared_cache / name, target_is_directory=True)
    return tmp_path
