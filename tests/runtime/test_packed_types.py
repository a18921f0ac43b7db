"""The 4-bit element types (ptogen/runtime/include/pto/common/packed_types.hpp) and the ops that take
them on the CPU profile: TCVT to and from int4b_t, float4_e2m1x2_t and float4_e1m2x2_t, TLOAD with
every pad value and TSTORE of twin types (two elements to a byte).

The general test matrix leaves these types out (targets.yaml, `test_matrix: false`; only the MX
products and TQUANT plan fp4 cases of their own, ptogen/testing/fp4.py); this module checks the
conversions, loads and stores against a reference written here from the spec's notes: encodings by
arithmetic (frexp and floor) rather than by the simulator's bit manipulation."""

from __future__ import annotations

import math
import struct
import subprocess
from pathlib import Path

import pytest

from ..compilers import COMPILERS, build_program, require

# (exponent bits, mantissa bits, bias) of the two 4-bit floats.
FORMATS = {"e2m1": (2, 1, 1), "e1m2": (1, 2, 1)}
BOUNDS = {"int4": (-8.0, 7.0), "e2m1": (-6.0, 6.0), "e1m2": (-4.0, 3.5)}

INPUTS = [
    0.0,
    -0.0,
    0.25,
    0.5,
    0.75,
    1.0,
    1.25,
    1.5,
    2.5,
    3.0,
    -3.5,
    4.0,
    5.0,
    6.0,
    7.5,
    -12.0,
    100.0,
    -1e10,
    1e-3,
    -1e-300,
    math.inf,
    -math.inf,
    math.nan,
    2.75,
    -0.6,
    0.124,
]

PROGRAM = r"""
#include <pto/pto-inst.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace pto;

// Storage: int4b_t a byte per element, a twin type half a byte.
static_assert(Tile<TileType::Vec, float4_e2m1x2_t, 8, 32>::SizeBytes() == 128);
static_assert(Tile<TileType::Vec, int4b_t, 8, 32>::SizeBytes() == 256);
static_assert(IsTwinType<float4_e1m2x2_t>() && !IsTwinType<int4b_t>() && !IsTwinType<uint8_t>());
static_assert(std::numeric_limits<float4_e2m1x2_t>::max().RawData() == 0x7);
static_assert(std::numeric_limits<float4_e2m1x2_t>::lowest().RawData() == 0xf);
static_assert(std::numeric_limits<float4_e1m2x2_t>::min().RawData() == 0x1);

static const double inputs[] = {INPUTS};
constexpr int N = sizeof(inputs) / sizeof(inputs[0]);
constexpr int C = 32;  // tile columns; row 0 holds the inputs

template <typename D>
static int code_of(const D& v) {
    if constexpr (std::is_same_v<D, int4b_t>)
        return v.storage;
    else
        return v.RawData();
}

// TCVT of every input (as float) to D: one line of codes.
template <typename D>
static void to_packed(RoundMode mode, SaturationMode sat) {
    Tile<TileType::Vec, float, 1, C, BLayout::RowMajor, 1, N> src;
    Tile<TileType::Vec, D, 1, C, BLayout::RowMajor, 1, N> dst;
    for (int k = 0; k < N; ++k)
        src.at(0, k) = static_cast<float>(inputs[k]);
    TCVT(dst, src, mode, sat);
    for (int k = 0; k < N; ++k)
        std::printf("%d ", code_of(dst.GetElement(0, k)));
    std::printf("\n");
}

// TCVT of every 4-bit code (0..15) of S to float.
template <typename S>
static void from_packed(RoundMode mode) {
    Tile<TileType::Vec, S, 1, C, BLayout::RowMajor, 1, 16> src;
    Tile<TileType::Vec, float, 1, C, BLayout::RowMajor, 1, 16> dst;
    for (int k = 0; k < 16; ++k) {
        if constexpr (std::is_same_v<S, int4b_t>)
            src.SetElement(0, k, int4b_t(k));
        else
            src.SetElement(0, k, S::FromRaw(static_cast<uint8_t>(k)));
    }
    TCVT(dst, src, mode);
    for (int k = 0; k < 16; ++k)
        std::printf("%.9g ", static_cast<double>(dst.at(0, k)));
    std::printf("\n");
}

// The tile of load_store: whole 32-byte rows and columns (the Tile type's rules, one byte per
// element of a twin type as sizeof(DType) counts it).
constexpr int TR = 32, TC = 32;

// TLOAD of a 6 x 10 ND (or DN) GlobalTensor of codes k % 16 into a TR x TC tile with valid 6 x 10,
// then TSTORE of the whole tile (valid region reset to TR x TC) into a packed buffer: one line of
// the tile's TR * TC codes, row by row.
template <typename T, PadValue Pad, Layout L>
static void load_store() {
    constexpr int R = 6, K = 10;
    uint8_t global[R * K / 2] = {};
    for (int k = 0; k < R * K; ++k)
        SetProperDataPart(reinterpret_cast<T*>(global), k, T::FromRaw(static_cast<uint8_t>(k % 16)));
    using Shp = Shape<1, 1, 1, R, K>;
    using Str = std::conditional_t<L == Layout::ND, Stride<R * K, R * K, R * K, K, 1>,
                                   Stride<R * K, R * K, R * K, 1, R>>;
    GlobalTensor<T, Shp, Str, L> g(reinterpret_cast<T*>(global));
    Tile<TileType::Vec, T, TR, TC, L == Layout::ND ? BLayout::RowMajor : BLayout::ColMajor, DYNAMIC, DYNAMIC,
         SLayout::NoneBox, 512, Pad>
        t(R, K);
    // code 15 everywhere before the load
    std::memset(static_cast<void*>(t.data()), 0xff, decltype(t)::SizeBytes());
    TLOAD(t, g);
    uint8_t out[TR * TC / 2];
    std::memset(out, 0xee, sizeof out);
    decltype(t) whole(TR, TC);
    std::memcpy(static_cast<void*>(whole.data()), t.data(), decltype(t)::SizeBytes());
    using Out = GlobalTensor<T, Shape<1, 1, 1, TR, TC>, Stride<TR * TC, TR * TC, TR * TC, TC, 1>, Layout::ND>;
    Out o(reinterpret_cast<T*>(out));
    if constexpr (L == Layout::ND) {
        TSTORE(o, whole);
    } else {  // read the column-major tile back row by row
        for (int r = 0; r < TR; ++r)
            for (int c = 0; c < TC; ++c)
                SetProperDataPart(reinterpret_cast<T*>(out), r * TC + c, whole.GetElement(r, c));
    }
    for (int k = 0; k < TR * TC; ++k)
        std::printf("%d ", GetProperDataPart(reinterpret_cast<T*>(out), k).RawData());
    std::printf("\n");
}

int main(int argc, char** argv) {
    const std::string what = argc > 1 ? argv[1] : "";
    if (what == "to") {
        for (auto mode : {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR})
            for (auto sat : {SaturationMode::OFF, SaturationMode::ON}) {
                to_packed<int4b_t>(mode, sat);
                to_packed<float4_e2m1x2_t>(mode, sat);
                to_packed<float4_e1m2x2_t>(mode, sat);
            }
    } else if (what == "from") {
        for (auto mode : {RoundMode::CAST_RINT, RoundMode::CAST_CEIL}) {
            from_packed<int4b_t>(mode);
            from_packed<float4_e2m1x2_t>(mode);
            from_packed<float4_e1m2x2_t>(mode);
        }
    } else if (what == "load") {
        load_store<float4_e2m1x2_t, PadValue::Null, Layout::ND>();
        load_store<float4_e2m1x2_t, PadValue::Max, Layout::ND>();
        load_store<float4_e1m2x2_t, PadValue::Min, Layout::ND>();
        load_store<float4_e1m2x2_t, PadValue::Zero, Layout::DN>();
    } else if (what == "store_mode") {
        Tile<TileType::Vec, float4_e2m1x2_t, 2, 32> t;
        uint8_t out[16] = {};
        GlobalTensor<float4_e2m1x2_t, Shape<1, 1, 1, 2, 16>, Stride<32, 32, 32, 16, 1>> o(
            reinterpret_cast<float4_e2m1x2_t*>(out));
        TSTORE<decltype(t), decltype(o), AtomicType::AtomicAdd>(o, t);
        std::printf("survived\n");
    }
    return 0;
}
"""


def _program() -> str:
    listed = ", ".join(repr(float(x)).replace("inf", "INFINITY").replace("nan", "NAN") for x in INPUTS)
    return PROGRAM.replace("{INPUTS}", "{" + listed + "}")


@pytest.fixture(scope="module", params=COMPILERS)
def program(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    cxx = require(request.param)
    work = tmp_path_factory.mktemp("packed")
    return build_program(cxx, _program(), work, "packed", ["-O1"])


def _lines(exe: Path, what: str) -> list[list[str]]:
    out = subprocess.run([str(exe), what], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return [line.split() for line in out.stdout.splitlines()]


# ----------------------------------------------------------------------------- reference


def decode(code: int, fmt: str) -> float:
    e_bits, m_bits, bias = FORMATS[fmt]
    man = code & ((1 << m_bits) - 1)
    exp = (code >> m_bits) & ((1 << e_bits) - 1)
    sign = -1.0 if code >> (e_bits + m_bits) & 1 else 1.0
    if exp == 0:
        return sign * man / (1 << m_bits) * 2.0 ** (1 - bias)
    return sign * (1 + man / (1 << m_bits)) * 2.0 ** (exp - bias)


def encode(x: float, fmt: str) -> int:
    """The truncating encoding of the notes: significand truncated, exponent field wrapped."""
    e_bits, m_bits, bias = FORMATS[fmt]
    if x == 0:
        return 0
    sign = 1 << (e_bits + m_bits) if math.copysign(1.0, x) < 0 else 0
    if math.isinf(x) or math.isnan(x):
        exp_field = 1024 + bias  # a double's all-ones exponent, rebiased
        man = (1 << (m_bits - 1)) if math.isnan(x) else 0  # a quiet NaN's top significand bit
        return sign | (exp_field % (1 << e_bits)) << m_bits | man
    a = abs(x)
    if a < 2.0**-1022:
        return 0  # a double subnormal
    frac, e = math.frexp(a)  # a = frac * 2^e, frac in [0.5, 1)
    exp_field = e - 1 + bias
    if exp_field >= 1:
        man = math.floor((2 * frac - 1) * (1 << m_bits))
        return sign | (exp_field % (1 << e_bits)) << m_bits | man
    man = math.floor(a * 2.0 ** (m_bits - 1 + bias))
    return sign | man


def rounded(x: float, mode: str) -> float:
    if math.isnan(x) or math.isinf(x):
        return x
    if mode == "CAST_RINT":
        return float(round(x))  # ties to even
    return float(math.floor(x) if mode == "CAST_FLOOR" else math.ceil(x))


def clamp(x: float, lo: float, hi: float) -> float:
    """max(lo, min(hi, x)), NaN giving hi, as the notes say."""
    below = x if x < hi else hi
    return below if lo < below else lo


def as_float32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0] if math.isfinite(x) else x


def to_code(x: float, dst: str, mode: str, saturate: bool) -> int:
    x = as_float32(x)
    if saturate:
        x = clamp(x, *BOUNDS[dst])
    x = rounded(x, mode)
    if dst == "int4":
        return int(clamp(x, -8.0, 7.0)) & 0x0F
    return encode(x, dst)


def test_conversions_to_4_bit_types(program: Path) -> None:
    lines = _lines(program, "to")
    expected = [
        [str(to_code(x, dst, mode, sat)) for x in INPUTS]
        for mode in ("CAST_RINT", "CAST_FLOOR")
        for sat in (False, True)
        for dst in ("int4", "e2m1", "e1m2")
    ]
    assert lines == expected


def test_conversions_from_4_bit_types(program: Path) -> None:
    lines = _lines(program, "from")
    got = [[float(v) for v in line] for line in lines]
    want = []
    for mode in ("CAST_RINT", "CAST_CEIL"):
        want.append([float(k - 16 if k >= 8 else k) for k in range(16)])
        for fmt in ("e2m1", "e1m2"):
            want.append([rounded(decode(k, fmt), mode) for k in range(16)])
    assert got == want
    # -0.0 survives as a negative zero (code 8 is -0 in both formats).
    assert lines[1][8].startswith("-0")


def test_load_pads_and_store_twin_types(program: Path) -> None:
    lines = [[int(v) for v in line] for line in _lines(program, "load")]
    rows, cols = 6, 10

    def tile(pad: int | None, layout: str) -> list[int]:
        out = []
        for r in range(32):  # TR x TC of the program
            for c in range(32):
                if r < rows and c < cols:
                    k = r * cols + c if layout == "ND" else c * rows + r
                    out.append(k % 16)
                else:
                    out.append(15 if pad is None else pad)  # Null: what the tile held (code 15)
        return out

    # Max: the largest code (0x7); Min: numeric_limits min(), the smallest positive code (0x1).
    assert lines == [tile(None, "ND"), tile(0x7, "ND"), tile(0x1, "ND"), tile(0x0, "DN")]


def test_store_modes_refuse_twin_types(program: Path) -> None:
    out = subprocess.run([str(program), "store_mode"], capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    assert "survived" not in out.stdout
    assert "TSTORE: the store modes do not apply to a 4-bit element type" in out.stderr
