"""TASSIGN's memories (ptogen/runtime/include/pto/cpu/NPUMemoryModel.hpp, tile.hpp): one region per
location sized as the selected target's, offsets into the tile's own region, host pointers into any
region as aliases, the footprint of a windowed tile, and the stop on a tile that does not fit."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ..compilers import COMPILERS, build_program, require

PROGRAM = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
#include <string>

using namespace pto;

using Acc =
    Tile<TileType::Acc, int32_t, 128, 256, BLayout::ColMajor, DYNAMIC, DYNAMIC, SLayout::RowMajor, 1024>;
using Strip = Tile<TileType::Acc, int32_t, 128, 256, BLayout::ColMajor, 16, 256, SLayout::RowMajor, 1024>;
using Vec = Tile<TileType::Vec, float, 8, 64>;

int main(int argc, char** argv) {
    const std::string what = argc > 1 ? argv[1] : "";
    auto& mem = NPUMemoryModel::Instance();
    if (what == "a5_strip_past_a2a3") {
        NPU_MEMORY_INIT(NPUArch::A5);  // L0C of 256 KiB: a 128 KiB accumulator fits at 128 KiB
        Acc acc(128, 256);
        TASSIGN(acc, 128 * 1024);
        std::printf("%d\n", int(reinterpret_cast<char*>(acc.data()) - mem.GetL0CBase()));
        std::fflush(stdout);  // the stop below ends the process
        NPU_MEMORY_INIT(NPUArch::A2A3);  // 128 KiB: the same place no longer fits
        Acc again(128, 256);
        TASSIGN(again, 128 * 1024);
        std::printf("survived\n");
        return 0;
    }
    NPU_MEMORY_INIT(NPUArch::A2A3);
    Vec base, alias;
    TASSIGN(base, 0x40);
    TASSIGN(alias, reinterpret_cast<std::uintptr_t>(base.data() + 64));  // a pointer: row 1 of base
    base.SetValue(64 + 5, 2.5f);
    alias.SetValue(7, -1.0f);
    Strip strip;  // a 16-row window: its footprint, not the whole block, must fit in L0C
    TASSIGN(strip, 112 * 16 * sizeof(int32_t));
    Acc full(128, 256);  // the whole 128 KiB block exactly fills A2/A3's L0C
    TASSIGN(full, 0);
    std::printf("%g %g %d %d %d\n", double(alias.GetValue(5)), double(base.GetValue(64 + 7)),
                int(reinterpret_cast<char*>(base.data()) - mem.GetUBBase()),
                int(reinterpret_cast<char*>(strip.data()) - mem.GetL0CBase()),
                int(reinterpret_cast<char*>(full.data()) - mem.GetL0CBase()));
    Vec fixed;  // the address as a template argument
    TASSIGN<0x40>(fixed);
    static float host[512];
    host[3] = 4.5f;
    GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<512, 512, 512, 64, 1>> g;
    TASSIGN(g, host);  // a GlobalTensor takes a pointer to global memory
    std::printf("%d %g\n", int(fixed.data() == base.data()), double(g.GetElement(std::size_t{3})));
    NPU_MEMORY_CLEAR();
    std::printf("%g\n", double(base.GetValue(64 + 5)));
    return 0;
}
"""


@pytest.fixture(scope="module", params=COMPILERS)
def program(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    cxx = require(request.param)
    work = tmp_path_factory.mktemp("memory")
    return build_program(cxx, PROGRAM, work, "m")


def test_regions_aliases_and_windows(program: Path) -> None:
    out = subprocess.run([str(program)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    # alias sees base's write and base the alias's; base at UB offset 0x40; the strip at its byte
    # offset in L0C; the full block at 0; TASSIGN<0x40> lands on base; a GlobalTensor takes a
    # pointer; after NPU_MEMORY_CLEAR the memory reads 0.
    assert out.stdout.split() == ["2.5", "-1", "64", str(112 * 16 * 4), "0", "1", "4.5", "0"]


def test_the_region_size_follows_the_target(program: Path) -> None:
    out = subprocess.run([str(program), "a5_strip_past_a2a3"], capture_output=True, text=True, timeout=60)
    assert out.stdout.split()[:1] == [str(128 * 1024)]
    assert out.returncode != 0 and "survived" not in out.stdout
    assert out.stderr.startswith("PTO runtime error: TASSIGN: the tile must lie within its on-chip memory")


SIZES = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>

using namespace pto;

int main() {
    for (NPUArch arch : {NPUArch::A2A3, NPUArch::A5}) {
        NPU_MEMORY_INIT(arch);
        auto& m = NPUMemoryModel::Instance();
        std::printf("%zu %zu %zu %zu\n", m.Size(NPUMemoryModel::L1), m.Size(NPUMemoryModel::L0A),
                    m.Size(NPUMemoryModel::L0B), m.Size(NPUMemoryModel::L0C));
    }
    return 0;
}
"""


@pytest.mark.parametrize("compiler", COMPILERS)
def test_simulated_memories_are_the_profiles_memories(compiler: str, tmp_path: Path) -> None:
    """The runtime's L1, L0A, L0B and L0C per target have the sizes targets.yaml gives each profile
    (`memories`, which the placement rule checks TASSIGN<Addr> against); its unified buffer is larger
    on purpose (the simulator's scratch, NPUMemoryModel::ub_bytes)."""
    from ptogen.spec.load import load_specs

    from ..helpers import ROOT

    targets = load_specs(ROOT / "specs", ROOT).targets
    exe = build_program(require(compiler), SIZES, tmp_path, "sizes")
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    for line, profile in zip(out.stdout.splitlines(), ("A2A3", "A5"), strict=True):
        mem = targets.profile(profile).memories
        assert [int(n) for n in line.split()] == [mem["Mat"], mem["Left"], mem["Right"], mem["Acc"]], profile
