"""The simulator's quantisations (pto/cpu/sim_quant.hpp) in numpy: the vector path (a parameter per
column, from a uint64_t parameter tile: TMOV_FP, TSTORE_FP, TEXTRACT_FP) and the scalar path (one
64-bit parameter: TSTORE's and TEXTRACT's quantising forms)."""

from __future__ import annotations

from typing import Any

import numpy as np

PARAM_DTYPE = "uint64_t"  # the element type of a quantisation parameter tile

# The pairs the vector path quantises as the tests of moves run them (source, destination).
QUANTISED = (
    ("float", "int8_t"),
    ("float", "uint8_t"),
    ("int32_t", "int8_t"),
    ("int32_t", "half"),
    ("int32_t", "int16_t"),
)
VECTOR_QUANTISED = [*QUANTISED, ("int32_t", "uint8_t")]  # every pair of sim_quant.hpp's vector_quant

# The pairs the scalar path quantises (upstream's GetScalarPreQuantMode).
SCALAR_QUANTISED = {
    ("float", "int8_t"),
    ("float", "uint8_t"),
    ("float", "half"),
    ("float", "bfloat16_t"),
    ("int32_t", "int8_t"),
    ("int32_t", "uint8_t"),
    ("int32_t", "half"),
    ("int32_t", "int16_t"),
}


def quantisation_parameters(cols: int, signed: bool) -> np.ndarray:
    """One vector-quantisation parameter per column (pto/cpu/sim_quant.hpp's layout): scales 2^-7 to
    2^4 with varied fractions, some negative, offsets, a shift, and the 8-bit result signed when the
    destination is (an unsigned clamp into a signed type would make the final cast undefined)."""
    out = np.zeros(cols, dtype=np.uint64)
    for c in range(cols):
        field = ((1 if c % 5 == 0 else 0) << 18) | ((120 + c % 12) << 10) | ((c * 37) % 1024)
        offset, shift = (c * 11) % 300, c % 16
        out[c] = (field << 13) | (shift << 32) | (offset << 37) | (int(signed) << 46)
    return out


def vector_quantise(values: np.ndarray, parameters: np.ndarray, d_type: Any) -> np.ndarray:
    """The vector path's quantisation of a valid region, column j by parameter j, in float32 as the
    simulator computes it, converted to `d_type`."""
    q = parameters.astype(np.uint64)
    field = (q >> np.uint64(13)) & np.uint64(0x7FFFF)
    negative = ((field >> np.uint64(18)) & np.uint64(1)).astype(bool)
    exponent = ((field >> np.uint64(10)) & np.uint64(0xFF)).astype(np.int64)
    fraction = (field & np.uint64(0x3FF)).astype(np.float32)
    power = np.ldexp(np.float32(1), exponent - 127).astype(np.float32)
    scale = (np.float32(1) + fraction / np.float32(1024)) * power
    scale = np.where((exponent == 0) & (fraction == 0), np.float32(0), np.where(negative, -scale, scale))
    y = values.astype(np.float32) * scale.astype(np.float32)
    name = np.dtype(d_type).name
    if name in ("int8", "uint8"):
        offset = ((q >> np.uint64(37)) & np.uint64(0x1FF)).astype(np.float32)
        signed = ((q >> np.uint64(46)) & np.uint64(1)).astype(bool)
        rounded = np.rint((y + offset).astype(np.float32))
        y = np.clip(rounded, np.where(signed, -128, 0), np.where(signed, 127, 255)).astype(np.float32)
    elif name == "float16":
        y = np.clip(y, -65504, 65504).astype(np.float32)
    elif name == "int16":
        shift = ((q >> np.uint64(32)) & np.uint64(0xF)).astype(np.int64) + 1
        y = (values.astype(np.int64) >> shift).astype(np.int16).astype(np.float32)
    return y.astype(d_type)


def scalar_mode(src: np.dtype, dst: np.dtype) -> str | None:
    """The scalar path's quantisation for these element types (None: the parameter is not read)."""
    b8 = dst in (np.dtype(np.int8), np.dtype(np.uint8))
    if src == np.dtype(np.float32):
        if b8:
            return "b8"
        if dst == np.dtype(np.float16):
            return "f16"
        return "bf16" if dst.name == "bfloat16" else None
    if src == np.dtype(np.int32):
        if b8:
            return "b8"
        if dst == np.dtype(np.float16):
            return "deq"
        return "shift" if dst == np.dtype(np.int16) else None
    return None


def scalar_quantise(values: np.ndarray, dst: np.dtype, q: int) -> np.ndarray:
    """The float32 result of quantising with the 64-bit parameter `q` (before any ReLU and the
    conversion to `dst`): the element times the float in bits 0-31; for 8-bit results plus the
    offset in bits 37-45, rounded to nearest even and clamped to [-128, 127] (bit 46 set) or
    [0, 255]; for half results clamped to +-65504 (an int32_t source always, a float one when
    finite); int32_t to int16_t shifts right by bits 32-35 plus one and wraps to 16 bits."""
    mode = scalar_mode(values.dtype, dst)
    scale = np.array([q & 0xFFFFFFFF], dtype=np.uint32).view(np.float32)[0]
    out = values.astype(np.float32) * scale
    if mode == "b8":
        offset = np.float32((q >> 37) & 0x1FF)
        lo, hi = (np.float32(-128), np.float32(127)) if (q >> 46) & 1 else (np.float32(0), np.float32(255))
        r = np.rint(out + offset)
        out = np.where(r < lo, lo, np.where(hi < r, hi, r)).astype(np.float32)
    elif mode in ("deq", "f16"):
        m = np.float32(65504)
        clamped = np.where(out < -m, -m, np.where(m < out, m, out)).astype(np.float32)
        out = clamped if mode == "deq" else np.where(np.isfinite(out), clamped, out).astype(np.float32)
    elif mode == "shift":
        shift = ((q >> 32) & 0xF) + 1
        out = (values.astype(np.int64) >> shift).astype(np.int16).astype(np.float32)
    return out
