"""The `partial` kind (TPARTADD ... TPARTARGMIN: an op over the union of two valid regions, with a
second output for the arg forms) and the `union_region` rule kind."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ptogen.cli import main
from ptogen.rule_api import TileDecl
from ptogen.rules import PageContext, PageLine
from ptogen.rules.union_region import UnionRegionRule

from ..compilers import COMPILERS, build_program, require
from ..helpers import ROOT, edit
from .common import OPS, manifest

# ----------------------------------------------------------------------------- the partial kind


def test_partial_ops_pair_each_output_with_the_sources_it_copies() -> None:
    arg = OPS["TPARTARGMAX"]
    assert arg.kind.sources(arg) == ["src0", "src1"]
    assert arg.kind.partners(arg, "dst_idx") == ["src0_idx", "src1_idx"]
    assert arg.kind.partners(arg, "dst") == ["src0", "src1"]
    math = arg.kind.math(arg)
    assert r"\mathrm{dst\_idx}_{i,j} = \begin{cases}" in math
    assert r"\mathrm{src1\_idx}_{i,j} & (i,j) \in V_1 \setminus V_0" in math


# src0 valid 2 x 3, src1 valid 3 x 2, dst valid 3 x 3: each part of the union, and (2, 2) in neither.
ARGMAX = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
using namespace pto;
using ValT = Tile<TileType::Vec, float, 4, 8, BLayout::RowMajor, -1, -1>;
using IdxT = Tile<TileType::Vec, int32_t, 4, 8, BLayout::RowMajor, -1, -1>;
int main() {
    ValT dst(3, 3), src0(2, 3), src1(3, 2);
    IdxT dst_idx(3, 3), src0_idx(2, 3), src1_idx(3, 2);
    TASSIGN(dst, 0x0);
    TASSIGN(src0, 0x100);
    TASSIGN(src1, 0x200);
    TASSIGN(dst_idx, 0x300);
    TASSIGN(src0_idx, 0x400);
    TASSIGN(src1_idx, 0x500);
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 8; ++c) {
            dst.SetElement(r, c, -1.0f);
            dst_idx.SetElement(r, c, -1);
            src0.SetElement(r, c, float(10 * r + c));
            src1.SetElement(r, c, float(5 + 10 * r - c));
            src0_idx.SetElement(r, c, 100 + 8 * r + c);
            src1_idx.SetElement(r, c, 200 + 8 * r + c);
        }
    TPARTARGMAX(dst, src0, src1, dst_idx, src0_idx, src1_idx);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            std::printf("%g %d\n", double(dst.GetElement(r, c)), int(dst_idx.GetElement(r, c)));
    return 0;
}
"""


def test_partial_argmax_takes_each_part_of_the_union_from_its_source(tmp_path: Path) -> None:
    exe = build_program(require(COMPILERS[0]), ARGMAX, tmp_path, "tpartargmax")
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    want = []
    for r in range(3):
        for c in range(3):
            in0, in1 = r < 2, c < 2  # src0 is 2 x 3, src1 is 3 x 2
            v0, v1, i0, i1 = 10 * r + c, 5 + 10 * r - c, 100 + 8 * r + c, 200 + 8 * r + c
            if in0 and in1:
                want.append((v0, i0) if v0 > v1 else (v1, i1))
            else:
                want.append((v0, i0) if in0 else (v1, i1) if in1 else (0, 0))
    assert [tuple(int(float(x)) for x in line.split()) for line in run.stdout.splitlines()] == want


def test_partial_cases_split_the_sources_valid_regions_every_way() -> None:
    seen = set()
    for group in manifest("tpartadd")["runtime"]:
        for case in group["cases"]:
            t = case["tiles"]
            region = {n: (t[n]["valid_rows"], t[n]["valid_cols"]) for n in ("dst", "src0", "src1")}
            smaller = [n for n in ("src0", "src1") if region[n] != region["dst"]]
            assert len(smaller) <= 1 and "scalar" not in case["label"]
            for n in smaller:
                assert region[n][0] <= region["dst"][0] and region[n][1] <= region["dst"][1]
            seen.add(tuple(smaller))
    assert seen == {(), ("src0",), ("src1",)}
    # Each value tile's index tile follows it.
    for group in manifest("tpartargmin")["runtime"]:
        for case in group["cases"]:
            t = case["tiles"]
            for v, i in (("src0", "src0_idx"), ("src1", "src1_idx")):
                assert (t[v]["valid_rows"], t[v]["valid_cols"]) == (t[i]["valid_rows"], t[i]["valid_cols"])


def test_the_a2a3_value_index_table_fails_alone() -> None:
    verify = (ROOT / "generated/tests/tpartargmax/verify.cpp").read_text()
    body = verify.split("void fail_a2a3_03_dtype_tuples() {")[1].split("\n}\n")[0]
    assert body.count("Tile<TileType::Vec, float,") == 3 and body.count("Tile<TileType::Vec, int16_t,") == 3


def test_extra_outputs_belong_to_kinds_that_allow_them(
    spec_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = edit(
        spec_project,
        "specs/ops/elementwise_tile_tile/tadd.yaml",
        "semantics: {expr: src0 + src1}",
        "semantics: {expr: src0 + src1, extra_outputs: {dst: src0}}",
    )
    assert main(["--root", str(spec_project), "gen"]) == 2
    errors = [e for e in capsys.readouterr().err.splitlines() if e.startswith("error:")]
    assert any(
        f"tadd.yaml:{line}: semantics.extra_outputs: only vector ops and tile kinds that allow it" in e
        for e in errors
    ), errors


# ----------------------------------------------------------------------------- union_region


def test_union_region_states_the_pattern_and_reads_it_back() -> None:
    op = OPS["TPARTADD"]
    rule = UnionRegionRule(kind="union_region", operands=["dst", "src0", "src1"])
    cond = rule.condition(op, None)  # type: ignore[arg-type]
    assert cond.startswith(
        "(src0.GetValidRow() == dst.GetValidRow() && src0.GetValidCol() == dst.GetValidCol()"
    )
    assert "src1.GetValidRow() <= dst.GetValidRow()" in cond
    assert (
        rule.text(op) == "src0 or src1 must have the valid region of dst and the other's must lie within it"
    )
    page = PageContext([], {"A5"}, ["dst", "src0", "src1"], False)
    for within in (True, False):
        r = UnionRegionRule(kind="union_region", operands=["dst", "src0", "src1"], within=within)
        line = r.doc(op).replace("`", "")
        assert UnionRegionRule.recognise(PageLine(None, line), page) == {
            "operands": ["dst", "src0", "src1"]
        } | ({} if within else {"within": False})
    tiles = {n: TileDecl(n, "float") for n in ("dst", "src0", "src1")}
    broken, _ = rule.break_runtime(tiles, {})
    assert (broken["src0"].valid_rows, broken["src0"].valid_cols) == (16, 15)
    assert (broken["src1"].valid_rows, broken["src1"].valid_cols) == (15, 16)
    runtime_fail = {c["case"] for c in manifest("tpartadd")["runtime_fail"]}
    assert {"rf_a2a3_07_union_region", "rf_a5_07_union_region"} <= runtime_fail
