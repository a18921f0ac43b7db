"""numpy implementations of the expression language's primitives, for golden values.

They mirror pto/common/sim_arith.hpp and sim_support.hpp: integers wrap modulo 2^bits, max/min
follow IEEE 754-2019 maximum/minimum (NaN propagates, +0 > -0), integer powers are exact.
Arguments are numpy arrays or 0-d arrays already in the compute type.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from typing import Any

import ml_dtypes
import numpy as np

Array = Any


def _is_int(x: Array) -> bool:
    return np.issubdtype(np.asarray(x).dtype, np.integer)


def stacked(group: Any) -> Array:
    """A parallel group's tensors (rows x cols each) one under the other, rank 0 first (TGATHER)."""
    return np.concatenate(list(group), axis=-2)


def split(src: Array, group: Any) -> list[Array]:
    """`src`'s rows in as many equal blocks as the group has ranks, block r for rank r (TSCATTER)."""
    return np.split(src, len(group), axis=-2)


def select(cond: Array, a: Array, b: Array) -> Array:
    arr_a, arr_b = np.asarray(a), np.asarray(b)
    out: Any = np.where(cond, arr_a, arr_b)
    return out.astype(np.result_type(arr_a, arr_b), copy=False)


def _ieee_pick(a: Array, b: Array, pick_a: Array, zero_pick_a: Array) -> Array:
    a, b = (np.asarray(x) for x in np.broadcast_arrays(np.asarray(a), np.asarray(b)))
    out: Any = np.where(pick_a, a, b)
    if not _is_int(a):
        both_zero = (a == 0) & (b == 0)
        out = np.where(both_zero, np.where(zero_pick_a, a, b), out)
        out = np.where(np.isnan(b), b, out)
        out = np.where(np.isnan(a), a, out)
    return out


def maximum(a: Array, b: Array) -> Array:
    a, b = np.asarray(a), np.asarray(b)
    signbit_a = np.signbit(a) if not _is_int(a) else False
    return _ieee_pick(a, b, a > b, ~signbit_a if not _is_int(a) else True)


def minimum(a: Array, b: Array) -> Array:
    a, b = np.asarray(a), np.asarray(b)
    signbit_a = np.signbit(a) if not _is_int(a) else False
    return _ieee_pick(a, b, a < b, signbit_a if not _is_int(a) else True)


def power(base: Array, exp: Array) -> Array:
    base, exp = (np.asarray(x) for x in np.broadcast_arrays(np.asarray(base), np.asarray(exp)))
    if not _is_int(base):
        with np.errstate(all="ignore"):
            return np.power(base, exp).astype(base.dtype)
    dtype = base.dtype
    bits = dtype.itemsize * 8
    mask = (1 << bits) - 1
    flat_b, flat_e = base.ravel().tolist(), exp.ravel().tolist()
    out = []
    for b, e in zip(flat_b, flat_e, strict=True):
        if e < 0:
            v = 1 if b == 1 else ((-1 if e % 2 else 1) if b == -1 else 0)
        else:
            v = pow(int(b) & mask, int(e), 1 << bits)
        out.append(v & mask)
    unsigned = np.array(out, dtype=np.uint64).astype(np.dtype(f"u{dtype.itemsize}"))
    return unsigned.view(dtype).reshape(base.shape)


def divide(a: Array, b: Array) -> Array:
    a, b = np.asarray(a), np.asarray(b)
    if not _is_int(a):
        with np.errstate(all="ignore"):
            return np.divide(a, b).astype(a.dtype)
    a, b = (np.asarray(x) for x in np.broadcast_arrays(a, b))
    safe = np.where(b == 0, 1, b)
    info = np.iinfo(a.dtype)
    if info.min < 0:
        safe = np.where((a == info.min) & (safe == -1), 1, safe)
    q = np.trunc(a.astype(np.float64) / safe.astype(np.float64))
    if a.dtype.itemsize == 8:  # float64 is inexact for 64-bit integers
        q = np.array(
            [
                int(x) // int(y) if (x >= 0) == (y > 0) else -(abs(int(x)) // abs(int(y)))
                for x, y in zip(a.ravel(), safe.ravel(), strict=True)
            ],
            dtype=object,
        ).reshape(a.shape)
    q = np.asarray(q).astype(a.dtype)
    return np.where(b == 0, 0, q).astype(a.dtype)


def negate(a: Array) -> Array:
    a = np.asarray(a)
    return (np.zeros_like(a) - a).astype(a.dtype) if _is_int(a) else -a


def invert(a: Array) -> Array:
    return np.invert(np.asarray(a))


def popcount(a: Array) -> Array:
    """Set bits of each integer's two's complement pattern, in the integer's own type."""
    a = np.asarray(a)
    u = a.view(np.dtype(f"u{a.dtype.itemsize}"))
    return np.array([bin(int(x)).count("1") for x in u.ravel()], dtype=a.dtype).reshape(a.shape)


def cls(a: Array) -> Array:
    """Leading bits equal to the most significant one, that bit included (0 and -1 give the width)."""
    a = np.asarray(a)
    bits = a.dtype.itemsize * 8
    u = a.view(np.dtype(f"u{a.dtype.itemsize}"))
    out = []
    for x in u.ravel():
        x = int(x)
        if x >> (bits - 1):
            x = ~x & ((1 << bits) - 1)
        out.append(bits - x.bit_length())
    return np.array(out, dtype=a.dtype).reshape(a.shape)


def fused_mul_add(a: Array, b: Array, c: Array) -> Array:
    """a * b + c rounded once in the operands' type (integers wrap). A float product of two
    operands of up to 24 significant bits is exact in float64; the sum is rounded to odd there
    (its exact error from TwoSum) and then to the operands' type, which gives the one correct
    rounding (53 >= 24 + 2 bits)."""
    a, b, c = np.broadcast_arrays(np.asarray(a), np.asarray(b), np.asarray(c))
    if not _is_float(a.dtype):
        return (a * b + c).astype(a.dtype)
    p = a.astype(np.float64) * b.astype(np.float64)
    q = c.astype(np.float64)
    s = p + q
    back = s - p
    err = (p - (s - back)) + (q - back)
    inexact = np.isfinite(s) & np.isfinite(err) & (err != 0) & (s.view(np.int64) % 2 == 0)
    s = np.where(inexact, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
    return s.astype(a.dtype)


def mul_high(a: Array, b: Array) -> Array:
    """The high half of the double-width product of two integers of up to 32 bits, signed for a
    signed type."""
    a, b = np.asarray(a), np.asarray(b)
    wide = np.int64 if np.issubdtype(a.dtype, np.signedinteger) else np.uint64
    return ((a.astype(wide) * b.astype(wide)) >> (a.dtype.itemsize * 8)).astype(a.dtype)


def absolute(a: Array) -> Array:
    return np.abs(np.asarray(a))


def exponential(a: Array) -> Array:
    with np.errstate(all="ignore"):
        return np.exp(np.asarray(a))


def logarithm(a: Array) -> Array:
    a = np.asarray(a)
    with np.errstate(all="ignore"):
        if not _is_int(a):
            return np.log(a)
        # Integers: ln in float64, truncated toward zero, saturating (-inf -> min), NaN -> 0.
        info = np.iinfo(a.dtype)
        wide = np.nan_to_num(np.log(a.astype(np.float64)), nan=0.0, neginf=float(info.min))
        return np.clip(np.trunc(wide), info.min, info.max).astype(a.dtype)


def square_root(a: Array) -> Array:
    with np.errstate(all="ignore"):
        return np.sqrt(np.asarray(a))


def reciprocal_square_root(a: Array) -> Array:
    a = np.asarray(a)
    with np.errstate(all="ignore"):
        return (a.dtype.type(1) / np.sqrt(a)).astype(a.dtype)


def fmod(a: Array, b: Array) -> Array:
    """Remainder with the sign of the dividend; integer x % 0 (and x % -1) gives 0."""
    a, b = np.asarray(a), np.asarray(b)
    if not _is_int(a):
        with np.errstate(all="ignore"):
            return np.fmod(a, b).astype(a.dtype)
    safe = np.where((b == 0) | (b == -1) if np.iinfo(a.dtype).min < 0 else (b == 0), 1, b).astype(a.dtype)
    out: Any = np.fmod(a, safe)
    return np.where(safe == b, out, 0).astype(a.dtype)


def rem(a: Array, b: Array) -> Array:
    """Remainder with the sign of the divisor: a - floor(a / b) * b."""
    a, b = np.asarray(a), np.asarray(b)
    r = fmod(a, b)
    fix = (r != 0) & ((r < 0) != (b < 0))
    if _is_int(a):
        return np.where(fix, (r + b).astype(a.dtype), r).astype(a.dtype)
    with np.errstate(all="ignore"):
        return np.where(fix, r + b, r).astype(a.dtype)


def _clamp_int(wide: Array, dtype: np.dtype) -> Array:
    info = np.iinfo(dtype)
    return np.clip(wide, info.min, info.max).astype(dtype)


def add_sat(a: Array, b: Array) -> Array:
    a, b = np.asarray(a), np.asarray(b)
    if not _is_int(a):
        return a + b
    wide = np.asarray(
        [int(x) + int(y) for x, y in zip(*[v.ravel() for v in np.broadcast_arrays(a, b)], strict=True)],
        dtype=object,
    )
    info = np.iinfo(a.dtype)
    clipped = [min(max(v, info.min), info.max) for v in wide]
    return np.array(clipped, dtype=a.dtype).reshape(np.broadcast_shapes(a.shape, b.shape))


def sub_sat(a: Array, b: Array) -> Array:
    a, b = np.asarray(a), np.asarray(b)
    if not _is_int(a):
        return a - b
    info = np.iinfo(a.dtype)
    pairs = zip(*[v.ravel() for v in np.broadcast_arrays(a, b)], strict=True)
    clipped = [min(max(int(x) - int(y), info.min), info.max) for x, y in pairs]
    return np.array(clipped, dtype=a.dtype).reshape(np.broadcast_shapes(a.shape, b.shape))


def rint(a: Array) -> Array:
    return np.rint(np.asarray(a))


def round_away(a: Array) -> Array:
    a = np.asarray(a)
    mag = np.abs(a)
    low = np.floor(mag)
    up = (mag - low) >= a.dtype.type(0.5)  # exact in floating point, unlike floor(|a| + 0.5)
    return np.copysign(low + up.astype(a.dtype), a).astype(a.dtype)


def round_odd(a: Array) -> Array:
    a = np.asarray(a)
    low = np.floor(a)
    even_low = np.fmod(low, 2) == 0
    return np.where(low == a, a, np.where(even_low, low + 1, low)).astype(a.dtype)


def floor(a: Array) -> Array:
    return np.floor(np.asarray(a))


def ceil(a: Array) -> Array:
    return np.ceil(np.asarray(a))


def trunc(a: Array) -> Array:
    return np.trunc(np.asarray(a))


def shl(a: Array, n: Array) -> Array:
    """Left shift; counts outside [0, bits) give 0 (as pto/common/sim_arith.hpp)."""
    a, n = (np.asarray(x) for x in np.broadcast_arrays(np.asarray(a), np.asarray(n)))
    bits = a.dtype.itemsize * 8
    ok = (n >= 0) & (n < bits)
    unsigned = a.view(np.dtype(f"u{a.dtype.itemsize}"))
    shifted = np.left_shift(unsigned, np.where(ok, n, 0).astype(unsigned.dtype)).view(a.dtype)
    return np.where(ok, shifted, 0).astype(a.dtype)


def shr(a: Array, n: Array) -> Array:
    """Right shift (arithmetic for signed types); counts outside [0, bits) give 0 or the sign fill."""
    a, n = (np.asarray(x) for x in np.broadcast_arrays(np.asarray(a), np.asarray(n)))
    bits = a.dtype.itemsize * 8
    ok = (n >= 0) & (n < bits)
    shifted = np.right_shift(a, np.where(ok, n, 0).astype(a.dtype))
    fill = np.where(a < 0, -1, 0).astype(a.dtype) if np.iinfo(a.dtype).min < 0 else np.zeros_like(a)
    return np.where(ok, shifted, fill).astype(a.dtype)


def as_type(C: Any, value: Array) -> Array:
    """Bring a result (e.g. a boolean comparison) into the compute type."""
    return np.asarray(value).astype(C)


def _unsigned(a: Array) -> Array:
    a = np.asarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}")).astype(object)


def carry_add(a: Array, b: Array, c: Array) -> Array:
    """Carry out of a + b + c on the unsigned bit patterns (c is 0 or 1)."""
    a, b, c = (np.asarray(x) for x in np.broadcast_arrays(np.asarray(a), np.asarray(b), np.asarray(c)))
    bits = a.dtype.itemsize * 8
    total = _unsigned(a) + _unsigned(b) + (c != 0).astype(object)
    return np.array([int(t) >> bits & 1 for t in total.ravel()], dtype=a.dtype).reshape(a.shape)


def borrow_sub(a: Array, b: Array, c: Array) -> Array:
    """Borrow out of a - b - c on the unsigned bit patterns (c is 0 or 1)."""
    a, b, c = (np.asarray(x) for x in np.broadcast_arrays(np.asarray(a), np.asarray(b), np.asarray(c)))
    need = _unsigned(b) + (c != 0).astype(object)
    return np.array(
        [int(x < y) for x, y in zip(_unsigned(a).ravel(), need.ravel(), strict=True)], dtype=a.dtype
    ).reshape(a.shape)


# ----------------------------------------------------------------------------- reductions
# Folded left to right along `axis` in the operand's own (compute) type, exactly as the simulator
# folds, so the golden of a float sum needs no tolerance for summation order; the reduced axis is
# kept with extent 1 so the result lines up with the R x 1 (or 1 x C) valid region.


def _fold(step: Callable[[Array, Array], Array], x: Array, axis: int) -> Array:
    moved = np.moveaxis(np.asarray(x), axis, 0)
    acc = moved[0].copy()
    with np.errstate(all="ignore"):
        for k in range(1, moved.shape[0]):
            acc = np.asarray(step(acc, moved[k])).astype(acc.dtype)
    return np.expand_dims(acc, axis)


def fold_add(x: Array, axis: int) -> Array:
    return _fold(lambda a, b: a + b, x, axis)


def fold_mul(x: Array, axis: int) -> Array:
    return _fold(lambda a, b: a * b, x, axis)


def fold_maximum(x: Array, axis: int) -> Array:
    return _fold(maximum, x, axis)


def fold_minimum(x: Array, axis: int) -> Array:
    return _fold(minimum, x, axis)


def _fold_arg(better: Callable[[Array, Array], Array], x: Array, axis: int) -> Array:
    moved = np.moveaxis(np.asarray(x), axis, 0)
    best = moved[0].copy()
    at = np.zeros(best.shape, dtype=np.int64)
    with np.errstate(all="ignore"):
        for k in range(1, moved.shape[0]):
            take = better(moved[k], best)  # strictly: ties keep the first index; NaN never takes
            best = np.where(take, moved[k], best)
            at = np.where(take, k, at)
    return np.expand_dims(at, axis)


def fold_argmax(x: Array, axis: int) -> Array:
    return _fold_arg(np.greater, x, axis)


def fold_argmin(x: Array, axis: int) -> Array:
    return _fold_arg(np.less, x, axis)


def _is_float(dt: np.dtype) -> bool:
    return dt.kind == "f" or dt == np.dtype(ml_dtypes.bfloat16)


def narrow(values: np.ndarray, storage: np.dtype) -> np.ndarray:
    """Round compute values to the element type as the simulator does (float to int saturates, NaN -> 0)."""
    values = np.asarray(values)
    if not _is_float(np.dtype(storage)) and _is_float(values.dtype):
        info = np.iinfo(storage)
        wide = np.nan_to_num(
            values.astype(np.float64), nan=0.0, posinf=float(info.max), neginf=float(info.min)
        )
        clipped = np.clip(wide, float(info.min), float(info.max))
        out = np.empty(clipped.shape, dtype=storage)
        big = clipped >= float(info.max)
        out[...] = np.where(big, 0, clipped).astype(storage)  # float(max) of 64-bit types is out of range
        out[big] = info.max
        return out
    with np.errstate(over="ignore"):  # a float beyond the narrower type's range rounds to infinity
        return values.astype(storage)


def rounded(T: Any, value: Array) -> Array:
    """`rounded(x)`: the value rounded to the result's element type T as the simulator narrows it,
    then brought back into the compute type."""
    value = np.asarray(value)
    return narrow(value, np.dtype(T)).astype(value.dtype)


def as_source(C: Any, S: Any, value: Array) -> Array:
    """`as_source(x)`: x computed from the stored elements of its tiles (integers wrap in numpy's
    integer arithmetic), held in their element type S, then brought into the compute type C."""
    return narrow(np.asarray(value), np.dtype(S)).astype(C)


def saturated(T: Any, value: Array) -> Array:
    """`saturated(x)`: the value converted to the element type T with saturation as the simulator's
    `sim::saturate` does (clamped to T's finite range; into an integer type a float is rounded to
    nearest even and NaN gives 0), then brought back into the compute type."""
    value = np.asarray(value)
    storage = np.dtype(T)
    if not _is_float(storage):
        info = np.iinfo(storage)
        if _is_float(value.dtype):
            wide = np.rint(np.nan_to_num(value.astype(np.float64), nan=0.0, posinf=info.max, neginf=info.min))
        else:
            wide = value.astype(np.int64)
        return np.clip(wide, info.min, info.max).astype(value.dtype)
    top = float(ml_dtypes.finfo(storage).max)
    return np.where(np.isnan(value), value, np.clip(value.astype(np.float64), -top, top)).astype(value.dtype)


# ----------------------------------------------------------------------------- index notation


def index_view(x: Array, labels: str, axes: str) -> Array:
    """Operand `x` (one axis per letter of `labels`; a "0" takes element 0 of that axis) laid over
    the index letters `axes` in scope: its axes reordered to theirs, size 1 where it has none."""
    x = np.asarray(x)
    x = x[tuple(0 if c == "0" else slice(None) for c in labels)]
    have = [c for c in labels if c != "0"]
    order = sorted(range(len(have)), key=lambda d: axes.index(have[d]))
    x = np.transpose(x, order)
    have = [have[d] for d in order]
    return x.reshape([x.shape[have.index(c)] if c in have else 1 for c in axes])


# The extent of each index letter while a golden evaluates index notation whose right side uses an
# index as a value (`index_extents`); unset, such an expression has no extent to take.
_EXTENTS: contextvars.ContextVar[dict[str, int] | None] = contextvars.ContextVar("extents", default=None)


@contextlib.contextmanager
def index_extents(extents: dict[str, int]) -> Iterator[None]:
    """Evaluate index notation with these extents of its index letters (e.g. {"i": 4, "j": 16})."""
    token = _EXTENTS.set(dict(extents))
    try:
        yield
    finally:
        _EXTENTS.reset(token)


def index_values(C: Any, letter: str, axes: str) -> Array:
    """The values of an index letter itself (0, 1, ...) in the compute type, as an array over the
    letters in scope `axes` (size 1 along every axis but its own)."""
    extents = _EXTENTS.get()
    if extents is None or letter not in extents:
        raise ValueError(f"index {letter!r} used as a value: its extent is not known to the golden")
    shape = [extents[letter] if c == letter else 1 for c in axes]
    return np.arange(extents[letter]).astype(C).reshape(shape)


def _fma_float32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """round_to_float32(a * b + c), correctly rounded (one rounding, as a fused multiply-add).

    The product of two floats is exact in double; s = p + c rounds once and TwoSum's e makes
    s + e exactly p + c. Rounding s to float differs from rounding p + c only when s lies exactly
    halfway between two floats and e is not zero: then e's sign picks the neighbour."""
    p = a.astype(np.float64) * b.astype(np.float64)
    c64 = c.astype(np.float64)
    with np.errstate(all="ignore"):
        s = p + c64
        bb = s - p
        e = (p - (s - bb)) + (c64 - bb)
        r = s.astype(np.float32)
        r64 = r.astype(np.float64)
        toward = np.nextafter(
            r, np.where(s > r64, np.float32(np.inf), np.float32(-np.inf)).astype(np.float32)
        )
        mid = (r64 + toward.astype(np.float64)) / 2
    tie = np.isfinite(s) & (r64 != s) & (s == mid) & (e != 0)
    # At a tie the float conversion rounded to even; the exact value lies on e's side of s.
    other = np.where((e > 0) == (toward.astype(np.float64) > r64), toward, r)
    return np.where(tie, other, r).astype(np.float32)


def fma_fold(x: Array, y: Array, axis: int) -> Array:
    """sum over `axis` of x * y in index order from zero, one fused multiply-add per step
    (integers: wrapping multiply and add), as the simulator folds a contraction."""
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    x, y = np.moveaxis(x, axis, -1), np.moveaxis(y, axis, -1)
    acc = np.zeros(x.shape[:-1], dtype=x.dtype)
    for k in range(x.shape[-1]):
        if _is_int(acc):
            acc = (acc + x[..., k] * y[..., k]).astype(x.dtype)
        elif acc.dtype == np.float32:
            acc = _fma_float32(x[..., k], y[..., k], acc)
        else:
            raise TypeError(f"fma_fold: no exact fused multiply-add for {acc.dtype}")
    return acc


def ix(x: Array) -> Array:
    """An affine index of index notation (spec/expr.py) as integers: the walk's index grids and the
    scalar operands (0-d arrays in the compute type) combined, for numpy's fancy indexing."""
    return np.rint(np.asarray(x, dtype=np.float64)).astype(np.int64)
