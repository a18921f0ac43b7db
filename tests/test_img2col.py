"""TIMG2COL and its configuration ops on the CPU simulator: the im2col matrix against numpy (padding,
strides, dilations, an NDC1HWC0 volume, `posM`/`posK` offsets, a destination valid region smaller
than the tile), both register sets and all four modes, the state the configuration ops set (TIMG2COL
reads the registers, not its source's current parameters), and the run-time errors for a register
group that no op has set, each naming the op that sets it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from .compilers import COMPILERS, build_shared_program, require

# name: (C++ type, numpy type, layout, (n, d, c1, h, w), filter (kh, kw), stride (sh, sw), dilation
# (dh, dw), pads (left, right, top, bottom), pad value, mode, posM, posK, dst rows x cols, valid rows x cols)
CASES = {
    "pad_float_a_manual": ("float", np.float32, "NC1HWC0", (1, 1, 1, 3, 4), (2, 2), (1, 1), (1, 1),
                           (1, 0, 1, 0), -1.0, "FMATRIX_A_MANUAL", 1, 8, (16, 16), (4, 16)),
    "stride_int8_b_auto": ("int8_t", np.int8, "NC1HWC0", (1, 1, 1, 4, 4), (2, 2), (2, 2), (1, 1),
                           (0, 0, 0, 0), 0, "FMATRIX_B_AUTO", 0, 32, (16, 32), (4, 32)),
    "dilated_half_b_manual": ("half", np.float16, "NC1HWC0", (2, 1, 2, 5, 6), (3, 2), (1, 2), (2, 1),
                              (2, 1, 0, 3), 7.5, "FMATRIX_B_MANUAL", 3, 40, (32, 48), (29, 45)),
    "volume_float_a_auto": ("float", np.float32, "NDC1HWC0", (1, 2, 2, 3, 3), (2, 2), (1, 1), (1, 1),
                            (0, 1, 1, 0), 2.0, "FMATRIX_A_AUTO", 2, 0, (32, 64), (17, 64)),
    "volume_bf16_a_manual": ("bfloat16_t", ml_dtypes.bfloat16, "NDC1HWC0", (1, 2, 1, 4, 3), (2, 1), (1, 1),
                             (1, 1), (0, 0, 1, 1), 3.0, "FMATRIX_A_MANUAL", 0, 16, (16, 32), (16, 32)),
    "stride_int32_b_auto": ("int32_t", np.int32, "NC1HWC0", (1, 1, 2, 3, 3), (3, 3), (2, 2), (1, 1),
                            (1, 1, 1, 1), -7, "FMATRIX_B_AUTO", 0, 0, (16, 16), (4, 16)),
    "pad_uint8_a_manual": ("uint8_t", np.uint8, "NC1HWC0", (1, 1, 1, 3, 3), (2, 2), (1, 1), (1, 1),
                           (0, 1, 0, 1), 200, "FMATRIX_A_MANUAL", 1, 96, (16, 32), (8, 32)),
}  # fmt: skip


def _c0(dtype: type) -> int:
    return 32 // np.dtype(dtype).itemsize


def _fmap_shape(case: tuple) -> tuple[int, ...]:
    _, dtype, layout, (n, d, c1, h, w) = case[:4]
    return (n, d, c1, h, w, _c0(dtype)) if layout == "NDC1HWC0" else (n, c1, h, w, _c0(dtype))


def _golden(case: tuple, fmap: np.ndarray) -> np.ndarray:
    """The im2col matrix's window at (posM, posK), rows x cols of the destination's valid region."""
    (
        _,
        dtype,
        layout,
        (n_, d_, c1_, h_, w_),
        (kh_, kw_),
        (sh, sw),
        (dh, dw),
        pads,
        padv,
        _,
        pm,
        pk,
        _,
        valid,
    ) = case
    left, right, top, bottom = pads
    vol = fmap.reshape(n_, d_, c1_, h_, w_, _c0(dtype))
    c0_ = _c0(dtype)
    out_h = (h_ + top + bottom - dh * (kh_ - 1) - 1) // sh + 1
    out_w = (w_ + left + right - dw * (kw_ - 1) - 1) // sw + 1
    want = np.full(valid, padv, dtype=dtype)
    for i in range(valid[0]):
        m = pm + i
        n, rest = divmod(m, d_ * out_h * out_w)
        d, rest = divmod(rest, out_h * out_w)
        oh, ow = divmod(rest, out_w)
        for j in range(valid[1]):
            k = pk + j
            c1, rest = divmod(k, kh_ * kw_ * c0_)
            (kh, kw), c0 = divmod(rest // c0_, kw_), k % c0_
            ih, iw = oh * sh + kh * dh - top, ow * sw + kw * dw - left
            if n < n_ and c1 < c1_ and 0 <= ih < h_ and 0 <= iw < w_:
                want[i, j] = vol[n, d, c1, ih, iw, c0]
    return want


def _scenario(name: str, case: tuple) -> str:
    (
        ctype,
        dtype,
        layout,
        (n, d, c1, h, w),
        (kh, kw),
        (sh, sw),
        (dh, dw),
        pads,
        padv,
        mode,
        pm,
        pk,
        dims,
        valid,
    ) = case
    shape = _fmap_shape(case)
    count = int(np.prod(shape))
    return f"""
void run_{name}(const char* dir) {{
    using Src = ConvTile<TileType::Mat, {ctype}, {count * np.dtype(dtype).itemsize}, Layout::{layout},
                         ConvTileShape<{", ".join(map(str, shape))}>>;
    using Dst = TileLeft<{ctype}, {dims[0]}, {dims[1]}, {valid[0]}, {valid[1]}>;
    Src src;
    Dst dst;
    TASSIGN(src, 0x0);
    TASSIGN(dst, 0x0);
    load(dir, "{name}.bin", src.data(), {count});
    const uint8_t pads[4] = {{{", ".join(map(str, pads))}}};
    src.SetPadListArray(pads);
    src.SetFmapH({h});
    src.SetFmapW({w});
    src.SetFilterH({kh});
    src.SetFilterW({kw});
    src.SetStrideH({sh});
    src.SetStrideW({sw});
    src.SetDilationH({dh});
    src.SetDilationW({dw});
    src.SetPadValue({ctype}(static_cast<float>({padv})));
    constexpr auto M = SetFmatrixMode::{mode};
    SETFMATRIX<Src, M>(src);
    SET_IMG2COL_PADDING<Src, M>(src);
    SET_IMG2COL_RPT<Src, M>(src);
    TIMG2COL<Dst, Src, M>(dst, src, {pm}, {pk});
    std::vector<{ctype}> out({valid[0] * valid[1]});
    for (int r = 0; r < {valid[0]}; ++r)
        for (int c = 0; c < {valid[1]}; ++c)
            out[r * {valid[1]} + c] = dst.GetElement(r, c);
    store(dir, "{name}.out", out.data(), out.size());
}}
"""


PROGRAM_HEAD = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
using namespace pto;

template <typename T>
void load(const char* dir, const char* name, T* data, std::size_t n) {
    std::FILE* f = std::fopen((std::string(dir) + "/" + name).c_str(), "rb");
    if (f == nullptr || std::fread(data, sizeof(T), n, f) != n) {
        std::printf("cannot read %s\n", name);
        std::exit(3);
    }
    std::fclose(f);
}
template <typename T>
void store(const char* dir, const char* name, const T* data, std::size_t n) {
    std::FILE* f = std::fopen((std::string(dir) + "/" + name).c_str(), "wb");
    std::fwrite(data, sizeof(T), n, f);
    std::fclose(f);
}

using FmapShape = ConvTileShape<1, 1, 2, 2, 8>;
using Fmap = ConvTile<TileType::Mat, float, 1 * 1 * 2 * 2 * 8 * 4, Layout::NC1HWC0, FmapShape>;
using Out = TileLeft<float, 16, 16, 4, 8>;

void configure(Fmap& src, float pad) {
    const uint8_t pads[4] = {1, 1, 1, 1};
    src.SetPadListArray(pads);
    src.SetFmapH(2);
    src.SetFmapW(2);
    src.SetFilterH(2);
    src.SetFilterW(2);
    src.SetPadValue(pad);
    for (int k = 0; k < 32; ++k)
        src.data()[k] = static_cast<float>(k + 1);
}

// The registers, not the source's current parameters: pad value and padding set once, then changed
// on the tile without a new SET_IMG2COL_PADDING / SETFMATRIX.
void registers_hold(const char* dir) {
    Fmap src;
    Out dst;
    configure(src, -1.0f);
    SETFMATRIX<Fmap, SetFmatrixMode::FMATRIX_B_MANUAL>(src);
    SET_IMG2COL_PADDING<Fmap, SetFmatrixMode::FMATRIX_B_MANUAL>(src);
    SET_IMG2COL_RPT<Fmap, SetFmatrixMode::FMATRIX_B_MANUAL>(src);
    src.SetPadValue(5.0f);
    const uint8_t none[4] = {0, 0, 0, 0};
    src.SetPadListArray(none);
    TIMG2COL<Out, Fmap, SetFmatrixMode::FMATRIX_B_MANUAL>(dst, src, 0, 0);
    std::vector<float> out(32);
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 8; ++c)
            out[r * 8 + c] = dst.GetElement(r, c);
    store(dir, "registers.out", out.data(), out.size());
}

// A TIMG2COL that reads a register group of its set that no op has set stops, naming the op.
void missing(const char* which) {
    Fmap src;
    Out dst;
    configure(src, 0.0f);
    constexpr auto A = SetFmatrixMode::FMATRIX_A_MANUAL;
    if (std::strcmp(which, "fmatrix") != 0)
        SETFMATRIX<Fmap, A>(src);
    if (std::strcmp(which, "padding") != 0)
        SET_IMG2COL_PADDING<Fmap, A>(src);
    if (std::strcmp(which, "repeat") != 0)
        SET_IMG2COL_RPT<Fmap, A>(src);
    if (std::strcmp(which, "other_set") == 0) {
        TIMG2COL<Out, Fmap, SetFmatrixMode::FMATRIX_B_MANUAL>(dst, src);  // set B was never written
        return;
    }
    if (std::strcmp(which, "auto") == 0) {  // AUTO writes set A itself; a later MANUAL read finds it
        sim::reset_img2col_registers();
        TIMG2COL<Out, Fmap, SetFmatrixMode::FMATRIX_A_AUTO>(dst, src);
        TIMG2COL<Out, Fmap, A>(dst, src);
        std::printf("auto ok\n");
        return;
    }
    if (std::strcmp(which, "zero_fmap") == 0) {
        src.SetFmapH(0);
        SETFMATRIX<Fmap, A>(src);
        return;
    }
    TIMG2COL<Out, Fmap, A>(dst, src);
}
"""


def _program() -> str:
    runs = "".join(_scenario(n, c) for n, c in CASES.items())
    calls = "".join(f'    if (what == "{n}") run_{n}(argv[2]);\n' for n in CASES)
    main = f"""
int main(int argc, char** argv) {{
    if (argc < 3) return 2;
    const std::string what = argv[1];
{calls}    if (what == "registers") registers_hold(argv[2]);
    if (what == "missing") missing(argv[2]);
    return 0;
}}
"""
    return PROGRAM_HEAD + runs + main


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_shared_program(require(COMPILERS[0]), _program(), tmp_path_factory, "img2col")


@pytest.mark.parametrize("name", sorted(CASES))
def test_timg2col_matches_numpy(program: Path, name: str, tmp_path: Path) -> None:
    case = CASES[name]
    dtype = case[1]
    rng = np.random.default_rng(11)
    fmap = rng.integers(-50, 50, _fmap_shape(case)).astype(dtype)
    fmap.tofile(tmp_path / f"{name}.bin")
    run = subprocess.run([str(program), name, str(tmp_path)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    got = np.fromfile(tmp_path / f"{name}.out", dtype).reshape(case[-1])
    want = _golden(case, fmap)
    assert (want != case[8]).any(), "the case reads the feature map"
    assert not any(case[7]) or (want == case[8]).any(), "a padded case reads the padding too"
    np.testing.assert_array_equal(got, want)


def test_timg2col_reads_the_registers_the_configuration_ops_set(program: Path, tmp_path: Path) -> None:
    run = subprocess.run(
        [str(program), "registers", str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    got = np.fromfile(tmp_path / "registers.out", np.float32).reshape(4, 8)
    fmap = np.arange(1, 33, dtype=np.float32).reshape(1, 1, 2, 2, 8)
    case = ("float", np.float32, "NC1HWC0", (1, 1, 1, 2, 2), (2, 2), (1, 1), (1, 1), (1, 1, 1, 1), -1.0,
            "FMATRIX_B_MANUAL", 0, 0, (16, 16), (4, 8))  # fmt: skip
    np.testing.assert_array_equal(got, _golden(case, fmap))  # pads 1 and pad value -1: the registers'


@pytest.mark.parametrize(
    ("which", "message"),
    [
        ("fmatrix", "FMATRIX registers (feature-map size and padding) of register set A, which no op has "
                    "set: "
                    "call SETFMATRIX<ConvTileData, SetFmatrixMode::FMATRIX_A_MANUAL>(src) first"),
        ("padding", "padding register (pad value) of register set A, which no op has set: "
                    "call SET_IMG2COL_PADDING<ConvTileData, SetFmatrixMode::FMATRIX_A_MANUAL>(src) first"),
        ("repeat", "repeat register of register set A, which no op has set: "
                   "call SET_IMG2COL_RPT<ConvTileData, SetFmatrixMode::FMATRIX_A_MANUAL>(src) first"),
        ("other_set", "of register set B, which no op has set: "
                      "call SETFMATRIX<ConvTileData, SetFmatrixMode::FMATRIX_B_MANUAL>(src) first"),
        ("zero_fmap", "SETFMATRIX: the feature map's height and width (SetFmapH, SetFmapW) must not be 0"),
    ],
)  # fmt: skip
def test_reading_a_register_group_never_set_stops(program: Path, which: str, message: str) -> None:
    run = subprocess.run([str(program), "missing", which], capture_output=True, text=True, check=False)
    assert run.returncode != 0, run.stdout
    assert message in run.stderr, run.stderr


def test_auto_mode_sets_the_registers_itself(program: Path) -> None:
    run = subprocess.run([str(program), "missing", "auto"], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert "auto ok" in run.stdout
