"""Host compilers the C++ tests run with; a missing one is skipped with the reason, never silently."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ptogen.testing.pch import is_clang, precompiled_header_flags
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


def build_program(
    cxx: str,
    source: str,
    work: Path,
    name: str,
    extra: list[str] | None = None,
    libs: list[str] | None = None,
) -> Path:
    """Compile `source` into `work/name` with `cxx` (`libs` after the source, as a linker that drops
    unused libraries needs them); the compiler's errors fail the test."""
    from .helpers import ROOT

    includes = [f"-I{ROOT / 'generated/include'}", f"-I{ROOT / 'ptogen/runtime/include'}"]
    (work / f"{name}.cpp").write_text(source, encoding="utf-8")
    exe = work / name
    flags = [*SIM_FLAGS, *(extra or []), *includes]
    pch = precompiled_header(cxx, flags) if starts_with_the_header(source) else []
    built = subprocess.run(
        [*cxx_argv(cxx), *flags, *pch, str(work / f"{name}.cpp"), *(libs or []), "-o", str(exe)],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    return exe


_FIRST_INCLUDE = re.compile(r"\A(?:\s*(?://[^\n]*|/\*.*?\*/))*\s*#include <pto/pto-inst\.hpp>", re.S)


def starts_with_the_header(source: str) -> bool:
    """Whether nothing but comments comes before `#include <pto/pto-inst.hpp>`: no macro the header
    reads, whose definition a header parsed in advance would miss."""
    return _FIRST_INCLUDE.match(source) is not None


_LINK_ONLY = ("-rdynamic", "-l", "-Wl,", "-L")  # flags of the link, which a header's compile refuses


def precompiled_header(cxx: str, flags: list[str]) -> list[str]:
    """clang's flags to use `<pto/pto-inst.hpp>` precompiled under exactly `flags`, built once per
    checkout state and flag set in the checkout's cache (about a second of parsing saved by each
    program that includes it first, as `ptogen test` saves it for the kernels); [] for another
    compiler (g++ finds a precompiled header only beside the header itself), or when the header does
    not precompile."""
    from .helpers import ROOT

    if not is_clang(cxx):
        return []
    flags = [f for f in flags if not f.startswith(_LINK_ONLY)]
    return precompiled_header_flags(
        cxx,
        flags,
        ["pto/pto-inst.hpp"],
        _headers_hash(),
        ROOT / ".ptogen-cache" / "test-pch",
        lambda argv: subprocess.run([*cxx_argv(argv[0]), *argv[1:]], capture_output=True, text=True),
    )


@functools.cache
def _headers_hash() -> str:
    """The content of the headers a precompiled header holds (the checkout's, unchanged during a run)."""
    import hashlib

    from .helpers import ROOT

    h = hashlib.sha256()
    for top in (ROOT / "generated/include", ROOT / "ptogen/runtime/include"):
        for path in sorted(top.rglob("*")):
            if path.is_file():
                h.update(path.relative_to(ROOT).as_posix().encode())
                h.update(path.read_bytes())
    return h.hexdigest()


def build_shared_program(
    cxx: str,
    source: str,
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    extra: list[str] | None = None,
    libs: list[str] | None = None,
) -> Path:
    """`build_program` once per session: pytest-xdist's workers share the session's base directory
    and take turns on a lock, so a module-scoped program is compiled once, not once per worker."""
    import fcntl
    import os

    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return build_program(cxx, source, tmp_path_factory.mktemp(name), name, extra, libs)
    shared = tmp_path_factory.getbasetemp().parent / f"program-{name}"
    shared.mkdir(exist_ok=True)
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        exe = shared / name
        if not (shared / "built").exists():
            build_program(cxx, source, shared, name, extra, libs)
            (shared / "built").write_text("ok\n")
    return exe
