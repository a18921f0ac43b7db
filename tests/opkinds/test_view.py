"""The view op kind (TSUBVIEW and TALIAS, ptogen/opkinds/view.py): the math the pages show, writes through a
view landing in the viewed tile, and the simulator's stop on a view outside the source's valid
region. (The generated cases check reads through views for every type and profile.)"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ..compilers import COMPILERS, build_program, require
from ..helpers import ROOT

PROGRAM = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
#include <string>

using namespace pto;

int main(int argc, char** argv) {
    using Whole = Tile<TileType::Vec, int32_t, 8, 16, BLayout::RowMajor, 8, 16>;
    using Part = Tile<TileType::Vec, int32_t, 8, 16, BLayout::RowMajor, 3, 4>;
    Whole src;
    Part view;
    for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 16; ++c)
            src.at(r, c) = r * 100 + c;
    const std::string what = argc > 1 ? argv[1] : "";
    if (what == "outside") {
        TSUBVIEW(view, src, 6, 2);  // rows 6..8 of 8 valid rows
        std::printf("survived\n");
        return 0;
    }
    if (what == "alias_outside") {
        using Small = Tile<TileType::Vec, int32_t, 8, 16, BLayout::RowMajor, 2, 16>;
        Small small;
        TALIAS(src, small);  // src shows 8 valid rows, small has 2
        std::printf("survived\n");
        return 0;
    }
    Part alias;
    TALIAS(alias, src);
    alias.at(2, 3) = 77;  // src (2, 3)
    std::printf("%d\n", src.at(2, 3));
    TSUBVIEW(view, src, 2, 5);
    std::printf("%d %d\n", view.at(0, 0), view.at(2, 3));  // src (2, 5) and (4, 8)
    view.at(1, 1) = -7;  // src (3, 6)
    std::printf("%d\n", src.at(3, 6));
    return 0;
}
"""


@pytest.fixture(scope="module", params=COMPILERS)
def program(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    cxx = require(request.param)
    work = tmp_path_factory.mktemp("view")
    return build_program(cxx, PROGRAM, work, "view")


def test_a_view_reads_and_writes_the_viewed_tile(program: Path) -> None:
    out = subprocess.run([str(program)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["77", "205", "408", "-7"]


def test_a_view_outside_the_valid_region_stops(program: Path) -> None:
    out = subprocess.run([str(program), "outside"], capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "survived" not in out.stdout
    assert out.stderr.startswith("PTO runtime error: TSUBVIEW: the view (row_idx + dst valid rows"), (
        out.stderr
    )


def test_an_alias_outside_the_valid_region_stops(program: Path) -> None:
    out = subprocess.run([str(program), "alias_outside"], capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "survived" not in out.stdout
    expected = "PTO runtime error: TALIAS: the alias's valid region must lie within"
    assert out.stderr.startswith(expected), out.stderr


def test_the_pages_show_the_view_math() -> None:
    page = (ROOT / "generated/docs/isa/tile/ops/sync-and-config/subview.md").read_text()
    assert r"\mathrm{dst}_{i,j} = \mathrm{src}_{\mathrm{row\_idx} + i,\mathrm{col\_idx} + j}" in page
    assert "The tiles `dst` and `src` must have the same `TileType`, layout" in page
