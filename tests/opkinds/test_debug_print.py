"""TPRINT (ptogen/opkinds/debug_print.py): the printed text follows the spec's rule (header line,
one line per valid row, fields right-aligned in the format's width, fixed decimals for
floating-point elements, NaN by its sign bit), rendered in Python and compared with a kernel built
against the generated header. (Its generated cases run in tests/test_simulator.py.)"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from ptogen.opkinds.debug_print import field, render, text_check

from ..compilers import COMPILERS, build_program


@pytest.mark.parametrize(
    ("value", "kind", "fmt", "want"),
    [
        (1.234567, "float", "Width8_Precision4", "  1.2346"),
        (-3.456789, "float", "Width8_Precision2", "   -3.46"),
        (3.141592, "float", "Width10_Precision6", "  3.141592"),
        (-0.0, "float", "Width8_Precision4", " -0.0000"),
        (123456789.0, "float", "Width8_Precision2", "123456789.00"),  # wider than the field: not cut
        (float("nan"), "float", "Width8_Precision4", "     nan"),
        (-float("nan"), "float", "Width8_Precision4", "    -nan"),
        (float("-inf"), "float", "Width10_Precision6", "      -inf"),
        (-12, "int", "Width8_Precision4", "     -12"),
        (255, "int", "Width10_Precision6", "       255"),
        (-(2**63), "int", "Width8_Precision2", str(-(2**63))),
    ],
)
def test_each_element_is_written_as_the_rule_says(value: float, kind: str, fmt: str, want: str) -> None:
    assert field(value, kind, fmt) == want


def test_the_text_is_a_header_then_one_line_per_valid_row() -> None:
    grid = np.array([[1, -2, 3], [40, 50, -60]], dtype=np.int8)
    assert render(grid, "int", "Width8_Precision2") == (
        "TPRINT 2x3\n       1       -2        3\n      40       50      -60\n"
    )


def test_a_text_mismatch_names_the_first_differing_line(tmp_path: Path) -> None:
    (tmp_path / "c0_stdout.out").write_bytes(b"TPRINT 1x2\n  1.0000   2.5000\n")
    check = text_check("c0_stdout.out", b"TPRINT 1x2\n  1.0000   2.0000\n", "case 0")
    outcome = check(tmp_path)
    assert outcome.status == "fail" and "at line 2" in outcome.detail and "2.5000" in outcome.detail
    assert (
        text_check("c0_stdout.out", b"TPRINT 1x2\n  1.0000   2.5000\n", "case 0")(tmp_path).status == "pass"
    )


def test_a_kernel_prints_the_rendered_text(tmp_path: Path) -> None:
    """half, int8_t and uint32_t tiles with partial valid regions, every format, against the rule."""
    source = """
#include <pto/pto-inst.hpp>
using namespace pto;
int main() {
    Tile<TileType::Vec, half, 2, 16, BLayout::RowMajor, 2, 3> h;
    TASSIGN(h, 0x0);
    const float hv[3] = {1.5f, -0.25f, 1000.0f};
    for (int c = 0; c < 3; ++c) { h.SetElement(0, c, half(hv[c])); h.SetElement(1, c, half(-hv[c])); }
    TPRINT(h);
    Tile<TileType::Vec, int8_t, 1, 32, BLayout::RowMajor, 1, 4> b;
    TASSIGN(b, 0x400);
    const int8_t bv[4] = {-128, 65, 0, 127};
    for (int c = 0; c < 4; ++c) b.SetElement(0, c, bv[c]);
    TPRINT<PrintFormat::Width10_Precision6>(b);
    Tile<TileType::Vec, uint32_t, 1, 8, BLayout::RowMajor, 1, 2> u;
    TASSIGN(u, 0x800);
    u.SetElement(0, 0, 4294967295u);
    u.SetElement(0, 1, 17u);
    TPRINT<PrintFormat::Width8_Precision2>(u);
    return 0;
}
"""
    exe = build_program(COMPILERS[0], source, tmp_path, "print")
    out = subprocess.run([str(exe)], check=True, capture_output=True).stdout.decode()
    hv = np.array([[1.5, -0.25, 1000.0], [-1.5, 0.25, -1000.0]], dtype=np.float16)
    want = render(hv, "float", "Width8_Precision4")
    want += render(np.array([[-128, 65, 0, 127]], dtype=np.int8), "int", "Width10_Precision6")
    want += render(np.array([[4294967295, 17]], dtype=np.uint32), "int", "Width8_Precision2")
    assert out == want
