"""The conv forms of TLOAD and TSTORE beyond the generated cases (generated/tests/tload and tstore,
groups `<dtype>_conv`: every layout and extent count with padded strides, every element type,
every profile, the store modes): the simulator's requirements, which are no profile rule, fail to
compile with their messages, and a ConvTile whose BufferSize is too small stops the run."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from .compilers import COMPILERS, cxx_argv, require
from .helpers import ROOT
from .test_img2col import conv_hand_program


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return conv_hand_program(tmp_path_factory)  # its TOO_SMALL


def test_a_conv_tile_too_small_for_its_extents_stops(program: Path) -> None:
    run = subprocess.run([str(program), "too_small"], capture_output=True, text=True, check=False)
    assert run.returncode != 0
    assert "TLOAD" in run.stderr, run.stderr
    assert "the ConvTile's extents must fit its BufferSize" in run.stderr, run.stderr


BAD = {
    "layout": (
        "GlobalTensor<half, Shape<1, 1, 2, 2, 16>, Stride<64, 64, 32, 16, 1>, Layout::NDC1HWC0>",
        "ConvTile<TileType::Mat, half, 128, Layout::NC1HWC0, ConvTileShape<1, 1, 2, 2>>",
        "a ConvTile moves to and from a GlobalTensor of its own layout",
    ),
    "location": (
        "GlobalTensor<half, Shape<1, 1, 2, 2, 16>, Stride<64, 64, 32, 16, 1>, Layout::NC1HWC0>",
        "ConvTile<TileType::Vec, half, 128, Layout::NC1HWC0, ConvTileShape<1, 1, 2, 2>>",
        "a ConvTile that TLOAD or TSTORE moves lives in TileType::Mat",
    ),
    "dtype": (
        "GlobalTensor<int64_t, Shape<1, 1, 2, 2, 4>, Stride<16, 16, 8, 4, 1>, Layout::NC1HWC0>",
        "ConvTile<TileType::Mat, int64_t, 128, Layout::NC1HWC0, ConvTileShape<1, 1, 2, 2>>",
        "a ConvTile that TLOAD or TSTORE moves holds int8_t",
    ),
}


BAD["a5_store"] = (
    "GlobalTensor<half, Shape<1, 1, 2, 2, 16>, Stride<64, 64, 32, 16, 1>, Layout::NC1HWC0>",
    "ConvTile<TileType::Mat, half, 128, Layout::NC1HWC0, ConvTileShape<1, 1, 2, 2>>",
    "TSTORE [A5]: tile location must be one of TileType::Vec, TileType::Acc",  # the page's rule, ConvTile too
)


@pytest.mark.full_tier  # compile-only failure checks: CI's full tier
def test_conv_transfer_requirements_fail_to_compile(tmp_path: Path) -> None:
    """One translation unit with a function per broken requirement: each message appears, raised
    from its own function (clang names it in the instantiation notes)."""
    lines = ["#include <pto/pto-inst.hpp>", "using namespace pto;"]
    for what, (glob, tile, _) in BAD.items():
        call = "profiled::TSTORE<profile_a5>(g, t)" if what == "a5_store" else "TLOAD(t, g)"
        lines.append(f"void move_{what}({glob}::DType* p) {{ {glob} g(p); {tile} t; {call}; }}")
    source = tmp_path / "bad.cpp"
    source.write_text("\n".join(lines) + "\n")
    includes = [f"-I{ROOT / 'generated/include'}", f"-I{ROOT / 'ptogen/runtime/include'}"]
    cxx = require(COMPILERS[0])
    proc = subprocess.run(
        [*cxx_argv(cxx), "-std=c++20", "-fsyntax-only", "-ferror-limit=0", *includes, str(source)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode != 0
    for what, (_, _, message) in BAD.items():
        assert message in proc.stderr, (what, proc.stderr[:3000])
