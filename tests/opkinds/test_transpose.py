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
from .common import OPS

# A 5 x 7 source of distinct values into a 7 x 5 destination (static tiles of other extents); with
# an argument, into a 7 x 4 one, which is not the source transposed.
PROGRAM = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
using namespace pto;
int main(int argc, char**) {
    using Src = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1>;
    using Dst = Tile<TileType::Vec, float, 32, 16, BLayout::RowMajor, -1, -1>;
    Src src(5, 7);
    Dst dst(7, argc > 1 ? 4 : 5), tmp(7, 5);
    TASSIGN(src, 0x0);
    TASSIGN(dst, 0x800);
    TASSIGN(tmp, 0x1000);
    for (int r = 0; r < 5; ++r)
        for (int c = 0; c < 7; ++c) src.SetElement(r, c, float(10 * r + c));
    TTRANS(dst, src, tmp);
    if (argc > 1) std::printf("survived\n");
    for (int r = 0; r < dst.GetValidRow(); ++r)
        for (int c = 0; c < dst.GetValidCol(); ++c) std::printf("%g ", double(dst.GetElement(r, c)));
    return 0;
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_program(require(COMPILERS[0]), PROGRAM, tmp_path_factory.mktemp("ttrans"), "ttrans")


def test_transpose_math_and_simulator(program: Path) -> None:
    op = OPS["TTRANS"]
    assert op.kind.name == "transpose"
    assert op.kind.operand_index(op, "src") == "j,i"
    assert op.kind.math(op) == r"\mathrm{dst}_{i,j} = \mathrm{src}_{j,i}"
    run = subprocess.run([str(program)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == [str(10 * c + r) for r in range(7) for c in range(5)]


def test_transpose_stops_on_a_destination_not_transposed(program: Path) -> None:
    done = subprocess.run([str(program), "wrong"], capture_output=True, text=True, timeout=60)
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
