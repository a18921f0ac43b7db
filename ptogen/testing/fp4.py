"""The twin 4-bit floats in numpy: `float4_e2m1x2_t` and `float4_e1m2x2_t` hold two elements a byte
(element 2k in the low nibble of byte k, element 2k + 1 in the high one, as
`pto/common/packed_types.hpp` stores them). A code is a sign bit (bit 3) over an exponent and a
significand field; exponent 0 is subnormal. E2M1 is OCP's FP4 (ml_dtypes' `float4_e2m1fn`: 0, 0.5,
1, 1.5, 2, 3, 4, 6); E1M2 has one exponent bit with bias 1, so its magnitudes are the quarters 0 ..
1.75, built here from that definition (ml_dtypes has no such type). Neither has an infinity or NaN.

The test plan's goldens use these to draw packed data, decode it exactly (every value is a small
dyadic rational, exact in float32 and float64) and judge packed outputs code by code."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import ml_dtypes
import numpy as np

from .results import Outcome

E2M1 = "float4_e2m1x2_t"
E1M2 = "float4_e1m2x2_t"
TWINS = (E2M1, E1M2)


def _e1m2_magnitude(code: int) -> float:
    exp, man = (code >> 2) & 1, code & 3
    return (man / 4.0) if exp == 0 else (1.0 + man / 4.0)  # 2^(1 - 1) either way


def value_table(dtype: str) -> np.ndarray:
    """The value of each of the 16 codes (float64), the sign in bit 3 (code 8 is -0)."""
    if dtype == E2M1:
        return np.arange(16, dtype=np.uint8).view(ml_dtypes.float4_e2m1fn).astype(np.float64)
    if dtype == E1M2:
        mags = [_e1m2_magnitude(c & 7) for c in range(16)]
        return np.array([-m if c & 8 else m for c, m in enumerate(mags)], dtype=np.float64)
    raise ValueError(f"{dtype} is not a twin 4-bit float")


def decode(codes: np.ndarray, dtype: str) -> np.ndarray:
    """Codes (one a uint8, low nibble) as float64 values."""
    return value_table(dtype)[np.asarray(codes, dtype=np.uint8) & 0x0F]


def nearest_code(value: float, dtype: str) -> int:
    """The code nearest `value` (ties to the even code, i.e. the one with significand bit 0), the
    largest magnitude for values beyond it, the sign of value in bit 3 (zero keeps its sign); NaN
    gives the largest positive code."""
    table = value_table(dtype)[:8]
    if np.isnan(value):
        return 7
    sign = 8 if np.signbit(value) else 0
    a = abs(float(value))
    best = min(range(8), key=lambda k: (abs(a - table[k]), k % 2, k))
    return sign | best


def units(count: int) -> int:
    """Bytes that hold `count` elements."""
    return -(-count // 2)


def unpack(packed: np.ndarray, count: int | None = None) -> np.ndarray:
    """Bytes of a twin buffer as one code per element (uint8), element 2k from byte k's low nibble."""
    b = np.asarray(packed, dtype=np.uint8).reshape(-1)
    codes = np.empty(b.size * 2, dtype=np.uint8)
    codes[0::2], codes[1::2] = b & 0x0F, b >> 4
    return codes if count is None else codes[:count]


def pack(codes: np.ndarray) -> np.ndarray:
    """Codes (one a uint8, an even count or padded with 0) as the bytes of a twin buffer."""
    c = np.asarray(codes, dtype=np.uint8).reshape(-1) & 0x0F
    if c.size % 2:
        c = np.append(c, np.uint8(0))
    return (c[0::2] | (c[1::2] << 4)).astype(np.uint8)


def random_codes(rng: np.random.Generator, count: int) -> np.ndarray:
    """Uniformly drawn codes, every code (both zeros, the largest magnitudes) among them."""
    return rng.integers(0, 16, count, dtype=np.uint8)


def codes_check(
    out: str,
    layout: Callable[[np.ndarray], np.ndarray],
    want: np.ndarray,
    mask: np.ndarray,
    before: np.ndarray,
    label: str,
) -> Callable[[Path], Outcome]:
    """Judges a packed output: the file's bytes unpacked and laid out as the tile's rows x cols codes
    by `layout`; where `mask` is set they equal `want`, elsewhere `before`, code for code."""

    def check(data_dir: Path) -> Outcome:
        got = layout(unpack(np.fromfile(data_dir / out, dtype=np.uint8)))
        for what, sel, expect in (("written", mask, want), ("unwritten", ~mask, before)):
            bad = sel & (got != expect)
            if bad.any():
                r, c = (int(x) for x in np.argwhere(bad)[0])
                return Outcome(
                    "fail",
                    label,
                    f"{int(bad.sum())} {what} code(s) differ; first at ({r}, {c}): "
                    f"got {int(got[r, c]):#x}, want {int(expect[r, c]):#x}",
                )
        return Outcome("pass", label)

    return check
