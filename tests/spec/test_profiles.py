"""Adding a profile (contributor guide, "Adding a profile"): one targets.yaml entry that extends A5, plus one
line in one op's spec that gives the new profile one more dtype. Everything else of A5 carries over."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from ptogen.cli import main

from ..compilers import COMPILERS, cxx_argv, require
from ..conftest import copy_project

TMAXS = "specs/ops/tile_scalar_and_immediate/tmaxs.yaml"
PROFILE = """\
  - name: A5X
    extends: A5
    macro: PTO_PROFILE_A5X
    title: A5 with 64-bit TMAXS
    description: An A5-class target whose TMAXS also takes 64-bit integers.
"""
# The one line in tmaxs.yaml: A5's list plus int64_t.
LINE = "  A5X: [int32_t, uint32_t, float, int16_t, uint16_t, half, bfloat16_t, uint8_t, int8_t, int64_t]\n"

KERNEL = """
#include <pto/pto-inst.hpp>
using namespace pto;
int main() {
    using T = Tile<TileType::Vec, %s, 8, 16>;
    T src, dst;
    TASSIGN(src, 0x0);
    TASSIGN(dst, 0x1000);
    TMAXS(dst, src, (%s)3);
    return 0;
}
"""


def _add_profile(project: Path) -> None:
    targets = project / "specs/targets.yaml"
    text = targets.read_text()
    anchor = "\ndefault_profile:"
    targets.write_text(text.replace(anchor, "\n" + PROFILE.rstrip("\n") + "\n" + anchor, 1))
    spec = project / TMAXS
    lines = spec.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("dtypes:"))
    if lines[at].rstrip().endswith("}"):  # a flow mapping: make it a block one first
        body = lines[at].split("{", 1)[1].rsplit("}", 1)[0]
        lines[at : at + 1] = [
            "dtypes:\n",
            *[f"  {part.strip()}\n" for part in body.split(", ") if part.strip()],
        ]
    lines.insert(at + 1, LINE)
    spec.write_text("".join(lines))


def _checks(project: Path, profile: str) -> str:
    return (project / f"generated/include/pto/profiles/{profile.lower()}_checks.hpp").read_text()


def _body(text: str, op: str) -> str:
    start = text.index(f"check_{op}()")
    return text[start : text.index("\n    }\n", start)]


@pytest.fixture(scope="module")
def a5x(tmp_path_factory: pytest.TempPathFactory, shared_cache: Path) -> Path:
    """The project with the A5X profile, generated once for this module's tests."""
    project = copy_project(tmp_path_factory.mktemp("a5x"), shared_cache)
    _add_profile(project)
    assert main(["--root", str(project), "gen"]) == 0
    return project


@pytest.mark.full_tier
def test_a_profile_extending_a5_with_one_more_dtype(
    a5x: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = a5x
    a5, a5x = _checks(project, "A5"), _checks(project, "A5X")
    # The one op that differs takes int64_t on A5X only.
    assert "int64_t" in _body(a5x, "TMAXS") and "int64_t" not in _body(a5, "TMAXS")
    # Every other op inherits A5's rules unchanged: only the profile's name in messages differs, and
    # the constants' numbers (a rule's place among the op's rules, which the new profile's own shifts).
    def same(body: str) -> str:
        return re.sub(r"\br\d+_", "r_", body.replace("[A5X]", "[A5]"))

    for op in ("TADD", "TROWSUM", "TCVT", "TLOAD"):
        assert same(_body(a5x, op)) == same(_body(a5, op))
    # `show` names where the new profile's rules came from.
    assert main(["--root", str(project), "show", "tadd"]) == 0
    shown = capsys.readouterr().out
    assert "A5X" in shown and "profile A5X extends A5" in shown
    # One generation serves every compiler (a generation of every op is the slow part).
    for cxx in COMPILERS:
        _compiles_what_it_adds(project, tmp_path, require(cxx))


def _compiles_what_it_adds(project: Path, tmp_path: Path, cxx: str) -> None:
    source = tmp_path / "k.cpp"
    source.write_text(KERNEL % ("int64_t", "int64_t"))
    includes = [f"-I{project / 'generated/include'}", f"-I{project / 'ptogen/runtime/include'}"]
    if not (project / "ptogen/runtime/include").is_dir():
        from ptogen.cli import RUNTIME_INCLUDE

        includes[1] = f"-I{RUNTIME_INCLUDE}"

    def build(profile: str) -> subprocess.CompletedProcess[str]:
        flags = ["-std=c++20", "-D__CPU_SIM", "-fsyntax-only", f"-DPTO_TARGET_PROFILE=PTO_PROFILE_{profile}"]
        return subprocess.run(
            [*cxx_argv(cxx), *flags, *includes, str(source)], capture_output=True, text=True
        )

    assert build("A5X").returncode == 0, build("A5X").stderr
    refused = build("A5")
    assert refused.returncode != 0 and "TMAXS [A5]" in refused.stderr
