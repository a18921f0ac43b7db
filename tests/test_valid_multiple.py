"""The `valid_multiple` rule kind: a valid extent that must be a multiple of a count (TINTERLEAVE's
and TDEINTERLEAVE's even valid columns on A5), its C++ check, page line, import and test-plan hooks."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ptogen.lower.views import ProjectView
from ptogen.rules import RULE_KINDS
from ptogen.rules.valid_multiple import ValidMultipleRule
from ptogen.spec.load import load_specs
from ptogen.testing.plan import TileDecl

from .helpers import ROOT

PROJECT = ProjectView(load_specs(ROOT / "specs", ROOT))
RULE = ValidMultipleRule(operand="dst0", extent="cols", multiple=2, profiles=["A5"])


def _op(short: str):  # type: ignore[no-untyped-def]
    return next(o for o in PROJECT.ops if o.spec.short == short)


def test_it_is_registered_and_checks_at_run_time() -> None:
    assert ValidMultipleRule in RULE_KINDS
    assert RULE.stage == "runtime" and RULE.rule_operands == ["dst0"]
    with pytest.raises(ValidationError):
        ValidMultipleRule(operand="dst0", extent="cols", multiple=1)


def test_condition_text_and_page_line_come_from_the_op() -> None:
    op = _op("tinterleave")
    rv = next(rv for rv in op.rules_for("A5") if rv.rule.kind == "valid_multiple")
    assert rv.rule.condition(op, rv) == "dst0.GetValidCol() % 2 == 0"
    assert rv.rule.text(op) == "the valid cols of dst0 must be a multiple of 2"
    assert rv.rule.doc(op) == "Runtime multiple: `dst0.GetValidCol() % 2 == 0`."
    assert not [rv for rv in op.rules_for("CPU") if rv.rule.kind == "valid_multiple"]


def test_the_page_line_reads_back() -> None:
    class Line:
        text = "Runtime multiple: src0.GetValidCol() % 4 == 0 (even pairs)"

    class Page:
        data = {"src0": None}

    found = ValidMultipleRule.recognise(Line(), Page())  # type: ignore[arg-type]
    assert found == {"operand": "src0", "extent": "cols", "multiple": 4, "note": "even pairs"}
    Line.text = "Runtime multiple: other.GetValidCol() % 4 == 0"
    assert ValidMultipleRule.recognise(Line(), Page()) is None  # type: ignore[arg-type]


def test_admits_legalises_and_breaks_every_tile_of_the_extent() -> None:
    tiles = {n: TileDecl(n, "float", 8, 32, 8, 7) for n in ("dst0", "dst1", "src0")}
    tiles["src1"] = TileDecl("src1", "float", 8, 32, 8, 9)
    assert not RULE.admits_tiles(tiles)
    legal = RULE.legalise(tiles)
    assert [t.valid_cols for t in legal.values()] == [6, 6, 6, 9] and RULE.admits_tiles(legal)
    broken, _ = RULE.break_runtime(legal, {})
    assert [t.valid_cols for t in broken.values()] == [5, 5, 5, 9] and not RULE.admits_tiles(broken)
