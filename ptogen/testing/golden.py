"""Test inputs and golden checks for the generated runtime kernels.

Inputs are deterministic (seeded from the case's name) and always contain the special values
of the element type. Expected values come from the op's generated Python reference, evaluated
in the compute type and rounded to the element type exactly as the simulator does.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import ml_dtypes
import numpy as np

from .manifest import CaseEntry, DTypeInfo, OpManifest, RuntimeGroup, Tolerance, VectorGroup
from .results import Outcome

Check = Callable[[Path], Outcome]


@dataclass
class GoldenContext:
    """One runtime group of an op, as its kind's `prepare_cases` sees it."""

    op_name: str
    op: OpManifest  # the op's manifest
    dtypes: dict[str, DTypeInfo]  # the project manifest's dtype table
    entry: RuntimeGroup | VectorGroup  # the group: its dtypes and cases
    reference: ModuleType  # the op's generated numpy reference
    label: str  # how outcomes name the group

    @property
    def group(self) -> RuntimeGroup:
        """The group of a tile op: its element types and cases."""
        assert isinstance(self.entry, RuntimeGroup), "a vector op's group has no tile cases"
        return self.entry

    @property
    def vector(self) -> VectorGroup:
        """The group of a vector op: one element type, masks and scalars."""
        assert isinstance(self.entry, VectorGroup), "a tile op's group is not a vector group"
        return self.entry

    def np_type(self, dtype: str) -> np.dtype:
        return np_dtype(self.dtypes[dtype].numpy)


def np_dtype(numpy_name: str) -> np.dtype:
    if numpy_name == "bfloat16":
        return np.dtype(ml_dtypes.bfloat16)
    if numpy_name.startswith("float8_"):  # ml_dtypes' 8-bit floats (float8_e4m3fn, float8_e8m0fnu, ...)
        return np.dtype(getattr(ml_dtypes, numpy_name))
    return np.dtype(numpy_name)


def compute_dtype(storage: np.dtype) -> np.dtype:
    """The simulator computes half and bfloat16_t in float."""
    if storage in (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)):
        return np.dtype(np.float32)
    return storage


def is_float(dt: np.dtype) -> bool:
    return dt.kind == "f" or dt == np.dtype(ml_dtypes.bfloat16)


def special_values(dt: np.dtype) -> np.ndarray:
    if is_float(dt):
        finfo = ml_dtypes.finfo(dt) if dt == np.dtype(ml_dtypes.bfloat16) else np.finfo(dt)
        vals = [
            0.0,
            -0.0,
            np.nan,
            np.inf,
            -np.inf,
            1.0,
            -1.0,
            0.5,
            -2.5,
            float(finfo.max),
            -float(finfo.max),
            float(finfo.smallest_subnormal),
            -float(finfo.smallest_normal),
            3.0,
            -0.75,
        ]
        return np.array(vals, dtype=np.float64).astype(dt)
    info = np.iinfo(dt)
    vals = [0, 1, int(info.max), int(info.min), 2, int(info.max) - 1, 7]
    if info.min < 0:
        vals += [-1, -2, int(info.min) + 1, -7]
    return np.array(vals, dtype=object).astype(dt)


def random_values(dt: np.dtype, count: int, seed_text: str) -> np.ndarray:
    rng = np.random.default_rng(zlib.crc32(seed_text.encode()))
    if is_float(dt):
        vals = rng.uniform(-10.0, 10.0, count).astype(np.float32)
        return vals.astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, count, endpoint=True, dtype=dt)


def inputs(dt: np.dtype, count: int, seed_text: str) -> np.ndarray:
    vals = random_values(dt, count, seed_text)
    sp = special_values(dt)
    n = min(len(sp), count)
    vals[:n] = sp[:n]
    return vals


def within(vals: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Test inputs kept to [lo, hi] (a profile's run-time rule bounds them). Floats are clamped (NaN
    becomes lo); the integer type's extremes become the bounds and other integers outside are folded
    back into the range, deterministically, so the golden and the kernel read the same data."""
    if is_float(vals.dtype):
        kept: list[float | int] = [
            min(max(v, lo), hi) if v == v else lo for v in vals.astype(np.float64).tolist()
        ]
        return np.array(kept, dtype=np.float64).astype(vals.dtype)
    info = np.iinfo(vals.dtype)
    low, high = int(lo), int(hi)
    span = high - low + 1
    kept = [
        high if v == info.max else low if v == info.min else v if low <= v <= high else low + (v - low) % span
        for v in vals.tolist()
    ]
    return np.array(kept, dtype=object).astype(vals.dtype)


def logical(flat: np.ndarray, rows: int, cols: int, layout: str) -> np.ndarray:
    """(rows, cols) view of a tile's storage in its layout."""
    return flat.reshape(rows, cols) if layout == "RowMajor" else flat.reshape(cols, rows).T


def raw_bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.dtype(f"u{a.dtype.itemsize}"))


def _ordered(a: np.ndarray) -> np.ndarray:
    """Map float bit patterns to integers whose order is the order of the values (for ULPs)."""
    bits = raw_bits(a).astype(np.int64)
    sign = 1 << (a.dtype.itemsize * 8 - 1)
    return np.where(bits & sign, sign - bits, bits + 0)


def compare(got: np.ndarray, want: np.ndarray, tolerance: Tolerance) -> np.ndarray:
    """Boolean mask of mismatching elements."""
    if not is_float(got.dtype):
        return raw_bits(got) != raw_bits(want)
    with np.errstate(invalid="ignore"):  # an 8-bit float's NaN widens to NaN, with a warning
        g64, w64 = got.astype(np.float64), want.astype(np.float64)
    both_nan = np.isnan(g64) & np.isnan(w64)
    if tolerance.kind == "exact":
        bad = raw_bits(got) != raw_bits(want)
    else:
        same_inf = np.isinf(w64) & (g64 == w64)
        finite = np.isfinite(g64) & np.isfinite(w64)
        within = finite & (np.abs(_ordered(got) - _ordered(want)) <= int(tolerance.ulp))
        bad = ~(within | same_inf)
    return bad & ~both_nan


def describe_mismatch(bad: np.ndarray, got: np.ndarray, want: np.ndarray, what: str, extra: str = "") -> str:
    idx = np.argwhere(bad)
    first = tuple(int(i) for i in idx[0])
    return (
        f"{int(bad.sum())} {what} element(s) differ; first at {first}: got {got[first]!r}, "
        f"want {want[first]!r}{extra}"
    )


def write_tile_inputs(
    gx: GoldenContext, case: CaseEntry, dtype: np.dtype, data: Path
) -> dict[str, np.ndarray]:
    """Seeded inputs for every tile a case declares, written as `c<k>_<tile>.bin` (whole storage)."""
    k = case.index
    seed = f"{gx.op_name}/{gx.entry.group}/{k}"
    arrays = {}
    for name, t in case.tiles.items():
        arrays[name] = inputs(dtype, t.rows * t.cols, f"{seed}/{name}")
        arrays[name].tofile(data / f"c{k}_{name}.bin")
    return arrays


def same_bits(
    out: str, want: np.ndarray, label: str, what: str, view: Callable[[np.ndarray], np.ndarray] | None = None
) -> Check:
    """A check that the kernel's output file `out` (seen through `view`, e.g. a layout's logical
    matrix) holds exactly the bits of `want`: ops that move or bind data compute nothing."""

    def check(d: Path) -> Outcome:
        got = np.fromfile(d / out, dtype=want.dtype)
        if view is not None:
            got = view(got)
        bad = raw_bits(got) != raw_bits(want)
        if bad.any():
            return Outcome("fail", label, describe_mismatch(bad, got, want, what))
        return Outcome("pass", label)

    return check


MASKS = {
    "all lanes": lambda n: np.ones(n, dtype=bool),
    "first 5 lanes": lambda n: np.arange(n) < 5,
    "alternate lanes": lambda n: np.arange(n) % 2 == 0,
    "no lanes": lambda n: np.zeros(n, dtype=bool),
}
