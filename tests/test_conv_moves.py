"""The conv variants of TTRANS and TEXTRACT (`variants: conv` in their specs), and TEXTRACT's
two-destination ND -> 2xNZ form at two different windows. ConvTile operands
select them through the ops' main declarations, they are checked by their own rules
(`check_TTRANS_conv`, `check_TEXTRACT_conv`) and simulated by the kinds' conv paths.

The conversions and extractions run as generated runtime cases (groups `<dtype>_conv` of
generated/tests/ttrans and textract: every layout pair, filter shape and element type, on the
profiles whose variant rules admit them, against numpy goldens from the layouts' definitions), and
each variant rule has a generated compile-fail case with a legal twin per profile (their verify
files; tests/test_simulator.py::test_every_rule_has_a_failing_case counts them). Here: TEXTRACT's
ND -> 2xNZ windows under A5's rules and the CPU's, and the loader's refusal of a variant the op's
kind does not define."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ptogen.errors import SpecErrors
from ptogen.spec.load import load_specs

from .compilers import COMPILERS, build_program, require
from .helpers import ROOT

SENTINEL = -1  # what a destination holds before the call: padding lanes keep it


# TEXTRACT's ND -> 2xNZ form: one row-major half source, two NZ destinations at different offsets
# (dst1 with a partial valid region), called under A5's rules (the page's path) and the CPU's.
ND2XNZ = (32, 64, (16, 32, 16, 32, 0, 16), (16, 16, 13, 9, 8, 3))


def _nd2xnz() -> str:
    rows, cols, w0, w1 = ND2XNZ
    decl = "Tile<TileType::Vec, half, {}, {}, BLayout::ColMajor, {}, {}, SLayout::RowMajor>"
    out = f"""
    {{
        Tile<TileType::Vec, half, {rows}, {cols}> src;
        {decl.format(*w0[:4])} dst0;
        {decl.format(*w1[:4])} dst1;
        for (int k = 0; k < {rows * cols}; ++k) src.data()[k] = static_cast<half>(k % 1021 + 1);"""
    for profile in ("profile_a5", "profile_cpu"):
        out += f"""
        for (int k = 0; k < {w0[0] * w0[1]}; ++k) dst0.data()[k] = static_cast<half>({SENTINEL});
        for (int k = 0; k < {w1[0] * w1[1]}; ++k) dst1.data()[k] = static_cast<half>({SENTINEL});
        profiled::TEXTRACT<{profile}>(dst0, dst1, src, {w0[4]}, {w0[5]}, {w1[4]}, {w1[5]});"""
        for name, w in (("dst0", w0), ("dst1", w1)):
            out += f"""
        {{
            std::vector<double> logical;
            for (int i = 0; i < {w[0]}; ++i)
                for (int j = 0; j < {w[1]}; ++j)
                    logical.push_back(static_cast<double>({name}.GetElement(i, j)));
            show("nd2xnz_{profile}_{name}", logical.data(), {w[0] * w[1]});
        }}"""
    return out + "\n    }"


def _nd2xnz_golden(w: tuple[int, int, int, int, int, int]) -> np.ndarray:
    rows, cols, *_ = ND2XNZ
    src = (np.arange(rows * cols) % 1021 + 1).astype(np.float16).astype(np.float64).reshape(rows, cols)
    want = np.full((w[0], w[1]), float(SENTINEL))
    want[: w[2], : w[3]] = src[w[4] : w[4] + w[2], w[5] : w[5] + w[3]]
    return want.reshape(-1)


def _program() -> str:
    body = _nd2xnz()
    return f"""
#include <pto/pto-inst.hpp>
#include <cstdio>
#include <vector>
using namespace pto;

template <typename T>
void show(const char* name, const T* data, int count) {{
    std::printf("%s", name);
    for (int k = 0; k < count; ++k) std::printf(" %g", static_cast<double>(data[k]));
    std::printf("\\n");
}}

int main() {{{body}
    return 0;
}}
"""


@pytest.mark.parametrize("cxx", COMPILERS)
def test_textract_nd_to_two_nz_windows(cxx: str, tmp_path: Path) -> None:
    exe = build_program(require(cxx), _program(), tmp_path, "conv_moves")
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    got = {line.split()[0]: np.array(line.split()[1:], dtype=np.float64) for line in run.stdout.splitlines()}
    for profile in ("profile_a5", "profile_cpu"):
        for name, w in (("dst0", ND2XNZ[2]), ("dst1", ND2XNZ[3])):
            key = f"nd2xnz_{profile}_{name}"
            assert np.array_equal(got[key], _nd2xnz_golden(w)), key


def test_a_variant_the_kind_does_not_define_is_refused(spec_project: Path) -> None:
    spec = spec_project / "specs/ops/layout_and_rearrangement/ttrans.yaml"
    text = spec.read_text()
    spec.write_text(text.replace("  - name: conv\n", "  - name: img2col\n", 1))
    line = text[: text.index("  - name: conv\n")].count("\n") + 1
    with pytest.raises(SpecErrors) as err:
        load_specs(spec_project / "specs", spec_project)
    assert (
        f"ttrans.yaml:{line}: variants[0].name: transpose ops have no variant 'img2col' (known: conv)"
        in str(err.value)
    )


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
