"""The transpose op kind (TTRANS, ptogen/opkinds/transpose.py): its index notation, page math and
simulator, the run-time stop on a destination that is not the source transposed, and the loader's
refusal of a variant the kind does not define. (Its generated cases, conv variants included, run
in tests/test_simulator.py.)"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ptogen.errors import SpecErrors
from ptogen.spec.load import load_specs

from ..compilers import COMPILERS, build_program, require
from ..helpers import ROOT
from .common import OPS


def test_transpose_math_and_simulator() -> None:
    op = OPS["TTRANS"]
    assert op.kind.name == "transpose"
    assert op.kind.operand_index(op, "src") == "j,i"
    page = (ROOT / "generated/docs/isa/TTRANS.md").read_text(encoding="utf-8")
    assert r"\mathrm{dst}_{i,j} = \mathrm{src}_{j,i}" in page
    sim = (ROOT / "generated/include/pto/cpu/sim/ttrans.hpp").read_text(encoding="utf-8")
    assert "dst.SetElement(c, r, static_cast<D>(src.GetElement(r, c)))" in sim


TRANSPOSE = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
using namespace pto;
int main() {
    using Src = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1>;
    using Dst = Tile<TileType::Vec, float, 32, 16, BLayout::RowMajor, -1, -1>;
    Src src(5, 7);
    Dst dst(7, 4), tmp(7, 5);  // dst should be 7 x 5
    TASSIGN(src, 0x0);
    TASSIGN(dst, 0x800);
    TASSIGN(tmp, 0x1000);
    TTRANS(dst, src, tmp);
    std::printf("survived\n");
    return 0;
}
"""


def test_transpose_stops_on_a_destination_not_transposed(tmp_path: Path) -> None:
    cxx = require(COMPILERS[0])
    exe = build_program(cxx, TRANSPOSE, tmp_path, "ttrans_shape")
    done = subprocess.run([str(exe)], capture_output=True, text=True)
    assert done.returncode != 0 and "survived" not in done.stdout
    assert "TTRANS" in done.stderr and "the valid shape of dst must be that of src transposed" in done.stderr


def test_a_variant_the_kind_does_not_define_is_refused(spec_project: Path) -> None:
    spec = spec_project / "specs/ops/layout_and_rearrangement/ttrans.yaml"
    text = spec.read_text()
    spec.write_text(text.replace("  - name: conv\n", "  - name: img2col\n", 1))
    line = text[: text.index("  - name: conv\n")].count("\n") + 1
    with pytest.raises(SpecErrors) as err:
        load_specs(spec_project / "specs", spec_project)
    assert (
        f"ttrans.yaml:{line}: variants[0].name: transpose ops have no variant 'img2col' (known: conv)"
        in str(err.value)
    )
