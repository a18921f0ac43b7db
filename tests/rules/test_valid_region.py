"""Rule kind `same_valid_shape`, and run-time rules that warn (RuntimeCheck.warning): TSUB's CPU rules,
one stopping past the sources' storage and one warning where the pages leave the result undefined."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ptogen.rule_api import TileDecl
from ptogen.rules import PageContext, PageLine
from ptogen.rules.page import WARNS_NOTE, split_warns
from ptogen.rules.valid_region import SameValidShapeRule, ValidBoundsRule

from ..helpers import ROOT
from .common import OPS, manifest

TILES = ["dst", "src0", "src1"]


def test_tsub_warns_under_cpu_and_stops_under_the_npu_profiles() -> None:
    op = OPS["tsub"]
    for profile in ("A2A3", "A5"):
        (rv,) = op.rules_for(profile, static=False)
        assert rv.stops and rv.runtime_message(profile).startswith("PTO runtime error: TSUB")
    storage, undefined = op.rules_for("CPU", static=False)
    assert storage.rule.storage_read_into == ["Vec"] and storage.stops  # type: ignore[attr-defined]
    assert not undefined.stops and undefined.doc.endswith(WARNS_NOTE)
    assert undefined.runtime_message("CPU") == (
        "PTO runtime warning: TSUB [CPU]: dst, src0 and src1 must have the same valid row/col"
    )
    cases = {c["rule"]: c for c in manifest("tsub")["runtime_fail"] if c["profile"] == "CPU"}
    assert cases[storage.id].get("stops", True) and cases[undefined.id]["stops"] is False
    page = (ROOT / "generated/docs/isa/TSUB.md").read_text()
    assert f"Runtime: `dst`, `src0` and `src1` must have the same valid row/col. {WARNS_NOTE}" in page


def test_a_warning_line_reads_back_as_a_rule_that_warns() -> None:
    undefined = OPS["tsub"].rules_for("CPU", static=False)[1]
    line = PageLine("CPU", undefined.doc.replace("`", ""))
    page = PageContext([line], {"A2A3", "A5", "CPU"}, TILES, True)
    (found,) = SameValidShapeRule.from_page(page)
    assert found == {"kind": "same_valid_shape", "profiles": ["CPU"], "operands": TILES, "warns": True}
    assert split_warns("Runtime: a must be b.") == ("Runtime: a must be b.", False)


def test_only_a_rule_kind_that_can_warn_takes_warns() -> None:
    assert SameValidShapeRule(operands=TILES, warns=True).warning()
    assert not SameValidShapeRule(operands=TILES).warning()
    with pytest.raises(ValidationError, match="warns"):
        ValidBoundsRule.model_validate({"operands": TILES, "warns": True})  # checked at compile time


def test_a_storage_read_breaks_past_the_others_rows() -> None:
    rule = SameValidShapeRule(operands=TILES, storage_read_into=["Vec"])
    tiles = {n: TileDecl(n, "float", 8, 8, 8, 8, dynamic=True) for n in TILES}
    broken, _ = rule.break_runtime(tiles, {})
    assert (broken["dst"].rows, broken["dst"].valid_rows) == (16, 16) and broken["src0"] == tiles["src0"]
    plain, _ = SameValidShapeRule(operands=TILES).break_runtime(tiles, {})
    assert plain["src0"].valid_cols == 7 and plain["dst"] == tiles["dst"]
