"""Property-based fuzzing of real specs (ptogen/fuzzing.py): whatever a spec holds, ptogen exits
0 or 2, a bad spec gets `file:line:` errors, nothing crashes or hangs, and no payload lands
unescaped in generated C++, Markdown, JSON or Python. `python -m ptogen.bench --fuzz N` runs
many thousands of cases; this runs a few hundred."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptogen.fuzzing import PAYLOADS, Harness, Outcome, mutate, seed_specs

from ..helpers import ROOT

SEEDS = seed_specs(ROOT)
# Text a spec author (or attacker) might type: every plane, control and bidi characters included.
TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"])
    | st.sampled_from("\0\x1b\u202e\u2066\n|`<>*/\\"),
    max_size=60,
)


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Harness:
    return Harness(ROOT, tmp_path_factory.mktemp("fuzz"))


def test_seeds_are_valid_and_clean(harness: Harness) -> None:
    for rel, text in SEEDS.items():
        outcome = harness.run(rel, text)
        assert outcome.code == 0 and outcome.files > 10 and not outcome.problems(), (rel, outcome)


def test_the_judge_sees_an_injection() -> None:
    # The checks that give this test its teeth: each known way out is caught.
    from ptogen.fuzzing import find_injections

    assert find_injections({"a.hpp": "// x\n#error INJECTED\n"})
    assert find_injections({"a.hpp": 'static_assert(x, "a"); #error INJECTED //");\n'})
    assert find_injections({"a.hpp": "// a comment \\\nint x;\n"})
    assert find_injections({"a.md": "| `%x` | src | `a` <img src=x onerror=alert(1)> `` |\n"})
    assert find_injections({"a.md": "see [x](javascript:alert(1))\n"})
    assert find_injections({"a.md": "text \x1b[31m\n"})
    assert find_injections({"a.json": '{"a": NaN}'})
    assert find_injections({"a.py": "x = 1\nINJECTED()\n"})
    assert not find_injections({"a.hpp": '// #error INJECTED\nf("INJECTED \\" x");\n/* INJECTED */\n'})
    assert not find_injections({"a.md": "`<img src=x>` and\n```\n<script>\n```\n"})


@pytest.mark.thorough
@settings(
    max_examples=200,
    deadline=None,  # each case has its own bound (CASE_SECONDS) inside the harness
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,
)
@given(
    rel=st.sampled_from(sorted(SEEDS)),
    choice=st.integers(0, 1000),
    where=st.integers(0, 10_000),
    payload=st.sampled_from(PAYLOADS) | TEXT,
)
def test_mutated_specs(harness: Harness, rel: str, choice: int, where: int, payload: str) -> None:
    outcome: Outcome = harness.run(rel, mutate(SEEDS[rel], choice, where, payload))
    assert outcome.code in (0, 2), outcome.problems() or outcome
    assert not outcome.problems(), outcome.problems()
