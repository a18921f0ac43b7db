"""TIMG2COL and its configuration ops beyond the generated cases (generated/tests/timg2col and the
configuration ops': both layouts, all four modes, padding, strides, dilations, offsets and partial
valid regions against the im2col matrix in numpy): the state the configuration ops set (TIMG2COL
reads the registers, not its source's current parameters), and the run-time errors for a register
group that no op has set, each naming the op that sets it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from ptogen.opkinds.img2col import im2col

from ..compilers import COMPILERS, build_shared_program, require

PROGRAM_HEAD = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
using namespace pto;

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


# A ConvTile whose BufferSize holds one channel block fewer than its extents need (TLOAD's run-time
# check; tests/opkinds/test_transfer.py runs it, in this program so that one build serves both files).
TOO_SMALL = r"""
void too_small() {
    static half in[1 * 1 * 2 * 2 * 16] = {};
    using G = GlobalTensor<half, Shape<1, 1, 2, 2, 16>, Stride<64, 64, 32, 16, 1>, Layout::NC1HWC0>;
    ConvTile<TileType::Mat, half, 96, Layout::NC1HWC0, ConvTileShape<1, 1, 2, 2>> tile;
    G g(in);
    TLOAD(tile, g);
}
"""


def _program() -> str:
    main = """
int main(int argc, char** argv) {
    if (argc < 2) return 2;
    const std::string what = argv[1];
    if (what == "too_small") too_small();
    if (argc < 3) return 2;
    if (what == "registers") registers_hold(argv[2]);
    if (what == "missing") missing(argv[2]);
    return 0;
}
"""
    return PROGRAM_HEAD + TOO_SMALL + main


def conv_hand_program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The program of the ConvTile hand tests (this file's and tests/opkinds/test_transfer.py's), built
    once per session."""
    return build_shared_program(require(COMPILERS[0]), _program(), tmp_path_factory, "conv_hand")


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return conv_hand_program(tmp_path_factory)


def test_timg2col_reads_the_registers_the_configuration_ops_set(program: Path, tmp_path: Path) -> None:
    run = subprocess.run(
        [str(program), "registers", str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    got = np.fromfile(tmp_path / "registers.out", np.float32).reshape(4, 8)
    fmap = np.arange(1, 33, dtype=np.float32).reshape(1, 1, 1, 2, 2, 8)
    attrs = {
        "window": "2,2",
        "stride": "1,1",
        "dilation": "1,1",
        "pads": "1,1,1,1",
        "pos_m": "0",
        "pos_k": "0",
    }
    # pads 1 and pad value -1: what the registers hold, not the source's later parameters
    np.testing.assert_array_equal(got, im2col(fmap, attrs, 4, 8, np.float32(-1.0)))


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
