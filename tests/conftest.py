"""Fixtures shared by the test modules."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .helpers import ROOT


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A private copy of the project (specs, templates, generated tree, style) to edit freely."""
    for name in ("specs", "templates", "generated"):
        shutil.copytree(ROOT / name, tmp_path / name)
    shutil.copy(ROOT / ".clang-format", tmp_path / ".clang-format")
    return tmp_path
