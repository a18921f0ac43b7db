"""The fillpad op kind (TFILLPAD, TFILLPAD_INPLACE, TFILLPAD_EXPAND) and TSTORE_FP's parameter tile.

- The kind: its expression (`dst[i,j] = src[i,j]`, same indices), the variant each op's dispatch
  passes, the page's piecewise formula.
- tests/compare/tfillpad_forms.cpp, built against the generated headers: the in-place variant on one
  storage, the one-type form on an NZ Mat tile, a custom pad value, the expanding variant and an
  empty destination, each against its own element walk.
- TSTORE_FP's simulator stops when `fp` holds fewer parameters than the stored columns.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ptogen.opkinds import KINDS
from ptogen.spec import expr as semantics

from ..compilers import COMPILERS, build_program, require
from ..helpers import ROOT
from .common import OPS

FILLPAD = KINDS["fillpad"]


@pytest.mark.parametrize(
    ("source", "ok"),
    [
        ("dst[i,j] = src[i,j]", True),
        ("dst[i,j] = src[j,i]", False),
        ("src", False),
        ("dst[i,j] = src[i,0]", False),
    ],
)
def test_the_expression_copies_at_the_same_indices(source: str, ok: bool) -> None:
    assert (FILLPAD.check_expr(semantics.parse(source, {"dst", "src"})) == []) is ok


def test_each_op_passes_its_variant() -> None:
    assert [FILLPAD.mode(OPS[n]) for n in ("TFILLPAD", "TFILLPAD_INPLACE", "TFILLPAD_EXPAND")] == [
        "Normal",
        "InPlace",
        "Expand",
    ]
    main, mat = OPS["TFILLPAD"].forms
    assert FILLPAD.sim_targs(OPS["TFILLPAD"], main) == ["mode"]
    assert FILLPAD.sim_targs(OPS["TFILLPAD"], mat) == ["PadVal"]
    assert FILLPAD.sim_targs(OPS["TFILLPAD_EXPAND"], OPS["TFILLPAD_EXPAND"].forms[0]) == ["Fixed2"]


def test_the_page_states_what_is_padded() -> None:
    math = FILLPAD.math(OPS["TFILLPAD"])
    assert math is not None
    assert r"\mathrm{src}_{i,j} & i < \mathrm{src}.\mathrm{GetValidRow}()" in math
    assert r"\mathrm{pad} & \text{otherwise}" in math
    page = (ROOT / "generated/docs/isa/TFILLPAD_EXPAND.md").read_text(encoding="utf-8")
    assert "For each element `(i, j)` of the whole destination tile `dst`" in page


@pytest.mark.parametrize("cxx", COMPILERS)
def test_forms_and_variants_against_an_element_walk(cxx: str, tmp_path: Path) -> None:
    require(cxx)
    source = (ROOT / "tests/compare/tfillpad_forms.cpp").read_text(encoding="utf-8")
    exe = build_program(cxx, source, tmp_path, "tfillpad_forms")
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith("0 failure(s)")


TSTORE_FP_SHORT = """
#include <pto/pto-inst.hpp>
using namespace pto;
int main() {
    static int8_t out[64] = {};
    using Acc = Tile<TileType::Vec, float, 4, 16, BLayout::RowMajor, 4, 16>;
    using Fp = Tile<TileType::Vec, uint64_t, 1, 16, BLayout::RowMajor, 1, 12>;
    using G = GlobalTensor<int8_t, Shape<1, 1, 1, 4, 16>, Stride<64, 64, 64, 16, 1>, Layout::ND>;
    G g(out);
    Acc acc;
    Fp fp;
    TSTORE_FP(g, acc, fp);
    return 0;
}
"""


@pytest.mark.parametrize("cxx", COMPILERS)
def test_tstore_fp_stops_without_a_parameter_for_each_column(cxx: str, tmp_path: Path) -> None:
    require(cxx)
    exe = build_program(cxx, TSTORE_FP_SHORT, tmp_path, "tstore_fp_short")
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False)
    assert run.returncode != 0
    assert "fp must hold a parameter for every column" in run.stderr + run.stdout
