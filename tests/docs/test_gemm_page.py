"""The GEMM page's box-layout figure numbers each element with the storage position the runtime's
`GetTileElementOffset` gives it: the figure's formula (ptogen/emit/boxfig.py) is compared with the
C++ on real cube tiles of every box layout."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ptogen.cli import RUNTIME_INCLUDE
from ptogen.emit import boxfig

from ..compilers import COMPILERS, cxx_argv, require
from ..helpers import ROOT

# (C++ tile type, rows, cols, box edges, boxes row-major?, inside a box row-major?)
TILES = [
    (
        "Tile<TileType::Mat, float, 32, 16, BLayout::ColMajor, 32, 16, SLayout::RowMajor, 512>",
        32,
        16,
        (16, 8),
        False,
        True,
    ),
    ("TileRight<float, 16, 32>", 16, 32, (8, 16), True, False),
    ("TileAcc<float, 32, 32>", 32, 32, (16, 16), False, True),
    ("TileLeft<half, 32, 32>", 32, 32, (16, 16), False, True),
]


def test_the_figure_uses_the_runtimes_storage_order(tmp_path: Path) -> None:
    cxx = require(COMPILERS[0])
    body = "\n".join(
        f"    for (int r = 0; r < {rows}; ++r) for (int c = 0; c < {cols}; ++c)"
        f' std::printf("%zu\\n", GetTileElementOffset<{ty}>(r, c));'
        for ty, rows, cols, *_ in TILES
    )
    source = tmp_path / "offsets.cpp"
    source.write_text(
        f"#include <pto/pto-inst.hpp>\n#include <cstdio>\nusing namespace pto;\nint main() {{\n{body}\n}}\n"
    )
    exe = tmp_path / "offsets"
    argv = [
        *cxx_argv(cxx),
        "-std=c++20",
        f"-I{ROOT / 'generated/include'}",
        f"-I{RUNTIME_INCLUDE}",
        str(source),
        "-o",
        str(exe),
    ]
    built = subprocess.run(argv, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    printed = [
        int(x) for x in subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()
    ]
    expected = [
        boxfig.offset(r, c, rows, cols, box, outer, inner)
        for _, rows, cols, box, outer, inner in TILES
        for r in range(rows)
        for c in range(cols)
    ]
    assert printed == expected


def test_the_figure_shows_nz_and_zn_as_the_page_describes_them() -> None:
    panels = {p.title: p for p in boxfig.panels()}
    nz, zn = panels["NZ"], panels["ZN"]
    grid = lambda p: [[c.value for c in p.cells[r * 4 : r * 4 + 4]] for r in range(4)]  # noqa: E731
    assert grid(nz)[2][:2] == [4, 5]  # NZ: the second box is the one below the first
    assert grid(zn)[0][2:] == [4, 6]  # ZN: the second box is the one right of the first
    svg = (ROOT / "generated/docs/figures/box-layouts.svg").read_text()
    assert all(f">{v}</text>" in svg for v in range(16))
