"""Where a tile's and a GlobalTensor's elements live in their storage, as the simulator places them
(pto/cpu/tile_offsets.hpp, GetTileElementOffset): the one layout every golden reads and writes by."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..testing.manifest import GlobalShape, TileShape


def box_shape(t: TileShape, itemsize: int, fractal: int | None = None) -> tuple[int, int]:
    """(rows, columns) of one box of a boxed tile: 16 rows of 32 bytes (NZ: row-major inside), 32
    bytes of 16 columns (ZN: column-major inside), 16 x 16 for a 1 KiB accumulator box, 16 x 2 or
    2 x 16 for an MX scale's 32-byte box."""
    inner_row_major = t.slayout == "RowMajor"
    fractal = fractal or t.fractal
    if fractal == 1024:
        return 16, 16
    if fractal == 32:
        return (16, 2) if inner_row_major else (2, 16)
    return (16, 32 // itemsize) if inner_row_major else (32 // itemsize, 16)


def tile_offsets(t: TileShape, itemsize: int, fractal: int | None = None) -> np.ndarray:
    """Storage index of each element (r, c) of a tile: plain row- or column-major, or boxes
    (`box_shape`, `fractal` overriding the tile's own box bytes) ordered by the outer layout, each
    in its inner one."""
    rows, cols = t.rows, t.cols
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    if not t.slayout or t.slayout == "NoneBox":
        return r * cols + c if t.layout == "RowMajor" else c * rows + r
    ir, ic = box_shape(t, itemsize, fractal)
    box = ir * ic
    if t.layout == "RowMajor":
        start = (r // ir) * cols * ir + (c // ic) * box
    else:
        start = (c // ic) * rows * ic + (r // ir) * box
    inner = (r % ir) * ic + (c % ic) if t.slayout == "RowMajor" else (c % ic) * ir + (r % ir)
    return start + inner


def tile_logical(flat: np.ndarray, t: TileShape, fractal: int | None = None) -> np.ndarray:
    """A tile's storage as its rows x cols matrix (any plain or boxed layout), a copy."""
    return flat[tile_offsets(t, flat.dtype.itemsize, fractal)]


def global_addresses(g: GlobalShape, rows: int, cols: int, itemsize: int = 1) -> np.ndarray:
    """Buffer index of each element (i, j) of the rows x cols region of a GlobalTensor's matrix: the
    matrix indices split over the five dimensions as the layout folds them (innermost last in each
    group), then weighted by the strides."""
    d, s = g.shape, g.strides
    i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    groups = {
        "ND": ([0, 1, 2, 3], [4]),
        "DN": ([3], [0, 1, 2, 4]),
        "NZ": ([2, 3], [0, 1, 4]),
        "NC1HWC0": ([0, 2, 3], [1, 4]),
        "NDC1HWC0": ([0, 3, 4], [1, 2]),  # the channel block (its stride 1) beyond the five dimensions
    }
    row_dims, col_dims = groups[g.layout]
    addr = np.zeros_like(i)
    if g.layout == "NDC1HWC0":
        c0 = 32 // itemsize  # a channel block of 32 bytes of the tensor's elements
        addr += j % c0
        j = j // c0
    for index, dims in ((i, row_dims), (j, col_dims)):
        rest = index.copy()
        for dim in reversed(dims):
            addr += (rest % d[dim]) * s[dim]
            rest //= d[dim]
    return addr


def pad_value(dtype: np.dtype, pad: str) -> Any:
    """The element a PadValue names: 0 (Zero), +-infinity for a floating type, else the type's
    largest or smallest value (Max, Min)."""
    if pad == "Zero":
        return dtype.type(0)
    if dtype.kind == "f" or dtype.name == "bfloat16":
        return dtype.type(np.inf if pad == "Max" else -np.inf)
    info = np.iinfo(dtype)
    return dtype.type(info.max if pad == "Max" else info.min)
