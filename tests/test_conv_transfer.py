"""The conv forms of TLOAD and TSTORE: a ConvTile moves to and from a GlobalTensor of its own conv
layout (NC1HWC0 with four or five extents, NDC1HWC0, FRACTAL_Z with four or five), through the
tensor's strides (padded ones here, so a wrong stride or a wrong split of the matrix shows), under
every profile; the atomic store adds; the simulator's requirements fail to compile with their
messages, and a ConvTile whose BufferSize is too small stops the run. The goldens index the arrays
by (n, [d,] c1, h, w, c0) in numpy, independently of the simulator's walk over the matrix."""

from __future__ import annotations

import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from .compilers import COMPILERS, build_shared_program, cxx_argv, require
from .helpers import ROOT

# name, C++ element type, numpy type, tile extents, tensor extents (5), tensor strides (5), layout
CASES = [
    ("nc1hwc0_4d", "half", np.float16, (2, 2, 3, 5), (2, 2, 3, 5, 16), (640, 288, 96, 16, 1), "NC1HWC0"),
    ("nc1hwc0_5d", "float", np.float32, (1, 3, 2, 4, 8), (1, 3, 2, 4, 8), (256, 80, 40, 8, 1), "NC1HWC0"),
    ("ndc1hwc0", "float", np.float32, (2, 2, 2, 3, 4, 8), (2, 2, 2, 3, 4), (1000, 400, 120, 40, 8), "NDC1HWC0"),  # noqa: E501
    ("fractal_z_5d", "int8_t", np.int8, (2, 2, 3, 16, 32), (2, 2, 3, 16, 32), (4096, 1800, 560, 32, 1), "FRACTAL_Z"),  # noqa: E501
    ("nc1hwc0_bf16", "bfloat16_t", ml_dtypes.bfloat16, (1, 2, 2, 3, 16), (1, 2, 2, 3, 16), (300, 128, 56, 16, 1), "NC1HWC0"),  # noqa: E501
    ("ndc1hwc0_u16", "uint16_t", np.uint16, (1, 1, 2, 2, 3, 16), (1, 1, 2, 2, 3), (500, 500, 112, 48, 16), "NDC1HWC0"),  # noqa: E501
    ("fractal_z_i32", "int32_t", np.int32, (1, 2, 2, 8, 8), (1, 2, 2, 8, 8), (400, 160, 72, 8, 1), "FRACTAL_Z"),  # noqa: E501
    ("nc1hwc0_u8", "uint8_t", np.uint8, (1, 2, 3, 3), (1, 2, 3, 3, 32), (700, 320, 100, 32, 1), "NC1HWC0"),
    ("fractal_z_4d", "half", np.float16, (6, 1, 16, 16), (3, 1, 2, 16, 16), (600, 600, 256, 16, 1), "FRACTAL_Z"),  # noqa: E501
]  # fmt: skip


def _elements(case: tuple) -> int:
    """Elements of the ConvTile: its extents' product, times C0 for a four-extent NC1HWC0 shape."""
    _, _, dtype, ext, _, _, layout = case
    n = int(np.prod(ext))
    return n * (32 // np.dtype(dtype).itemsize) if layout == "NC1HWC0" and len(ext) == 4 else n


def _positions(case: tuple) -> list[tuple[int, int]]:
    """(tile offset, tensor offset) of every element, by indices (the golden's own walk)."""
    _, _, dtype, ext, gext, st, layout = case
    c0 = 32 // np.dtype(dtype).itemsize
    pairs = []
    if layout == "NC1HWC0":
        n_, c1_, h_, w_ = ext[:4]
        for n, c1, h, w, k in np.ndindex(n_, c1_, h_, w_, c0):
            tile = (((n * c1_ + c1) * h_ + h) * w_ + w) * c0 + k
            pairs.append((tile, n * st[0] + c1 * st[1] + h * st[2] + w * st[3] + k * st[4]))
    elif layout == "NDC1HWC0":
        n_, d_, c1_, h_, w_, _ = ext
        for n, d, c1, h, w, k in np.ndindex(n_, d_, c1_, h_, w_, c0):
            tile = ((((n * d_ + d) * c1_ + c1) * h_ + h) * w_ + w) * c0 + k
            pairs.append((tile, n * st[0] + d * st[1] + c1 * st[2] + h * st[3] + w * st[4] + k))
    elif len(ext) == 5:  # FRACTAL_Z (c1, h, w, n, c0)
        for idx in np.ndindex(*ext):
            tile = int(np.ravel_multi_index(idx, ext))
            pairs.append((tile, sum(i * s for i, s in zip(idx, st, strict=True))))
    else:  # FRACTAL_Z (c1*h*w, n/16, 16, c0) against a tensor (c1, h, w, n, c0), n = 16
        c1_, h_, w_ = gext[:3]
        for c1, h, w, n, k in np.ndindex(c1_, h_, w_, 16, c0):
            tile = (((c1 * h_ + h) * w_ + w) * 16 + n) * c0 + k
            pairs.append((tile, c1 * st[0] + h * st[1] + w * st[2] + n * st[3] + k))
    return pairs


def _span(case: tuple) -> int:
    _, _, dtype, _, gext, st, layout = case
    extra = 32 // np.dtype(dtype).itemsize if layout == "NDC1HWC0" else 1
    return sum((g - 1) * s for g, s in zip(gext, st, strict=True)) + extra


def _kernel(case: tuple) -> str:
    name, ctype, dtype, ext, gext, st, layout = case
    count, span = _elements(case), _span(case)
    nbytes = count * np.dtype(dtype).itemsize
    shape = ", ".join(map(str, ext))
    return f"""
void case_{name}(const char* dir, Prof prof) {{
    using G = GlobalTensor<{ctype}, Shape<{", ".join(map(str, gext))}>, Stride<{", ".join(map(str, st))}>,
                           Layout::{layout}>;
    using C = ConvTile<TileType::Mat, {ctype}, {nbytes}, Layout::{layout}, ConvTileShape<{shape}>>;
    std::vector<{ctype}> in({span}), out({span}), acc({span});
    load(dir, "{name}_in.bin", in.data(), {span});
    load(dir, "{name}_acc.bin", acc.data(), {span});
    G gin(in.data()), gout(out.data()), gacc(acc.data());
    C tile;
    TASSIGN(tile, 0x0);
    switch (prof) {{
    case Prof::A2A3:
        profiled::TLOAD<profile_a2a3>(tile, gin);
        profiled::TSTORE<profile_a2a3>(gout, tile);
        break;
    case Prof::A5:  // A5 stores no Mat tile
        profiled::TLOAD<profile_a5>(tile, gin);
        TSTORE(gout, tile);
        break;
    case Prof::CPU: TLOAD(tile, gin); TSTORE(gout, tile); break;
    }}
    store(dir, "{name}_tile.out", tile.data(), {count});
    store(dir, "{name}_out.out", out.data(), {span});
    TSTORE<C, G, AtomicType::AtomicAdd>(gacc, tile);
    store(dir, "{name}_acc.out", acc.data(), {span});
}}
"""


PROGRAM_HEAD = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
using namespace pto;

enum class Prof { A2A3, A5, CPU };

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

// A ConvTile whose BufferSize holds one channel block fewer than its extents need.
void too_small() {
    static half in[1 * 1 * 2 * 2 * 16] = {};
    using G = GlobalTensor<half, Shape<1, 1, 2, 2, 16>, Stride<64, 64, 32, 16, 1>, Layout::NC1HWC0>;
    ConvTile<TileType::Mat, half, 96, Layout::NC1HWC0, ConvTileShape<1, 1, 2, 2>> tile;
    G g(in);
    TLOAD(tile, g);
}
"""


def _program() -> str:
    body = "".join(_kernel(c) for c in CASES)
    calls = "".join(f"        case_{c[0]}(argv[1], p);\n" for c in CASES)
    main = f"""
int main(int argc, char** argv) {{
    if (argc > 1 && std::strcmp(argv[1], "too_small") == 0) {{ too_small(); return 0; }}
    const std::string which = argc > 2 ? argv[2] : "CPU";
    const Prof p = which == "A2A3" ? Prof::A2A3 : which == "A5" ? Prof::A5 : Prof::CPU;
{calls}    return 0;
}}
"""
    return PROGRAM_HEAD + body + main


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_shared_program(require(COMPILERS[0]), _program(), tmp_path_factory, "conv_transfer")


@pytest.mark.parametrize("profile", ["CPU", "A2A3", "A5"])
def test_conv_load_store_and_atomic_store(program: Path, profile: str, tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    expected = {}
    for case in CASES:
        name, dtype, span = case[0], case[2], _span(case)
        low = 0 if np.dtype(dtype).kind == "u" else -60  # sums stay within every element type
        gin = rng.integers(low, 60, span).astype(dtype)
        acc = rng.integers(low, 60, span).astype(dtype)
        gin.tofile(tmp_path / f"{name}_in.bin")
        acc.tofile(tmp_path / f"{name}_acc.bin")
        expected[name] = (gin, acc)
    run = subprocess.run([str(program), str(tmp_path), profile], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    for case in CASES:
        name, dtype, span = case[0], case[2], _span(case)
        gin, acc = expected[name]
        pairs = _positions(case)
        tile_at = np.array([p[0] for p in pairs])
        glob_at = np.array([p[1] for p in pairs])
        assert sorted(tile_at.tolist()) == list(range(_elements(case))), name  # every element once
        want_tile = np.zeros(_elements(case), dtype)
        want_tile[tile_at] = gin[glob_at]
        got_tile = np.fromfile(tmp_path / f"{name}_tile.out", dtype)
        np.testing.assert_array_equal(got_tile, want_tile, err_msg=f"{name}: TLOAD")
        want_out = np.zeros(span, dtype)  # elements outside the tensor's positions stay as they were (0)
        want_out[glob_at] = gin[glob_at]
        np.testing.assert_array_equal(np.fromfile(tmp_path / f"{name}_out.out", dtype), want_out, name)
        want_acc = acc.copy()
        want_acc[glob_at] = (acc[glob_at].astype(np.float64) + gin[glob_at]).astype(dtype)
        np.testing.assert_array_equal(np.fromfile(tmp_path / f"{name}_acc.out", dtype), want_acc, name)


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
