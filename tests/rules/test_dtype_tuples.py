"""Rule kind `dtype_tuples`: the element types of several operands form one of a table of tuples
(TMATMUL's (accumulator, left, right)). A broken call's diagnostic lists the allowed tuples and,
in the compiler's note, the tuple passed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ..compilers import cxx_argv, require
from ..helpers import ROOT

# TMATMUL with half x float -> float under A2A3, the inner extents disagreeing (32 against 16).
KERNEL = """#include <pto/pto-inst.hpp>
using namespace pto;
void mm() {
    Tile<TileType::Acc, float, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor, 1024> c;
    Tile<TileType::Left, half, 16, 32, BLayout::ColMajor, 16, 32, SLayout::RowMajor, 512> a;
    Tile<TileType::Right, float, 16, 16, BLayout::RowMajor, 16, 16, SLayout::ColMajor, 512> b;
    profiled::TMATMUL<profile_a2a3>(c, a, b);
}
"""


def broken_matmul_diagnostics(cxx: str, work: Path) -> str:
    """The compiler's output for KERNEL (which must not compile)."""
    src = work / "mm.cpp"
    src.write_text(KERNEL)
    includes = [f"-I{ROOT / 'generated/include'}", f"-I{ROOT / 'ptogen/runtime/include'}"]
    built = subprocess.run(
        [*cxx_argv(require(cxx)), "-std=c++20", "-D__CPU_SIM", "-fsyntax-only", *includes, str(src)],
        capture_output=True,
        text=True,
    )
    assert built.returncode != 0
    return built.stderr


@pytest.mark.parametrize("cxx", ["clang++", "g++"])
def test_the_tuple_error_lists_the_allowed_tuples_and_the_one_passed(cxx: str, tmp_path: Path) -> None:
    err = broken_matmul_diagnostics(cxx, tmp_path)
    allowed = (
        "TMATMUL [A2A3]: the element types (c, a, b) must be (int32_t, int8_t, int8_t), (float, half, half), "
        "(float, bfloat16_t, bfloat16_t) or (float, float, float)"
    )
    assert allowed in err, err
    # The tuple passed, (c, a, b) = (float, half, float), in the error itself (clang) or its note (g++).
    assert "passed_types<false, float, pto::half, float>" in err, err
    # The condition is a named constant: no disjunction of is_same_v spelled out in the output.
    assert "is_same_v" not in err, err


@pytest.mark.parametrize("cxx", ["clang++", "g++"])
def test_the_shape_error_names_the_failed_equation_and_its_sides(cxx: str, tmp_path: Path) -> None:
    err = broken_matmul_diagnostics(cxx, tmp_path)
    errors = [line for line in err.splitlines() if "error:" in line and "template shapes" in line]
    assert len(errors) == 1 and "TMATMUL [A2A3]: template shapes must satisfy a.Cols == b.Rows" in errors[0]
    assert "passed_values<false, 32, 16>" in err, err
