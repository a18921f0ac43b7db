"""The Tile type's own rules and the cube's aliases (targets.yaml `tile_type:`): each rule's
generated compile-fail case fails with exactly its message and its legal twin compiles, under every
profile; a rule naming something that is not a Tile fact is refused with its location; the
aliases take each profile's box layout."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ptogen.errors import SpecErrors
from ptogen.spec.load import load_specs

from ..compilers import cxx_argv
from ..helpers import ROOT

INCLUDES = [f"-I{ROOT / 'generated/include'}", f"-I{ROOT / 'ptogen/runtime/include'}"]
PROFILES = ["A2A3", "A5", "CPU"]


def _clang() -> str:
    for name in ("clang++-19", "clang++"):
        if shutil.which(name):
            return name
    pytest.skip("clang++ not found on PATH: -Xclang -verify needs clang (apt-get install clang)")


@pytest.mark.parametrize("profile", PROFILES)
def test_every_tile_rule_fails_with_its_message_and_its_twin_compiles(profile: str) -> None:
    source = ROOT / "generated/tests/tile/verify.cpp"
    text = source.read_text()
    specs = load_specs(ROOT / "specs", ROOT)
    assert specs.targets.tile_type is not None
    for rule in specs.targets.tile_type.rules:  # one failing case and one twin per rule
        assert f"fail_{rule.id}()" in text and f"legal_{rule.id}()" in text
        assert f"{{{{Tile: {rule.summary}}}}}" in text
    proc = subprocess.run(
        [
            *cxx_argv(_clang()),
            "-std=c++20",
            f"-DPTO_TARGET_PROFILE=PTO_PROFILE_{profile}",
            *INCLUDES,
            "-fsyntax-only",
            "-Xclang",
            "-verify",
            str(source),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[:3000]


ALIASES = """#include <pto/common/pto_tile.hpp>
#include <type_traits>
using namespace pto;
static_assert(TileLeft<half, 16, 32>::Layout == BLayout::{left});
static_assert(TileLeft<half, 16, 32>::SFractal == SLayout::RowMajor);
static_assert(TileLeftCompact<half, 16, 32>::Compact == CompactMode::Normal);
static_assert(TileRight<half, 32, 16>::SFractal == SLayout::ColMajor);
static_assert(TileAcc<float, 16, 16>::SFractalSize == 1024);
static_assert(std::is_same_v<TileAcc<float, 16, 16, 8, 8>,
    Tile<TileType::Acc, float, 16, 16, BLayout::ColMajor, 8, 8, SLayout::RowMajor, 1024>>);
static_assert(TileRightScaleCompact<uint8_t, 2, 32>::Layout == BLayout::ColMajor);
"""


@pytest.mark.parametrize(
    ("flags", "left"),
    [
        (["-DPTO_TARGET_PROFILE=PTO_PROFILE_A2A3"], "RowMajor"),
        (["-DPTO_NPU_ARCH_A2A3"], "RowMajor"),
        (["-DPTO_NPU_ARCH_A2A3", "-D__CPU_SIM"], "ColMajor"),
        (["-DPTO_TARGET_PROFILE=PTO_PROFILE_A5"], "ColMajor"),
        ([], "ColMajor"),
    ],
)
def test_cube_aliases_take_each_profiles_box_layout(flags: list[str], left: str) -> None:
    proc = subprocess.run(
        [*cxx_argv(_clang()), "-std=c++20", *flags, *INCLUDES, "-fsyntax-only", "-x", "c++", "-"],
        input=ALIASES.format(left=left),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[:2000]


def test_a_rule_over_an_unknown_fact_is_refused_with_its_line(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "specs", tmp_path / "specs")
    targets = tmp_path / "specs/targets.yaml"
    text = targets.read_text()
    assert "      require: Rows % InnerRows == 0\n" in text
    targets.write_text(
        text.replace("      require: Rows % InnerRows == 0\n", "      require: Rows % BoxRows == 0\n")
    )
    line = targets.read_text().splitlines().index("      require: Rows % BoxRows == 0") + 1
    with pytest.raises(SpecErrors) as info:
        load_specs(tmp_path / "specs", tmp_path)
    message = str(info.value)
    assert f"specs/targets.yaml:{line}" in message
    assert "'BoxRows' is not a fact of the Tile type" in message


def test_an_alias_for_an_unknown_profile_is_refused_with_its_line(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "specs", tmp_path / "specs")
    targets = tmp_path / "specs/targets.yaml"
    old = "        A2A3: {blayout: RowMajor, slayout: RowMajor, fractal: fractalABSize}\n"
    text = targets.read_text()
    assert old in text
    targets.write_text(text.replace(old, old.replace("A2A3", "A3")))
    line = targets.read_text().splitlines().index(old.replace("A2A3", "A3").rstrip("\n")) + 1
    with pytest.raises(SpecErrors) as info:
        load_specs(tmp_path / "specs", tmp_path)
    assert f"specs/targets.yaml:{line}: tile_type.aliases[0].layouts.A3: unknown profile 'A3'" in str(
        info.value
    )
