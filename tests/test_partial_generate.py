"""The `partial` kind (TPARTADD ... TPARTARGMIN: an op over the union of two valid regions, with a
second output for the arg forms), the `generate` kind (TCI, TTRI: tiles computed from their own
indices, index letters used as values in index notation) and the `union_region` rule kind."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from ptogen.cli import main
from ptogen.lower.views import ProjectView
from ptogen.rule_api import TileDecl
from ptogen.rules import PageContext, PageLine
from ptogen.rules.union_region import UnionRegionRule
from ptogen.spec import expr as semantics
from ptogen.spec.load import load_specs
from ptogen.testing import refmath as rm

from .helpers import ROOT, edit

PROJECT = ProjectView(load_specs(ROOT / "specs", ROOT))
OPS = {o.name: o for o in PROJECT.ops}


def _reference(op: str) -> ModuleType:
    path = ROOT / f"generated/tests/{op}/reference.py"
    spec = importlib.util.spec_from_file_location(f"ref_{op}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ----------------------------------------------------------------------------- index letters as values


def test_an_index_letter_is_a_value_in_every_rendering() -> None:
    node = semantics.parse("dst[i,j] = select(j <= i + d, 1, 0)", {"dst", "d"})
    cmp = node.args[1].args[0]
    assert cmp.op == "cmp" and cmp.args[0] == semantics.Node("ivar", value="j")
    assert semantics.to_latex(node, lambda n: n) == r"\mathrm{dst}_{i,j} = (j \le i + d) ? 1 : 0"
    loops = semantics.to_cpp_loops(
        node, {"i": "R", "j": "K"}, lambda n, x: "", lambda x, v: f"out = {v};", "C"
    )
    assert "for (int j = 0; j < K; ++j)" in loops and "C(j) <= sim::add<C>(C(i), d)" in loops
    code = semantics.to_numpy(node)
    with rm.index_extents({"i": 3, "j": 4}):
        got = eval(code, {"rm": rm, "C": np.int64, "d": np.int64(0)})  # noqa: S307 - the renderer's own output
    assert np.array_equal(np.broadcast_to(got, (3, 4)), np.tril(np.ones((3, 4), dtype=np.int64)))


def test_an_index_value_needs_its_extent_and_its_binding() -> None:
    node = semantics.parse("dst[i,j] = start + j", {"dst", "start"})
    with pytest.raises(ValueError, match="extent is not known"):
        eval(semantics.to_numpy(node), {"rm": rm, "C": np.int64, "start": np.int64(1)})  # noqa: S307
    with pytest.raises(semantics.ExprError, match="'k' is neither an operand nor an index in scope"):
        semantics.parse("dst[i,j] = start + k", {"dst", "start"})


def test_ttri_and_tci_goldens_match_numpys_own_masks_and_ranges() -> None:
    ttri, tci = _reference("ttri"), _reference("tci")
    for d in (-3, 0, 2):
        with rm.index_extents({"i": 5, "j": 7}):
            lower = np.broadcast_to(ttri.reference(np.int64, np.float32, np.int64(d), np.int64(0)), (5, 7))
            upper = np.broadcast_to(ttri.reference(np.int64, np.float32, np.int64(d), np.int64(1)), (5, 7))
        assert np.array_equal(lower, np.tril(np.ones((5, 7)), d))
        assert np.array_equal(upper, np.triu(np.ones((5, 7)), d))
    with rm.index_extents({"i": 1, "j": 6}):
        up = tci.reference(np.int64, np.int32, np.int64(10), np.int64(0))
        down = tci.reference(np.int64, np.int32, np.int64(10), np.int64(1))
    assert np.array_equal(np.ravel(up), 10 + np.arange(6)) and np.array_equal(
        np.ravel(down), 10 - np.arange(6)
    )


def test_generated_tiles_compute_signed_index_arithmetic_and_call_with_every_template_argument() -> None:
    sim = (ROOT / "generated/include/pto/cpu/sim/ttri.hpp").read_text()
    assert "std::conditional_t<is_integer_v<typename T_dst::DType>, int64_t" in sim
    cases = (ROOT / "generated/tests/tci/cases.cpp").read_text()
    assert "profiled::TCI<profile_cpu, Tile_dst, decltype(start_value), 1>(dst, start_value)" in cases
    labels = {c["label"] for g in _manifest("ttri")["runtime"] for c in g["cases"]}
    assert any("is_upper_or_lower 1, diagonal -20" in label for label in labels)
    assert any("col-major" in label for label in labels)  # A5 takes any layout
    assert all(c["tiles"]["dst"]["rows"] == 1 for g in _manifest("tci")["runtime"] for c in g["cases"])


def _manifest(op: str) -> dict:
    return json.loads((ROOT / f"generated/tests/{op}/manifest.json").read_text())["manifest"]


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
    for group in _manifest("tpartadd")["runtime"]:
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
    for group in _manifest("tpartargmin")["runtime"]:
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
    runtime_fail = {c["case"] for c in _manifest("tpartadd")["runtime_fail"]}
    assert {"rf_a2a3_07_union_region", "rf_a5_07_union_region"} <= runtime_fail
