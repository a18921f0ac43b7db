"""The transfer op kind: its spec checks and page math (the kernels run in test_simulator.py)."""

from __future__ import annotations

from pathlib import Path

from ptogen.opkinds import KINDS
from ptogen.spec import expr as semantics
from ptogen.spec.load import load_specs
from ptogen.spec.model import OpSpec

ROOT = Path(__file__).resolve().parents[1]
SPECS = load_specs(ROOT / "specs", ROOT)


def _spec(short: str) -> OpSpec:
    return next(o.spec for o in SPECS.ops if o.spec.short == short)


def test_expression_is_only_the_source_name() -> None:
    kind = KINDS["transfer"]
    assert kind.check_expr(semantics.parse("src", {"src"})) == []
    assert kind.check_expr(semantics.parse("src * 2", {"src"}))
    assert kind.check_expr(semantics.parse("abs(src)", {"src"}))


def test_operands_are_one_tile_and_one_global() -> None:
    kind = KINDS["transfer"]
    assert kind.check_operands(_spec("tload")) == []
    assert kind.check_operands(_spec("tstore")) == []
    assert kind.check_operands(_spec("tadd"))  # tiles only: not a transfer


def test_other_kinds_refuse_global_operands() -> None:
    spec = _spec("tload").model_copy(update={"semantics": _spec("tabs").semantics})
    assert KINDS["elementwise"].check_operands(spec)


def test_page_math_and_address_mapping() -> None:
    for short, lhs in (("tload", r"\mathrm{dst}_{i,j}"), ("tstore", r"\mathrm{dst}_{i,j}")):
        page = next((ROOT / "generated/docs/isa").glob(f"*/ops/*/{short}.md")).read_text()
        assert rf"{lhs} = \mathrm{{src}}_{{i,j}}" in page
        assert "GetStride(3)" in page and "Layout::DN" in page
