"""The value-range rule kind: TREM/TREMS on A2A3 bound int32 inputs to [-2^24, 2^24]."""

from __future__ import annotations

import json

import numpy as np

from ptogen.testing.golden import inputs, within

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


def test_the_check_and_its_failing_case_are_generated() -> None:
    checks = (ROOT / "generated/include/pto/profiles/a2a3_checks.hpp").read_text()
    assert "sim::values_within<int32_t>(src0, -16777216.0L, 16777216.0L)" in checks
    assert "the int32_t elements of src0 and src1 must lie in [-16777216, 16777216]" in checks
    for other in ("a5_checks.hpp", "cpu_checks.hpp"):
        assert "values_within" not in (ROOT / f"generated/include/pto/profiles/{other}").read_text()
    cases = (ROOT / "generated/tests/trem/cases.cpp").read_text()
    assert "src0.data()[0] = static_cast<typename Tile_src0::DType>(16777217);" in cases
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
