"""The box-layout figure of the GEMM page: where each element of a small boxed tile sits in storage,
for the layouts the cube uses (NZ for Left and Acc, ZN for Right) and plain row-major (ND).

`offset` is the tile's element-to-storage map as the runtime's `GetTileElementOffset` computes it
(tests/docs/test_gemm_page.py compares the two on real tile types); the figure draws it on a 4 x 4 tile
of 2 x 2 boxes so every number fits.
"""

from __future__ import annotations

from dataclasses import dataclass


def offset(
    r: int, c: int, rows: int, cols: int, box: tuple[int, int], outer_row_major: bool, inner_row_major: bool
) -> int:
    """Storage position of element (r, c): boxes of box[0] x box[1] elements, ordered row by row
    (outer row-major) or column by column, each box's elements row- or column-major."""
    ir, ic = box
    box_row, in_row, box_col, in_col = r // ir, r % ir, c // ic, c % ic
    start = (
        box_row * cols * ir + box_col * ir * ic
        if outer_row_major
        else box_col * rows * ic + box_row * ir * ic
    )
    return start + (in_row * ic + in_col if inner_row_major else in_col * ir + in_row)


@dataclass(frozen=True)
class Cell:
    x: int
    y: int
    value: int
    shade: bool  # alternate boxes shaded, so the boxes read as blocks


@dataclass(frozen=True)
class Panel:
    title: str
    caption: str
    x: int
    cells: list[Cell]


SIZE, CELL, GAP = 4, 28, 40
LAYOUTS = [
    ("ND (row-major)", "Vec tiles, global memory", (1, 1), True, True),
    ("NZ", "Mat, Left (A5, CPU), Acc", (2, 2), False, True),
    ("ZN", "Right", (2, 2), True, False),
]


def panels() -> list[Panel]:
    out = []
    for i, (title, caption, box, outer_rm, inner_rm) in enumerate(LAYOUTS):
        x0 = 10 + i * (SIZE * CELL + GAP + 30)
        cells = [
            Cell(
                x0 + c * CELL,
                40 + r * CELL,
                offset(r, c, SIZE, SIZE, box, outer_rm, inner_rm),
                box != (1, 1) and ((r // box[0]) + (c // box[1])) % 2 == 1,
            )
            for r in range(SIZE)
            for c in range(SIZE)
        ]
        out.append(Panel(title, caption, x0, cells))
    return out


WIDTH = 10 + len(LAYOUTS) * (SIZE * CELL + GAP + 30)
