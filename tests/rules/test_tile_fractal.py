"""Rule kind `tile_fractal`: a tile's box layout (the MX products' cube fractals, TINSERT's NZ
split form)."""

from __future__ import annotations

import re

from ptogen.rule_api import TileDecl
from ptogen.rules.tile_fractal import TileFractalRule

from ..helpers import ROOT
from .common import failing_cases


def test_tinsert_split_form_takes_an_nz_source_of_its_own_types() -> None:
    failing = failing_cases("tinsert")
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


def test_a_boxed_fractal_breaks_by_the_box_order_and_a_plain_one_by_boxes() -> None:
    nz = TileFractalRule(operands=["a"], blayout="ColMajor", slayout="RowMajor")
    boxed = TileDecl("a", "float8_e4m3_t", 16, 64, 16, 64, layout="ColMajor", slayout="RowMajor")
    broken = nz.break_static(None, {"a": boxed}).tiles["a"]  # type: ignore[arg-type]
    assert (broken.layout, broken.slayout) == ("RowMajor", "RowMajor")  # same box shape, ZZ
    plain = TileFractalRule(operands=["a"], blayout="RowMajor", slayout="NoneBox")
    broken = plain.break_static(None, {"a": TileDecl("a", "float")}).tiles["a"]  # type: ignore[arg-type]
    assert (broken.layout, broken.slayout) == ("RowMajor", "RowMajor")
