"""Rule kind `valid_multiple`: a valid extent is a multiple of a count or of bytes, checked when the
op runs (TGATHERB's whole 32-byte blocks, TSORT32's whole blocks of 32)."""

from __future__ import annotations

from ptogen.rule_api import TileDecl
from ptogen.rules import PageContext, PageLine
from ptogen.rules.parts import in_form
from ptogen.rules.valid_multiple import ValidMultipleRule

from ..helpers import ROOT
from .common import OPS, manifest, runtime_failures


def test_tgatherb_rows_are_whole_32_byte_blocks() -> None:
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
    fails = {c["case"] for c in manifest("tgatherb")["runtime_fail"]}
    assert {f"rf_{p}_{rule_id}" for p in ("a2a3", "a5", "cpu") for rule_id in ["08_valid_multiple"]} <= fails
    tiles = {"dst": TileDecl("dst", "float", 4, 16, 4, 12), "src": TileDecl("src", "float", 4, 16, 4, 12)}
    assert not rule.admits_tiles(tiles)  # 12 floats: 48 bytes
    legal = rule.legalise(tiles)
    assert legal["dst"].valid_cols == 8 and rule.admits_tiles(legal)


def test_tsort32_three_operand_form_sorts_whole_blocks_on_a2a3_and_a5() -> None:
    op = OPS["tsort32"]
    for profile in ("A2A3", "A5"):
        (rv,) = op.forms[0].rules_for(profile, static=False)
        assert in_form(rv.rule, op.forms[0]) and not in_form(rv.rule, op.forms[1])
    assert op.forms[0].rules_for("CPU", static=False) == []  # upstream's simulator sorts short blocks
    fails = runtime_failures("tsort32")
    for profile in ("A2A3", "A5"):
        assert fails[f"rf_{profile.lower()}_{rv.id}_f0"] == (
            f"PTO runtime error: TSORT32 [{profile}]: the valid cols of src must be a multiple of 32"
        )
    # The runtime cases: whole blocks through the three-operand form, short last blocks through the
    # four-operand one (with tmp of the valid columns rounded up to 32) where A2A3 or A5 run them;
    # the types only the CPU profile sorts keep short blocks in the three-operand form.
    runtime = manifest("tsort32")["runtime"]
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
