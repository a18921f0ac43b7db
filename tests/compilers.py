"""Host compilers the C++ tests run with; a missing one is skipped with the reason, never silently."""

from __future__ import annotations

import shutil

import pytest

from ptogen.testing.runner import default_compilers

# One compiler locally (clang++ if installed, else g++); CI sets PTOGEN_TEST_COMPILERS="g++ clang++".
COMPILERS = default_compilers()


def require(compiler: str) -> str:
    path = shutil.which(compiler)
    if path is None:
        pytest.skip(f"{compiler} not found on PATH (install it, e.g. `apt-get install clang`)")
    return path
