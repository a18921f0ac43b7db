"""Rule kind `tile_fractal`: a tile's box layout (the MX products' cube fractals, TINSERT's NZ
split form)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from ptogen.rule_api import TileDecl
from ptogen.rules.tile_fractal import TileFractalRule

from ..compilers import cxx_argv, require
from ..helpers import ROOT
from .common import failing_cases


def test_tinsert_split_form_takes_an_nz_source_of_its_own_types() -> None:
    failing = failing_cases("tinsert")
    (nz,) = [c for c in failing if c.startswith("fail_a5_") and c.endswith("tile_fractal_f6")]
    nz_src = "box layout of src must be BLayout::ColMajor with SLayout::RowMajor (NZ)"
    assert failing[nz] == [f"TINSERT [A5]: {nz_src}"]
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


# The cube's box layouts come from the tile aliases, per profile: A2A3's TileLeft is ZZ, A5's NZ.
LEFT_ZZ = "box layout of a must be BLayout::RowMajor with SLayout::RowMajor (ZZ, as TileLeft)"
LEFT_NZ = "box layout of a must be BLayout::ColMajor with SLayout::RowMajor (NZ, as TileLeft)"
CUBE_OPS = ["tmatmul", "tmatmul_acc", "tmatmul_bias", "tgemv", "tgemv_acc", "tgemv_bias"]


@pytest.mark.parametrize("op", CUBE_OPS)
def test_each_cube_op_rejects_a_left_tile_of_another_profiles_layout(op: str) -> None:
    failing = failing_cases(op)
    upper = op.upper()
    for profile, message in (("A2A3", LEFT_ZZ), ("A5", LEFT_NZ)):
        assert [f"{upper} [{profile}]: {message}"] in failing.values(), (profile, sorted(failing))
    # b and c keep one layout everywhere; the CPU profile leaves a's arrangement free.
    for profile in ("A2A3", "A5", "CPU"):
        assert any(f"{upper} [{profile}]: box layout of b must be" in m[0] for m in failing.values())
        assert any(f"{upper} [{profile}]: box layout of c must be" in m[0] for m in failing.values())
    assert not any(m[0].startswith(f"{upper} [CPU]: box layout of a") for m in failing.values())


def test_the_layouts_come_from_the_aliases_and_show_on_the_page() -> None:
    page = (ROOT / "generated/docs/isa/TMATMUL.md").read_text()
    # (the row of each declaration group: TMATMUL's two declarations share theirs)
    row = next(line for line in page.splitlines() if line.startswith("| 1, 2 | `a` | location `Left`"))
    assert row.count("ZZ boxes (`TileLeft`)") == 1 and row.count("NZ boxes (`TileLeft`)") == 1, row


NZ_LEFT_KERNEL = """#include <pto/pto-inst.hpp>
using namespace pto;
void mm() {
    TileAcc<float, 16, 16> c;
    Tile<TileType::Left, half, 16, 32, BLayout::ColMajor, 16, 32, SLayout::RowMajor, 512> a;  // NZ
    TileRight<half, 32, 16> b;
    profiled::TMATMUL<profile_PROFILE>(c, a, b);
}
"""


@pytest.mark.parametrize("cxx", ["clang++", "g++"])
def test_an_nz_left_tile_fails_to_compile_under_a2a3_naming_the_rule(cxx: str, tmp_path: Path) -> None:
    includes = [f"-I{ROOT / 'generated/include'}", f"-I{ROOT / 'ptogen/runtime/include'}"]

    def compile_under(profile: str) -> subprocess.CompletedProcess[str]:
        src = tmp_path / f"{profile}.cpp"
        src.write_text(NZ_LEFT_KERNEL.replace("PROFILE", profile))
        argv = [*cxx_argv(require(cxx)), "-std=c++20", "-D__CPU_SIM", "-fsyntax-only", *includes, str(src)]
        return subprocess.run(argv, capture_output=True, text=True)

    a2a3 = compile_under("a2a3")
    assert a2a3.returncode != 0
    errors = [line for line in a2a3.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and f"TMATMUL [A2A3]: {LEFT_ZZ}" in errors[0], a2a3.stderr
    # The same tile is A5's TileLeft layout: there it compiles.
    a5 = compile_under("a5")
    assert a5.returncode == 0, a5.stderr
