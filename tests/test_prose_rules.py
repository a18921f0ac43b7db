"""Rules that were prose on their pages (issues #23/#24, h-rules): the `template_value` kind (TTRI's
`isUpperOrLower`), `shape_relation` bounds (TFILLPAD_EXPAND's `dst >= src`) and rules limited to the
declarations that take their operands (TCONCAT's index tiles). Their compile-fail kernels run with
each op in tests/test_simulator.py; here, what each rule states, how it breaks and reads back."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from ptogen.importer.build import import_page
from ptogen.lower.views import ProjectView
from ptogen.rule_api import TileDecl
from ptogen.rules import PageContext, PageLine, Rule
from ptogen.rules.scratch_bytes import ScratchBytesRule
from ptogen.rules.shape_relation import ShapeRelationRule
from ptogen.rules.template_value import TemplateValueRule
from ptogen.spec.load import load_specs

from .helpers import ROOT

SPECS = load_specs(ROOT / "specs", ROOT)
PROJECT = ProjectView(SPECS)
OPS = {o.spec.short: o for o in PROJECT.ops}
PAGE = PageContext([], {"A2A3", "A5", "CPU"}, ["dst", "src"], True)


def _manifest(op: str) -> dict[str, Any]:
    return json.loads((ROOT / f"generated/tests/{op}/manifest.json").read_text())["manifest"]  # type: ignore[no-any-return]


def _failing(op: str) -> dict[str, list[str]]:
    return {c["case"]: c["messages"] for c in _manifest(op)["compile"] if c["must_fail"]}


# ----------------------------------------------------------------------------- template_value


def test_ttri_checks_its_template_value_on_every_profile() -> None:
    ttri = OPS["ttri"]
    (rv,) = [rv for rv in ttri.rules if isinstance(rv.rule, TemplateValueRule)]
    assert rv.rule.condition(ttri, rv) == "(isUpperOrLower == 0 || isUpperOrLower == 1)"
    assert rv.rule.doc(ttri) == "Template argument `isUpperOrLower` must be `0` or `1`."
    failing = _failing("ttri")
    for profile in ("A2A3", "A5", "CPU"):
        case = next(
            k for k in failing if k.startswith(f"fail_{profile.lower()}_") and k.endswith("template_value")
        )
        assert failing[case] == [f"TTRI [{profile}]: template argument isUpperOrLower must be 0 or 1"]
    verify = (ROOT / "generated/tests/ttri/verify.cpp").read_text()
    assert "TTRI<profile_cpu, Tile_dst, 2>(dst" in verify  # the failing kernel passes 2, legal tiles


def test_a_template_value_breaks_by_the_value_alone() -> None:
    rule = TemplateValueRule(param="descending", values=[0, 1, 3])
    tiles = {"dst": TileDecl("dst", "int32_t")}
    broken = rule.break_static(None, tiles)  # type: ignore[arg-type]  # the kind needs no context
    assert broken.values == {"descending": "4"} and broken.tiles == tiles


def test_a_template_value_reads_back_from_its_line() -> None:
    line = PageLine(None, "Template argument isUpperOrLower must be 0 or 1 (lower or upper).")
    assert TemplateValueRule.recognise(line, PAGE) == {
        "param": "isUpperOrLower",
        "values": [0, 1],
        "note": "lower or upper",
    }
    assert TemplateValueRule.recognise(PageLine(None, "dst must be 1 row"), PAGE) is None


def test_a_template_value_names_a_value_parameter_of_the_intrinsic() -> None:
    spec = OPS["ttri"].spec
    wrong = TemplateValueRule(param="TileData", values=[0])
    assert [where for where, _ in wrong.check(spec, SPECS.targets)] == [("param",)]
    twice = TemplateValueRule(param="isUpperOrLower", values=[1, 1])
    assert [where for where, _ in twice.check(spec, SPECS.targets)] == [("values",)]
    with pytest.raises(ValidationError):
        TypeAdapter(Rule).validate_python({"kind": "template_value", "param": "x", "values": []})


# ----------------------------------------------------------------------------- shape_relation bounds


def test_tfillpad_expand_bounds_the_source_by_the_destination() -> None:
    op = OPS["tfillpad_expand"]
    (rv,) = [rv for rv in op.rules if isinstance(rv.rule, ShapeRelationRule)]
    assert rv.rule.condition(op, rv) == (
        "(DstTileData::Rows >= SrcTileData::Rows && DstTileData::Cols >= SrcTileData::Cols)"
    )
    assert set(_failing("tfillpad_expand")) >= {"fail_a2a3_04_shape_relation", "fail_cpu_04_shape_relation"}


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


# ----------------------------------------------------------------------------- rules of some declarations


def test_tconcat_index_types_are_rules_of_the_index_forms() -> None:
    failing = _failing("tconcat")
    for profile in ("a2a3", "a5"):
        assert any(k.startswith(f"fail_{profile}_") and k.endswith("_dtype_f1") for k in failing)
        assert any(k.startswith(f"fail_{profile}_") and k.endswith("_same_dtype_f2") for k in failing)
    assert not any(k.startswith("fail_cpu_") and k.endswith(("_f1", "_f2")) for k in failing)
    checks = (ROOT / "generated/include/pto/profiles/a5_checks.hpp").read_text()
    assert "std::is_same_v<typename Src0IdxTile::DType, typename DstIdxTile::DType>" in checks


@pytest.mark.parametrize("page", ["TCONCAT.md", "tile/ops/layout-and-rearrangement/tconcat.md"])
def test_rules_of_some_declarations_read_back_with_their_operands(page: Path) -> None:
    spec = import_page(ROOT / "generated/docs/isa" / page, SPECS.targets).spec
    limited = [(c["kind"], c["operands"], c["forms"]) for c in spec["constraints"] if "forms" in c]
    assert ("dtype", ["dst_idx", "src0_idx", "src1_idx"], [2]) in limited
    assert ("same_dtype", ["src0_idx", "src1_idx"], [1, 2]) in limited


def test_tmrgsort_checks_tmp_and_every_list_of_its_list_forms() -> None:
    failing = _failing("tmrgsort")
    for k, named in (
        (1, "src0, tmp, src1, src2 and src3"),
        (2, "src0, tmp, src1 and src2"),
        (3, "src0, tmp and src1"),
    ):
        for profile in ("A2A3", "A5"):
            (case,) = [
                c
                for c in failing
                if c.startswith(f"fail_{profile.lower()}_") and c.endswith(f"same_dtype_f{k}")
            ]
            assert failing[case] == [f"TMRGSORT [{profile}]: {named} must have the same DType"]
        assert not any(c.startswith("fail_cpu_") and c.endswith(f"same_dtype_f{k}") for c in failing)
        for kind in ("row_major", "location", "shape_relation"):
            assert any(c.startswith("fail_cpu_") and c.endswith(f"{kind}_f{k}") for c in failing)
    verify = (ROOT / "generated/tests/tmrgsort/verify.cpp").read_text()
    # A list form's compile cases declare its context struct and pass each tile's own type.
    assert "MrgSortExecutedNumList executed_f3;" in verify
    assert "TMRGSORT<profile_cpu, Tile_dst, Tile_tmp_f1, Tile_src0_f1, Tile_src1_f1" in verify


# ----------------------------------------------------------------------------- scratch_bytes


def test_tci_sizes_its_a2a3_scratch_by_the_destination_element() -> None:
    tci = OPS["tci"]
    (rule,) = [r for r in tci.spec.constraints if isinstance(r, ScratchBytesRule)]
    assert rule.profiles == ["A2A3"] and rule.forms == [1]
    doc = rule.doc(tci)
    assert doc == (
        "Scratch size: `tmp` spans at least 768 bytes with 4-byte `dst` elements"
        " or 1792 bytes with 2-byte `dst` elements."
    )
    read = ScratchBytesRule.recognise(PageLine("A2A3", doc.replace("`", "")), PAGE)
    assert read == {"operands": ["tmp", "dst"], "min_bytes": [[4, 768], [2, 1792]]}
    failing = _failing("tci")
    assert failing["fail_a2a3_08_scratch_bytes_f1"] == [f"TCI [A2A3]: {rule.text(tci)}"]
    assert not any(k.startswith(("fail_a5_", "fail_cpu_")) and k.endswith("_f1") for k in failing)


def test_a_scratch_breaks_below_and_legalises_above_every_minimum() -> None:
    rule = ScratchBytesRule(operands=["tmp", "dst"], min_bytes=[(4, 768), (2, 1792)])
    tiles = {"dst": TileDecl("dst", "int32_t", 1, 16, 1, 16), "tmp": TileDecl("tmp", "float", 1, 16, 1, 16)}
    broken = rule.break_static(None, tiles)  # type: ignore[arg-type]  # the kind needs no context
    assert broken.changed == "tmp" and broken.tiles["tmp"].rows * broken.tiles["tmp"].cols * 4 < 768
    legal = rule.legalise(tiles)["tmp"]
    assert legal.rows * legal.cols >= 1792  # elements: enough bytes whatever the element type
    assert rule.legalise({"dst": tiles["dst"]}) == {"dst": tiles["dst"]}


# ----------------------------------------------------------------------------- h-rules2: TGATHER, TINSERT


def test_tgather_a2a3_compares_int32_with_eq_only() -> None:
    op = OPS["tgather"]
    (rule,) = [
        r
        for r in op.spec.constraints
        if isinstance(r, TemplateValueRule) and r.when_dtype is not None and r.forms == [1]
    ]
    assert rule.profiles == ["A2A3"]
    (rv,) = [rv for rv in op.forms[1].rules_for("A2A3") if rv.rule is rule]
    assert rv.condition == (
        "(!(sim::is_one_of_v<typename TileDataS::DType, int32_t>) || (cmpMode == CmpMode::EQ))"
    )
    assert rule.doc(op) == "Template argument `cmpMode` must be `CmpMode::EQ` when `src0` is `int32_t`."
    failing = _failing("tgather")
    (case,) = [
        c for c in failing if c.startswith("fail_a2a3_") and c.endswith(f"{rv.index:02d}_template_value_f1")
    ]
    assert failing[case] == [
        "TGATHER [A2A3]: template argument cmpMode must be CmpMode::EQ when src0 is int32_t"
    ]
    verify = (ROOT / "generated/tests/tgather/verify.cpp").read_text()
    body = verify.split(f"void {case}() {{")[1].split("\n}\n")[0]
    # An int32_t source with GT: a value the unconditional rule allows, so only this rule breaks.
    assert "Tile<TileType::Vec, int32_t" in body.split("Tile_src0 =")[1].split(";")[0]
    assert "CmpMode::GT>(" in body
    assert not any(
        c.startswith(("fail_a5_", "fail_cpu_")) and c.endswith(f"{rv.index:02d}_template_value_f1")
        for c in failing
    )


def test_a_conditioned_template_value_applies_to_its_types_only() -> None:
    op = OPS["tgather"]
    (rule,) = [
        r
        for r in op.spec.constraints
        if isinstance(r, TemplateValueRule) and r.when_dtype is not None and r.forms == [1]
    ]
    rv = op.rule_view(rule)
    assert rule.rule_operands == ["src0"] and rule.listed_dtypes() == ["int32_t"]
    assert rule.broken_by(op, rv, {"src0": "int32_t"}, {"cmpMode": "CmpMode::GT"})
    assert not rule.broken_by(op, rv, {"src0": "float"}, {"cmpMode": "CmpMode::GT"})
    assert not rule.broken_by(op, rv, {"src0": "int32_t"}, {"cmpMode": "CmpMode::EQ"})
    # Outside the values of the unconditional rule when it can: GT, not NE.
    assert (
        rule.outside({"CmpMode": ["EQ", "NE", "LT", "GT"]}, keep=["CmpMode::GT", "CmpMode::EQ"])
        == "CmpMode::GT"
    )
    assert rule.outside({"CmpMode": ["EQ", "NE", "LT", "GT"]}) == "CmpMode::NE"


def test_a_conditioned_template_value_reads_back_and_checks_its_types() -> None:
    line = PageLine(
        "A5",
        "Template argument gatherType must be GatherAxis::GATHER_ROW"
        " when dst and src are int64_t or uint64_t.",
    )
    assert TemplateValueRule.recognise(line, PAGE) == {
        "param": "gatherType",
        "values": ["GatherAxis::GATHER_ROW"],
        "when_dtype": {"operands": ["dst", "src"], "dtypes": ["int64_t", "uint64_t"]},
    }
    spec = OPS["tgather"].spec
    wrong = TemplateValueRule(
        param="cmpMode",
        values=["CmpMode::EQ"],
        forms=[1],
        when_dtype={"operands": ["src0"], "dtypes": ["int33_t"]},
    )  # type: ignore[arg-type]
    assert [where for where, _ in wrong.check(spec, SPECS.targets)] == [("when_dtype", "dtypes", 0)]
    absent = TemplateValueRule(
        param="cmpMode",
        values=["CmpMode::EQ"],
        forms=[1],
        when_dtype={"operands": ["nope"], "dtypes": ["int32_t"]},
    )  # type: ignore[arg-type]
    assert [where for where, _ in absent.check(spec, SPECS.targets)] == [("operands", 0)]


def test_tgather_mask_form_keeps_the_element_size_and_b64_rows() -> None:
    failing = _failing("tgather")
    for profile in ("A2A3", "A5", "CPU"):
        (case,) = [
            c
            for c in failing
            if c.startswith(f"fail_{profile.lower()}_") and c.endswith("same_element_size_f2")
        ]
        assert failing[case] == [
            f"TGATHER [{profile}]: the element types of dst and src must have the same size"
        ]
    (b64,) = [c for c in failing if c.startswith("fail_a5_") and c.endswith("template_value_f2")]
    assert failing[b64] == [
        "TGATHER [A5]: template argument gatherType must be GatherAxis::GATHER_ROW"
        " when dst and src are int64_t or uint64_t"
    ]
    verify = (ROOT / "generated/tests/tgather/verify.cpp").read_text()
    # The defaulted gatherType is spelled out (with the types and pattern before it) to pass GATHER_COL.
    assert (
        "TGATHER<profile_a5, Tile_dst, Tile_src_f2, MaskPattern::P1111, GatherAxis::GATHER_COL>(dst, src_f2)"
        in verify
    )
    checks = (ROOT / "generated/include/pto/profiles/cpu_checks.hpp").read_text()
    assert "sizeof(typename DstTileData::DType) == sizeof(typename SrcTileData::DType)" in checks


def test_an_element_size_breaks_by_a_type_of_another_size() -> None:
    from ptogen.rules.same_element_size import SameElementSizeRule

    op = OPS["tgather"]
    (rule,) = [r for r in op.spec.constraints if isinstance(r, SameElementSizeRule)]
    assert rule.admits(op, {"dst": "int16_t", "src": "half"})
    assert not rule.admits(op, {"dst": "float", "src": "half"})
    assert rule.doc(op) == "Element size: `sizeof(dst::DType) == sizeof(src::DType)`."
    read = SameElementSizeRule.recognise(
        PageLine(None, "Element size: sizeof(dst::DType) == sizeof(src::DType) (bits copied)."), PAGE
    )
    assert read == {"operands": ["dst", "src"], "note": "bits copied"}
    assert (
        SameElementSizeRule.recognise(
            PageLine(None, "Element size: sizeof(a::DType) == sizeof(src::DType)."), PAGE
        )
        is None
    )


def test_tinsert_split_form_takes_an_nz_source_of_its_own_types() -> None:
    failing = _failing("tinsert")
    (nz,) = [c for c in failing if c.startswith("fail_a5_") and c.endswith("tile_fractal_f6")]
    assert failing[nz] == ["TINSERT [A5]: box layout of src must be BLayout::ColMajor with SLayout::RowMajor"]
    (types,) = [c for c in failing if c.startswith("fail_a5_") and re.search(r"_\d+_dtype_f6$", c)]
    assert "float4_e2m1x2_t" in failing[types][0]
    assert not any(
        c.startswith(("fail_a2a3_", "fail_cpu_")) and c.endswith(("tile_fractal_f6", "dtype_f6"))
        for c in failing
    )
    page = (ROOT / "generated/docs/isa/TINSERT.md").read_text()
    assert (
        "The element type of `dst` and `src` must be one of: `half`" in page
    )  # a form's line names its tiles


# ----------------------------------------------------------------------------- total_bytes (TMRGSORT)


def test_tmrgsort_tiles_fit_the_unified_buffer_per_declaration() -> None:
    from ptogen.rules.total_bytes import TotalBytesRule

    op = OPS["tmrgsort"]
    rules = [r for r in op.spec.constraints if isinstance(r, TotalBytesRule)]
    assert [(r.forms, r.operands) for r in rules] == [
        ([0], ["src", "dst"]),
        ([1], ["tmp", "src0", "src1", "src2", "src3"]),
        ([2], ["tmp", "src0", "src1", "src2"]),
        ([3], ["tmp", "src0", "src1"]),
    ]
    (rv,) = [rv for rv in op.forms[0].rules_for("A5") if rv.rule is rules[0]]
    assert rv.condition == (
        "(sizeof(typename SrcTileData::DType) * SrcTileData::Numel"
        " + sizeof(typename DstTileData::DType) * DstTileData::Numel) < 196608"
    )
    failing = _failing("tmrgsort")
    for k, rule in enumerate(rules):
        for profile in ("A2A3", "A5"):
            (case,) = [
                c
                for c in failing
                if c.startswith(f"fail_{profile.lower()}_") and c.endswith(f"total_bytes_f{k}")
            ]
            assert failing[case] == [f"TMRGSORT [{profile}]: {rule.text(op)}"]
        assert not any(c.startswith("fail_cpu_") and c.endswith(f"total_bytes_f{k}") for c in failing)
    assert rules[0].text(op) == "the storage of src, dst together must be below 196608 bytes (192 KiB)"


def test_a_byte_budget_breaks_at_the_bound_and_reads_back() -> None:
    from ptogen.rules.total_bytes import TotalBytesRule

    rule = TotalBytesRule(operands=["src", "dst"], below=1024)
    tiles = {n: TileDecl(n, "half", 1, 16, 1, 16) for n in ("src", "dst")}
    broken = rule.break_static(None, tiles)  # type: ignore[arg-type]  # the kind needs no context
    src = broken.tiles["src"]
    assert broken.changed == "src" and src.rows == 1 and src.valid_cols == 16
    assert 2 * src.cols + 2 * 16 >= 1024 > 2 * (src.cols - 16) + 2 * 16  # just past the bound
    # The page line as import sees it: code ticks and the lone `*` of the products removed.
    line = PageLine(
        "A2A3", "Total bytes: sizeof(src::DType)  src::Numel + sizeof(dst::DType)  dst::Numel < 1024."
    )
    assert TotalBytesRule.recognise(line, PAGE) == {"operands": ["src", "dst"], "below": 1024}
    bad = PageLine("A2A3", "Total bytes: sizeof(src::DType) * dst::Numel < 1024.")
    assert TotalBytesRule.recognise(bad, PAGE) is None


# ------------------------------------------------------------------- shape_multiple, tile_fractal (MX)


@pytest.mark.parametrize("name", ["tmatmul_mx", "tgemv_mx"])
def test_mx_products_check_k_in_64s_and_the_cube_fractals(name: str) -> None:
    from ptogen.rules.shape_multiple import ShapeMultipleRule
    from ptogen.rules.tile_fractal import TileFractalRule

    op = OPS[name]
    (rule,) = [r for r in op.spec.constraints if isinstance(r, ShapeMultipleRule)]
    rv = op.rule_view(rule)
    assert rv.condition == "TileLeft::Cols % 64 == 0"
    assert rule.doc(op) == "Static multiple: `a::Cols % 64 == 0`."
    fractals = [
        (r.operands, r.blayout, r.slayout) for r in op.spec.constraints if isinstance(r, TileFractalRule)
    ]
    assert fractals == [(["a", "c"], "ColMajor", "RowMajor"), (["b"], "RowMajor", "ColMajor")]
    failing = _failing(name)
    cpp = op.name
    for profile in ("A5", "CPU"):
        low = profile.lower()
        (case,) = [c for c in failing if c.startswith(f"fail_{low}_") and c.endswith("_shape_multiple")]
        assert failing[case] == [f"{cpp} [{profile}]: the static cols of a must be a multiple of 64"]
        assert len([c for c in failing if c.startswith(f"fail_{low}_") and c.endswith("_tile_fractal")]) == 2
    verify = (ROOT / f"generated/tests/{name}/verify.cpp").read_text()
    # The broken `a` is 32 columns wider (one fp8 box); the broken `b` keeps its ZN boxes, laid NN.
    body = verify.split(f"void {case}() {{")[1].split("\n}\n")[0]
    assert ", 96, BLayout::ColMajor" in body.split("Tile_a =")[1].split(";")[0]


def test_a_static_multiple_breaks_by_half_and_reads_back() -> None:
    from ptogen.rules.shape_multiple import ShapeMultipleRule

    rule = ShapeMultipleRule(operand="a", extent="Cols", multiple=64)
    tiles = {"a": TileDecl("a", "float", 16, 64, 16, 64)}
    broken = rule.break_static(None, tiles)  # type: ignore[arg-type]  # the kind needs no context
    assert broken.tiles["a"].cols == 96 and broken.changed == "a"
    page = PageContext([], {"A5"}, ["a", "b"], True)
    line = PageLine("A5", "Static multiple: a::Cols % 64 == 0 (two scale groups).")
    assert ShapeMultipleRule.recognise(line, page) == {
        "operand": "a",
        "extent": "Cols",
        "multiple": 64,
        "note": "two scale groups",
    }
    assert ShapeMultipleRule.recognise(PageLine("A5", "Static multiple: z::Cols % 64 == 0."), page) is None


def test_a_boxed_fractal_breaks_by_the_box_order_and_a_plain_one_by_boxes() -> None:
    from ptogen.rules.tile_fractal import TileFractalRule

    nz = TileFractalRule(operands=["a"], blayout="ColMajor", slayout="RowMajor")
    boxed = TileDecl("a", "float8_e4m3_t", 16, 64, 16, 64, layout="ColMajor", slayout="RowMajor")
    broken = nz.break_static(None, {"a": boxed}).tiles["a"]  # type: ignore[arg-type]
    assert (broken.layout, broken.slayout) == ("RowMajor", "RowMajor")  # same box shape, ZZ
    plain = TileFractalRule(operands=["a"], blayout="RowMajor", slayout="NoneBox")
    broken = plain.break_static(None, {"a": TileDecl("a", "float")}).tiles["a"]  # type: ignore[arg-type]
    assert (broken.layout, broken.slayout) == ("RowMajor", "RowMajor")


# ---------------------------------------------------------------------- run-time rules of one declaration


def test_tdeinterleave_two_source_form_checks_all_four_valid_shapes() -> None:
    op = OPS["tdeinterleave"]
    form = op.forms[0]
    assert form.has_own_verify and op.forms[1].has_own_verify  # each its own (h-rules3: the one-source ratio)
    (rv,) = form.rules_for("A5", static=False)
    assert form.rules_for("A5", static=True) == [] and form.rules_for("A2A3", static=False) == []
    instr = (ROOT / "generated/include/pto/common/pto_instr.hpp").read_text()
    assert (
        "Profile::template verify_TDEINTERLEAVE_f0<TileDataDst, TileDataSrc>(dst1, dst0, src1, src0);"
        in instr
    )
    checks = (ROOT / "generated/include/pto/profiles/cpu_checks.hpp").read_text()
    body = checks.split("static void verify_TDEINTERLEAVE_f0(")[1].split("\n    }\n")[0]
    assert (
        'sim::fail("TDEINTERLEAVE [CPU]", "src0, src1, dst0 and dst1 must have the same valid row/col")'
        in body
    )
    fails = {c["case"]: c for c in _manifest("tdeinterleave")["runtime_fail"]}
    for profile in ("a5", "cpu"):
        case = fails[f"rf_{profile}_{rv.id}_f0"]
        assert case["rule"] == f"{rv.id}_f0"
    cases = (ROOT / "generated/tests/tdeinterleave/cases.cpp").read_text()
    failing = cases.split(f"void rf_cpu_{rv.id}_f0(Prof) {{")[1].split("\n}\n")[0]
    assert "Tile_src1 src1(8, 7);" in failing  # one source a column short, the rest alike


def test_every_runtime_rule_of_one_declaration_has_a_failing_case() -> None:
    for op in PROJECT.ops:
        fails = {c["rule"] for c in _manifest(op.spec.short)["runtime_fail"]} if op.spec.intrinsic else set()
        for form in op.forms:
            for p in PROJECT.profiles:
                for rv in form.rules_for(p.name, static=False):
                    assert f"{rv.id}_f{form.index}" in fails, (
                        f"{op.name}: {rv.id} on declaration {form.index}"
                    )


def test_a_form_verify_binds_operands_named_apart_from_their_parameters() -> None:
    form = OPS["tdeinterleave"].forms[1]
    assert form.verify_aliases == [("src", "src0")]
    assert [p.name for p in form.verify_params] == ["dst1", "dst0", "src"]


def test_thistogram_uint16_bytes_and_bins_are_rules() -> None:
    failing = _failing("thistogram")
    for profile in ("A5", "CPU"):
        (case,) = [
            c for c in failing if c.startswith(f"fail_{profile.lower()}_") and c.endswith("_template_value")
        ]
        assert failing[case] == [
            f"THISTOGRAM [{profile}]: template argument byte must be HistByte::BYTE_0 or HistByte::BYTE_1"
            " when src is uint16_t"
        ]
    fails = {c["case"]: c for c in _manifest("thistogram")["runtime_fail"]}
    assert {k for k in fails if k.endswith("_min_valid_extent")} == {
        "rf_a5_07_min_valid_extent",
        "rf_cpu_07_min_valid_extent",
    }
    page = (ROOT / "generated/docs/isa/THISTOGRAM.md").read_text()
    assert "Runtime: `dst.GetValidCol() >= 256` (one bin per byte value)." in page


def test_tscatter_pairs_index_sizes_with_data_sizes() -> None:
    from ptogen.rules.size_pairs import SizePairsRule

    op = OPS["tscatter"]
    rules = {tuple(r.profiles or []): r for r in op.spec.constraints if isinstance(r, SizePairsRule)}
    a2a3, a5 = rules[("A2A3",)], rules[("A5",)]
    assert a5.pairs == [(8, 4), (4, 4), (2, 2), (1, 2)]
    assert a2a3.admits(op, {"src": "half", "indexes": "uint16_t"})
    assert not a2a3.admits(op, {"src": "half", "indexes": "int32_t"})
    assert not a2a3.admits(op, {"src": "int64_t", "indexes": "uint32_t"}) and a5.admits(
        op, {"src": "int64_t", "indexes": "uint32_t"}
    )
    assert a2a3.condition(op, op.rule_view(a2a3)).startswith(
        "((sizeof(typename TileDataS::DType) == 4 && sizeof(typename TileDataI::DType) == 4) ||"
    )
    failing = _failing("tscatter")
    for profile, rule in (("A2A3", a2a3), ("A5", a5)):
        (case,) = [
            c for c in failing if c.startswith(f"fail_{profile.lower()}_") and c.endswith("_size_pairs")
        ]
        assert failing[case] == [f"TSCATTER [{profile}]: {rule.text(op)}"]
    (cpu,) = [c for c in failing if c.startswith("fail_cpu_") and c.endswith("same_element_size_f1")]
    assert failing[cpu] == ["TSCATTER [CPU]: the element types of dst and src must have the same size"]
    line = PageLine("A2A3", a2a3.doc(op).replace("`", ""))
    assert SizePairsRule.recognise(line, PageContext([], {"A2A3"}, ["src", "indexes"], True)) == {
        "operands": ["src", "indexes"],
        "pairs": [[4, 4], [2, 2], [1, 2]],
    }


def test_tgatherb_rows_are_whole_32_byte_blocks() -> None:
    from ptogen.rules.valid_multiple import ValidMultipleRule

    op = OPS["tgatherb"]
    (rule,) = [r for r in op.spec.constraints if isinstance(r, ValidMultipleRule)]
    assert op.rule_view(rule).condition == "dst.GetValidCol() * sizeof(typename TileDataDst::DType) % 32 == 0"
    doc = rule.doc(op)
    assert doc == "Runtime multiple: `dst.GetValidCol() * sizeof(DType) % 32 == 0` (whole 32-byte blocks)."
    page = PageContext([], {"CPU"}, ["dst", "src"], True)
    read = ValidMultipleRule.recognise(PageLine(None, doc.replace("`", "").replace("*", "")), page)
    assert read == {
        "operand": "dst",
        "extent": "cols",
        "multiple": 32,
        "unit": "bytes",
        "note": "whole 32-byte blocks",
    }
    fails = {c["case"] for c in _manifest("tgatherb")["runtime_fail"]}
    assert {f"rf_{p}_{rule_id}" for p in ("a2a3", "a5", "cpu") for rule_id in ["08_valid_multiple"]} <= fails
    tiles = {"dst": TileDecl("dst", "float", 4, 16, 4, 12), "src": TileDecl("src", "float", 4, 16, 4, 12)}
    assert not rule.admits_tiles(tiles)  # 12 floats: 48 bytes
    legal = rule.legalise(tiles)
    assert legal["dst"].valid_cols == 8 and rule.admits_tiles(legal)


# ----------------------------------------------------------------------------- h-rules3 (issue #24)


def test_tsort32_three_operand_form_sorts_whole_blocks_on_a2a3_and_a5() -> None:
    op = OPS["tsort32"]
    for profile in ("A2A3", "A5"):
        (rv,) = op.forms[0].rules_for(profile, static=False)
        assert rv.rule.in_form(op.forms[0]) and not rv.rule.in_form(op.forms[1])
    assert op.forms[0].rules_for("CPU", static=False) == []  # upstream's simulator sorts short blocks
    checks = (ROOT / "generated/include/pto/profiles/a2a3_checks.hpp").read_text()
    body = checks.split("static void verify_TSORT32_f0(")[1].split("\n    }\n")[0]
    assert 'sim::fail("TSORT32 [A2A3]", "the valid cols of src must be a multiple of 32")' in body
    fails = {c["case"] for c in _manifest("tsort32")["runtime_fail"]}
    assert {f"rf_a2a3_{rv.id}_f0", f"rf_a5_{rv.id}_f0"} <= fails
    # The runtime cases: whole blocks through the three-operand form, short last blocks through the
    # four-operand one (with tmp of the valid columns rounded up to 32) where A2A3 or A5 run them;
    # the types only the CPU profile sorts keep short blocks in the three-operand form.
    runtime = _manifest("tsort32")["runtime"]
    for group in runtime:
        checked = bool({"A2A3", "A5"} & set(group["profiles"]))
        for case in group["cases"]:
            tiles = case["tiles"]
            short = tiles["src"]["valid_cols"] % 32 != 0 and checked
            assert group["group"].endswith("_tmp") == short == ("tmp" in tiles), case["label"]
            if short:
                assert tiles["tmp"]["cols"] >= -(-tiles["src"]["valid_cols"] // 32) * 32
    cases = (ROOT / "generated/tests/tsort32/cases.cpp").read_text()
    call = "profiled::TSORT32<profile_a5, Tile_dst, Tile_src, Tile_idx, Tile_tmp>(dst, src, idx, tmp);"
    assert call in cases


def test_tmrgsort_block_form_checks_block_len_and_whole_groups() -> None:
    op = OPS["tmrgsort"]
    for profile in ("A2A3", "A5"):
        (rv,) = op.forms[0].rules_for(profile, static=False)
        assert rv.message(profile) == (
            f"TMRGSORT [{profile}]: block_len must be a positive multiple of 64, and the valid cols of"
            " src 4 * block_len times a count in [1, 255]"
        )
    assert op.forms[0].rules_for("CPU", static=False) == []  # upstream's simulator checks none
    checks = (ROOT / "generated/include/pto/profiles/a5_checks.hpp").read_text()
    body = checks.split("static void verify_TMRGSORT_f0(")[1].split("\n    }\n")[0]
    assert "const auto& block_len = blockLen;" in body and "block_len > 0 && block_len % 64 == 0" in body
    # The failing case passes a legal blockLen; the source's valid columns break the rule.
    cases = (ROOT / "generated/tests/tmrgsort/cases.cpp").read_text()
    failing = cases.split(f"void rf_a5_{rv.id}_f0(Prof) {{")[1].split("\n}\n")[0]
    assert "(dst, src, 64u);" in failing and "Tile_src src(1, 15);" in failing
    # Every block-form runtime case keeps the rule: blockLen a multiple of 64, whole groups.
    for group in _manifest("tmrgsort")["runtime"]:
        for case in group["cases"]:
            if case["attrs"].get("form") == "blocks":
                block, src = int(case["attrs"]["block"]), case["tiles"]["src"]
                assert block % 64 == 0 and src["valid_cols"] % (4 * block) == 0, case["label"]


def test_a_block_rule_breaks_by_the_valid_extent_and_reads_back() -> None:
    from ptogen.rules.scalar_blocks import ScalarBlocksRule

    rule = ScalarBlocksRule(
        scalar="block_len", multiple=64, operand="src", extent="cols", per_group=4, max_groups=255
    )
    tiles = {"src": TileDecl("src", "float", 1, 512, 1, 512)}
    broken, _ = rule.break_runtime(tiles, {})
    assert broken["src"].valid_cols == 255 and broken["src"].dynamic
    assert rule.runtime_scalars() == {"block_len": "64u"}
    line = rule.doc(OPS["tmrgsort"]).replace("`", "")
    assert ScalarBlocksRule.recognise(PageLine(None, line), PAGE) == rule.model_dump(
        exclude_defaults=True, exclude={"kind"}
    )
    with pytest.raises(ValidationError):
        ScalarBlocksRule(
            scalar="n", multiple=64, operand="src", extent="cols", per_group=4, min_groups=3, max_groups=2
        )


def test_tmrgsort_tmp_covers_the_lists_summed_columns() -> None:
    op = OPS["tmrgsort"]
    failing = _failing("tmrgsort")
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
    for group in _manifest("tmrgsort")["runtime"]:
        for case in group["cases"]:
            if case["attrs"].get("form") == "lists":
                tiles = case["tiles"]
                lists = case["attrs"]["lists"].split(",")
                assert tiles["tmp"]["cols"] >= sum(tiles[n]["cols"] for n in lists), case["label"]
    page = (ROOT / "generated/docs/isa/TMRGSORT.md").read_text()
    assert "Static shapes: `tmp.Cols >= src0.Cols + src1.Cols`. Checked on declaration 3 only." in page
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
    failing = _failing("thistogram")
    for k, rows in ((2, 1), (1, 2), (0, 3)):
        want = (
            f"THISTOGRAM [A5]: template shapes must satisfy idx.Rows == {rows} and idx.Cols == src.Cols"
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
    for group in _manifest("thistogram")["runtime"]:
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


def test_tgather_gather_row_fills_the_destination_columns() -> None:
    op = OPS["tgather"]
    mask = op.forms[2]
    for profile in ("A2A3", "A5", "CPU"):
        (rv,) = mask.rules_for(profile, static=False)
        assert (
            rv.condition
            == "!(gatherType == GatherAxis::GATHER_ROW) || dst.GetValidCol() == DstTileData::Cols"
        )
    fails = {c["case"]: c for c in _manifest("tgather")["runtime_fail"]}
    assert {f"rf_{p}_{rv.id}_f2" for p in ("a2a3", "a5", "cpu")} <= set(fails)
    # Every GATHER_ROW runtime case: the destination's valid columns are its static ones.
    rows = 0
    for group in _manifest("tgather")["runtime"]:
        for case in group["cases"]:
            if case["attrs"].get("axis") == "GATHER_ROW":
                dst = case["tiles"]["dst"]
                assert dst["valid_cols"] == dst["cols"], (group["group"], case["label"])
                rows += 1
    assert rows >= 3 * 11  # three row cases for each element type
    page = (ROOT / "generated/docs/isa/TGATHER.md").read_text()
    assert "Runtime full: `dst.GetValidCol() == Cols` when `gatherType` is `GatherAxis::GATHER_ROW`." in page


def test_a_full_valid_rule_breaks_one_short_and_reads_back() -> None:
    from ptogen.rules.full_valid import FullValidRule

    rule = FullValidRule.model_validate(
        {
            "operand": "dst",
            "extent": "cols",
            "when": {"param": "gatherType", "equals": "GatherAxis::GATHER_ROW"},
        }
    )
    tiles = {"dst": TileDecl("dst", "float", 4, 16, 4, 16)}
    broken, _ = rule.break_runtime(tiles, {})
    assert (broken["dst"].valid_cols, broken["dst"].cols, broken["dst"].dynamic) == (15, 16, True)
    plain = FullValidRule(operand="dst", extent="cols")
    assert plain.admits_tiles(tiles) and not plain.admits_tiles(broken)
    line = PageLine(None, rule.doc(OPS["tgather"]).replace("`", ""))
    assert FullValidRule.recognise(line, PAGE) == rule.model_dump(exclude_defaults=True, exclude={"kind"})


def test_tdeinterleave_one_source_form_reads_twice_the_destination_columns() -> None:
    op = OPS["tdeinterleave"]
    one = op.forms[1]
    for profile in ("A5", "CPU"):
        (rv,) = one.rules_for(profile, static=False)
        assert rv.condition == "src0.GetValidCol() == 2 * dst0.GetValidCol()"
    checks = (ROOT / "generated/include/pto/profiles/cpu_checks.hpp").read_text()
    body = checks.split("static void verify_TDEINTERLEAVE_f1(")[1].split("\n    }\n")[0]
    assert "const auto& src0 = src;" in body
    assert 'sim::fail("TDEINTERLEAVE [CPU]", "src0 must have 2 times the valid cols of dst0")' in body
    cases = (ROOT / "generated/tests/tdeinterleave/cases.cpp").read_text()
    failing = cases.split(f"void rf_a5_{rv.id}_f1(Prof) {{")[1].split("\n}\n")[0]
    # one ratio step short, still even (A5's even source columns hold), through the one-source call
    assert "Tile_src0 src0(8, 14);" in failing and "(dst1, dst0, src0);" in failing
    # The one-source cases are their own groups, called through that declaration, with a source
    # twice the destinations' valid columns; the two-source groups no longer call it.
    groups = _manifest("tdeinterleave")["runtime"]
    ones = [g for g in groups if g["group"].endswith("_f1")]
    assert ones and all(set(g["profiles"]) == {"A5", "CPU"} for g in ones)
    for g in ones:
        for case in g["cases"]:
            t = case["tiles"]
            assert "src1" not in t and t["src0"]["valid_cols"] == 2 * t["dst0"]["valid_cols"], case["label"]
    assert "// overload 1" not in cases
    page = (ROOT / "generated/docs/isa/TDEINTERLEAVE.md").read_text()
    assert (
        "Runtime: `src0.GetValidCol()` is 2 times `dst0.GetValidCol()`. Checked on declaration 1 only."
        in page
    )


@pytest.mark.parametrize("name", ["tmatmul_mx", "tgemv_mx"])
def test_mx_bias_forms_check_a_one_row_float_bias_tile_and_keep_running(name: str) -> None:
    op = OPS[name]
    upper = op.name
    failing = _failing(name)
    for profile in ("a5", "cpu"):
        for k in (4, 5):
            got = sorted(
                m[0] for c, m in failing.items() if c.startswith(f"fail_{profile}_") and c.endswith(f"_f{k}")
            )
            assert got == [
                f"{upper} [{profile.upper()}]: DType must be one of: float",
                f"{upper} [{profile.upper()}]: template shapes must satisfy bias.Rows == 1",
                f"{upper} [{profile.upper()}]: tile location must be TileType::Bias",
            ]
    verify = (ROOT / f"generated/tests/{name}/verify.cpp").read_text()
    legal = verify.split("void legal_a5_f4() {")[1].split("\n}\n")[0]
    assert "Tile<TileType::Bias, float, 1, 16, BLayout::RowMajor, 1, 16>" in legal
    # The runtime cases still call the bias forms under both profiles (the planned case's forms).
    cases = (ROOT / f"generated/tests/{name}/cases.cpp").read_text()
    first = cases.split("// overload 4:")[1].split("// overload 5:")[0]
    assert "profile_a5>" in first and "profile_cpu>" in first
    assert op.spec.prose_constraints == [] or all("Bias" not in p.text for p in op.spec.prose_constraints)


def test_tquant_interleave_form_rules_replace_the_simulator_static_asserts() -> None:
    op = OPS["tquant"]
    failing = _failing("tquant")
    texts = [
        "template argument grp_axis must be 0 when interleave is true",
        "the static rows of src must be a multiple of 64 when interleave is true",
        "exp::Rows must be src::Rows, divided by 64 rounded up when interleave is true",
        "exp::Cols must be src::Cols, times 2, rounded up to a multiple of 32 when interleave is true",
    ]
    for profile in ("A5", "CPU"):
        got = sorted(
            m[0] for c, m in failing.items() if c.startswith(f"fail_{profile.lower()}_") and c.endswith("_f3")
        )
        assert got == sorted(f"TQUANT [{profile}]: {t}" for t in texts)
    assert not any(c.endswith("_f3") for c in failing if c.startswith("fail_a2a3_"))
    verify = (ROOT / "generated/tests/tquant/verify.cpp").read_text()
    legal = verify.split("void legal_a5_f3() {")[1].split("\n}\n")[0]
    assert "profile_a5, 0, MxQuantAlg::OcpMxFp8E4M3, true," in legal  # the interleave form itself
    assert "uint8_t, 1, 64," in legal and "float, 64, 32," in legal  # exp ceil(64/64) x align32(2 * 32)
    sim = (ROOT / "generated/include/pto/cpu/sim/tquant.hpp").read_text()
    assert "static_assert(TSrc::Rows % 64 == 0" not in sim and "grp_axis == 0, " not in sim
    # The runtime interleave cases keep the rules.
    for group in _manifest("tquant")["runtime"]:
        for case in group["cases"]:
            if case["attrs"].get("form") == "3":
                src, exp = case["tiles"]["src"], case["tiles"]["exp"]
                assert case["attrs"]["axis"] == "0" and src["rows"] % 64 == 0
                assert exp["rows"] == -(-src["rows"] // 64) and exp["cols"] == -(-2 * src["cols"] // 32) * 32
    assert all("grp_axis" not in p.text for p in op.spec.prose_constraints)


def test_value_conditioned_rules_break_under_their_value_and_read_back() -> None:
    from ptogen.rules.derived_extent import DerivedExtentRule
    from ptogen.rules.shape_multiple import ShapeMultipleRule

    when = {"param": "interleave", "equals": "true"}
    page = PageContext([], {"A5", "CPU"}, ["dst", "src", "exp"], True)
    tv = TemplateValueRule.model_validate({"param": "grp_axis", "values": [0], "when": when})
    assert tv.break_static(None, {}).values == {"interleave": "true", "grp_axis": "1"}  # type: ignore[arg-type]
    line = PageLine(None, "Template argument grp_axis must be 0 when interleave is true.")
    assert TemplateValueRule.recognise(line, page) == tv.model_dump(exclude_defaults=True, exclude={"kind"})
    sm = ShapeMultipleRule.model_validate({"operand": "src", "extent": "Rows", "multiple": 64, "when": when})
    tiles = {n: TileDecl(n, "float", 2, 32, 2, 32) for n in ("src", "dst")}
    legal = sm.legalise(tiles)
    assert legal["src"].rows == legal["dst"].rows == 64  # tiles of one static shape stay alike
    broken = sm.break_static(None, legal)  # type: ignore[arg-type]
    assert broken.tiles["src"].rows == 32 and broken.values == {"interleave": "true"}
    line = PageLine(None, "Static multiple: src::Rows % 64 == 0 when interleave is true.")
    assert ShapeMultipleRule.recognise(line, page) == sm.model_dump(exclude_defaults=True, exclude={"kind"})
    de = DerivedExtentRule.model_validate(
        {
            "operand": "exp",
            "extent": "Cols",
            "of": "src",
            "of_extent": "Cols",
            "times": 2,
            "align": 32,
            "when": when,
        }
    )
    assert [de.want(c) for c in (8, 16, 32, 40)] == [32, 32, 64, 96]
    fitted = de.legalise(
        {"src": TileDecl("src", "float", 64, 40, 64, 40), "exp": TileDecl("exp", "uint8_t", 1, 32, 1, 32)}
    )
    assert fitted["exp"].cols == 96
    assert de.break_static(None, fitted).tiles["exp"].cols == 128  # type: ignore[arg-type]
    line = PageLine(None, de.doc(OPS["tquant"]).replace("`", ""))
    assert DerivedExtentRule.recognise(line, page) == de.model_dump(exclude_defaults=True, exclude={"kind"})
