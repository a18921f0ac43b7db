"""Rule kind `template_compare`: a value template argument compared with one constant (GridPipe's
`Dist >= 1` on TPUSH and TPOP, `TPUSH<GridDirection::SOURCE>` refused), where a list of values does
not fit; compile errors under the profiles that state it, the page line read back."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from ptogen.rule_api import TileDecl
from ptogen.rules import PageLine, Rule
from ptogen.rules.template_compare import TemplateCompareRule

from ..helpers import ROOT
from .common import OPS, PAGE, SPECS, failing_cases


def _rules(op: str) -> list[TemplateCompareRule]:
    return [r for r in OPS[op].spec.constraints if isinstance(r, TemplateCompareRule)]


def test_the_gridpipe_forms_state_their_template_arguments_as_rules() -> None:
    push = OPS["tpush"]
    source, dist = _rules("tpush")
    assert (source.param, source.compare, source.constant) == ("Direction", "!=", "GridDirection::SOURCE")
    assert (dist.param, dist.compare, dist.constant) == ("Dist", ">=", 1)
    assert source.profiles == dist.profiles == ["A2A3", "CPU"]  # A5 does not offer the forms
    (rv,) = [rv for rv in push.forms[5].rules_for("CPU", static=True) if rv.rule is dist]
    assert rv.condition == "Dist >= 1"
    assert source.doc(push) == (
        "Template argument `Direction` must not be `GridDirection::SOURCE` (the host's queue is only popped)."
    )
    (pop_dist,) = _rules("tpop")
    assert pop_dist.forms == [4] and pop_dist.text(OPS["tpop"]) == "template argument Dist must be at least 1"


@pytest.mark.parametrize("profile", ["A2A3", "CPU"])
def test_each_rule_fails_to_compile_with_its_message(profile: str) -> None:
    failing = failing_cases("tpush")
    got = {
        k: v
        for k, v in failing.items()
        if k.startswith(f"fail_{profile.lower()}_") and "template_compare" in k
    }
    assert sorted(m for v in got.values() for m in v) == [
        f"TPUSH [{profile}]: template argument Direction must not be GridDirection::SOURCE",
        f"TPUSH [{profile}]: template argument Dist must be at least 1",
    ]
    verify = (ROOT / "generated/tests/tpush/verify.cpp").read_text()
    low = profile.lower()
    # The failing kernels pass the rejected value and nothing else wrong; the runtime asserts nothing.
    assert f"TPUSH<profile_{low}, GridDirection::SOURCE, 1, GridPipe<" in verify
    assert f"TPUSH<profile_{low}, GridDirection::EAST, 0, GridPipe<" in verify
    grid = (ROOT / "ptogen/runtime/include/pto/cpu/grid_pipe.hpp").read_text()
    assert "Dist >= 1" not in grid and 'GridDirection::SOURCE, "' not in grid
    assert [m for k, m in failing_cases("tpop").items() if "template_compare" in k and low in k] == [
        [f"TPOP [{profile}]: template argument Dist must be at least 1"]
    ]


def test_the_value_broken_is_the_nearest_one_rejected() -> None:
    tiles = {"tile": TileDecl("tile", "float")}
    for compare, value, rejected in (
        (">=", 1, "0"),
        (">", 1, "1"),
        ("<=", 4, "5"),
        ("<", 4, "4"),
        ("!=", 3, "3"),
    ):
        rule = TemplateCompareRule(param="Dist", compare=compare, constant=value)
        broken = rule.break_static(None, tiles)  # type: ignore[arg-type]  # the kind needs no context
        assert broken.values == {"Dist": rejected} and broken.tiles == tiles
        assert rule.broken_by(None, None, {}, {"Dist": rejected})  # type: ignore[arg-type]
        assert not rule.broken_by(None, None, {}, {"Dist": str(value + (2 if compare[0] == ">" else -2))})  # type: ignore[arg-type]
    enum = TemplateCompareRule(param="Direction", compare="!=", constant="GridDirection::SOURCE")
    assert enum.break_static(None, tiles).values == {"Direction": "GridDirection::SOURCE"}  # type: ignore[arg-type]


@pytest.mark.parametrize("ticks", [True, False])
def test_the_page_line_reads_back(ticks: bool) -> None:
    for rule in (*_rules("tpush"), *_rules("tpop")):
        line = rule.doc(OPS["tpush"])
        line = line if ticks else line.replace("`", "")  # the import reads lines without their ticks
        found = TemplateCompareRule.recognise(PageLine("CPU", line), PAGE)
        assert found == {
            "param": rule.param,
            "compare": rule.compare,
            "constant": rule.constant,
            "note": rule.note,
        }
    assert (
        TemplateCompareRule.recognise(PageLine(None, "Template argument mode must be 0 or 1."), PAGE) is None
    )


def test_the_rule_names_a_value_parameter_and_orders_integers_only() -> None:
    spec = OPS["tpush"].spec
    wrong = TemplateCompareRule(param="Pipe", compare=">=", constant=1, forms=[5])
    assert [where for where, _ in wrong.check(spec, SPECS.targets)] == [("param",)]
    main_only = TemplateCompareRule(param="Dist", compare=">=", constant=1, forms=[0])  # no Dist there
    assert [where for where, _ in main_only.check(spec, SPECS.targets)] == [("param",)]
    ordered = TemplateCompareRule(param="Direction", compare=">=", constant="GridDirection::EAST", forms=[5])
    assert [where for where, _ in ordered.check(spec, SPECS.targets)] == [("constant",)]
    with pytest.raises(ValidationError):
        TypeAdapter(Rule).validate_python(
            {"kind": "template_compare", "param": "Dist", "compare": "==", "constant": 1}
        )
