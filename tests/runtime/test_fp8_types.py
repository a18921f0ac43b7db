"""The 8-bit MX floats of the runtime (ptogen/runtime/include/pto/common/fp8_types.hpp):
float8_e4m3_t, float8_e5m2_t and float8_e8m0_t.

Every one of the 256 codes of each type is decoded by the C++ type and by ml_dtypes (float8_e4m3fn,
float8_e5m2, float8_e8m0fnu) and must give the same value; every finite value is encoded back to its
own code; the midpoints between neighbouring values (the ties of round-to-nearest-even), points just
beside them, overflow, zeros, infinities and NaN are encoded by both and must give the same code,
except E4M3's overflow, which saturates to +-448 (as upstream's TQUANT encoder clamps) where ml_dtypes
gives NaN: the reference clamps first there. A last check moves the bytes of each type through TLOAD,
TMOV and TSTORE with a partial valid region, as upstream's CPU simulator moves them."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from ..compilers import COMPILERS, build_program, require

TYPES = {
    "e4m3": ("float8_e4m3_t", ml_dtypes.float8_e4m3fn),
    "e5m2": ("float8_e5m2_t", ml_dtypes.float8_e5m2),
    "e8m0": ("float8_e8m0_t", ml_dtypes.float8_e8m0fnu),
}

PROGRAM = r"""
#include <pto/pto-inst.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace pto;

template <typename T>
static void decode_all() {
    for (int c = 0; c < 256; ++c)
        std::printf("%a ", static_cast<double>(T::FromRaw(static_cast<uint8_t>(c))));
    std::printf("\n");
}

// Each argument after the type's name is a value (C99 hex float); prints its code.
template <typename T>
static void encode(int argc, char** argv) {
    for (int k = 3; k < argc; ++k)
        std::printf("%d ", T(std::strtod(argv[k], nullptr)).RawData());
    std::printf("\n");
}

// Codes 0..255 in a 8 x 32 global tensor; TLOAD of its 5 x 20 top-left part into a tile filled
// with 0xAB, TMOV to a second tile, TSTORE of the whole second tile: one line of 8 * 32 codes.
template <typename T>
static void move() {
    constexpr int R = 8, C = 32;
    static uint8_t in[R * C], out[R * C];
    for (int k = 0; k < R * C; ++k)
        in[k] = static_cast<uint8_t>(k);
    std::memset(out, 0xee, sizeof out);
    using G = GlobalTensor<T, Shape<1, 1, 1, 5, 20>, Stride<R * C, R * C, R * C, C, 1>, Layout::ND>;
    using GOut = GlobalTensor<T, Shape<1, 1, 1, R, C>, Stride<R * C, R * C, R * C, C, 1>, Layout::ND>;
    G g(reinterpret_cast<T*>(in));
    GOut o(reinterpret_cast<T*>(out));
    using TileT = Tile<TileType::Vec, T, R, C, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
    TileT a(5, 20), b(5, 20), whole(R, C);
    std::memset(static_cast<void*>(a.data()), 0xab, TileT::SizeBytes());
    std::memset(static_cast<void*>(b.data()), 0xab, TileT::SizeBytes());
    TLOAD(a, g);
    TMOV(b, a);
    std::memcpy(static_cast<void*>(whole.data()), b.data(), TileT::SizeBytes());
    TSTORE(o, whole);
    for (int k = 0; k < R * C; ++k)
        std::printf("%d ", out[k]);
    std::printf("\n");
}

template <typename T>
static void run(const std::string& what, int argc, char** argv) {
    if (what == "decode")
        decode_all<T>();
    else if (what == "encode")
        encode<T>(argc, argv);
    else
        move<T>();
}

int main(int argc, char** argv) {
    const std::string what = argv[1], type = argv[2];
    if (type == "float8_e4m3_t")
        run<float8_e4m3_t>(what, argc, argv);
    else if (type == "float8_e5m2_t")
        run<float8_e5m2_t>(what, argc, argv);
    else
        run<float8_e8m0_t>(what, argc, argv);
    return 0;
}
"""


@pytest.fixture(scope="module", params=COMPILERS)
def program(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    cxx = require(request.param)
    return build_program(cxx, PROGRAM, tmp_path_factory.mktemp("fp8"), "fp8", ["-O1"])


def _run(exe: Path, *args: str) -> list[str]:
    done = subprocess.run([str(exe), *args], capture_output=True, text=True, check=True)
    return done.stdout.split()


def _codes_as(np_type: type) -> np.ndarray:
    return np.arange(256, dtype=np.uint8).view(np_type).astype(np.float64)


def _reference_code(short: str, values: np.ndarray) -> list[int]:
    np_type = TYPES[short][1]
    if short == "e4m3":  # saturating: clamp to the largest finite value before rounding
        values = np.where(np.isnan(values), values, np.clip(values, -448.0, 448.0))
    with np.errstate(over="ignore"):
        return [int(c) for c in values.astype(np.float32).astype(np_type).view(np.uint8)]


def _probe_values(short: str) -> np.ndarray:
    """Every finite value, the midpoints of neighbours (ties), points a little beside each midpoint,
    and the edges: zeros, infinities, NaN, past the largest value, below the smallest."""
    values = _codes_as(TYPES[short][1])
    finite = np.unique(values[np.isfinite(values)])
    mids = (finite[:-1] + finite[1:]) / 2
    beside = np.concatenate(
        [
            np.nextafter(mids.astype(np.float32), np.float32(-np.inf)),
            np.nextafter(mids.astype(np.float32), np.float32(np.inf)),
        ]
    ).astype(np.float64)
    top = finite.max()
    edges = [
        0.0,
        -0.0,
        math.inf,
        -math.inf,
        math.nan,
        top * 1.03,
        top * 1.5,
        -top * 1.2,
        1e30,
        -1e30,
        finite[finite > 0].min() / 2,
        finite[finite > 0].min() / 3,
        1e-40,
        -1e-40,
    ]
    return np.concatenate([finite, mids, beside, np.array(edges)]).astype(np.float32).astype(np.float64)


@pytest.mark.parametrize("short", list(TYPES))
def test_every_code_decodes_as_ml_dtypes(program: Path, short: str) -> None:
    got = [float.fromhex(t) if "nan" not in t else math.nan for t in _run(program, "decode", TYPES[short][0])]
    want = _codes_as(TYPES[short][1])
    assert len(got) == 256
    for code, (g, w) in enumerate(zip(got, want, strict=True)):
        if math.isnan(w):
            assert math.isnan(g), f"code {code:#04x}: {g} (ml_dtypes: nan)"
        else:
            assert g == w and math.copysign(1, g) == math.copysign(1, w), (
                f"code {code:#04x}: {g} (ml_dtypes: {w})"
            )


@pytest.mark.parametrize("short", list(TYPES))
def test_encoding_rounds_as_ml_dtypes(program: Path, short: str) -> None:
    values = _probe_values(short)
    got = [int(t) for t in _run(program, "encode", TYPES[short][0], *(float(v).hex() for v in values))]
    want = _reference_code(short, values)
    bad = [(float(v), g, w) for v, g, w in zip(values, got, want, strict=True) if g != w]
    assert not bad, (
        f"{len(bad)} of {len(values)} values encode differently (value, got, ml_dtypes): {bad[:8]}"
    )


def test_every_finite_code_encodes_back_to_itself(program: Path) -> None:
    for short, (name, np_type) in TYPES.items():
        values = _codes_as(np_type)
        codes = [c for c in range(256) if np.isfinite(values[c])]
        got = [int(t) for t in _run(program, "encode", name, *(float(values[c]).hex() for c in codes))]
        assert got == codes, short


def test_e4m3_ties_and_saturation(program: Path) -> None:
    # 464 lies halfway between 448 (0x7e) and 480, NaN's code: nearest even is 448; beyond, saturation.
    # 0.0107421875 = 11 * 2^-10 lies between the subnormals 5 * 2^-9 and 6 * 2^-9: ties to the even 6.
    values = ["464", "0x1.ep+8", "inf", "-inf", "-1e9", "0x1.6p-7", "0x1.4p-8", "nan", "-0.0"]
    got = [int(t) for t in _run(program, "encode", "float8_e4m3_t", *values)]
    assert got == [0x7E, 0x7E, 0x7E, 0xFE, 0xFE, 0x06, 0x02, 0x7F, 0x80]


@pytest.mark.parametrize("short", list(TYPES))
def test_transfers_move_bytes(program: Path, short: str) -> None:
    got = [int(t) for t in _run(program, "move", TYPES[short][0])]
    want = [0xEE] * 256
    for r in range(5):
        for c in range(20):
            want[r * 32 + c] = r * 32 + c
    for r in range(8):
        for c in range(32):
            if r >= 5 or c >= 20:
                want[r * 32 + c] = 0xAB
    assert got == want
