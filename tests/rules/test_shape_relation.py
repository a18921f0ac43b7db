"""Rule kind `shape_relation`: relations between static tile extents (TFILLPAD_EXPAND's
`dst >= src`, TMRGSORT's `tmp` covering its lists, THISTOGRAM's index rows per byte)."""

from __future__ import annotations

import pytest

from ptogen.rule_api import TileDecl
from ptogen.rules import PageContext, PageLine
from ptogen.rules.shape_relation import ShapeRelationRule

from ..helpers import ROOT
from .common import OPS, PAGE, failing_cases, manifest


def test_tfillpad_expand_bounds_the_source_by_the_destination() -> None:
    op = OPS["tfillpad_expand"]
    (rv,) = [rv for rv in op.rules if isinstance(rv.rule, ShapeRelationRule)]
    assert rv.rule.condition(op, rv) == (
        "(DstTileData::Rows >= SrcTileData::Rows && DstTileData::Cols >= SrcTileData::Cols)"
    )
    failing = failing_cases("tfillpad_expand")
    assert set(failing) >= {"fail_a2a3_04_shape_relation", "fail_cpu_04_shape_relation"}


@pytest.mark.parametrize(
    ("relation", "grown", "rows"),
    [("dst.Rows >= src.Rows", "src", 32), ("dst.Rows <= src.Rows", "dst", 32), ("dst.Rows >= 8", "dst", 7)],
)
def test_a_bound_breaks_by_one_side_past_the_other(relation: str, grown: str, rows: int) -> None:
    rule = ShapeRelationRule(relations=[relation])
    tiles = {n: TileDecl(n, "float") for n in ("dst", "src")}
    broken = rule.break_static(None, tiles)  # type: ignore[arg-type]  # bounds need no context
    assert broken.changed == grown and broken.tiles[grown].rows == rows
    assert broken.tiles[grown].valid_rows <= rows


def test_a_bound_reads_back() -> None:
    line = PageLine(None, "Static shapes: dst.Rows >= src.Rows and dst.Cols >= src.Cols.")
    assert ShapeRelationRule.recognise(line, PAGE) == {
        "relations": ["dst.Rows >= src.Rows", "dst.Cols >= src.Cols"]
    }


def test_tmrgsort_tmp_covers_the_lists_summed_columns() -> None:
    op = OPS["tmrgsort"]
    failing = failing_cases("tmrgsort")
    for k, lists in ((1, 4), (2, 3), (3, 2)):
        relation = "tmp.Cols >= " + " + ".join(f"src{n}.Cols" for n in range(lists))
        for profile in ("A2A3", "A5"):
            prefix, suffix = f"fail_{profile.lower()}_", f"_f{k}"
            (case,) = [
                c
                for c, m in failing.items()
                if relation in m[0] and c.startswith(prefix) and c.endswith(suffix)
            ]
            assert failing[case] == [f"TMRGSORT [{profile}]: template shapes must satisfy {relation}"]
        assert not any(relation in m[0] for c, m in failing.items() if c.startswith("fail_cpu_"))
    # The list cases size tmp by the lists' declared columns.
    for group in manifest("tmrgsort")["runtime"]:
        for case in group["cases"]:
            if case["attrs"].get("form") == "lists":
                tiles = case["tiles"]
                lists = case["attrs"]["lists"].split(",")
                assert tiles["tmp"]["cols"] >= sum(tiles[n]["cols"] for n in lists), case["label"]
    page = (ROOT / "generated/docs/isa/TMRGSORT.md").read_text()
    assert "Static shapes: `tmp.Cols >= src0.Cols + src1.Cols`. Checked on declaration 4 only." in page
    assert op.spec.prose_constraints == []


def test_a_bound_by_a_sum_breaks_by_its_first_term_legalises_and_reads_back() -> None:
    rule = ShapeRelationRule(relations=["tmp.Cols >= src0.Cols + src1.Cols"])
    assert rule.rule_operands == ["tmp", "src0", "src1"]
    tiles = {n: TileDecl(n, "half", 1, 16, 1, 16) for n in ("tmp", "src0", "src1")}
    legal = rule.legalise(tiles)
    assert legal["tmp"].cols == 32
    broken = rule.break_static(None, legal).tiles  # type: ignore[arg-type]
    assert broken["src0"].cols + broken["src1"].cols > broken["tmp"].cols
    assert broken["tmp"] == legal["tmp"] and broken["src1"] == legal["src1"]
    page = PageContext([], {"A2A3", "A5", "CPU"}, ["tmp", "src0", "src1"], True)
    line = PageLine(None, "Static shapes: tmp.Cols >= src0.Cols + src1.Cols.")
    assert ShapeRelationRule.recognise(line, page) == {"relations": ["tmp.Cols >= src0.Cols + src1.Cols"]}


def test_thistogram_uint32_index_rows_per_byte_on_a5() -> None:
    failing = failing_cases("thistogram")
    for k, rows in ((2, 1), (1, 2), (0, 3)):
        # The rule states two relations; the broken case breaks the rows one, which alone is named.
        want = (
            f"THISTOGRAM [A5]: template shapes must satisfy idx.Rows == {rows}"
            f" when src is uint32_t and byte is HistByte::BYTE_{k}"
        )
        (case,) = [c for c, m in failing.items() if m == [want]]
        assert case.startswith("fail_a5_")
    assert not any("idx.Rows" in m[0] for c, m in failing.items() if not c.startswith("fail_a5_"))
    verify = (ROOT / "generated/tests/thistogram/verify.cpp").read_text()
    body = verify.split(f"void {case}() {{")[1].split("\n}\n")[0]
    assert (
        "using Tile_src = Tile<TileType::Vec, uint32_t," in body
        and "HistByte::BYTE_0>(dst, src, idx)" in body
    )
    # The runtime cases keep the rule: 3 - k filter rows as wide as the source.
    for group in manifest("thistogram")["runtime"]:
        for case_ in group["cases"]:
            k, tiles = int(case_["attrs"]["byte"]), case_["tiles"]
            if group["group"] == "uint32_t" and k < 3:
                assert tiles["idx"]["rows"] == 3 - k and tiles["idx"]["cols"] == tiles["src"]["cols"]
    page = (ROOT / "generated/docs/isa/THISTOGRAM.md").read_text()
    line = (
        "Static shapes: `idx.Rows == 3` and `idx.Cols == src.Cols` when `src` is `uint32_t` and `byte` is"
        " `HistByte::BYTE_0`."
    )
    assert line in page


def test_a_conditioned_shape_relation_applies_under_its_type_and_value_and_reads_back() -> None:
    rule = ShapeRelationRule.model_validate(
        {
            "relations": ["idx.Rows == 2", "idx.Cols == src.Cols"],
            "when_dtype": {"operands": ["src"], "dtypes": ["uint32_t"]},
            "when": {"param": "byte", "equals": "HistByte::BYTE_1"},
        }
    )
    assert rule.rule_operands == ["idx", "src"]
    tiles = {
        "src": TileDecl("src", "uint16_t", 16, 16, 16, 16),
        "idx": TileDecl("idx", "uint8_t", 16, 32, 16, 16),
    }
    broken = rule.break_static(None, tiles)  # type: ignore[arg-type]
    assert broken.values == {"byte": "HistByte::BYTE_1"}
    src, idx = broken.tiles["src"], broken.tiles["idx"]
    assert src.dtype == "uint32_t" and idx.cols == src.cols == 32  # the column relation holds
    assert idx.rows != 2 and idx.valid_rows <= idx.rows  # the row relation is the one broken
    page = PageContext([], {"A2A3", "A5", "CPU"}, ["dst", "src", "idx"], True)
    line = PageLine(
        "A5",
        "Static shapes: idx.Rows == 2 and idx.Cols == src.Cols"
        " when src is uint32_t and byte is HistByte::BYTE_1.",
    )
    assert ShapeRelationRule.recognise(line, page) == rule.model_dump(exclude_defaults=True, exclude={"kind"})
