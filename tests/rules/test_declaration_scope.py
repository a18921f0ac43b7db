"""Rules limited to some declarations of an op (`forms`): TCONCAT's index tiles, TMRGSORT's list
forms, the MX products' bias forms, and the run-time rules one declaration checks on its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptogen.importer.build import import_page

from ..helpers import ROOT
from .common import OPS, PROJECT, SPECS, failing_cases, manifest


def test_tconcat_index_types_are_rules_of_the_index_forms() -> None:
    failing = failing_cases("tconcat")
    for profile in ("a2a3", "a5"):
        assert any(k.startswith(f"fail_{profile}_") and k.endswith("_dtype_f1") for k in failing)
        assert any(k.startswith(f"fail_{profile}_") and k.endswith("_same_dtype_f2") for k in failing)
    assert not any(k.startswith("fail_cpu_") and k.endswith(("_f1", "_f2")) for k in failing)
    # Declaration 2 checks its own index tiles against each other, in its own scope.
    expected = [m for k, ms in failing.items() if k.startswith("fail_a5_") and k.endswith("_f2") for m in ms]
    assert "TCONCAT [A5]: src0_idx and dst_idx must have the same DType" in expected


@pytest.mark.parametrize("page", ["TCONCAT.md", "tile/ops/layout-and-rearrangement/tconcat.md"])
def test_rules_of_some_declarations_read_back_with_their_operands(page: Path) -> None:
    spec = import_page(ROOT / "generated/docs/isa" / page, SPECS.targets).spec
    limited = [(c["kind"], c["operands"], c["forms"]) for c in spec["constraints"] if "forms" in c]
    assert ("dtype", ["dst_idx", "src0_idx", "src1_idx"], [2]) in limited
    assert ("same_dtype", ["src0_idx", "src1_idx"], [1, 2]) in limited


def test_tmrgsort_checks_tmp_and_every_list_of_its_list_forms() -> None:
    failing = failing_cases("tmrgsort")
    for k, named in (
        (1, "src0, tmp, src1, src2 and src3"),
        (2, "src0, tmp, src1 and src2"),
        (3, "src0, tmp and src1"),
    ):
        for profile in ("A2A3", "A5"):
            (case,) = [
                c
                for c in failing
                if c.startswith(f"fail_{profile.lower()}_") and c.endswith(f"same_dtype_f{k}")
            ]
            assert failing[case] == [f"TMRGSORT [{profile}]: {named} must have the same DType"]
        assert not any(c.startswith("fail_cpu_") and c.endswith(f"same_dtype_f{k}") for c in failing)
        for kind in ("row_major", "location", "shape_relation"):
            assert any(c.startswith("fail_cpu_") and c.endswith(f"{kind}_f{k}") for c in failing)
    verify = (ROOT / "generated/tests/tmrgsort/verify.cpp").read_text()
    # A list form's compile cases declare its context struct and pass each tile's own type.
    assert "MrgSortExecutedNumList executed_f3;" in verify
    assert "TMRGSORT<profile_cpu, Tile_dst, Tile_tmp_f1, Tile_src0_f1, Tile_src1_f1" in verify


@pytest.mark.parametrize("name", ["tmatmul_mx", "tgemv_mx"])
def test_mx_bias_forms_check_a_one_row_float_bias_tile_and_keep_running(name: str) -> None:
    op = OPS[name]
    upper = op.name
    failing = failing_cases(name)
    for profile in ("a5", "cpu"):
        for k in (4, 5):
            got = sorted(
                m[0] for c, m in failing.items() if c.startswith(f"fail_{profile}_") and c.endswith(f"_f{k}")
            )
            assert got == [
                f"{upper} [{profile.upper()}]: DType must be one of: float",
                f"{upper} [{profile.upper()}]: template shapes must satisfy bias.Rows == 1",
                f"{upper} [{profile.upper()}]: tile location must be TileType::Bias",
            ]
    verify = (ROOT / f"generated/tests/{name}/verify.cpp").read_text()
    legal = verify.split("void legal_a5_f4() {")[1].split("\n}\n")[0]
    assert "Tile<TileType::Bias, float, 1, 16, BLayout::RowMajor, 1, 16>" in legal
    # The runtime cases still call the bias forms under both profiles (the kind's form_profiles).
    cases = (ROOT / f"generated/tests/{name}/cases.cpp").read_text()
    first = cases.split("// overload 4:")[1].split("// overload 5:")[0]
    assert "profile_a5>" in first and "profile_cpu>" in first
    assert op.spec.prose_constraints == [] or all("Bias" not in p.text for p in op.spec.prose_constraints)


def test_tdeinterleave_two_source_form_checks_all_four_valid_shapes() -> None:
    op = OPS["tdeinterleave"]
    form = op.forms[0]
    assert form.has_own_verify and op.forms[1].has_own_verify  # each its own (the one-source ratio)
    (rv,) = form.rules_for("A5", static=False)
    assert form.rules_for("A5", static=True) == [] and form.rules_for("A2A3", static=False) == []
    instr = (ROOT / "generated/include/pto/common/pto_instr.hpp").read_text()
    assert (
        "Profile::template verify_TDEINTERLEAVE_f0<TileDataDst, TileDataSrc>(dst1, dst0, src1, src0);"
        in instr
    )
    fails = {c["case"]: c for c in manifest("tdeinterleave")["runtime_fail"]}
    for profile in ("a5", "cpu"):
        case = fails[f"rf_{profile}_{rv.id}_f0"]
        assert case["rule"] == f"{rv.id}_f0"
        assert case["message"] == (
            f"PTO runtime error: TDEINTERLEAVE [{profile.upper()}]: src0, src1, dst0 and dst1 must have"
            " the same valid row/col"
        )
    cases = (ROOT / "generated/tests/tdeinterleave/cases.cpp").read_text()
    failing = cases.split(f"void rf_cpu_{rv.id}_f0(Prof) {{")[1].split("\n}\n")[0]
    assert "Tile_src1 src1(8, 7);" in failing  # one source a column short, the rest alike


def test_every_runtime_rule_of_one_declaration_has_a_failing_case() -> None:
    for op in PROJECT.ops:
        fails = {c["rule"] for c in manifest(op.spec.short)["runtime_fail"]} if op.spec.intrinsic else set()
        for form in op.forms:
            for p in PROJECT.profiles:
                for rv in form.rules_for(p.name, static=False):
                    assert f"{rv.id}_f{form.index}" in fails, (
                        f"{op.name}: {rv.id} on declaration {form.index}"
                    )


def test_a_form_verify_binds_operands_named_apart_from_their_parameters() -> None:
    form = OPS["tdeinterleave"].forms[1]
    assert form.verify_aliases == [("src", "src0")]
    assert [p.name for p in form.verify_params] == ["dst1", "dst0", "src"]
