"""The value-range rule kind: TREM/TREMS on A2A3 bound int32 inputs to [-2^24, 2^24]."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ptogen.testing.golden import inputs, within

from ..compilers import COMPILERS, build_program, require
from ..helpers import ROOT

BOUND = 16777216


def _groups(op: str) -> dict[str, dict]:
    manifest = json.loads((ROOT / f"generated/tests/{op}/manifest.json").read_text())["manifest"]
    return {g["group"]: g for g in manifest["runtime"]}


def test_within_keeps_every_value_in_range_and_the_bounds_as_extremes() -> None:
    raw = inputs(np.dtype(np.int32), 256, "trem/x")
    kept = within(raw, -BOUND, BOUND)
    assert kept.dtype == np.int32
    assert kept.min() >= -BOUND and kept.max() <= BOUND
    assert {-BOUND, BOUND} <= set(kept[:8].tolist())  # INT32_MIN and INT32_MAX became the bounds
    inside = (raw >= -BOUND) & (raw <= BOUND)
    assert np.array_equal(kept[inside], raw[inside])  # values already in range are untouched
    assert np.array_equal(kept, within(raw, -BOUND, BOUND))  # deterministic
    floats = within(np.array([np.nan, -np.inf, 3.5, 0.25], dtype=np.float32), -1.0, 1.0)
    assert floats.tolist() == [-1.0, -1.0, 1.0, 0.25]


def test_only_the_profile_that_bounds_the_inputs_gets_bounded_data() -> None:
    for op, operands in (("trem", ["src0", "src1"]), ("trems", ["src"])):
        groups = _groups(op)
        ranged = groups["int32_t_ranged"]
        assert ranged["profiles"] == ["A2A3"]
        assert ranged["ranges"] == {n: [-BOUND, BOUND] for n in operands}
        full = groups["int32_t"]
        assert "A2A3" not in full["profiles"] and "ranges" not in full  # A5 and CPU see the whole type


# TREM (a remainder with the sign of the divisor) on int32_t tiles whose src0 holds `argv[1]` at
# (0, 0): within the bound it runs everywhere; beyond it, A2A3 stops with the rule's message.
TREM = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
#include <cstdlib>
using namespace pto;
int main(int, char** argv) {
    using TileT = Tile<TileType::Vec, int32_t, 8, 8>;
    TileT dst, src0, src1, tmp;
    TASSIGN(dst, 0x0);
    TASSIGN(src0, 0x100);
    TASSIGN(src1, 0x200);
    TASSIGN(tmp, 0x300);
    for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 8; ++c) {
            src0.SetElement(r, c, 100 + r);
            src1.SetElement(r, c, 7);
        }
    src0.SetElement(0, 0, std::atoi(argv[1]));
    TREM(dst, src0, src1, tmp);
    std::printf("%d %d\n", int(dst.GetElement(0, 0)), int(dst.GetElement(1, 1)));
    return 0;
}
"""


@pytest.mark.parametrize("profile", ["A2A3", "A5", "CPU"])
def test_a2a3_stops_on_an_element_beyond_the_bound(profile: str, tmp_path: Path) -> None:
    flags = [f"-DPTO_TARGET_PROFILE=PTO_PROFILE_{profile}"]
    exe = build_program(require(COMPILERS[0]), TREM, tmp_path, "trem", flags)
    for value in (BOUND, -BOUND):
        run = subprocess.run([str(exe), str(value)], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0 and run.stdout.split() == [str(value % 7), "3"], run.stderr
    run = subprocess.run([str(exe), str(BOUND + 1)], capture_output=True, text=True, timeout=60)
    if profile == "A2A3":
        assert run.returncode != 0 and not run.stdout
        message = "the int32_t elements of src0 and src1 must lie in [-16777216, 16777216]"
        assert message in run.stderr.splitlines()[0], run.stderr
    else:
        assert run.returncode == 0, run.stderr


def test_the_test_plan_has_the_failing_case() -> None:
    fails = {
        c["case"]: c["message"]
        for c in json.loads((ROOT / "generated/tests/trem/manifest.json").read_text())["manifest"][
            "runtime_fail"
        ]
    }
    assert any(k.endswith("_value_range") and "must lie in" in m for k, m in fails.items())


def test_legal_cases_give_tprelu_a_taller_tmp() -> None:
    """TPRELU on A2A3 needs more valid rows in tmp than in dst: the plan legalises every runtime
    case (for all profiles: tmp is scratch), and only the runtime-fail case breaks it."""
    manifest = json.loads((ROOT / "generated/tests/tprelu/manifest.json").read_text())["manifest"]
    cases = [c for g in manifest["runtime"] for c in g["cases"]]
    assert cases
    for c in cases:
        assert c["tiles"]["tmp"]["valid_rows"] > c["tiles"]["dst"]["valid_rows"], c["label"]
    assert any(f["case"].endswith("_min_valid_extent") for f in manifest["runtime_fail"])
