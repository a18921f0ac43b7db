"""The guide's claims about what compiles and what runs, checked under each profile: its
profile-check sample (TLRELU on int32_t tiles) builds and runs on the CPU profile, whose simulator
computes int32_t, and fails to compile under A2A3 and A5 with the documented rule."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ptogen.cli import RUNTIME_INCLUDE

from ..compilers import COMPILERS, cxx_argv, require
from ..helpers import ROOT

SAMPLE = ROOT / "templates/site/guide/profile_check.cpp"


def _build(cxx: str, profile: str, work: Path) -> subprocess.CompletedProcess[str]:
    flags = ["-std=c++20", "-D__CPU_SIM", f"-DPTO_TARGET_PROFILE=PTO_PROFILE_{profile}"]
    includes = [f"-I{ROOT / 'generated/include'}", f"-I{RUNTIME_INCLUDE}"]
    exe = work / f"check_{profile}"
    argv = [*cxx_argv(cxx), *flags, *includes, str(SAMPLE), "-o", str(exe)]
    return subprocess.run(argv, capture_output=True, text=True)


@pytest.mark.parametrize("cxx", COMPILERS)
def test_int32_tlrelu_runs_on_the_cpu_profile_and_is_refused_by_the_npu_profiles(
    cxx: str, tmp_path: Path
) -> None:
    require(cxx)
    built = _build(cxx, "CPU", tmp_path)
    assert built.returncode == 0, built.stderr
    assert subprocess.run([str(tmp_path / "check_CPU")], capture_output=True).returncode == 0
    for profile in ("A2A3", "A5"):
        refused = _build(cxx, profile, tmp_path)
        assert refused.returncode != 0
        assert f"TLRELU [{profile}]: DType must be one of:" in refused.stderr
