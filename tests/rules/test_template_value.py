"""Rule kind `template_value`: a template argument takes one of some values (TTRI's
`isUpperOrLower`), optionally only for some element types (TGATHER's A2A3 `int32_t` compare)."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from ptogen.rule_api import TileDecl
from ptogen.rules import PageLine, Rule
from ptogen.rules.template_value import TemplateValueRule

from ..helpers import ROOT
from .common import OPS, PAGE, SPECS, failing_cases, manifest


def test_ttri_checks_its_template_value_on_every_profile() -> None:
    ttri = OPS["ttri"]
    (rv,) = [rv for rv in ttri.rules if isinstance(rv.rule, TemplateValueRule)]
    assert rv.rule.condition(ttri, rv) == "(isUpperOrLower == 0 || isUpperOrLower == 1)"
    assert rv.rule.doc(ttri) == "Template argument `isUpperOrLower` must be `0` or `1`."
    failing = failing_cases("ttri")
    for profile in ("A2A3", "A5", "CPU"):
        case = next(
            k for k in failing if k.startswith(f"fail_{profile.lower()}_") and k.endswith("template_value")
        )
        assert failing[case] == [f"TTRI [{profile}]: template argument isUpperOrLower must be 0 or 1"]
    verify = (ROOT / "generated/tests/ttri/verify.cpp").read_text()
    assert "TTRI<profile_cpu, Tile_dst, 2>(dst" in verify  # the failing kernel passes 2, legal tiles


def test_a_template_value_breaks_by_the_value_alone() -> None:
    rule = TemplateValueRule(param="descending", values=[0, 1, 3])
    tiles = {"dst": TileDecl("dst", "int32_t")}
    broken = rule.break_static(None, tiles)  # type: ignore[arg-type]  # the kind needs no context
    assert broken.values == {"descending": "4"} and broken.tiles == tiles


def test_a_template_value_reads_back_from_its_line() -> None:
    line = PageLine(None, "Template argument isUpperOrLower must be 0 or 1 (lower or upper).")
    assert TemplateValueRule.recognise(line, PAGE) == {
        "param": "isUpperOrLower",
        "values": [0, 1],
        "note": "lower or upper",
    }
    assert TemplateValueRule.recognise(PageLine(None, "dst must be 1 row"), PAGE) is None


def test_a_template_value_names_a_value_parameter_of_the_intrinsic() -> None:
    spec = OPS["ttri"].spec
    wrong = TemplateValueRule(param="TileData", values=[0])
    assert [where for where, _ in wrong.check(spec, SPECS.targets)] == [("param",)]
    twice = TemplateValueRule(param="isUpperOrLower", values=[1, 1])
    assert [where for where, _ in twice.check(spec, SPECS.targets)] == [("values",)]
    with pytest.raises(ValidationError):
        TypeAdapter(Rule).validate_python({"kind": "template_value", "param": "x", "values": []})


def test_tgather_a2a3_compares_int32_with_eq_only() -> None:
    op = OPS["tgather"]
    (rule,) = [
        r
        for r in op.spec.constraints
        if isinstance(r, TemplateValueRule) and r.when_dtype is not None and r.forms == [1]
    ]
    assert rule.profiles == ["A2A3"]
    (rv,) = [rv for rv in op.forms[1].rules_for("A2A3") if rv.rule is rule]
    assert rv.condition == (
        "(!(sim::is_one_of_v<typename TileDataS::DType, int32_t>) || (cmpMode == CmpMode::EQ))"
    )
    assert rule.doc(op) == "Template argument `cmpMode` must be `CmpMode::EQ` when `src0` is `int32_t`."
    failing = failing_cases("tgather")
    (case,) = [
        c for c in failing if c.startswith("fail_a2a3_") and c.endswith(f"{rv.index:02d}_template_value_f1")
    ]
    assert failing[case] == [
        "TGATHER [A2A3]: template argument cmpMode must be CmpMode::EQ when src0 is int32_t"
    ]
    verify = (ROOT / "generated/tests/tgather/verify.cpp").read_text()
    body = verify.split(f"void {case}() {{")[1].split("\n}\n")[0]
    # An int32_t source with GT: a value the unconditional rule allows, so only this rule breaks.
    assert "Tile<TileType::Vec, int32_t" in body.split("Tile_src0 =")[1].split(";")[0]
    assert "CmpMode::GT>(" in body
    assert not any(
        c.startswith(("fail_a5_", "fail_cpu_")) and c.endswith(f"{rv.index:02d}_template_value_f1")
        for c in failing
    )


def test_a_conditioned_template_value_applies_to_its_types_only() -> None:
    op = OPS["tgather"]
    (rule,) = [
        r
        for r in op.spec.constraints
        if isinstance(r, TemplateValueRule) and r.when_dtype is not None and r.forms == [1]
    ]
    rv = op.rule_view(rule)
    assert rule.rule_operands == ["src0"] and rule.listed_dtypes() == ["int32_t"]
    assert rule.broken_by(op, rv, {"src0": "int32_t"}, {"cmpMode": "CmpMode::GT"})
    assert not rule.broken_by(op, rv, {"src0": "float"}, {"cmpMode": "CmpMode::GT"})
    assert not rule.broken_by(op, rv, {"src0": "int32_t"}, {"cmpMode": "CmpMode::EQ"})
    # Outside the values of the unconditional rule when it can: GT, not NE.
    assert (
        rule.outside({"CmpMode": ["EQ", "NE", "LT", "GT"]}, keep=["CmpMode::GT", "CmpMode::EQ"])
        == "CmpMode::GT"
    )
    assert rule.outside({"CmpMode": ["EQ", "NE", "LT", "GT"]}) == "CmpMode::NE"


def test_a_conditioned_template_value_reads_back_and_checks_its_types() -> None:
    line = PageLine(
        "A5",
        "Template argument gatherType must be GatherAxis::GATHER_ROW"
        " when dst and src are int64_t or uint64_t.",
    )
    assert TemplateValueRule.recognise(line, PAGE) == {
        "param": "gatherType",
        "values": ["GatherAxis::GATHER_ROW"],
        "when_dtype": {"operands": ["dst", "src"], "dtypes": ["int64_t", "uint64_t"]},
    }
    spec = OPS["tgather"].spec
    wrong = TemplateValueRule(
        param="cmpMode",
        values=["CmpMode::EQ"],
        forms=[1],
        when_dtype={"operands": ["src0"], "dtypes": ["int33_t"]},
    )  # type: ignore[arg-type]
    assert [where for where, _ in wrong.check(spec, SPECS.targets)] == [("when_dtype", "dtypes", 0)]
    absent = TemplateValueRule(
        param="cmpMode",
        values=["CmpMode::EQ"],
        forms=[1],
        when_dtype={"operands": ["nope"], "dtypes": ["int32_t"]},
    )  # type: ignore[arg-type]
    assert [where for where, _ in absent.check(spec, SPECS.targets)] == [("operands", 0)]


def test_thistogram_uint16_bytes_and_bins_are_rules() -> None:
    failing = failing_cases("thistogram")
    for profile in ("A5", "CPU"):
        (case,) = [
            c for c in failing if c.startswith(f"fail_{profile.lower()}_") and c.endswith("_template_value")
        ]
        assert failing[case] == [
            f"THISTOGRAM [{profile}]: template argument byte must be HistByte::BYTE_0 or HistByte::BYTE_1"
            " when src is uint16_t"
        ]
    fails = {c["case"]: c for c in manifest("thistogram")["runtime_fail"]}
    assert {k for k in fails if k.endswith("_min_valid_extent")} == {
        "rf_a5_07_min_valid_extent",
        "rf_cpu_07_min_valid_extent",
    }
    page = (ROOT / "generated/docs/isa/THISTOGRAM.md").read_text()
    assert "Runtime: `dst.GetValidCol() >= 256` (one bin per byte value)." in page
