"""TQUANT's MXFP4_E2M1 forms on the CPU simulator, which the generated cases leave out (their kernels
load tiles element by element, and an E2M1 destination packs two elements to a byte): the grouped form
with ND and DN groups and the QuantType form, OCP and NV, `half` and `bfloat16_t` sources, judged
against a reference written here from the spec's notes (E2M1 codes by nearest magnitude, ties to the
even code, rather than the simulator's magic-number addition). One program runs every case."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from .compilers import COMPILERS, build_program, require

MAGNITUDES = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]

# (name, C++ call, grp_axis, nv, source type, rows, cols, valid cols)
CASES = [
    ("ocp_nd_half", "TQUANT<1, MxQuantAlg::OcpMxFp4E2M1>", 1, False, "half", 2, 64, 64),
    ("nv_nd_half", "TQUANT<1, MxQuantAlg::NvMxFp4E2M1>", 1, True, "half", 2, 64, 64),
    ("ocp_dn_bf16", "TQUANT<0, MxQuantAlg::OcpMxFp4E2M1>", 0, False, "bfloat16_t", 32, 32, 20),
    (
        "nv_quanttype_bf16",
        "TQUANT<QuantType::MXFP4_E2M1, D, S, E, M, M, QuantScaleAlg::NV>",
        1,
        True,
        "bfloat16_t",
        2,
        64,
        64,
    ),
]

PROGRAM = r"""
#include <pto/pto-inst.hpp>

#include <cstdio>
#include <cstring>
#include <string>

using namespace pto;

template <typename T>
static void dump(const char* what, const T* p, std::size_t bytes) {
    const auto* b = reinterpret_cast<const unsigned char*>(p);
    std::printf("%s", what);
    for (std::size_t k = 0; k < bytes; ++k)
        std::printf(" %u", b[k]);
    std::printf("\n");
}

// Reads rows * cols source elements (as raw 16-bit codes) from `path`, quantises, prints the bytes of
// dst, exp, max and scaling.
template <int GA, typename SrcT, int R, int C, int VC, typename Call>
static void run(const char* path, Call call) {
    using S = Tile<TileType::Vec, SrcT, R, C, BLayout::RowMajor, R, VC>;
    using D = Tile<TileType::Vec, float4_e2m1x2_t, R, C, BLayout::RowMajor, R, VC>;
    using E = Tile<TileType::Vec, uint8_t, GA == 1 ? R : R / 32, GA == 1 ? 32 : (C < 32 ? 32 : C)>;
    using M = Tile<TileType::Vec, float, 1, 64>;
    S src;
    D dst;
    E exp;
    M max, scaling;
    std::memset(static_cast<void*>(exp.data()), 0xAB, E::SizeBytes());
    std::memset(static_cast<void*>(max.data()), 0, M::SizeBytes());
    std::memset(static_cast<void*>(scaling.data()), 0, M::SizeBytes());
    std::FILE* f = std::fopen(path, "rb");
    const std::size_t want = static_cast<std::size_t>(R * C);
    if (f == nullptr || std::fread(static_cast<void*>(src.data()), 2, want, f) != want)
        std::exit(3);
    std::fclose(f);
    call(dst, src, exp, max, scaling);
    dump("dst", dst.data(), D::SizeBytes());
    dump("exp", exp.data(), E::SizeBytes());
    dump("max", max.data(), M::SizeBytes());
    dump("scaling", scaling.data(), M::SizeBytes());
}

int main(int argc, char** argv) {
    if (argc < 3)
        return 2;
    const std::string which = argv[1];
    const char* path = argv[2];
    if (which == "ocp_nd_half")
        run<1, half, 2, 64, 64>(path, [](auto& d, auto& s, auto& e, auto& m, auto& c) {
            TQUANT<1, MxQuantAlg::OcpMxFp4E2M1>(d, s, &e, &m, &c);
        });
    else if (which == "nv_nd_half")
        run<1, half, 2, 64, 64>(path, [](auto& d, auto& s, auto& e, auto& m, auto& c) {
            TQUANT<1, MxQuantAlg::NvMxFp4E2M1>(d, s, &e, &m, &c);
        });
    else if (which == "ocp_dn_bf16")
        run<0, bfloat16_t, 32, 32, 20>(path, [](auto& d, auto& s, auto& e, auto& m, auto& c) {
            TQUANT<0, MxQuantAlg::OcpMxFp4E2M1>(d, s, &e, &m, &c);
        });
    else
        run<1, bfloat16_t, 2, 64, 64>(path, [](auto& d, auto& s, auto& e, auto& m, auto& c) {
            using D = std::remove_reference_t<decltype(d)>;
            using S = std::remove_reference_t<decltype(s)>;
            using E = std::remove_reference_t<decltype(e)>;
            using M = std::remove_reference_t<decltype(m)>;
            TQUANT<QuantType::MXFP4_E2M1, D, S, E, M, M, QuantScaleAlg::NV>(d, s, &e, &m, &c);
        });
    return 0;
}
"""


def f32(x: float) -> np.float32:
    with np.errstate(over="ignore", invalid="ignore"):
        return np.float32(x)


def bits(v: np.float32) -> int:
    return int(np.array(v, dtype=np.float32).view(np.uint32))


def from_bits(b: int) -> np.float32:
    return np.float32(np.array(b & 0xFFFFFFFF, dtype=np.uint32).view(np.float32)[()])


def e2m1(v: np.float32) -> int:
    """Nearest E2M1 magnitude, ties to the even code, saturating; the sign of v in bit 3."""
    if math.isnan(v):
        return 7
    sign = 8 if math.copysign(1.0, float(v)) < 0 else 0
    a = abs(float(v))
    if math.isinf(a):
        return sign | 7
    dist = [abs(a - m) for m in MAGNITUDES]
    best = min(range(8), key=lambda k: (dist[k], k % 2, k))
    return sign | best


def reference(values: np.ndarray, grp_axis: int, nv: bool, bf16: bool, valid_cols: int) -> dict[str, dict]:
    rows, cols = values.shape
    lines = rows if grp_axis == 1 else valid_cols
    groups = cols // 32 if grp_axis == 1 else rows // 32
    dst, exp, mx, sc = {}, {}, {}, {}
    for line in range(lines):
        for g in range(groups):
            at = [(line, g * 32 + k) if grp_axis == 1 else (g * 32 + k, line) for k in range(32)]
            xs = [np.float32(values[r, c]) for r, c in at]
            if nv:
                m = np.float32(0)
                for x in xs:
                    if math.isnan(x):
                        m = x
                        break
                    m = max(m, np.float32(abs(x)))
                if m == 0:
                    e = 0
                else:
                    d = f32(m * f32(np.float32(1) / np.float32(6)))
                    b = bits(d)
                    ex, fr = (b >> 23) & 0xFF, b & 0x7FFFFF
                    if ex == 0xFF:
                        e = 0xFE if fr == 0 else 0xFF
                    else:
                        e = ex + (1 if fr > 0 and ex != 0xFE and not (ex == 0 and fr <= 0x400000) else 0)
            else:
                top = max((bits(x) >> 16) & 0x7FFF for x in xs)
                m = from_bits(top << 16)
                b = bits(m)
                ex = (b >> 23) & 0xFF
                e = 0xFF if ex == 0xFF and b & 0x7FFFFF else (0 if ex <= 2 else ex - 2)
            if e == 0xFF:
                s = m
            elif nv and e == 0xFE:
                s = np.float32(2.0**-127)
            else:
                s = from_bits((254 - e) << 23)
                s = np.float32(2.0**-127) if s == 0 else s
            flat = line * groups + g if grp_axis == 1 else g * lines + line
            mx[flat], sc[flat] = m, s
            exp[(line, g) if grp_axis == 1 else (g, line)] = e
            for (r, c), x in zip(at, xs, strict=True):
                if math.isinf(s):
                    code = 7 if s > 0 else 15
                elif math.isnan(s):
                    code = 7
                else:
                    y = f32(x * s)
                    if bf16:  # round half to even on the bits, with no NaN case
                        yb = bits(y)
                        y = from_bits((((yb + 0x7FFF + ((yb >> 16) & 1)) & 0xFFFFFFFF) >> 16) << 16)
                    code = e2m1(y)
                dst[(r, c)] = code
    return {"dst": dst, "exp": exp, "max": mx, "scaling": sc}


def source(rows: int, cols: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = rng.uniform(-1, 1, (rows, cols)) * np.exp2(rng.integers(-6, 6, (rows, cols)))
    flat = v.reshape(-1)
    # a group of exact ties after scaling (max 6 * 2^3: scaling 2^-3), zeros, a NaN, an infinity
    ties = [48.0, 2.0, 6.0, 10.0, 20.0, 36.0, 44.0, 0.0, -0.0, -2.0, -20.0, 0.25]
    flat[: len(ties)] = ties
    flat[40] = math.nan
    flat[70] = -math.inf
    return v


@pytest.fixture(scope="module", params=COMPILERS)
def program(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    cxx = require(request.param)
    return build_program(cxx, PROGRAM, tmp_path_factory.mktemp("quant_fp4"), "quant_fp4", ["-O1"])


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_mxfp4_matches_the_reference(program: Path, case: tuple, tmp_path: Path) -> None:
    name, _, grp_axis, nv, s_type, rows, cols, valid_cols = case
    np_type = np.float16 if s_type == "half" else ml_dtypes.bfloat16
    values = source(rows, cols, len(name)).astype(np_type)
    (tmp_path / "src.bin").write_bytes(values.tobytes())
    out = subprocess.run(
        [str(program), name, str(tmp_path / "src.bin")], capture_output=True, text=True, check=True
    )
    got = {line.split()[0]: [int(x) for x in line.split()[1:]] for line in out.stdout.splitlines()}
    want = reference(values.astype(np.float32), grp_axis, nv, s_type == "bfloat16_t", valid_cols)
    dst = got["dst"]
    for (r, c), code in want["dst"].items():
        k = r * cols + c
        assert (dst[k // 2] >> (4 * (k % 2))) & 0xF == code, f"{name}: dst({r}, {c})"
    exp_cols = 32 if grp_axis == 1 else max(cols, 32)
    for (r, c), e in want["exp"].items():
        assert got["exp"][r * exp_cols + c] == e, f"{name}: exp({r}, {c})"
    written = {r * exp_cols + c for r, c in want["exp"]}
    assert all(b == 0xAB for k, b in enumerate(got["exp"]) if k not in written), (
        f"{name}: exp outside the groups"
    )
    for what in ("max", "scaling"):
        floats = np.array(got[what], dtype=np.uint8).view(np.float32)
        for k, v in want[what].items():
            assert bits(floats[k]) == bits(np.float32(v)), f"{name}: {what}[{k}]"
