"""The conv forms several kinds share (TTRANS's and TEXTRACT's `variants: conv`, TIMG2COL's feature
maps, TLOAD's and TSTORE's tensors): every ConvTile layout the pages list has generated runtime
cases, some with DYNAMIC extents, and the MX types run in them on the CPU profile only.

The conversions and extractions run as generated runtime cases (groups `<dtype>_conv`: every
layout pair, filter shape and element type, on the profiles whose variant rules admit them,
against numpy goldens from the layouts' definitions), and each variant rule has a generated
compile-fail case with a legal twin per profile (tests/test_simulator.py::
test_every_rule_has_a_failing_case counts them)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from ..helpers import ROOT

# The ConvTile layouts each conv form's pages (and upstream's CPU simulator) list: TTRANS's layout
# pairs (TTRANS.md, ConvTile and temporary-tile sections), TEXTRACT's filters (FRACTAL_Z with four
# or five extents, FRACTAL_Z_3D), TIMG2COL's feature maps, TLOAD's and TSTORE's tensors.
CONV_FORMS = {
    "ttrans": {("NCHW", "NC1HWC0"), ("NC1HWC0", "NCHW"), ("GNCHW", "GNC1HWC0"), ("GNC1HWC0", "GNCHW"),
               ("NC1HWC0", "FRACTAL_Z"), ("GNC1HWC0", "FRACTAL_Z"), ("NCDHW", "FRACTAL_Z_3D")},
    "textract": {("FRACTAL_Z", 4), ("FRACTAL_Z", 5), ("FRACTAL_Z_3D", 4)},
    "timg2col": {("NC1HWC0", 5), ("NDC1HWC0", 6)},
    "tload": {("NC1HWC0", 4), ("NC1HWC0", 5), ("NDC1HWC0", 6), ("FRACTAL_Z", 4), ("FRACTAL_Z", 5)},
    "tstore": {("NC1HWC0", 4), ("NC1HWC0", 5), ("NDC1HWC0", 6), ("FRACTAL_Z", 4), ("FRACTAL_Z", 5)},
}  # fmt: skip
MX_TYPES = {"float8_e4m3_t", "float8_e5m2_t", "float8_e8m0_t", "float4_e2m1x2_t", "float4_e1m2x2_t"}


def _conv_cases(op: str) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    manifest = json.loads((ROOT / f"generated/tests/{op}/manifest.json").read_text())["manifest"]
    return [(c["label"], g, c) for g in manifest["runtime"] for c in g["cases"]
            if any("conv" in t for t in c["tiles"].values())]  # fmt: skip


@pytest.mark.parametrize("op", sorted(CONV_FORMS))
def test_every_listed_conv_layout_has_generated_cases(op: str) -> None:
    """Each listed layout (with each extent count) runs in the op's generated cases for the CPU
    profile, and some of them give ConvTileShape extents at run time (DYNAMIC, in cases.cpp)."""
    seen: set[tuple[Any, ...]] = set()
    for _, group, case in _conv_cases(op):
        convs = [t["conv"] for t in case["tiles"].values() if "conv" in t]
        if "CPU" not in group["profiles"]:
            continue
        if op == "ttrans":
            by_name = {n: t["conv"][0] for n, t in case["tiles"].items() if "conv" in t}
            seen.add((by_name["src"], by_name["dst"]))
        else:
            seen.update((c[0], len(c) - 1) for c in convs)
    assert CONV_FORMS[op] <= seen, CONV_FORMS[op] - seen
    source = (ROOT / f"generated/tests/{op}/cases.cpp").read_text()
    assert re.search(r"ConvTileShape<[^>]*DYNAMIC", source), f"{op}: no ConvTile with DYNAMIC extents"


@pytest.mark.parametrize(
    "op, types", [("ttrans", MX_TYPES), ("timg2col", {t for t in MX_TYPES if "float8" in t})]
)
def test_mx_types_run_in_the_conv_cases_on_the_cpu_profile_only(op: str, types: set[str]) -> None:
    """The 8-bit MX floats (and, for TTRANS, the twin 4-bit ones) have conv groups, run on the CPU
    profile alone: A2A3 and A5 keep the pages' type lists."""
    groups = {g["group"]: g for _, g, _ in _conv_cases(op)}
    for dtype in types:
        mine = [g for g in groups.values() if set(g["dtypes"].values()) == {dtype}]
        assert mine, f"{op}: no conv group of {dtype}"
        assert all(g["profiles"] == ["CPU"] for g in mine), [(g["group"], g["profiles"]) for g in mine]
