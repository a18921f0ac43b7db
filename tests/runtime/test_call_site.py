"""A run-time rule failure names the kernel's file and line of the call that broke it (sim::fail
in pto/common/check_core.hpp reads the stack back through addr2line): under each profile, at -O0
and -O2 (where the intrinsic is inlined into the kernel), through the intrinsic and through a
helper function of the kernel's own; without debug information it says how to get the line."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ..compilers import cxx_argv
from ..helpers import ROOT

KERNEL = """#include <pto/pto-inst.hpp>
using namespace pto;
using T = Tile<TileType::Vec, float, 8, 8, BLayout::RowMajor, DYNAMIC, DYNAMIC>;

static void add_rows(T& d, T& a, T& b) {
    TADD(d, a, b);  // BROKEN
}

int main() {
    T a(8, 8), b(4, 8), d(8, 8);
    add_rows(d, a, b);
    return 0;
}
"""
LINE = next(i for i, text in enumerate(KERNEL.splitlines(), 1) if "BROKEN" in text)

NO_ADDR2LINE = shutil.which("addr2line") is None
pytestmark = pytest.mark.skipif(NO_ADDR2LINE, reason="addr2line (binutils) is not installed")


def _run(cxx: str, flags: list[str], work: Path, profile: str) -> str:
    src = work / "kernel.cpp"
    src.write_text(KERNEL)
    exe = work / f"kernel_{profile}_{len(flags)}"
    includes = [f"-I{ROOT / 'generated/include'}", f"-I{ROOT / 'ptogen/runtime/include'}"]
    defines = ["-D__CPU_SIM", f"-DPTO_TARGET_PROFILE=PTO_PROFILE_{profile}"]
    built = subprocess.run(
        [*cxx_argv(cxx), "-std=c++20", *defines, *flags, *includes, str(src), "-o", str(exe)],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert ran.returncode != 0
    return ran.stderr


@pytest.mark.parametrize(
    "profile",
    [
        "CPU",
        pytest.param("A2A3", marks=pytest.mark.full_tier),
        pytest.param("A5", marks=pytest.mark.full_tier),
    ],
)
def test_a_run_time_failure_names_the_kernels_line(profile: str, tmp_path: Path):
    from ptogen.testing.runner import default_compilers

    cxx = default_compilers()[0]
    for opt in ("-O0", "-O2"):
        err = _run(cxx, ["-g", opt], tmp_path, profile)
        assert f"TADD [{profile}]: dst, src0 and src1 must have the same valid row/col" in err, err
        # The extents the rule compared, as the condition spells them: src1 has 4 valid rows.
        compared = (
            "\n  compared: dst.GetValidRow() = 8, src0.GetValidRow() = 8, dst.GetValidCol() = 8, "
            "src0.GetValidCol() = 8, src1.GetValidRow() = 4, src1.GetValidCol() = 8\n"
        )
        assert compared in err, err
        assert f"  at {tmp_path / 'kernel.cpp'}:{LINE}" in err, (opt, err)


def test_without_debug_information_the_message_says_how_to_get_the_line(tmp_path: Path):
    from ptogen.testing.runner import default_compilers

    err = _run(default_compilers()[0], ["-O0"], tmp_path, "CPU")
    assert "build with -g and put addr2line on PATH for the line" in err, err


def test_the_guides_run_time_sample_names_the_line_the_guide_states(tmp_path: Path):
    from ptogen.testing.runner import default_compilers

    sample = ROOT / "templates/site/guide/runtime_check.cpp"
    line = next(i for i, text in enumerate(sample.read_text().splitlines(), 1) if "TLRELU(" in text)
    claim = f"`  at runtime_check.cpp:{line}`"
    assert claim in (ROOT / "templates/site/guide.md.j2").read_text()
    exe = tmp_path / "runtime_check"
    includes = [f"-I{ROOT / 'generated/include'}", f"-I{ROOT / 'ptogen/runtime/include'}"]
    flags = ["-std=c++20", "-D__CPU_SIM", "-g", *includes]
    built = subprocess.run(
        [*cxx_argv(default_compilers()[0]), *flags, str(sample), "-o", str(exe)],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert f"  at {sample}:{line}\n" in ran.stderr, ran.stderr
