"""Golden values of TCVT: element conversion between any two element types, in exact arithmetic.

Written apart from the simulator's `pto/common/sim_convert.hpp` (which asks the spec's RoundMode
expressions where a value falls between two neighbours): here every value becomes a Fraction and
each rounding mode is stated directly. The decisions both implement are the spec's notes:

- to a floating type: correctly rounded as the mode says (infinity counts as the step past the
  largest finite value); with saturation, a result of +-infinity becomes +-the largest finite value;
  NaN stays NaN;
- floating to integer: rounded to an integer as the mode says; with saturation clamped to the
  destination's range (NaN gives 0); without, converted through a W-bit signed integer (W = 64 for
  64-bit destinations, uint32_t and uint8_t, else 32) where NaN and values outside give -2^(W-1),
  then wrapped to the destination's width (what upstream's CPU simulator yields on x86-64);
- integer to integer: clamped with saturation, wrapped modulo 2^bits without.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np

Rounder = Callable[[Fraction], int]


def _round_even(x: Fraction) -> int:
    return round(x)  # Python rounds a Fraction's ties to even


def _round_away(x: Fraction) -> int:
    m = math.floor(abs(x) + Fraction(1, 2))
    return m if x >= 0 else -m


def _round_trunc(x: Fraction) -> int:
    return math.trunc(x)


def _round_odd(x: Fraction) -> int:
    low = math.floor(x)
    return low if low == x or low % 2 == 1 else low + 1


# Rounding to an integer, by RoundMode value. CAST_NONE leaves the value to the conversion, which
# drops the fraction.
TO_INTEGER: dict[str, Rounder] = {
    "CAST_RINT": _round_even,
    "CAST_ROUND": _round_away,
    "CAST_FLOOR": math.floor,
    "CAST_CEIL": math.ceil,
    "CAST_TRUNC": _round_trunc,
    "CAST_ODD": _round_odd,
    "CAST_NONE": _round_trunc,
}


def _is_float(dt: np.dtype) -> bool:
    return dt.kind == "f" or dt == np.dtype(ml_dtypes.bfloat16)


def _finfo(dt: np.dtype) -> Any:
    return ml_dtypes.finfo(dt) if dt == np.dtype(ml_dtypes.bfloat16) else np.finfo(dt)


def _uint(dt: np.dtype) -> np.dtype:
    return np.dtype(f"u{dt.itemsize}")


def _from_bits(bits: int, dt: np.dtype) -> Any:
    return np.array([bits], dtype=_uint(dt)).view(dt)[0]


def _bits_of(value: Any, dt: np.dtype) -> int:
    return int(np.array([value], dtype=dt).view(_uint(dt))[0])


def _wrap(value: int, dt: np.dtype) -> int:
    bits = dt.itemsize * 8
    value %= 1 << bits
    if dt.kind == "i" and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _to_float(x: Fraction, negative_zero: bool, dt: np.dtype, mode: str) -> Any:
    """x rounded to the floating type dt as `mode` says."""
    if x == 0:
        return np.array([-0.0 if negative_zero else 0.0]).astype(dt)[0]
    a = abs(x)
    sign = 1 << (dt.itemsize * 8 - 1)
    with np.errstate(over="ignore"):  # beyond the largest finite value the guess is infinity
        guess = _bits_of(np.array([float(a)]).astype(dt)[0], dt) & ~sign  # one of a's two neighbours
    guess_f = float(_from_bits(guess, dt))
    lo = guess if not math.isinf(guess_f) and Fraction(guess_f) <= a else guess - 1
    lo_v = Fraction(float(_from_bits(lo, dt)))
    if lo_v == a:
        return _from_bits(lo | (sign if x < 0 else 0), dt)
    hi = lo + 1
    hi_f = float(_from_bits(hi, dt))
    hi_v = lo_v + (lo_v - Fraction(float(_from_bits(lo - 1, dt)))) if math.isinf(hi_f) else Fraction(hi_f)
    mid = (lo_v + hi_v) / 2
    negative = x < 0
    if mode in ("CAST_RINT", "CAST_ROUND", "CAST_NONE"):  # CAST_NONE: the conversion's nearest even
        up = a > mid if a != mid else (mode == "CAST_ROUND" or (lo & 1) == 1)  # a tie: away or even
    elif mode == "CAST_ODD":
        up = (lo & 1) == 0  # the neighbour whose last significand bit is 1
    elif mode == "CAST_FLOOR":
        up = negative
    elif mode == "CAST_CEIL":
        up = not negative
    elif mode == "CAST_TRUNC":
        up = False
    else:
        raise ValueError(f"not a RoundMode value: {mode!r}")
    return _from_bits((hi if up else lo) | (sign if negative else 0), dt)


def _round_only(value: Any, mode: str) -> Any:
    """TCVT's float to float: rounded to an integral value as the mode says, CAST_NONE to nearest even;
    NaN, infinities and zeros kept, a zero result with the value's sign."""
    f = float(value)
    if math.isnan(f) or math.isinf(f) or f == 0:
        return value
    n = (_round_even if mode == "CAST_NONE" else TO_INTEGER[mode])(Fraction(f))
    return np.float32(math.copysign(float(n), f))


def convert_value(value: Any, src: np.dtype, dst: np.dtype, mode: str, saturate: bool) -> Any:
    """One element of src's type converted to dst's."""
    if src == dst == np.dtype(np.float32):
        value = _round_only(value, mode)
    if _is_float(dst):
        if _is_float(src) and math.isnan(float(value)):
            return np.array([np.nan]).astype(dst)[0]
        if _is_float(src) and math.isinf(float(value)):
            out = np.array([float(value)]).astype(dst)[0]
        else:
            exact = Fraction(float(value)) if _is_float(src) else Fraction(int(value))
            negative_zero = _is_float(src) and math.copysign(1.0, float(value)) < 0
            out = _to_float(exact, negative_zero, dst, mode)
        if saturate and math.isinf(float(out)):
            biggest = float(_finfo(dst).max)
            out = np.array([biggest if float(out) > 0 else -biggest]).astype(dst)[0]
        return out
    info = np.iinfo(dst)
    if _is_float(src):
        f = float(value)
        rounded = None if math.isnan(f) or math.isinf(f) else TO_INTEGER[mode](Fraction(f))
        if saturate:
            if rounded is None:
                rounded = 0 if math.isnan(f) else (int(info.max) if f > 0 else int(info.min))
            return dst.type(min(max(rounded, int(info.min)), int(info.max)))
        width = 64 if dst.itemsize == 8 or dst in (np.dtype(np.uint32), np.dtype(np.uint8)) else 32
        low, high = -(1 << (width - 1)), 1 << (width - 1)
        through = rounded if rounded is not None and low <= rounded < high else low
        return dst.type(_wrap(through, dst))
    n = int(value)
    if saturate:
        return dst.type(min(max(n, int(info.min)), int(info.max)))
    return dst.type(_wrap(n, dst))


def convert(values: np.ndarray, dst: np.dtype, mode: str, saturate: bool) -> np.ndarray:
    """Every element of `values` (in its element type) converted to dst."""
    src = values.dtype
    flat = [convert_value(v, src, dst, mode, saturate) for v in values.ravel()]
    return np.array(flat, dtype=dst).reshape(values.shape)
