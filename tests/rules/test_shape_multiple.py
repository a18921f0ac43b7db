"""Rule kind `shape_multiple`: a static extent is a multiple of a count (the MX products' K in 64s)."""

from __future__ import annotations

import pytest

from ptogen.rule_api import TileDecl
from ptogen.rules import PageContext, PageLine
from ptogen.rules.shape_multiple import ShapeMultipleRule
from ptogen.rules.tile_fractal import TileFractalRule

from ..helpers import ROOT
from .common import OPS, failing_cases


@pytest.mark.parametrize("name", ["tmatmul_mx", "tgemv_mx"])
def test_mx_products_check_k_in_64s_and_the_cube_fractals(name: str) -> None:
    op = OPS[name]
    (rule,) = [r for r in op.spec.constraints if isinstance(r, ShapeMultipleRule)]
    rv = op.rule_view(rule)
    assert rv.condition == "TileLeft::Cols % 64 == 0"
    assert rule.doc(op) == "Static multiple: `a::Cols % 64 == 0`."
    fractals = [
        (r.operands, r.blayout, r.slayout) for r in op.spec.constraints if isinstance(r, TileFractalRule)
    ]
    # The tile aliases' layouts: a and c NZ (TileLeft, TileAcc), b ZN (TileRight).
    assert fractals == [
        (["a"], "ColMajor", "RowMajor"),
        (["c"], "ColMajor", "RowMajor"),
        (["b"], "RowMajor", "ColMajor"),
    ]
    failing = failing_cases(name)
    cpp = op.name
    for profile in ("A5", "CPU"):
        low = profile.lower()
        (case,) = [c for c in failing if c.startswith(f"fail_{low}_") and c.endswith("_shape_multiple")]
        assert failing[case] == [f"{cpp} [{profile}]: the static cols of a must be a multiple of 64"]
        assert len([c for c in failing if c.startswith(f"fail_{low}_") and c.endswith("_tile_fractal")]) == 3
    verify = (ROOT / f"generated/tests/{name}/verify.cpp").read_text()
    # The broken `a` is 32 columns wider (one fp8 box); the broken `b` keeps its ZN boxes, laid NN.
    body = verify.split(f"void {case}() {{")[1].split("\n}\n")[0]
    assert ", 96, BLayout::ColMajor" in body.split("Tile_a =")[1].split(";")[0]


def test_a_static_multiple_breaks_by_half_and_reads_back() -> None:
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
