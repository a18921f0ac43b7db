"""The golden check of a tile a kernel wrote: one region holds the expected values, the rest of the
tile is untouched. Kinds differ only in the region (the valid one, or a mask of written elements),
in how values are judged (bit for bit, NaN for NaN, or within the op's tolerance) and in the box
bytes of the tile's layout."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..testing.golden import Check, compare, describe_mismatch, is_float, raw_bits
from ..testing.manifest import TileShape, Tolerance
from ..testing.results import Outcome
from .layout import tile_logical

# The mismatching elements of `got` against `want` (a boolean mask of their shape).
Judge = Callable[[np.ndarray, np.ndarray], np.ndarray]


def same_bits(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Bit for bit (a NaN must be the same NaN)."""
    return raw_bits(got) != raw_bits(want)


def same_bits_or_nan(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Bit for bit, except that any NaN matches any NaN (a moved NaN may change its payload)."""
    bad = raw_bits(got) != raw_bits(want)
    if is_float(got.dtype):
        bad &= ~(np.isnan(got.astype(np.float32)) & np.isnan(want.astype(np.float32)))
    return bad


def within_tolerance(tolerance: Tolerance) -> Judge:
    """Within the op's tolerance (`golden.compare`)."""
    return lambda got, want: compare(got, want, tolerance)


def region_check(
    out: str,
    t: TileShape,
    want: np.ndarray,
    before: np.ndarray,
    label: str,
    *,
    judge: Judge = same_bits_or_nan,
    written: np.ndarray | None = None,
    dtype: Any = None,
    fractal: int | None = None,
    extent: tuple[int, int] | None = None,
    names: tuple[str, str] = ("valid", "outside-the-valid-region"),
    detail: str = "",
) -> Check:
    """A check of the kernel's output file `out` (elements of `dtype`, by default `want`'s), seen as
    the tile's rows x cols matrix: the elements `written` (a mask; by default the top-left block of
    `extent` rows and columns, the valid region unless given, which `want` then covers) hold `want`
    as `judge` accepts, and every other element is still `before`. `names` name the two regions in a
    failure (`detail` follows the first)."""
    vr, vc = extent or (t.valid_rows, t.valid_cols)
    dt = want.dtype if dtype is None else dtype

    def check(data_dir: Path) -> Outcome:
        got = tile_logical(np.fromfile(data_dir / out, dtype=dt), t, fractal)
        if written is None:
            inside = got[:vr, :vc]
            bad = judge(inside, want)
            outside = np.ones(got.shape, dtype=bool)
            outside[:vr, :vc] = False
        else:
            inside = got
            bad = written & judge(got, want)
            outside = ~written
        if bad.any():
            return Outcome("fail", label, describe_mismatch(bad, inside, want, names[0], detail))
        changed = outside & (raw_bits(got) != raw_bits(before))
        if changed.any():
            return Outcome("fail", label, describe_mismatch(changed, got, before, names[1]))
        return Outcome("pass", label)

    return check
