"""Overloads of an intrinsic: a bad overload gets a located error, and the header and both pages
show every declaration. (That each overload computes its result is checked by the op's cases
executable: see templates/tests/cases.cpp.j2 and the elementwise golden preparation.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ptogen.cli import main

from ..helpers import ROOT, edit, tree_hash

TDIVS = "specs/ops/tile_scalar_and_immediate/tdivs.yaml"

CASES = [
    # (description, old text, new text, field path, message fragment)
    (
        "operand not carried",
        "        - {name: scalar, dtype_of: TileDataDst, operand: scalar}\n",
        "",
        "intrinsic.overloads[0].params",
        "operand 'scalar' of the main declaration is not carried",
    ),
    (
        "expr reads other operands",
        "      expr: scalar / src\n",
        "      expr: scalar / scalar\n",
        "intrinsic.overloads[0].expr",
        "must read the same operands",
    ),
    (
        "value output on a non-arg op",
        "      expr: scalar / src\n",
        "      expr: scalar / src\n      value_output: dst\n",
        "intrinsic.overloads[0].value_output",
        "only arg-reductions have one",
    ),
    (
        "unknown operand in expr",
        "      expr: scalar / src\n",
        "      expr: scalar / srcx\n",
        "intrinsic.overloads[0].expr",
        "srcx",
    ),
]


@pytest.mark.parametrize(("what", "old", "new", "field", "fragment"), CASES, ids=[c[0] for c in CASES])
def test_bad_overload_is_located(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    what: str,
    old: str,
    new: str,
    field: str,
    fragment: str,
) -> None:
    line = edit(project, TDIVS, old, new)
    before = tree_hash(project / "generated")
    assert main(["--root", str(project), "gen"]) == 2
    errors = [e for e in capsys.readouterr().err.splitlines() if e.startswith("error:")]
    assert tree_hash(project / "generated") == before
    assert errors
    for error in errors:  # every problem is located in the overload's own entry
        where = error.removeprefix("error: ").split(": ", 1)[0]
        assert where.startswith(f"{TDIVS}:") and abs(int(where.rsplit(":", 1)[1]) - line) <= 12, error
    assert any(f": {field}: " in e and fragment in e for e in errors), errors


def test_every_declaration_is_in_the_header_and_on_both_pages() -> None:
    header = (ROOT / "generated/include/pto/common/pto_instr.hpp").read_text()
    op_page = (ROOT / "generated/docs/isa/tile/ops/tile-scalar-and-immediate/tdivs.md").read_text()
    ref_page = (ROOT / "generated/docs/isa/TDIVS.md").read_text()
    scalar_first = "TDIVS(TileDataDst& dst, typename TileDataDst::DType scalar, TileDataSrc& src0,"
    tile_first = "TDIVS(TileDataDst& dst, TileDataSrc& src0, typename TileDataSrc::DType scalar,"
    for text in (header, op_page, ref_page):
        flat = _flat(text)
        assert _flat(scalar_first) in flat and _flat(tile_first) in flat
    # The scalar-first form's math comes from its own expression.
    assert r"\frac{\mathrm{scalar}}{\mathrm{src}_{i,j}}" in op_page


def _flat(text: str) -> str:
    """Code with its whitespace collapsed, and none after an opening bracket (pages wrap long
    declarations after their `(` or `<`)."""
    return re.sub(r"([(<]) ", r"\1", " ".join(text.split()))
