"""The move op kind (TMOV, TMOV_FP), the transpose kind (TTRANS) and the location_pairs rule kind.

- The simulator gives upstream's CPU simulator's bytes: tests/compare/tmov_compare.cpp, built
  against the generated headers, prints what its build against upstream's include printed
  (pinned in tests/fixtures/tmov_compare_upstream.txt; with PTOGEN_UPSTREAM set, the pin is
  rebuilt from the checkout and compared too).
- The location tables: one per hardware profile, stated once in the op class, checked at compile
  time with the rule's message, documented and read back from a page; the CPU accepts every pair.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ptogen.rule_api import TileDecl
from ptogen.rules import PageContext, PageLine
from ptogen.rules.location_pairs import LocationPairsRule
from ptogen.testing.plan import plan_op

from ..compilers import COMPILERS, build_program, cxx_argv, require
from ..helpers import ROOT
from .common import OPS, PROJECT

COMPARE = ROOT / "tests/compare/tmov_compare.cpp"
PINNED = ROOT / "tests/fixtures/tmov_compare_upstream.txt"
# Upstream's CPU simulator spells bfloat16_t as _Float16 (a binary16) unless C++23's std::bfloat16_t
# exists (PTO_CPU_SIM_ENABLE_BF16), which neither clang++-19 nor g++ here offers: those lines compare
# two different types, not two TMOVs, and are left out.
NOT_COMPARED = "bfloat16"


def _lines(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line[:44].strip(), line[44:].strip()
            out[name] = value
    return out


@pytest.mark.parametrize("cxx", COMPILERS)
def test_simulator_gives_upstream_cpu_simulators_bytes(cxx: str, tmp_path: Path) -> None:
    require(cxx)
    exe = build_program(cxx, COMPARE.read_text(encoding="utf-8"), tmp_path, "tmov_compare")
    ours = _lines(subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout)
    upstream = _lines(PINNED.read_text(encoding="utf-8"))
    assert ours.keys() == upstream.keys()
    compared = [n for n in upstream if NOT_COMPARED not in n]
    assert len(compared) >= 20
    assert {n: ours[n] for n in compared} == {n: upstream[n] for n in compared}


@pytest.mark.skipif(
    not os.environ.get("PTOGEN_UPSTREAM"), reason="set PTOGEN_UPSTREAM to an upstream checkout"
)
def test_pinned_output_is_upstreams(tmp_path: Path) -> None:
    cxx = require("clang++-19")  # upstream's half is _Float16, which older clang++ lacks on x86
    upstream = Path(os.environ["PTOGEN_UPSTREAM"])
    exe = tmp_path / "up"
    flags = ["-std=c++20", "-D__CPU_SIM", f"-I{upstream / 'include'}", "-include", "cstdint"]
    subprocess.run([*cxx_argv(cxx), *flags, str(COMPARE), "-o", str(exe)], check=True, capture_output=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    assert _lines(out) == _lines(PINNED.read_text(encoding="utf-8"))


# ----------------------------------------------------------------------------- location pairs


def _pairs(op_name: str) -> dict[str, dict[str, list[str]]]:
    op = OPS[op_name]
    out = {}
    for rule in op.spec.constraints:
        if isinstance(rule, LocationPairsRule):
            for profile in rule.profiles or []:
                out[profile] = {k: list(v) for k, v in rule.pairs.items()}
    return out


def test_tables_are_the_documented_ones_stated_once() -> None:
    a2a3 = {"Mat": ["Left", "Right", "Bias", "Scaling"], "Vec": ["Vec"], "Acc": ["Mat"]}
    a5 = {
        "Mat": ["Left", "Right", "Bias", "Scaling", "ScaleLeft", "ScaleRight"],
        "Vec": ["Vec", "Mat"],
        "Acc": ["Vec", "Mat"],
    }
    for name in ("TMOV", "TMOV_FP"):
        assert _pairs(name) == {"A2A3": a2a3, "A5": a5}  # the CPU states no table: every pair
    # Stated in the op class only, not in either spec.
    for spec in ("tmov.yaml", "tmov_fp.yaml"):
        text = (ROOT / "specs/ops/layout_and_rearrangement" / spec).read_text(encoding="utf-8")
        assert "location_pairs" not in text
    assert "location_pairs" in (ROOT / "specs/classes/tile_move.yaml").read_text(encoding="utf-8")


def test_rule_condition_doc_and_page_round_trip() -> None:
    op = OPS["TMOV"]
    rule = LocationPairsRule(kind="location_pairs", operands=["src", "dst"], pairs={"Vec": ["Vec", "Mat"]})
    cond = rule.condition(op, type("RV", (), {"types": ["S", "D"]})())  # type: ignore[arg-type]
    assert cond == "((S::Loc == TileType::Vec && (D::Loc == TileType::Vec || D::Loc == TileType::Mat)))"
    doc = rule.doc(op)
    assert doc == "Location pairs (`src` to `dst`): `Vec` to `Vec`, `Mat`."
    line = PageLine(None, doc.replace("`", ""))
    found = LocationPairsRule.recognise(line, PageContext([line], {"A2A3"}, ["dst", "src"], True))
    assert found == {"operands": ["src", "dst"], "pairs": {"Vec": ["Vec", "Mat"]}}


def test_breaking_case_moves_the_destination_off_the_table() -> None:
    rule = LocationPairsRule(kind="location_pairs", operands=["src", "dst"], pairs={"Vec": ["Vec", "Mat"]})
    tiles = {"dst": TileDecl("dst", "float"), "src": TileDecl("src", "float")}
    bx = type("BX", (), {"op": OPS["TMOV"], "profile": "A5"})()
    broken = rule.break_static(bx, tiles)  # type: ignore[arg-type]
    assert (broken.tiles["src"].loc, broken.tiles["dst"].loc) == ("Vec", "Acc")
    assert broken.changed == "dst"
    everywhere = LocationPairsRule(
        kind="location_pairs",
        operands=["src", "dst"],
        pairs={"Vec": ["Vec", "Mat", "Acc", "Left", "Right", "Bias", "Scaling", "ScaleLeft", "ScaleRight"]},
    )
    with pytest.raises(ValueError, match="nothing breaks it"):
        everywhere.break_static(bx, tiles)  # type: ignore[arg-type]


MOVES = r"""
#include <pto/pto-inst.hpp>
using namespace pto;
template <TileType From, TileType To>
void move() {
    using Src = Tile<From, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
    using Dst = Tile<To, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
    Src src;
    Dst dst;
    TASSIGN(src, 0x0);
    TASSIGN(dst, 0x0);
    TMOV(dst, src);
}
int main() {
%s
    return 0;
}
"""

# (source, destination, legal) per profile: one translation unit each; every illegal pair fails
# its own static_assert with the rule's message, every legal one compiles.
PAIRS = {
    "A2A3": [("Mat", "Left", True), ("Acc", "Mat", True), ("Vec", "Left", False), ("Acc", "Vec", False)],
    "A5": [("Acc", "Vec", True), ("Mat", "ScaleLeft", True), ("Vec", "Left", False), ("Vec", "Acc", False)],
    "CPU": [("Vec", "Left", True), ("Acc", "Right", True), ("Acc", "Left", True), ("Vec", "Acc", True)],
}


@pytest.mark.parametrize("profile", sorted(PAIRS))
def test_each_profile_checks_its_table(profile: str, tmp_path: Path) -> None:
    cxx = require(COMPILERS[0])
    calls = "\n".join(f"    move<TileType::{s}, TileType::{d}>();" for s, d, _ in PAIRS[profile])
    (tmp_path / "m.cpp").write_text(MOVES % calls, encoding="utf-8")
    includes = [f"-I{ROOT / 'generated/include'}", f"-I{ROOT / 'ptogen/runtime/include'}"]
    flags = ["-std=c++20", "-D__CPU_SIM", f"-DPTO_TARGET_PROFILE=PTO_PROFILE_{profile}", "-fsyntax-only"]
    no_limit = "-ferror-limit=0" if "clang" in Path(cxx).name else "-fmax-errors=0"  # g++ spells it so
    argv = [*cxx_argv(cxx), *flags, no_limit, *includes, str(tmp_path / "m.cpp")]
    done = subprocess.run(argv, capture_output=True, text=True)
    message = f"TMOV [{profile}]: the tile locations of src and dst must be one of the profile's move pairs"
    illegal = [(s, d) for s, d, legal in PAIRS[profile] if not legal]
    assert done.stderr.count(message) == len(illegal), done.stderr[-3000:]
    errors = [line for line in done.stderr.splitlines() if "error:" in line]
    assert len(errors) == len(illegal), errors


# ----------------------------------------------------------------------------- transpose


def test_runtime_cases_run_where_the_table_admits_them() -> None:
    rule = LocationPairsRule(kind="location_pairs", operands=["src", "dst"], pairs={"Acc": ["Mat"]})
    acc = TileDecl("src", "float", loc="Acc")
    assert rule.admits_tiles({"src": acc, "dst": TileDecl("dst", "float", loc="Mat")})
    assert not rule.admits_tiles({"src": acc, "dst": TileDecl("dst", "float", loc="Vec")})
    # Acc -> Vec is on A5's table and the CPU's, not A2A3's; Acc -> Mat is on A2A3's.
    plan = plan_op(PROJECT, OPS["TMOV"])
    cube = [k for k in plan.runtime if k.id.startswith("float_cube")]
    where = {c.label: tuple(k.profiles) for k in cube for c in k.cases}
    assert where["Acc NZ to Vec row-major 32x32, valid 30x27"] == ("A5", "CPU")
    assert where["Acc NZ to Mat NZ 32x32"] == ("A2A3", "A5", "CPU")
    assert where["Vec row-major to Left NZ 32x32"] == ("CPU",)


SCALE_MOVE = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
using namespace pto;
int main() {
    // An MX scale tile whose K groups were padded: 3 valid columns in storage of 4.
    using Src = Tile<TileType::Mat, int8_t, 4, 32, BLayout::RowMajor, 4, 3>;
    using Dst = TileLeftScale<int8_t, 4, 4, 4, 4>;
    using Wide = TileLeftScale<int8_t, 4, 64, 4, 33>;
    Src src;
    Dst dst;
    Wide wide;
    TASSIGN(src, 0x0);
    TASSIGN(dst, 0x100);
    TASSIGN(wide, 0x200);
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 32; ++c)
            src.data()[r * 32 + c] = static_cast<int8_t>(10 * r + c);
    TMOV(dst, src);
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c)
            std::printf("%d%c", dst.GetElement(r, c), c == 3 ? '\n' : ' ');
    std::fflush(stdout);
    TMOV(wide, src);  // 33 columns do not lie within the source's 32
    std::printf("survived\n");
    return 0;
}
"""


def test_a_move_into_a_scale_tile_fills_its_valid_region_from_the_sources_storage(tmp_path: Path) -> None:
    """As upstream's A5 backend moves MX scales (tmatmul_mx_nddn pads K groups); a region beyond the
    source's storage stops with the rule's message."""
    cxx = require(COMPILERS[0])
    done = subprocess.run(
        [str(build_program(cxx, SCALE_MOVE, tmp_path, "scale_move"))], capture_output=True, text=True
    )
    expected = [" ".join(str(10 * r + c) for c in range(4)) for r in range(4)]
    assert done.stdout.splitlines()[:4] == expected
    assert done.returncode != 0 and "survived" not in done.stdout
    assert "TMOV [CPU]" in done.stderr and "must lie within its rows and columns" in done.stderr
