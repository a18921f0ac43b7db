"""Host compilers the C++ tests run with; a missing one is skipped with the reason, never silently."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ptogen.testing.runner import default_compilers, default_launcher

# One compiler locally (clang++ if installed, else g++); CI sets PTOGEN_TEST_COMPILERS="clang++ g++"
# (the full kernel tier on the first, the quick one on the second: tests/test_simulator.py).
COMPILERS = default_compilers()


def require(compiler: str) -> str:
    path = shutil.which(compiler)
    if path is None:
        pytest.skip(f"{compiler} not found on PATH (install it, e.g. `apt-get install clang`)")
    return path


def cxx_argv(cxx: str) -> list[str]:
    """How the tests start a compiler: behind PTOGEN_CXX_LAUNCHER (ccache, say) when that is set, as
    `ptogen test` does, so every compile of the suite goes through the launcher."""
    return [*default_launcher(), cxx]


# How the C++ tests build a host program against the generated headers and the runtime, as code
# written for upstream's CPU simulator is built (`-D__CPU_SIM`), warnings as errors.
SIM_FLAGS = ["-std=c++20", "-D__CPU_SIM", "-Wall", "-Wextra", "-Werror"]


def build_program(cxx: str, source: str, work: Path, name: str, extra: list[str] | None = None) -> Path:
    """Compile `source` into `work/name` with `cxx`; the compiler's errors fail the test."""
    from .helpers import ROOT

    includes = [f"-I{ROOT / 'generated/include'}", f"-I{ROOT / 'ptogen/runtime/include'}"]
    (work / f"{name}.cpp").write_text(source, encoding="utf-8")
    exe = work / name
    built = subprocess.run(
        [*cxx_argv(cxx), *SIM_FLAGS, *(extra or []), *includes, str(work / f"{name}.cpp"), "-o", str(exe)],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    return exe


def build_shared_program(
    cxx: str, source: str, tmp_path_factory: pytest.TempPathFactory, name: str, extra: list[str] | None = None
) -> Path:
    """`build_program` once per session: pytest-xdist's workers share the session's base directory
    and take turns on a lock, so a module-scoped program is compiled once, not once per worker."""
    import fcntl
    import os

    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return build_program(cxx, source, tmp_path_factory.mktemp(name), name, extra)
    shared = tmp_path_factory.getbasetemp().parent / f"program-{name}"
    shared.mkdir(exist_ok=True)
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        exe = shared / name
        if not (shared / "built").exists():
            build_program(cxx, source, shared, name, extra)
            (shared / "built").write_text("ok\n")
    return exe
