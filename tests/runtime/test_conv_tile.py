"""ConvTile, ConvTileShape and the conv layouts (ptogen/runtime/include/pto/common/conv_tile.hpp):
extents static and DYNAMIC, the img2col parameters it carries, TASSIGN of a ConvTile (both forms,
under every profile), its footprint in its memory, and `Layout`'s enumerators in upstream's order.
DYNAMIC extents given at construction and read by the ops are the generated conv cases' (TLOAD,
TSTORE, TTRANS, TEXTRACT, TIMG2COL: `TileDecl.conv_dynamic`); here only what they cannot show:
the default extent, SetDynamicShape, a kernel's own buffer and ConvTileShape on its own."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from ..compilers import COMPILERS, build_program, cxx_argv, require
from ..helpers import ROOT

# upstream's pto/common/type.hpp order: a kernel built against either include tree sees the same
# enumerator values
UPSTREAM_LAYOUTS = [
    "ND", "DN", "NZ", "SCALE", "MX_A_ND", "MX_A_DN", "MX_A_ZZ", "MX_B_ND", "MX_B_DN", "MX_B_NN",
    "HIF4_A_ZZ", "HIF4_B_NN", "NC1HWC0", "GNC1HWC0", "NCHW", "GNCHW", "NHWC", "NDC1HWC0", "NCDHW",
    "FRACTAL_Z", "FRACTAL_Z_S16S8", "FRACTAL_Z_3D", "MAX",
]  # fmt: skip

PROGRAM = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
#include <vector>
using namespace pto;

static int failures = 0;
#define CHECK(c) do { if (!(c)) { ++failures; std::printf("FAIL line %d: %s\n", __LINE__, #c); } } while (0)

int main() {
    // four extents, C0 implied by the element type (NC1HWC0 as upstream's TLOAD tests declare it)
    using Fmap =
        ConvTile<TileType::Mat, half, 1 * 2 * 4 * 4 * 32, Layout::NC1HWC0, ConvTileShape<1, 2, 4, 4>>;
    static_assert(Fmap::totalDimCount == 4 && Fmap::dynamicDimCount == 0 && Fmap::C0 == 16);
    static_assert(Fmap::layout == Layout::NC1HWC0 && Fmap::Loc == TileType::Mat && Fmap::bufferSize == 1024);
    static_assert(is_conv_tile_v<Fmap> && !is_tile_data_v<Fmap>);
    static_assert(!is_conv_tile_v<Tile<TileType::Vec, float, 8, 8>>);
    Fmap fmap;
    CHECK(fmap.GetShape(0) == 1 && fmap.GetShape(1) == 2 && fmap.GetShape(3) == 4);
    CHECK(fmap.GetShape(4) == -1 && fmap.GetShape(-1) == -1);
    for (int k = 0; k < 512; ++k)
        CHECK(static_cast<float>(fmap.data()[k]) == 0.0f);  // owned storage starts zeroed

    // TASSIGN binds it into L1 (Mat), by value and by template address; two bindings alias
    TASSIGN(fmap, 0x0);
    Fmap alias;
    TASSIGN<0x0>(alias);
    fmap.data()[5] = half(3.0f);
    CHECK(static_cast<float>(alias.data()[5]) == 3.0f);
    const auto* l1 = NPUMemoryModel::Instance().Base(NPUMemoryModel::L1);
    CHECK(reinterpret_cast<std::uintptr_t>(fmap.data()) == reinterpret_cast<std::uintptr_t>(l1));

    // six extents, two of them DYNAMIC: 1 until set (int64_t values, as upstream requires)
    using VolShape = ConvTileShape<1, DYNAMIC, 2, DYNAMIC, 4, 8>;
    using Vol = ConvTile<TileType::Mat, float, 4096, Layout::NDC1HWC0, VolShape>;
    static_assert(Vol::totalDimCount == 6 && Vol::dynamicDimCount == 2);
    static_assert(Vol::isDynamicDim[1] && !Vol::isDynamicDim[2]);
    Vol vol;
    CHECK(vol.GetShape(1) == 1 && vol.GetShape(3) == 1 && vol.GetShape(5) == 8);
    vol.SetDynamicShape(int64_t{2}, int64_t{7});
    CHECK(vol.GetShape(1) == 2 && vol.GetShape(3) == 7);
    std::vector<float> host(1024, 0.0f);
    vol.data() = host.data();  // a kernel may point it at its own buffer
    vol.data()[9] = 1.5f;
    CHECK(host[9] == 1.5f);

    // ConvTileShape: the DYNAMIC extents in order, or all six
    ConvTileShape<DYNAMIC, 4, DYNAMIC> s2(7, 9);
    CHECK(s2.shape[0] == 7 && s2.shape[1] == 4 && s2.shape[2] == 9 && s2.shape[3] == 1);
    static_assert(ConvTileShape<DYNAMIC, 4, DYNAMIC>::dynamicDimCount == 2);
    static_assert(ConvTileShape<2, 3>::staticShape[1] == 3 && ConvTileShape<2, 3>::totalDimCount == 2);

    // the img2col parameters and their defaults
    CHECK(fmap.GetFilterH() == 1 && fmap.GetStrideW() == 1);
    CHECK(fmap.GetDilationH() == 1 && fmap.GetRepeatTime() == 1);
    const uint8_t pads[4] = {1, 2, 3, 4};
    fmap.SetPadListArray(pads);
    fmap.SetFmapH(6);
    fmap.SetPadValue(half(-2.0f));
    CHECK(fmap.GetPadList(0) == 1 && fmap.GetPadList(3) == 4 && fmap.GetFmapH() == 6);
    CHECK(static_cast<float>(fmap.GetPadValue()) == -2.0f);

    // every enumerator of Layout, by value
    const char* names[] = {LAYOUT_NAMES};
    const int values[] = {LAYOUT_VALUES};
    for (unsigned k = 0; k < sizeof(values) / sizeof(values[0]); ++k)
        if (values[k] != static_cast<int>(k)) {
            ++failures;
            std::printf("FAIL Layout::%s is %d\n", names[k], values[k]);
        }
    std::printf("%d failures\n", failures);
    return failures == 0 ? 0 : 1;
}
"""


def _program() -> str:
    return PROGRAM.replace("LAYOUT_NAMES", ", ".join(f'"{n}"' for n in UPSTREAM_LAYOUTS)).replace(
        "LAYOUT_VALUES", ", ".join(f"static_cast<int>(Layout::{n})" for n in UPSTREAM_LAYOUTS)
    )


@pytest.mark.parametrize("cxx", COMPILERS)
def test_conv_tile_behaviour(cxx: str, tmp_path: Path) -> None:
    exe = build_program(require(cxx), _program(), tmp_path, "conv_tile")
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 failures" in run.stdout


@pytest.mark.full_tier  # compile-only failure checks: CI's full tier
def test_tassign_places_conv_tiles_by_their_buffer_size(tmp_path: Path) -> None:
    """TASSIGN<Addr> of a ConvTile is held to its memory by its BufferSize, on A2A3 and A5: a buffer
    that fits at 0x0 compiles, the same buffer at the end of L1 fails with the placement rule's
    message (one translation unit: exactly the two calls past the end fail)."""
    cxx = require(COMPILERS[0])
    source = tmp_path / "place.cpp"
    lines = [
        "#include <pto/pto-inst.hpp>",
        "using namespace pto;",
        "using F = ConvTile<TileType::Mat, half, 4096, Layout::NC1HWC0, ConvTileShape<1, 2, 8, 8, 16>>;",
    ]
    for p in ("a2a3", "a5"):
        lines.append(f"void fits_{p}() {{ F f; profiled::TASSIGN<profile_{p}, 0x0>(f); }}")
        lines.append(f"void past_{p}() {{ F f; profiled::TASSIGN<profile_{p}, 524288 - 1024>(f); }}")
    source.write_text("\n".join(lines) + "\n")
    includes = [f"-I{ROOT / 'generated/include'}", f"-I{ROOT / 'ptogen/runtime/include'}"]
    bad = subprocess.run(
        [*cxx_argv(cxx), "-std=c++20", "-fsyntax-only", "-ferror-limit=0", *includes, str(source)],
        capture_output=True,
        text=True,
    )
    assert bad.returncode != 0
    for profile in ("A2A3", "A5"):
        # One diagnostic per call past the end (a compiler may also echo the message's source line).
        found = re.findall(rf"error: .*TASSIGN \[{profile}\]: obj must lie within its memory", bad.stderr)
        assert len(found) == 1, bad.stderr[:3000]
