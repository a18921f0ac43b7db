"""The barrier op kind (SYNCALL, ptogen/opkinds/barrier.py): both of upstream's declarations, with
their defaults, called as upstream's kernels call them under every profile, and a test plan that
runs every participant set. (Its generated cases run in tests/test_simulator.py.)"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ..compilers import COMPILERS, build_program, require
from .common import manifest

CORES = ("AIVOnly", "AICOnly", "Mix")
MODES = ("Hard", "Soft")

# Upstream's two declarations: SYNCALL<CoreType = AIVOnly>() and SYNCALL<Mode, CoreType = AIVOnly>(
# GlobalData& gmWorkspace, int32_t usedCores = 0), the second for global tensors only.
PROGRAM = r"""
#include <pto/pto-inst.hpp>
#include <cstdint>
#include <cstdio>
#include <type_traits>

using namespace pto;
using Global = GlobalTensor<int32_t, Shape<1, 1, 1, 1, 16>, Stride<16, 16, 16, 16, 1>, Layout::ND>;
using TileT = Tile<TileType::Vec, int32_t, 1, 16>;

template <typename T>
constexpr bool takes_workspace = requires(T& t) { SYNCALL<SyncAllMode::Hard>(t); };
static_assert(takes_workspace<Global> && !takes_workspace<TileT>);
static_assert(std::is_void_v<decltype(SYNCALL())>);
using Plain = void (*)();
static_assert(static_cast<Plain>(&SYNCALL<>) == static_cast<Plain>(&SYNCALL<SyncCoreType::AIVOnly>));
using Workspace = void (*)(Global&, int32_t);
static_assert(static_cast<Workspace>(&SYNCALL<SyncAllMode::Soft>) ==
              static_cast<Workspace>(&SYNCALL<SyncAllMode::Soft, SyncCoreType::AIVOnly>));

int main() {
    int32_t buf[16] = {};
    Global gm(buf);
    SYNCALL();
    SYNCALL<SyncAllMode::Hard>(gm);
%CALLS%
    std::printf("done\n");
    return 0;
}
"""


@pytest.mark.parametrize("profile", ["A2A3", "A5", "CPU"])
def test_both_upstream_declarations_take_every_participant_set(profile: str, tmp_path: Path) -> None:
    calls = [f"    SYNCALL<SyncCoreType::{core}>();" for core in CORES]
    calls += [f"    SYNCALL<SyncAllMode::{m}, SyncCoreType::{c}>(gm, 3);" for m in MODES for c in CORES]
    source = PROGRAM.replace("%CALLS%", "\n".join(calls))
    flags = [f"-DPTO_TARGET_PROFILE=PTO_PROFILE_{profile}"]
    exe = build_program(require(COMPILERS[0]), source, tmp_path, "syncall", flags)
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout == "done\n", run.stdout + run.stderr


def test_the_test_plan_runs_every_participant_set_in_both_forms() -> None:
    labels = {c["label"] for g in manifest("syncall")["runtime"] for c in g["cases"]}
    for core in CORES:
        assert f"hardware form, {core}" in labels
        for mode in MODES:
            assert f"{mode}, {core}, 0 cores" in labels
    assert {f"Soft, {core}, 3 cores" for core in CORES} <= labels
