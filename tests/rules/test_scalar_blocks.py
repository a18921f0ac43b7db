"""Rule kind `scalar_blocks`: a scalar counts blocks that tile a valid extent (TMRGSORT's `blockLen`)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ptogen.rule_api import TileDecl
from ptogen.rules import PageLine
from ptogen.rules.scalar_blocks import ScalarBlocksRule

from ..helpers import ROOT
from .common import OPS, PAGE, manifest, runtime_failures


def test_tmrgsort_block_form_checks_block_len_and_whole_groups() -> None:
    op = OPS["tmrgsort"]
    for profile in ("A2A3", "A5"):
        (rv,) = op.forms[0].rules_for(profile, static=False)
        assert rv.message(profile) == (
            f"TMRGSORT [{profile}]: block_len must be a positive multiple of 64, and the valid cols of"
            " src 4 * block_len times a count in [1, 255]"
        )
    assert op.forms[0].rules_for("CPU", static=False) == []  # upstream's simulator checks none
    # The check reads the scalar by the rule's name for it, and the failing case stops with the message.
    assert op.forms[0].verify_aliases == [("blockLen", "block_len")]
    assert runtime_failures("tmrgsort")[f"rf_a5_{rv.id}_f0"] == f"PTO runtime error: {rv.message('A5')}"
    # The failing case passes a legal blockLen; the source's valid columns break the rule.
    cases = (ROOT / "generated/tests/tmrgsort/cases.cpp").read_text()
    failing = cases.split(f"void rf_a5_{rv.id}_f0(Prof) {{")[1].split("\n}\n")[0]
    assert "(dst, src, 64u);" in failing and "Tile_src src(1, 15);" in failing
    # Every block-form runtime case keeps the rule: blockLen a multiple of 64, whole groups.
    for group in manifest("tmrgsort")["runtime"]:
        for case in group["cases"]:
            if case["attrs"].get("form") == "blocks":
                block, src = int(case["attrs"]["block"]), case["tiles"]["src"]
                assert block % 64 == 0 and src["valid_cols"] % (4 * block) == 0, case["label"]


def test_a_block_rule_breaks_by_the_valid_extent_and_reads_back() -> None:
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
