"""The `partial` kind (TPARTADD ... TPARTARGMIN: an op over the union of two valid regions, with a
second output for the arg forms) and the `union_region` rule kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptogen.cli import main
from ptogen.rule_api import TileDecl
from ptogen.rules import PageContext, PageLine
from ptogen.rules.union_region import UnionRegionRule

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
    sim = (ROOT / "generated/include/pto/cpu/sim/tpartargmax.hpp").read_text()
    assert "dst_idx.at(r, c) = src0_idx.at(r, c);" in sim and "= typename T_dst_idx::DType(0);" in sim


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
