"""Bit-exactness against upstream's CPU simulator for the cube's transfers: each comparison kernel
of tests/fixtures/cube_transfer/ is built once against upstream's include/ and once against the
generated headers, and both programs must print the same lines (hashes and leading elements of
every loaded tile and stored buffer). Needs an upstream checkout (PTOGEN_UPSTREAM) and a compiler
that builds upstream's headers (clang++-19)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ..compilers import cxx_argv
from ..helpers import ROOT

FIXTURES = ROOT / "tests/fixtures/cube_transfer"
UPSTREAM = os.environ.get("PTOGEN_UPSTREAM")
CXX = shutil.which("clang++-19")

pytestmark = pytest.mark.skipif(
    not UPSTREAM or CXX is None, reason="set PTOGEN_UPSTREAM to an upstream checkout (and install clang++-19)"
)


def _run(source: Path, flags: list[str], exe: Path) -> list[str]:
    assert CXX is not None
    built = subprocess.run(
        [*cxx_argv(CXX), "-std=c++20", "-w", *flags, str(source), "-o", str(exe)],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.splitlines()


@pytest.mark.parametrize("name", sorted(p.stem for p in FIXTURES.glob("*.cpp")))
def test_the_simulator_matches_upstreams_bit_for_bit(name: str, tmp_path: Path) -> None:
    source = FIXTURES / f"{name}.cpp"
    upstream = ["-D__CPU_SIM", f"-I{Path(str(UPSTREAM)) / 'include'}", "-include", "cstdint"]
    ours = [f"-I{ROOT / 'generated/include'}", f"-I{ROOT / 'ptogen/runtime/include'}", "-ffp-contract=off"]
    want = _run(source, upstream, tmp_path / "upstream")
    got = _run(source, ours, tmp_path / "ptogen")
    assert len(want) > 5 and got == want
