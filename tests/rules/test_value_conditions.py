"""Rules that apply under a template value only (`when`): TQUANT's interleave form, whose
`template_value`, `shape_multiple` and `derived_extent` rules replace the simulator's asserts."""

from __future__ import annotations

from ptogen.rule_api import TileDecl
from ptogen.rules import PageContext, PageLine
from ptogen.rules.derived_extent import DerivedExtentRule
from ptogen.rules.shape_multiple import ShapeMultipleRule
from ptogen.rules.template_value import TemplateValueRule

from ..helpers import ROOT
from .common import OPS, failing_cases, manifest


def test_tquant_interleave_form_rules_replace_the_simulator_static_asserts() -> None:
    op = OPS["tquant"]
    failing = failing_cases("tquant")
    texts = [
        "template argument grp_axis must be 0 when interleave is true",
        "the static rows of src must be a multiple of 64 when interleave is true",
        "exp::Rows must be src::Rows, divided by 64 rounded up when interleave is true",
        "exp::Cols must be src::Cols, times 2, rounded up to a multiple of 32 when interleave is true",
    ]
    for profile in ("A5", "CPU"):
        got = sorted(
            m[0] for c, m in failing.items() if c.startswith(f"fail_{profile.lower()}_") and c.endswith("_f3")
        )
        assert got == sorted(f"TQUANT [{profile}]: {t}" for t in texts)
    assert not any(c.endswith("_f3") for c in failing if c.startswith("fail_a2a3_"))
    verify = (ROOT / "generated/tests/tquant/verify.cpp").read_text()
    legal = verify.split("void legal_a5_f3() {")[1].split("\n}\n")[0]
    assert "profile_a5, 0, MxQuantAlg::OcpMxFp8E4M3, true," in legal  # the interleave form itself
    assert "uint8_t, 1, 64," in legal and "float, 64, 32," in legal  # exp ceil(64/64) x align32(2 * 32)
    sim = (ROOT / "generated/include/pto/cpu/sim/tquant.hpp").read_text()
    assert "static_assert(TSrc::Rows % 64 == 0" not in sim and "grp_axis == 0, " not in sim
    # The runtime interleave cases keep the rules.
    for group in manifest("tquant")["runtime"]:
        for case in group["cases"]:
            if case["attrs"].get("form") == "3":
                src, exp = case["tiles"]["src"], case["tiles"]["exp"]
                assert case["attrs"]["axis"] == "0" and src["rows"] % 64 == 0
                assert exp["rows"] == -(-src["rows"] // 64) and exp["cols"] == -(-2 * src["cols"] // 32) * 32
    assert all("grp_axis" not in p.text for p in op.spec.prose_constraints)


def test_value_conditioned_rules_break_under_their_value_and_read_back() -> None:
    when = {"param": "interleave", "equals": "true"}
    page = PageContext([], {"A5", "CPU"}, ["dst", "src", "exp"], True)
    tv = TemplateValueRule.model_validate({"param": "grp_axis", "values": [0], "when": when})
    assert tv.break_static(None, {}).values == {"interleave": "true", "grp_axis": "1"}  # type: ignore[arg-type]
    line = PageLine(None, "Template argument grp_axis must be 0 when interleave is true.")
    assert TemplateValueRule.recognise(line, page) == tv.model_dump(exclude_defaults=True, exclude={"kind"})
    sm = ShapeMultipleRule.model_validate({"operand": "src", "extent": "Rows", "multiple": 64, "when": when})
    tiles = {n: TileDecl(n, "float", 2, 32, 2, 32) for n in ("src", "dst")}
    legal = sm.legalise(tiles)
    assert legal["src"].rows == legal["dst"].rows == 64  # tiles of one static shape stay alike
    broken = sm.break_static(None, legal)  # type: ignore[arg-type]
    assert broken.tiles["src"].rows == 32 and broken.values == {"interleave": "true"}
    line = PageLine(None, "Static multiple: src::Rows % 64 == 0 when interleave is true.")
    assert ShapeMultipleRule.recognise(line, page) == sm.model_dump(exclude_defaults=True, exclude={"kind"})
    de = DerivedExtentRule.model_validate(
        {
            "operand": "exp",
            "extent": "Cols",
            "of": "src",
            "of_extent": "Cols",
            "times": 2,
            "align": 32,
            "when": when,
        }
    )
    assert [de.want(c) for c in (8, 16, 32, 40)] == [32, 32, 64, 96]
    fitted = de.legalise(
        {"src": TileDecl("src", "float", 64, 40, 64, 40), "exp": TileDecl("exp", "uint8_t", 1, 32, 1, 32)}
    )
    assert fitted["exp"].cols == 96
    assert de.break_static(None, fitted).tiles["exp"].cols == 128  # type: ignore[arg-type]
    line = PageLine(None, de.doc(OPS["tquant"]).replace("`", ""))
    assert DerivedExtentRule.recognise(line, page) == de.model_dump(exclude_defaults=True, exclude={"kind"})
